"""read_file(path): the file's text, bounded to the file budget."""

from __future__ import annotations

import asyncio
from typing import Any

from tui.safety.paths import read_bounded, resolve_in_repo
from tui.symbols import language_of
from tui.tools.base import ToolContext, ToolResult, ToolSpec, params
from tui.tools.support.common import CHARS_PER_TOKEN, bound, did_you_mean, str_arg

MAX_BYTES = 2_000_000


async def run(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    rel = str_arg(args, "path")
    target = resolve_in_repo(ctx.repo, rel)
    if target.is_dir():
        return ToolResult(False, f"{rel} is a directory; use list_files(path=\"{rel}\")", f"{rel}: a directory")
    note = ""
    if not target.exists():
        hint = await did_you_mean(ctx.repo, rel)
        only = hint.removeprefix(" Did you mean: ").removesuffix("?")
        if not hint or "," in only or only.rsplit("/", 1)[-1] != rel.rsplit("/", 1)[-1]:
            return ToolResult(False, f"{rel} does not exist.{hint or ' Use list_files to see the files.'}",
                              f"{rel}: not found")
        # Reading is harmless: when exactly one file has that name, show it (small models guess directories).
        note, rel, target = f"[{rel} does not exist; this is {only}]\n", only, resolve_in_repo(ctx.repo, only)
    text = await ctx.read_text(target) if ctx.read_text else None  # an editor's unsaved buffer (ACP)
    if text is not None:
        text = text[:MAX_BYTES]
    else:
        data, size = await asyncio.to_thread(read_bounded, ctx.repo, rel, MAX_BYTES)  # never blocks, never all
        if b"\0" in data[:8000]:
            return ToolResult(False, f"{rel} is a binary file ({size} bytes); not shown.", f"{rel}: binary")
        if size > len(data):
            note += f"[{rel} is {size} bytes; this is its first {len(data)}]\n"
        text = data.decode("utf-8", "replace")
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    budget = ctx.config.limits.file_tokens * CHARS_PER_TOKEN
    shown = bound(text, budget, "the file")
    if len(text) > budget and language_of(rel) != "none":  # counting and locating need no full read
        shown += f"\n[Only part of {rel} is shown: outline(path=\"{rel}\") lists all its definitions with counts.]"
    return ToolResult(True, note + shown, f"read {rel} ({lines} lines)")


SPEC = ToolSpec(
    name="read_file",
    description="Read a text file in the repository.",
    parameters=params(["path"], path={"type": "string", "description": "path relative to the repo root"}),
    read_only=True,
    run=run,
)
