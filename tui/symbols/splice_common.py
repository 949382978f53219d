"""What a symbol edit produces, and the pieces the Python and JS/TS splices share."""

from __future__ import annotations

from dataclasses import dataclass

from tui.protocol.errors import ToolError
from tui.symbols.model import Symbol, normalize, walk


@dataclass
class Spliced:
    text: str  # the whole new file
    action: str  # replaced | added | changed the body of
    qualname: str  # the definition as it is named now
    start: int  # its lines in the new text
    end: int
    note: str = ""  # a choice made for the model ("added to class Tests because the code takes self")
    told: str = ""  # what the model itself is told with the result (code of its that was left out)


def prepared(text: str, symbol: str) -> tuple[str, str, str]:
    """(the text without a byte-order mark, the mark or '', the symbol normalised); an empty symbol is refused."""
    wanted = normalize(symbol)
    if not wanted:
        raise ToolError("argument 'symbol' is empty: name the function, method or class, e.g. \"parse\" or "
                        "\"Config.get\"")
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    return text[len(bom):], bom, wanted


def insert_lines(lines: list[str], at: int, block: list[str], blank: int) -> int:
    """Insert ``block`` after line ``at`` with ``blank`` blank lines around it (more after, if there were);
    return the block's first line number."""
    before, after = lines[:at], lines[at:]
    while before and not before[-1].strip():
        before.pop()
    gap_after = 0
    while after and not after[0].strip():
        after.pop(0)
        gap_after += 1
    lead = [""] * blank if before else []
    tail = [""] * max(blank, gap_after) if after else []
    lines[:] = before + lead + block + tail + after
    return len(before) + len(lead) + 1


def located(symbols: list[Symbol], qualname: str, first: int, last: int) -> tuple[int, int]:
    """The line range of ``qualname`` around lines ``first``-``last`` of the new text."""
    named = [s for s in walk(symbols) if s.qualname == qualname]
    inside = [s for s in named if first <= s.line <= last] or named
    if not inside:
        return first, last
    return min(s.start for s in inside), max(s.end for s in inside)


def ambiguous_names(wanted: str, found: list[Symbol], rel: str) -> str:
    places = ", ".join(f"{s.qualname} (lines {s.start}-{s.end})" for s in found[:8])
    return (f"{wanted} is defined more than once in {rel}: {places}. Give the full name as symbol, "
            f"e.g. \"{found[0].qualname}\"; nothing was changed")


def no_parent(head: str, symbols: list[Symbol], rel: str) -> str:
    classes = [s.qualname for s in walk(symbols) if s.kind == "class"]
    listed = f"; its classes: {', '.join(classes[:12])}" if classes else "; it has no classes"
    return f"there is no class {head} in {rel}{listed}. Nothing was changed"
