"""Where edit_file's ``old`` text occurs, and what to say when it occurs more than once.

A match that starts or ends inside a word does not count while a whole-word match exists:
``return x + 3`` is then unique in a module whose ``f30`` returns ``x + 30``. When the text
really is ambiguous, each occurrence is named by line and enclosing definition, with the exact
edit_file call that works for it (``old`` widened by whole lines to the shortest unique text).
"""

from __future__ import annotations

import json

from tui.symbols import enclosing, language_of, outline_of

MAX_WIDEN = 8  # lines of context added on either side at most
MAX_CALLS = 5
MAX_CALLS_CHARS = 1600
MAX_LISTED = 20


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _whole(text: str, start: int, end: int) -> bool:
    """The match neither starts nor ends in the middle of a word or number."""
    if start > 0 and _word(text[start]) and _word(text[start - 1]):
        return False
    return not (end < len(text) and _word(text[end - 1]) and _word(text[end]))


def occurrences(text: str, old: str, limit: int = 10_000) -> list[int]:
    """Start offsets of ``old`` in ``text`` (overlapping ones too); whole-word matches when there are any."""
    starts: list[int] = []
    index = text.find(old)
    while index != -1 and len(starts) < limit:
        starts.append(index)
        index = text.find(old, index + 1)
    whole = [s for s in starts if _whole(text, s, s + len(old))]
    return whole or starts


def _line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    a = text.rfind("\n", 0, start) + 1
    b = text.find("\n", max(end - 1, start))
    return a, len(text) if b == -1 else b


def widen(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The shortest whole-line span around ``text[start:end]`` that occurs once in ``text``."""
    a0, b0 = _line_bounds(text, start, end)
    ups, downs = [a0], [b0]
    for _ in range(MAX_WIDEN):
        ups.append(text.rfind("\n", 0, max(ups[-1] - 1, 0)) + 1 if ups[-1] > 0 else 0)
        nxt = text.find("\n", downs[-1] + 1)
        downs.append(len(text) if nxt == -1 or downs[-1] >= len(text) else nxt)
    for total in range(2 * MAX_WIDEN + 1):
        for above in range(min(total, MAX_WIDEN), -1, -1):
            below = total - above
            if below > MAX_WIDEN:
                continue
            a, b = ups[above], downs[below]
            if text[a:b].strip() and len(occurrences(text, text[a:b], limit=2)) == 1:
                return a, b
    return None


def ambiguous(text: str, spans: list[tuple[int, int]], new: str, rel: str) -> str:
    """The refusal for an ``old`` found at several ``spans``: where each is, and the call that works for it."""
    symbols = outline_of(rel, text).symbols
    places: list[tuple[int, str]] = []
    for start, _ in spans:
        line = text.count("\n", 0, start) + 1
        sym = enclosing(symbols, line)
        places.append((line, sym.qualname if sym else ""))
    listed = ", ".join(f"line {line}" + (f" in {name}" if name else "") for line, name in places[:MAX_LISTED])
    more = f", and {len(places) - MAX_LISTED} more" if len(places) > MAX_LISTED else ""
    out = [f"the text to replace occurs {len(spans)} times in {rel} ({listed}{more}); nothing was changed. "
           "Choose the one you mean and make its call, which has old widened to be unique:"]
    used = 0
    for (start, end), (line, name) in zip(spans, places):
        span = widen(text, start, end)
        if span is None:
            continue
        a, b = span
        call = json.dumps({"name": "edit_file", "arguments": {
            "path": rel, "old": text[a:b], "new": text[a:start] + new + text[end:b]}})
        if used + len(call) > MAX_CALLS_CHARS or len(out) > MAX_CALLS:
            out.append("(calls for the other occurrences: widen old the same way)")
            break
        used += len(call)
        out.append(f"line {line}{f' ({name})' if name else ''}: {call}")
    if len(out) == 1:
        out[0] = out[0].rsplit(" Choose", 1)[0] + (
            f" The occurrences are identical even with {MAX_WIDEN} lines around them, so no longer old text is "
            "unique: replace the whole definition with edit_symbol, or the whole file with write_file.")
    names = [name for _, name in places]
    if language_of(rel) in ("python", "js") and all(names) and len(set(names)) == len(names):
        example = json.dumps({"name": "edit_symbol", "arguments": {"path": rel, "symbol": names[0],
                                                                   "code": "<the whole new definition>"}})
        out.append(f"Or replace the whole definition by name: {example}")
    return "\n".join(out)
