"""search(pattern, path?): `git grep` over every tracked file (ignored or not) and the untracked files that are
not ignored, with line numbers."""

from __future__ import annotations

from typing import Any

from tui.safety.paths import resolve_in_repo
from tui.safety.regex_check import pattern_problem
from tui.tools.base import ToolContext, ToolResult, ToolSpec, params
from tui.tools.support.common import git_out, str_arg

MAX_LINES = 200
BASE = ("grep", "-n", "-I", "--full-name", "-i")


async def _grep(ctx: ToolContext, kind: str, pattern: str, spec: str) -> tuple[int, str]:
    """Every tracked file, ignored or not, then the untracked files that are not ignored. ``--untracked`` alone
    leaves out tracked files that .gitignore matches (it walks the directory with the ignore rules), so the
    tracked ones are searched without it and its lines for files already searched are dropped."""
    code, tracked = await git_out(ctx.repo, *BASE, kind, "-e", pattern, "--", spec)
    if code > 1:
        return code, tracked
    more, untracked = await git_out(ctx.repo, *BASE, "--untracked", kind, "-e", pattern, "--", spec)
    if more > 1:
        return more, untracked
    seen = set(tracked.splitlines())
    extra = [line for line in untracked.splitlines() if line not in seen]
    out = tracked + "".join(f"{line}\n" for line in extra)
    return (0 if out.strip() else 1), out


async def run(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    pattern = str_arg(args, "pattern")
    if not pattern:
        return ToolResult(False, "pattern must not be empty", "search: empty pattern")
    problem = pattern_problem(pattern)  # git grep -E runs on the host: no backtracking, no runaway compile
    if problem:
        return ToolResult(False, f"search pattern refused: {problem}, which git grep can take minutes on. Search for "
                          "a plainer pattern (no \\1, small {m,n} counts) or a literal part of it.", "search: pattern refused")
    rel = str_arg(args, "path", required=False, default="").strip()
    spec = "."
    if rel and rel not in (".", "./"):
        spec = str(resolve_in_repo(ctx.repo, rel).relative_to(ctx.repo))
    code, out = await _grep(ctx, "-E", pattern, spec)
    if code > 1:  # not a valid regex: search for the literal text instead
        code, out = await _grep(ctx, "-F", pattern, spec)
    if code == 1 or not out.strip():
        return ToolResult(True, f"no matches for {pattern!r}", f"search {pattern!r}: no matches")
    if code > 1:
        return ToolResult(False, out.strip(), "search failed")
    lines = out.splitlines()
    text = "\n".join(line[:300] for line in lines[:MAX_LINES])
    if len(lines) > MAX_LINES:
        text += f"\n[... {len(lines) - MAX_LINES} more matches; narrow the pattern or path]"
    return ToolResult(True, text, f"search {pattern!r}: {len(lines)} matches")


SPEC = ToolSpec(
    name="search",
    description="Search file contents (regex, case-insensitive) with git grep.",
    parameters=params(
        ["pattern"],
        pattern={"type": "string", "description": "text or regex to find"},
        path={"type": "string", "description": "limit to this directory or file"},
    ),
    read_only=True,
    run=run,
)
