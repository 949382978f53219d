"""outline(path, symbol?): a file's definitions with line numbers and counts; or one definition's code.

"How many methods does Config have" and "where is parse" then need no full read, which a 4k
context cannot afford for a large file. With ``symbol`` the definition's exact source comes back
(a cheap exact read; lines are not numbered, so the text can be copied into edit_file). A
directory as ``path`` lists each file's counts, or, with ``symbol``, where it is defined.
"""

from __future__ import annotations

import asyncio
import difflib
import json
from typing import Any

from tui.safety.parsing import TooDeep, loads_json
from tui.safety.paths import resolve_in_repo
from tui.symbols import Outline, find, language_of, outline_of, walk
from tui.symbols.render import header, render
from tui.tools.base import ToolContext, ToolResult, ToolSpec, params
from tui.tools.support.common import CHARS_PER_TOKEN, did_you_mean, repo_files, str_arg
from tui.tools.support.edits import read_current

MAX_FILE_BYTES = 2_000_000
MAX_DIR_FILES = 400
MAX_DIR_FILE_BYTES = 300_000


def _text_of(ctx: ToolContext, rel: str, limit: int = MAX_FILE_BYTES) -> str | None:
    """The file's text, or None when it is missing, binary or too large."""
    target = resolve_in_repo(ctx.repo, rel)
    if not target.is_file() or target.stat().st_size > limit:
        return None
    _, data = read_current(ctx, rel)
    if data is None or b"\0" in data[:8000]:
        return None
    return data.decode("utf-8", "replace")


def show_symbol(outline: Outline, text: str, wanted: str, budget: int) -> ToolResult:
    """The source of one definition (all of a same-named group), bounded to ``budget`` characters."""
    found = find(outline.symbols, wanted)
    rel = outline.path
    if not found:
        names = sorted({s.qualname for s in walk(outline.symbols)})
        close = difflib.get_close_matches(wanted, names, n=4, cutoff=0.5)
        hint = f" Close names: {', '.join(close)}." if close else ""
        return ToolResult(False, f"{rel} has no definition named {wanted!r}.{hint}\n{render(outline, budget // 2)}",
                          f"outline {rel}: no {wanted}")
    qualname = found[0].qualname
    group = [s for s in found if s.qualname == qualname]
    start, end = group[0].start, max(s.end for s in group)
    if not group[0].exact:  # pattern-found: up to the next definition
        later = [s.start for s in walk(outline.symbols) if s.start > start]
        end = min(later) - 1 if later else outline.lines
        end = min(end, start + 80)
    lines = text.split("\n")[start - 1:end]
    others = sorted({s.qualname for s in found} - {qualname})
    head = f"{rel} lines {start}-{end}: {group[0].kind} {qualname}"
    if others:
        head += f" (also defined: {', '.join(others)})"
    members = _members(outline, group[0]) if len(text) > budget else ""
    body, used = [], len(head) + len(members) + 100  # room for the "not shown" line
    for index, line in enumerate(lines):
        if used + len(line) + 1 > budget:
            body.append(f"[... lines {start + index}-{end} not shown; read_file shows the whole file]{members}")
            break
        body.append(line)
        used += len(line) + 1
    return ToolResult(True, head + "\n" + "\n".join(body), f"outline {rel}: {qualname} (lines {start}-{end})")


def _members(outline: Outline, symbol: Any) -> str:
    """For a class too long to show whole: every method with its line, so the part not shown can still be found
    (a 157-line class cut after its __init__ hid the method a request was about)."""
    if symbol.kind != "class":
        return ""
    inside = [s for s in walk(outline.symbols) if symbol.start < s.start <= symbol.end
              and s.qualname.startswith(symbol.qualname + ".") and s.qualname.count(".") == symbol.qualname.count(".") + 1]
    if not inside:
        return ""
    return f"\n[{symbol.qualname} has {len(inside)} members: " + ", ".join(f"{s.name} {s.start}" for s in inside) + \
        f" (outline(path, symbol=\"{symbol.qualname}.NAME\") shows one)]"


def _directory(ctx: ToolContext, rel: str, files: list[str], wanted: str) -> ToolResult:
    prefix = "" if rel in ("", ".", "./") else rel.rstrip("/") + "/"
    chosen = [f for f in files if f.startswith(prefix) and language_of(f) != "none"][:MAX_DIR_FILES]
    outlines = []
    for path in chosen:
        text = _text_of(ctx, path, MAX_DIR_FILE_BYTES)
        if text is not None:
            outlines.append((outline_of(path, text), text))
    if not wanted:
        lines = [header(o) for o, _ in outlines if o.symbols]
        shown = "\n".join(lines[:60]) + (f"\n[... {len(lines) - 60} more files]" if len(lines) > 60 else "")
        return ToolResult(True, shown or f"no source files under {rel}", f"outline {rel}: {len(lines)} files")
    hits = [(o, text, s) for o, text in outlines for s in find(o.symbols, wanted)]
    if not hits:
        return ToolResult(False, f"nothing named {wanted!r} is defined under {rel or '.'} "
                          f"({len(outlines)} source files). search(pattern) finds any text.", f"outline: no {wanted}")
    places = sorted({f"{o.path}: {s.kind} {s.qualname} (lines {s.start}-{s.end})" for o, _, s in hits})
    if len({(o.path, s.qualname) for o, _, s in hits}) == 1:
        outline, text, _ = hits[0]
        return show_symbol(outline, text, wanted, ctx.config.limits.tool_output_tokens * CHARS_PER_TOKEN)
    return ToolResult(True, f"{wanted} is defined in {len(places)} places:\n" + "\n".join(places[:30]),
                      f"outline: {wanted} in {len(places)} places")


def _sized(value: Any) -> str:
    if isinstance(value, dict):
        return f"object with {len(value)} keys"
    if isinstance(value, list):
        return f"list of {len(value)} items"
    return json.dumps(value)[:80]


def _json_outline(rel: str, text: str, wanted: str, budget: int) -> ToolResult | None:
    """A JSON file's keys with their sizes, or one key's entries counted ("How many devDependencies does qs
    have?": the model asked outline(package.json, devDependencies), was told there was no such definition, then
    read the file and counted 20 of 29 by eye). None when the text is not JSON."""
    try:
        data = loads_json(text, rel)
    except TooDeep as exc:
        return ToolResult(False, exc.message, f"outline {rel}: {exc.reason}")
    except ValueError:
        return None
    node, path = data, []
    for part in ([wanted] if isinstance(data, dict) and wanted in data else wanted.split(".")) if wanted else []:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            keys = ", ".join(list(data)[:40]) if isinstance(data, dict) else _sized(data)
            return ToolResult(False, f"{rel} has no key {wanted!r}; its top-level keys: {keys}", f"outline {rel}: no "
                              f"{wanted}")
        path.append(part)
    name = ".".join(path) or rel
    if isinstance(node, dict):
        entries = [f"  {key}: {_sized(value)}" for key, value in node.items()]
    elif isinstance(node, list):
        entries = [f"  [{index}] {_sized(value)}" for index, value in enumerate(node)]
    else:
        return ToolResult(True, f"{name} = {json.dumps(node)[:budget]}", f"outline {rel}: {name}")
    head = f"{name}: {_sized(node)} (JSON, {rel})"
    shown, used = [], len(head)
    for entry in entries:
        if used + len(entry) + 1 > budget:
            shown.append(f"  [... {len(entries) - len(shown)} more; {len(entries)} in all]")
            break
        shown.append(entry)
        used += len(entry) + 1
    return ToolResult(True, "\n".join([head, *shown]), f"outline {rel}: {name}, {_sized(node)}")


async def run(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    rel = str_arg(args, "path", required=False, default=".").strip() or "."
    wanted = str_arg(args, "symbol", required=False).strip()
    budget = ctx.config.limits.tool_output_tokens * CHARS_PER_TOKEN
    target = ctx.repo if rel in (".", "./") else resolve_in_repo(ctx.repo, rel)
    if target.is_dir():
        files = await repo_files(ctx.repo)
        return await asyncio.to_thread(_directory, ctx, "" if target == ctx.repo else rel, files, wanted)
    if not target.exists():
        hint = await did_you_mean(ctx.repo, rel)
        return ToolResult(False, f"{rel} does not exist.{hint or ' list_files shows the files.'}", f"{rel}: not found")
    text = await asyncio.to_thread(_text_of, ctx, rel)
    if text is None:
        return ToolResult(False, f"{rel} is binary or larger than {MAX_FILE_BYTES // 1_000_000} MB; no outline",
                          f"{rel}: no outline")
    if rel.lower().endswith(".json") and (data := _json_outline(rel, text, wanted, min(budget, 3200))) is not None:
        return data
    outline = await asyncio.to_thread(outline_of, rel, text)
    if wanted and "," in wanted:  # "hasKey, isNumber": each one's code (seen on minimist, outside the benchmark)
        names = [n.strip() for n in wanted.split(",") if n.strip()][:4]
        shown = [show_symbol(outline, text, name, budget // max(len(names), 1)) for name in names]
        if any(r.ok for r in shown):
            missing = [name for name, r in zip(names, shown) if not r.ok]
            return ToolResult(True, "\n".join(r.output for r in shown if r.ok) + (
                f"\n[{rel} has no definition named {', '.join(missing)}]" if missing else ""),
                f"outline {rel}: {', '.join(n for n, r in zip(names, shown) if r.ok)}")
    if wanted:
        return show_symbol(outline, text, wanted, budget)
    if outline.language == "none":
        return ToolResult(False, f"{rel} is not source code outline knows (Python, JS/TS and brace languages); "
                          "use read_file", f"{rel}: no outline")
    counts = header(outline).split("; ", 1)[-1]
    return ToolResult(True, render(outline, min(budget, 3200)), f"outline {rel}: {counts}"[:120])


SPEC = ToolSpec(
    name="outline",
    description="A file's classes, methods, functions and constants, with line numbers and counts; "
                "symbol= gives one's code.",
    parameters=params(
        ["path"],
        path={"type": "string", "description": "file or directory"},
        symbol={"type": "string", "description": "e.g. parse or Config.get"},
    ),
    read_only=True,
    run=run,
)
