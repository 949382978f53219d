"""edit_symbol(path, symbol, code): replace a function, method or class by name, or add it.

What a small model cannot do with edit_file: reproduce the exact old text, pick one of many
identical lines, or indent a new method into its class. Here it names the definition
(``parse``, ``Config.get``) and gives the new code in any indentation; the placement rules
live in tui/symbols (Python through ``ast``, JS/TS through the scanner). Like edit_file it is a
proposal: the developer sees the exact diff and the accepted hunks are applied after a
checkpoint by the same path (edits.apply_edit). The result names the definition's new lines.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tui.protocol.proposals import Decision, Proposal
from tui.protocol.errors import ToolError
from tui.symbols import language_of, outline_of, walk
from tui.tools.base import ToolContext, ToolResult, ToolSpec, params
from tui.tools.support.common import str_arg
from tui.tools.support.edits import apply_edit, edit_proposal, match_line_endings, read_current

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.M)


def splice(rel: str, text: str, symbol: str, code: str) -> Any:
    """The Spliced result for ``rel``'s language; a ToolError for languages without symbol edits."""
    language = language_of(rel)
    if language == "python":
        from tui.symbols.pysplice import splice_python

        return splice_python(text, symbol, code, rel)
    if language == "js":
        from tui.symbols.jssplice import splice_js

        return splice_js(text, symbol, code, rel)
    raise ToolError(f"edit_symbol works on Python and JS/TS files; for {rel} use edit_file")



async def defining_file(ctx: ToolContext, name: str) -> str:
    """The one tracked Python file whose top level defines ``name`` ('' when none or several do)."""
    from tui.tools.support.common import repo_files

    pattern = re.compile(rf"^(?:class|def|async def)\s+{re.escape(name)}\b", re.M)
    found = []
    for path in [f for f in await repo_files(ctx.repo) if f.endswith(".py")][:2000]:
        try:
            _, data = read_current(ctx, path)
        except ToolError:
            continue
        if data is not None and pattern.search(data.decode("utf-8", "replace")):
            found.append(path)
    return found[0] if len(found) == 1 else ""


async def _where_instead(ctx: ToolContext, rel: str, symbol: str, code: str) -> str:
    """A small model names the file after the class (``LRUCache.py``): point to the file that defines it, so the
    retry edits the real module instead of creating a copy with write_file."""
    names = [n for n in dict.fromkeys([symbol.split(".")[0], Path(rel).stem,
                                       *re.findall(r"^\s*class\s+(\w+)", code, re.M)]) if n.isidentifier()]
    for name in names:
        found = await defining_file(ctx, name)
        if found:
            return (f"{name} is defined in {found}: call edit_symbol with path {found!r} "
                    f"(a method goes into its class as symbol 'Class.method').")
    return "Check the path with list_files, or use write_file to create a new file."


async def propose(ctx: ToolContext, args: dict[str, Any]) -> Proposal:
    rel = str_arg(args, "path")
    symbol = str_arg(args, "symbol")
    code = str_arg(args, "code")
    _, old = read_current(ctx, rel)
    if old is None:
        raise ToolError(f"{rel} does not exist. " + await _where_instead(ctx, rel, symbol, code))
    if b"\0" in old[:8000]:
        raise ToolError(f"{rel} is binary; it cannot be edited as text")
    text = old.decode("utf-8", "surrogateescape").replace("\r\n", "\n")
    symbol = named_test_in_code(rel, symbol, code)
    done = splice(rel, text, symbol, code)
    if done.action == "replaced":
        start = ctx.turn_start[rel] if rel in ctx.turn_start else old  # None: this turn created the file
        done = _new_test_instead(rel, text, done, code, (start or b"").decode("utf-8", "replace")) or done
    if done.action == "replaced":
        _refuse_a_stranger(rel, text, done.qualname, code)
    new = match_line_endings(old, done.text.encode("utf-8", "surrogateescape"))
    if new == old and done.action == "replaced":  # a small model asked to add a test resends the existing one
        parent, _, name = done.qualname.rpartition(".")
        where = f"{parent}." if parent else ""
        if name.startswith("test"):
            raise ToolError(f"{done.qualname} already has exactly this code, so nothing changed. To add a new "
                            f"test, give it a name of its own (symbol '{where}{name}_<what it checks>') and write "
                            "the new code in it.")
        raise ToolError(f"{done.qualname} already has exactly this code in {rel}: there is nothing to change "
                        "there. Go on with the next part of the request (another file or definition it names), "
                        "or answer in plain text if it is all done.")  # a resend, not a wish for "__repr___x"
    proposal = await edit_proposal(ctx, "edit_symbol", args, rel, old, new)
    proposal.summary = proposal.summary.replace("edit ", f"{done.action} {done.qualname} in ", 1)
    if done.note:
        proposal.summary = f"{proposal.summary[:-1]}; {done.note})"
    if done.told:
        proposal.arguments = {**proposal.arguments, "_told": done.told}
    return proposal


def _stranger(rel: str, text: str, qualname: str, code: str) -> tuple[Any, int, int] | None:
    """(the definition, its line count, the new code's) when short code that keeps none of a long definition's
    lines would replace it; None otherwise."""
    from tui.tools.support.edits import kept_lines

    found = [sym for sym in walk(outline_of(rel, text).symbols) if sym.qualname == qualname]
    if not found:
        return None
    sym = found[0]
    body = "\n".join(text.splitlines()[sym.start - 1:sym.end])
    kept, total = kept_lines(body, code)
    new_lines = sum(1 for line in code.splitlines() if line.strip())
    return (sym, total, new_lines) if total >= 25 and kept < total * 0.15 and new_lines < total * 0.4 else None


def named_test_in_code(rel: str, symbol: str, code: str) -> str:
    """In a Python test file, code that defines a test under another name than the symbol it was sent for
    (``symbol="test_intcomma"`` with ``def test_intcomma_3(): ...``) is that test: added, or revised when it
    exists, never written over the symbol's test (whose decorator would be kept on code it does not fit)."""
    from tui.symbols.model import is_test_file

    if language_of(rel) != "python" or not is_test_file(rel):
        return symbol
    named = re.match(r"\s*(?:@.*\n\s*)*(?:async\s+)?def\s+(test\w*)\s*\(", code)
    parent, _, name = symbol.rpartition(".")
    if not named or named.group(1) == name or not name:
        return symbol
    return f"{parent}.{named.group(1)}" if parent else named.group(1)


def _new_test_instead(rel: str, text: str, done: Any, code: str, start: str | None = None) -> Any:
    """A long test replaced by a few lines that keep none of it, in a test file, is a new test under a taken name
    (asked to add a test for negative numbers, a 1.5B model sends ``def test_intcomma(self): assert ...`` for the
    43-line parametrized test_intcomma): added beside it under a name of its own, the old test kept; when this
    turn already added one (``test_intcomma_2``, absent from ``start``, the file as the turn found it), that one
    is revised instead. None when that is not the case."""
    from tui.symbols.model import is_test_file

    parent, _, name = done.qualname.rpartition(".")
    if language_of(rel) != "python" or not is_test_file(rel) or not name.startswith("test") or \
            _stranger(rel, text, done.qualname, code) is None:
        return None
    taken = {sym.name for sym in walk(outline_of(rel, text).symbols)}
    first = {sym.name for sym in walk(outline_of(rel, start).symbols)} if start else taken
    fresh, revising = fresh_test_name(name, taken, first)
    renamed = re.sub(rf"\bdef\s+{re.escape(name)}\b", f"def {fresh}", code, count=1)
    if renamed == code:
        return None
    added = splice(rel, text, f"{parent}.{fresh}" if parent else fresh, renamed)
    added.note = f"{done.qualname} kept: the new code keeps none of its lines, so it " + (
        f"revises {fresh}, which this request added" if revising else f"is a new test, {fresh}")
    return added


def fresh_test_name(name: str, taken: set[str], first: set[str]) -> tuple[str, bool]:
    """(the name for new test code sent under the taken ``name``, whether it revises one this turn added): the
    last ``name_k`` that ``first`` (the file as the turn found it) lacks, else the next free ``name_k``."""
    k = 2
    while f"{name}_{k}" in taken:
        k += 1
    mine = [f"{name}_{j}" for j in range(2, k) if f"{name}_{j}" not in first]
    return (mine[-1], True) if mine else (f"{name}_{k}", False)


def _refuse_a_stranger(rel: str, text: str, qualname: str, code: str) -> None:
    """A long definition replaced by short code that keeps none of its lines is a small model pasting another
    function under this name (a 177-line parse() became unparse's body): refused, with what to do."""
    stranger = _stranger(rel, text, qualname, code)
    if stranger is not None:
        sym, total, new_lines = stranger
        raise ToolError(f"That would replace all {total} lines of {qualname} ({rel} lines {sym.start}-{sym.end}) with "
                        f"{new_lines} lines that keep none of its code, so nothing was changed. To change a few "
                        f"lines of it use edit_file; outline(path=\"{rel}\", symbol=\"{qualname}\") shows its code.")


def _added_lines(patch: str) -> list[tuple[int, int]]:
    return [(int(m.group(1)), int(m.group(1)) + max(int(m.group(2) or 1), 1) - 1) for m in _HUNK.finditer(patch)]


def where_now(rel: str, text: str, code: str, symbol: str, patch: str) -> str:
    """'Config.get is now lines 20-31 of calc.py.' for the definition the applied hunks touched."""
    from tui.symbols.model import normalize

    name = _defined_name(rel, code) or normalize(symbol).rsplit(".", 1)[-1]
    ranges = _added_lines(patch)
    touched = [s for s in walk(outline_of(rel, text).symbols) if s.name == name
               and any(s.start <= hi and lo <= s.end for lo, hi in ranges)]
    if not touched:
        return ""
    sym = max(touched, key=lambda s: s.qualname.count("."))
    return f"{sym.qualname} is now lines {sym.start}-{sym.end} of {rel}."


def _defined_name(rel: str, code: str) -> str:
    if language_of(rel) == "python":
        from tui.symbols.pysplice import first_def_name

        return first_def_name(code)
    return ""


async def execute(ctx: ToolContext, proposal: Proposal, decision: Decision) -> ToolResult:
    result = await apply_edit(ctx, proposal, decision)
    if not result.ok or not proposal.files:
        return result
    rel = proposal.files[0]
    _, data = read_current(ctx, rel)
    if data is not None:
        args = proposal.arguments
        where = where_now(rel, data.decode("utf-8", "replace").replace("\r\n", "\n"), str(args.get("code", "")),
                          str(args.get("symbol", "")), result.diff)
        checked = " The static check (syntax, undefined names) found no new problems." \
            if rel.endswith(".py") and not result.data.get("problems") else ""
        told = f" Note: {args['_told']}." if args.get("_told") else ""
        result.output = f"{where}{checked}{told} {result.output}".lstrip()
    return result


SPEC = ToolSpec(
    name="edit_symbol",
    description="Add or replace a function, method, test or class by name with its whole code, in any "
                "indentation (a new method goes at the end of its class).",
    parameters=params(
        ["path", "symbol", "code"],
        path={"type": "string", "description": "path relative to the repo root"},
        symbol={"type": "string", "description": "e.g. parse or Config.get"},
        code={"type": "string", "description": "the whole new definition"},
    ),
    read_only=False,
    propose=propose,
    execute=execute,
)
