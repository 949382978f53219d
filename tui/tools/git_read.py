"""git_status(), git_diff(staged?), git_log(n?): read-only views of the repository."""

from __future__ import annotations

from typing import Any

from tui.tools.base import ToolContext, ToolResult, ToolSpec, params
from tui.tools.support.common import bool_arg, git_out, int_arg


async def status(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    code, out = await git_out(ctx.repo, "status", "--short", "--branch")
    lines = out.strip().splitlines()
    changed = max(0, len(lines) - 1)
    return ToolResult(code == 0, out.strip() or "clean", f"git status: {changed} changed")


async def diff(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    staged = bool_arg(args, "staged")
    argv = ["diff", "--no-ext-diff", "--stat", "--patch"] + (["--cached"] if staged else [])
    code, out = await git_out(ctx.repo, *argv)
    what = "staged" if staged else "unstaged"
    if code == 0 and not out.strip():
        return ToolResult(True, f"no {what} changes", f"git diff: no {what} changes")
    return ToolResult(code == 0, out, f"git diff ({what})")


async def log(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    n = int_arg(args, "n", 10, hi=200) or 10
    code, out = await git_out(ctx.repo, "log", f"-n{n}", "--format=%h %ad %an: %s", "--date=short")
    if code != 0 and "does not have any commits" in out:
        return ToolResult(True, "no commits yet", "git log: no commits")
    return ToolResult(code == 0, out.strip(), f"git log: {len(out.splitlines())} commits")


STATUS = ToolSpec("git_status", "Show changed and untracked files.", params(), True, run=status)
DIFF = ToolSpec(
    "git_diff", "Show uncommitted changes (staged=true for the index).",
    params(staged={"type": "boolean", "description": "show staged changes"}), True, run=diff,
)
LOG = ToolSpec(
    "git_log", "Show recent commits.", params(n={"type": "integer", "description": "how many (default 10)"}),
    True, run=log,
)
SPECS = [STATUS, DIFF, LOG]
