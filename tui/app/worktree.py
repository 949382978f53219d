"""The working tree for the status bar and the diff view, through the git CLI (never GitPython).

Nothing blocks the UI: status counts and the unstaged and staged diffs come from async subprocesses;
staging / unstaging the hunks the developer accepted goes through tui.git.repo.Repo in a thread.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class TreeState:
    branch: str
    dirty: int
    staged: int
    unstaged_diff: str
    staged_diff: str


def counts(out: str) -> tuple[str, int, int]:
    """Branch, dirty (unstaged + untracked + unmerged) and staged counts from ``git status --porcelain=v2
    --branch -z`` (parsed by tui.git.repo.parse_status, as everywhere)."""
    from tui.git.repo import parse_status

    st = parse_status(out)
    branch = "(detached)" if st.branch is None and st.head is not None else (st.branch or "")
    return branch, len(st.unstaged) + len(st.untracked) + len(st.unmerged), len(st.staged) + len(st.unmerged)


async def git(repo: Path, *args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    """Run git (through the git façade: it runs on the host); cancelling the caller kills the process."""
    from tui.git.facade import GitRepo

    code, out, err = await GitRepo(repo).run_async(*args, input=stdin, timeout=120)
    return code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


async def tree_state(repo: Path) -> TreeState:
    (_, status, _), (_, unstaged, _), (_, staged, _) = await asyncio.gather(
        git(repo, "status", "--porcelain=v2", "--branch", "-z"),
        git(repo, "diff", "--no-color", "--no-ext-diff"),
        git(repo, "diff", "--cached", "--no-color", "--no-ext-diff"),
    )
    branch, dirty, staged_count = counts(status)
    return TreeState(branch, dirty, staged_count, unstaged, staged)


async def stage_hunks(repo: Path, diff: str, accepted: set[int], *, unstage: bool) -> str:
    """Stage (or unstage) the accepted hunks of ``diff`` the engine's way (Repo.stage_hunks / unstage_hunks, off
    the UI thread); returns "" or the error's message."""
    from tui.git.diffs import select_hunks
    from tui.git.repo import Repo
    from tui.protocol.errors import DevagentError

    if not accepted or not select_hunks(diff, accepted).strip():
        return "no hunks accepted: nothing to do"

    def apply() -> None:
        git = Repo(repo)
        (git.unstage_hunks if unstage else git.stage_hunks)(diff, accepted)

    try:
        await asyncio.to_thread(apply)
    except DevagentError as err:
        return err.message
    return ""
