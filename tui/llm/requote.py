"""Read a text-form call whose code argument holds unescaped double quotes.

A 1.5B model writing a class through a JSON call keeps the class's docstring as it is:
``"code": "class LIFOCache(Cache):\\n    \"\"\"Last in, first out.\"\"\"\\n ..."`` with the three quotes bare,
so the string ends at the first of them and nothing after it is JSON (nor a Python literal). Seen
twice in one turn on a real library; each time the whole call was lost and the model, told its JSON
was broken, wrote the same call again. Here the values of the arguments that hold code or text are
re-read as running from their opening quote to the quote that is followed by the next argument's name
(or by the call's closing braces), and every bare quote inside is escaped. Also here: a run whose code block
ends before its JSON does (closed_at_fence), and a reply that ends one or two closing braces short
(closed_at_end).
"""

from __future__ import annotations

import re
from typing import Any, Callable

from tui.safety.parsing import loads_json

TEXT_KEYS = ("code", "content", "new", "old", "command", "new_code", "source", "body")
ARG_NAMES = ("path", "symbol", "name", "arguments", "selection", "message", "mode", "timeout", "cwd", "pattern",
             "query", "limit", "files") + TEXT_KEYS
_VALUE_START = re.compile(r'"(?:%s)"\s*:\s*"' % "|".join(TEXT_KEYS))
_NEXT_ARG = re.compile(r'"(\s*,\s*"(?:%s)"\s*:)' % "|".join(ARG_NAMES))
_CLOSING = re.compile(r'(?:\}\s*){1,3}$')
_FENCE_END = re.compile(r"\n[ \t]*(?:```|~~~)")
MAX_CHARS = 200_000


def requote(text: str, start: int) -> tuple[dict[str, Any], int] | None:
    """(the call object, the index just past it) for the attempt at ``start``, or None if this cannot read it."""
    window = text[start:start + MAX_CHARS]
    fence = _FENCE_END.search(window)
    if fence:
        window = window[:fence.start()]
    window = window.rstrip()
    closing = _CLOSING.search(window)
    if closing is None or not _VALUE_START.search(window):
        return None
    pieces: list[str] = []
    pos = 0
    while True:
        found = _VALUE_START.search(window, pos)
        if found is None:
            break
        value_start = found.end()
        following = _NEXT_ARG.search(window, value_start)
        value_end = following.start() if following else window.rfind('"', value_start, closing.start())
        if value_end < value_start:
            return None
        pieces.append(window[pos:value_start])
        pieces.append(_escape(window[value_start:value_end]))
        pos = value_end
    pieces.append(window[pos:])
    try:
        obj = loads_json("".join(pieces), "the model's tool call", strict=False)
    except (ValueError, RecursionError):
        return None
    return (obj, start + len(window)) if isinstance(obj, dict) else None


def _escape(value: str) -> str:
    """Bare double quotes escaped; escapes the model did write are kept."""
    out: list[str] = []
    escaped = False
    for char in value:
        if escaped:
            out.append(char)
            escaped = False
        elif char == "\\":
            out.append(char)
            escaped = True
        elif char == '"':
            out.append('\\"')
        else:
            out.append(char)
    return "".join(out)


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def quote_escapes(snippet: str) -> str:
    """``\'`` is not a JSON escape. In a string that also has bare ``'`` (``'the string \'a\''``) it escapes a
    quote inside the code's own single-quoted literal, so the backslash stays (``\\'``); in a string whose every
    quote is written ``\'`` (``print(\'x\')``) the model escaped for JSON what needed none: a plain ``'``."""
    def fix(m: re.Match[str]) -> str:
        text = m.group(0)
        if "\\'" not in text:
            return text
        bare = re.search(r"(?<!\\)'", text) is not None
        return re.sub(r"(?<!\\)\\'", r"\\\\'" if bare else "'", text)
    return _JSON_STRING.sub(fix, snippet)


RUNS = ("run_python", "run_command")  # the calls an unclosed JSON may be completed for


def _open_at_end(snippet: str) -> tuple[str, str, bool] | None:
    """(the brackets that close ``snippet``, innermost first; the quote left open, '' if none; whether it ends on
    a backslash) or None when it closes a bracket it did not open."""
    stack: list[str] = []
    quote, escaped = "", False
    for char in snippet:
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char == '"':
            quote = char
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]":
            if not stack or stack.pop() != char:
                return None
    return "".join(reversed(stack)), quote, escaped


def closed_at_end(text: str, start: int, loads: Callable[[str], Any]) -> tuple[Any, int] | None:
    """A call that is the end of the reply and only lacks its last one or two closing braces: every string closed,
    the last character a quote or a closing bracket (``..."code": "...writerows(rows)"}`` with the call's own
    brace missing; fresh held-out xmltodict and humanize, where the whole call was lost as malformed JSON and
    the model, told so, never sent it again). A reply cut off inside a string or a value is not completed, so
    nothing the model wrote is read as shorter than it is. (value, end of text) or None."""
    snippet = text[start:].rstrip()
    if not snippet.endswith(('"', "}", "]")):
        return None
    state = _open_at_end(snippet)
    if state is None or state[1] or not state[0] or len(state[0]) > 2 or set(state[0]) != {"}"}:
        return None
    closers = state[0]
    obj = loads(snippet + closers)
    return (obj, len(text)) if isinstance(obj, dict) and isinstance(obj.get("name"), str) else None


def closed_at_fence(text: str, start: int, loads: Callable[[str], Any]) -> tuple[Any, int] | None:
    """A call whose code block ends before its JSON does: the model closed the fence after the last line of its
    code and left the string, the arguments and the call open (``"code": "...print(x)\n```"``; seen on
    itsdangerous, outside the benchmark). Closed in the order they were opened, it is the call the model meant;
    (value, the fence's start) or None. Only where a fence ends it (a reply cut off mid-way is not completed), and
    only for runs."""
    fence = text.find("```", start)
    if fence < 0:
        return None
    snippet = text[start:fence].rstrip()
    state = _open_at_end(snippet)
    if state is None or not state[0] or state[2]:
        return None
    closers, quote, _ = state
    obj = loads(snippet + quote + closers)
    runs = isinstance(obj, dict) and obj.get("name") in RUNS  # a run is shown, sandboxed and writes nothing;
    return (obj, fence) if runs else None  # an edit or a file so completed could lose what the model meant
