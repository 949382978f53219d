"""`devagent undo [CHECKPOINT]`: show what restoring a checkpoint changes, then restore it (undo of undo works)."""

from __future__ import annotations

import argparse
import sys

from tui.safety.literal import literal_warnings, visible

HELP = "restore the working tree to a checkpoint (default: the newest), after showing the diff"

EPILOG = """\
A checkpoint is taken before every approved edit and command, so the newest
one is the state before the last thing devagent did. Restoring first saves the
current state as a new checkpoint: run `devagent undo` again to undo the undo.
Only the working tree changes; the index (what you staged), HEAD and branches
are left alone. Ignored files are not covered by checkpoints.
CHECKPOINT is a name from `devagent checkpoints` (SESSION/N), its position
there (1 = newest) or a commit id prefix."""


def register(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("checkpoint", nargs="?", help="which checkpoint (default: the newest)")
    parser.add_argument("--yes", "-y", action="store_true", help="restore without asking (for scripts)")
    parser.add_argument("--stat", action="store_true", help="show only the list of files, not the whole diff")


def run(args: argparse.Namespace) -> int:
    from tui.git.repo import find_repo
    from tui.git import checkpoints
    from tui.git.diffs import DiffIndex
    from tui.git.undoplan import describe, plural, saved_note
    from tui.protocol.errors import RepoError
    from tui.git.repo import Repo

    repo = Repo(find_repo())
    repo.ensure_writable()
    cp = checkpoints.resolve(repo, args.checkpoint)
    seen = checkpoints.preview(repo, cp)
    print(f"Checkpoint {cp.short}: {visible(cp.label)}")
    if not seen.files:
        print("The working tree already matches it; nothing to undo.")
        return 0
    if args.stat:
        for f in DiffIndex.from_text(seen.diff).files:
            print(f"  {f.status:<9} {visible(f.path)}")
    else:  # what is about to be restored, shown literally: escapes for control and bidi characters
        diff = seen.diff
        sys.stdout.write(visible(diff if diff.endswith("\n") else diff + "\n"))
    for warning in literal_warnings(seen.diff):
        print(f"!! {warning}")
    if seen.problem:
        raise RepoError(seen.problem)
    for line in describe(seen.committed, len(seen.files)):
        print(visible(line))
    if seen.save:
        print(visible(saved_note(seen.save)))
    print(f"Restoring changes {plural(len(seen.files), 'file')} in the working tree (ignored files are not covered).")
    if not args.yes:
        if not sys.stdin.isatty():
            raise RepoError("devagent undo needs your approval, and there is no terminal to ask on.",
                            "Run it in a terminal, or pass --yes to restore without asking.")
        try:
            answer = input("Restore this checkpoint? [y/N]: ").strip().lower()
        except EOFError:
            answer = ""
        if answer not in ("y", "yes"):
            print("Not restored; nothing changed.")
            return 1
    before = checkpoints.restore(repo, cp)
    print(f"Restored {cp.short}. The state before this undo is checkpoint {before.short}; "
          f"`devagent undo {before.short}` brings it back.")
    return 0
