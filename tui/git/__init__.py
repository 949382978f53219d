"""Every host-side git call: the hardened runner, the repo, diffs and hunks, checkpoints, hooks, commit messages, review."""
