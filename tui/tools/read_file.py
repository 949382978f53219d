"""read_file(path): the file's text, bounded to the file budget.

A file larger than the budget shows the definitions the current request names (``DistFacade.project_name``)
rather than its first lines: a 1.5B model at a 4k context asked to change a method in a 528-line module
read the imports and the end of the file and never saw the method (a probe on pluggy, outside the benchmark).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from tui.safety.paths import read_bounded, resolve_in_repo
from tui.symbols import language_of, outline_of, walk
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
    shown = named_parts(rel, text, str(ctx.extras.get("request") or ""), budget) or bound(text, budget, "the file")
    if len(text) > budget and language_of(rel) != "none":  # counting and locating need no full read
        shown += f"\n[Only part of {rel} is shown: outline(path=\"{rel}\") lists all its definitions with counts.]"
    return ToolResult(True, note + shown, f"read {rel} ({lines} lines)")


def named_parts(rel: str, text: str, request: str, budget: int) -> str:
    """The definitions of an over-budget ``text`` that ``request`` names, each with its line numbers, within
    ``budget`` characters ('' when the file fits, or the request names none of its definitions)."""
    if len(text) <= budget or not request or language_of(rel) == "none":
        return ""
    words = set(re.findall(r"[A-Za-z_$][\w$]{2,}", request))
    named = [s for s in walk(outline_of(rel, text).symbols) if s.name in words and s.exact]
    if not named:
        return ""
    # the most specific first: DistFacade.project_name before DistFacade, a method named with its class
    named.sort(key=lambda s: (-sum(part in words for part in s.qualname.split(".")), s.end - s.start))
    lines = text.splitlines()
    spans: list[tuple[int, int, str]] = []  # a chosen definition's own lines, never overlapping another's
    used = 0
    for sym in named:
        lo, hi = sym.start, min(len(lines), sym.end)
        if any(lo <= b and a <= hi for a, b, _ in spans):
            continue
        size = sum(len(line) + 1 for line in lines[lo - 1:hi])
        if used + size > budget:
            if spans:
                continue
            hi = lo  # a definition larger than the budget: its first lines
            while hi < len(lines) and used + len(lines[hi]) + 1 < budget:
                used += len(lines[hi]) + 1
                hi += 1
            size = 0
        spans.append((lo, hi, sym.qualname))
        used += size
    windows: list[list] = []  # with a line of context before each; merged when only blank lines part them
    for lo, hi, name in sorted(spans):
        lo = max(1, lo - 1)
        if windows and not any(line.strip() for line in lines[windows[-1][1]:lo - 1]):  # only blanks between
            windows[-1][1], windows[-1][2] = max(hi, windows[-1][1]), f"{windows[-1][2]}, {name}"
        else:
            windows.append([lo, hi, name])
    parts = [f"[{rel} lines {lo}-{hi} of {len(lines)}: {name}, which the request names]\n" +
             "\n".join(lines[lo - 1:hi]) for lo, hi, name in windows]
    return "\n".join(parts) + f"\n[The rest of {rel} is not shown.]"


SPEC = ToolSpec(
    name="read_file",
    description="Read a text file in the repository.",
    parameters=params(["path"], path={"type": "string", "description": "path relative to the repo root"}),
    read_only=True,
    run=run,
)
