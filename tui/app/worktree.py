"""The working tree for the status bar and the diff view, through the git CLI (never GitPython).

Async subprocesses only, so the UI never blocks: status counts, the unstaged and staged
diffs, and staging / unstaging the hunks the developer accepted in the diff view.
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


def parse_porcelain(out: str) -> tuple[str, int, int]:
    """Branch, dirty (unstaged + untracked) and staged counts from ``git status --porcelain=v2 --branch -z``."""
    branch, dirty, staged = "", 0, 0
    skip = False
    for entry in out.split("\0"):
        if skip:
            skip = False
            continue
        if entry.startswith("# branch.head "):
            branch = entry[len("# branch.head "):]
        elif entry[:2] in ("1 ", "2 ", "u "):
            xy = entry[2:4]
            staged += xy[0] not in ".?"
            dirty += xy[1] != "."
            skip = entry.startswith("2 ")  # renames carry the original path as the next entry
        elif entry.startswith("? "):
            dirty += 1
    return branch, dirty, staged


async def git(repo: Path, *args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    """Run git (through gitsafe: it runs on the host); cancelling the caller kills the process."""
    from tui.git import gitsafe

    code, out, err = await gitsafe.run_async(repo, *args, input=stdin, timeout=120)
    return code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


async def tree_state(repo: Path) -> TreeState:
    (_, status, _), (_, unstaged, _), (_, staged, _) = await asyncio.gather(
        git(repo, "status", "--porcelain=v2", "--branch", "-z"),
        git(repo, "diff", "--no-color", "--no-ext-diff"),
        git(repo, "diff", "--cached", "--no-color", "--no-ext-diff"),
    )
    branch, dirty, staged_count = parse_porcelain(status)
    return TreeState(branch, dirty, staged_count, unstaged, staged)


async def stage_hunks(repo: Path, diff: str, accepted: set[int], *, unstage: bool) -> str:
    """Stage (or unstage) the accepted hunks of ``diff``; returns "" or git's error message."""
    from tui.git.diffs import select_hunks

    patch = select_hunks(diff, accepted)
    if not patch.strip() or not accepted:
        return "no hunks accepted: nothing to do"
    args = ["apply", "--cached", "--recount", "--whitespace=nowarn"] + (["--reverse"] if unstage else []) + ["-"]
    code, _, err = await git(repo, *args, stdin=patch.encode("utf-8", "surrogateescape"))
    return "" if code == 0 else (err.strip() or f"git apply exited {code}")
