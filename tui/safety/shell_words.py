"""One shell word as bash reads it: quote removal, $'...' escapes, and whether it expands at run time.

bashlex's own quote removal is wrong for words like ``'su''do'`` or ``$'\x73udo'`` (bash runs sudo),
so the policy reads each word from its source text here. Expansions (``$X``, ``$(...)``, backticks,
``~``) are kept as written and reported, never evaluated.
"""

from __future__ import annotations

import re

_ANSI = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "e": "\x1b", "E": "\x1b",
         "\\": "\\", "'": "'", '"': '"', "?": "?"}
_ANSI_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.S)
_PARAMETER_START = re.compile(r"[A-Za-z_0-9{(?$!#@*-]")


def _ansi_one(m: re.Match[str]) -> str:
    esc = m.group(1)
    if esc[0] in "xuU" and len(esc) > 1:
        code = int(esc[1:], 16)
        return chr(code) if code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else m.group(0)
    if esc[0] in "01234567":
        return chr(int(esc, 8) & 0xFF)
    if esc[0] == "c" and len(esc) == 2:
        return chr(ord(esc[1]) & 0x1F)
    return _ANSI.get(esc, m.group(0))


def _ansi_c(body: str) -> str:
    """The text of $'...': backslash escapes expanded as bash does (\\x73 is s)."""
    return _ANSI_ESCAPE.sub(_ansi_one, body)


def _substitution_end(raw: str, i: int) -> int:
    """Index just past the ``$(...)`` or backtick substitution starting at ``i`` (quotes inside respected)."""
    if raw[i] == "`":
        j = i + 1
        while j < len(raw) and raw[j] != "`":
            j += 2 if raw[j] == "\\" else 1
        return min(j + 1, len(raw))
    depth, j, quote = 0, i + 1, ""
    while j < len(raw):
        ch = raw[j]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "\\":
            j += 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(raw)


def _expansion_at(raw: str, i: int) -> int:
    """Length of an expansion starting at ``i`` ($X, ${X}, $(...), `...`), 0 when ``raw[i]`` is literal."""
    if raw[i] == "`" or raw.startswith("$(", i):
        return _substitution_end(raw, i) - i
    if raw[i] == "$" and _PARAMETER_START.match(raw, i + 1):
        return 2 if raw[i + 1] != "{" else (raw.find("}", i) + 1 - i if "}" in raw[i:] else len(raw) - i)
    return 0


def _double_quoted(raw: str, j: int, out: list[str]) -> tuple[int, bool]:
    """Read a "..." body from ``j``; returns (index after the closing quote, whether it expands)."""
    expands = False
    while j < len(raw) and raw[j] != '"':
        if raw[j] == "\\" and j + 1 < len(raw) and raw[j + 1] in '$`"\\\n':
            out.append("" if raw[j + 1] == "\n" else raw[j + 1])
            j += 2
            continue
        size = _expansion_at(raw, j)
        if size:
            expands = True
            out.append(raw[j:j + size])
            j += size
            continue
        out.append(raw[j])
        j += 1
    return j + 1, expands


def dequote(raw: str) -> tuple[str, bool]:
    """(the word bash passes on, whether it expands at run time) from a word's source text."""
    out: list[str] = []
    expands = raw.startswith("~")
    i, n = 0, len(raw)
    while i < n:
        ch = raw[i]
        if ch == "\\" and i + 1 < n:
            out.append("" if raw[i + 1] == "\n" else raw[i + 1])
            i += 2
        elif ch == "'":
            end = raw.find("'", i + 1)
            end = n if end < 0 else end
            out.append(raw[i + 1:end])
            i = end + 1
        elif raw.startswith("$'", i):
            j = i + 2
            while j < n and raw[j] != "'":
                j += 2 if raw[j] == "\\" else 1
            out.append(_ansi_c(raw[i + 2:j]))
            i = j + 1
        elif ch == '"' or raw.startswith('$"', i):
            i, inner = _double_quoted(raw, i + (2 if ch == "$" else 1), out)
            expands = expands or inner
        elif _expansion_at(raw, i) or raw.startswith("<(", i) or raw.startswith(">(", i):
            size = _expansion_at(raw, i) or _substitution_end(raw, i + 1) - i
            expands = True
            out.append(raw[i:i + size])
            i += size
        else:
            out.append(ch)
            i += 1
    return "".join(out), expands
