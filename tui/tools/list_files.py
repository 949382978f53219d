"""list_files(path?): tracked and untracked (not ignored) files, from git."""

from __future__ import annotations

from typing import Any

from tui.safety.paths import resolve_in_repo
from tui.tools.base import ToolContext, ToolResult, ToolSpec, params
from tui.tools.support.common import did_you_mean, git_out, str_arg
from tui.protocol.words import plural

MAX_FILES = 300


async def run(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    rel = str_arg(args, "path", required=False, default="").strip() or "."
    target = resolve_in_repo(ctx.repo, rel) if rel not in (".", "./") else ctx.repo
    spec = str(target.relative_to(ctx.repo)) if target != ctx.repo else "."
    code, out = await git_out(ctx.repo, "ls-files", "--cached", "--others", "--exclude-standard", "--deduplicate", "--", spec)
    if code != 0:
        return ToolResult(False, out.strip(), "list_files failed")
    files = sorted(set(line for line in out.splitlines() if line))
    if not files:
        if target.is_file():
            return ToolResult(True, spec, f"{rel} is a file")
        hint = await did_you_mean(ctx.repo, rel)
        return ToolResult(False, f"{rel} does not exist.{hint} Call list_files() without a path to see every file.",
                          f"{rel}: not found")
    shown = files[:MAX_FILES]
    text = "\n".join(shown)
    if len(files) > MAX_FILES:
        text += f"\n[... {len(files) - MAX_FILES} more files; pass a path to narrow down]"
    elif len(files) > 5:  # counted here: asked how many test files, the 1.5B model said 14 of a list of 15
        text += f"\n[{len(files)} files" + (f" under {spec}]" if spec != "." else "]")
    return ToolResult(True, text, f"listed {plural(len(files), 'file')} under {rel}")


SPEC = ToolSpec(
    name="list_files",
    description="List files in the repository (optionally under a directory).",
    parameters=params(path={"type": "string", "description": "directory relative to the repo root"}),
    read_only=True,
    run=run,
)
