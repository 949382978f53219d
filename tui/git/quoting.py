"""git's quoting of paths in diff headers: a path with control characters, quotes or backslashes is written
as a C-style string (``"a/caf\\303\\251"``); these read and write it exactly as git does."""

from __future__ import annotations

import re

_QUOTE_NEEDED = re.compile(r'[\x00-\x1f"\\\x7f]')


def quote_path(path: str) -> str:
    """Quote a path the way git does when it holds control characters, quotes or backslashes."""
    if not _QUOTE_NEEDED.search(path):
        return path
    table = {"\t": "\\t", "\n": "\\n", '"': '\\"', "\\": "\\\\", "\r": "\\r"}
    out = "".join(table.get(ch, f"\\{ord(ch):03o}" if ord(ch) < 32 or ord(ch) == 127 else ch) for ch in path)
    return f'"{out}"'


def prefixed(prefix: str, path: str) -> str:
    quoted = quote_path(path)
    return f'"{prefix}{quoted[1:]}' if quoted.startswith('"') else f"{prefix}{quoted}"


def unquote(token: str) -> str:
    if not (token.startswith('"') and token.endswith('"')):
        return token
    raw = token[1:-1].encode("utf-8", "surrogateescape")
    out = bytearray()
    i = 0
    simple = {ord("t"): 9, ord("n"): 10, ord("r"): 13, ord('"'): 34, ord("\\"): 92, ord("a"): 7, ord("b"): 8,
              ord("f"): 12, ord("v"): 11}
    while i < len(raw):
        c = raw[i]
        if c == 92 and i + 1 < len(raw):
            nxt = raw[i + 1]
            if nxt in simple:
                out.append(simple[nxt])
                i += 2
                continue
            if 48 <= nxt <= 55:
                out.append(int(raw[i + 1:i + 4], 8))
                i += 4
                continue
        out.append(c)
        i += 1
    return bytes(out).decode("utf-8", "surrogateescape")


def strip_prefix(path: str) -> str:
    return path[2:] if path[:2] in ("a/", "b/") else path


def paths_from_git_line(rest: str) -> tuple[str | None, str | None]:
    if rest.startswith('"'):
        end = rest.find('" ', 1)
        while end > 0 and rest[end - 1] == "\\":
            end = rest.find('" ', end + 1)
        first, second = rest[:end + 1], rest[end + 2:]
        return strip_prefix(unquote(first)), strip_prefix(unquote(second))
    if rest.endswith('"'):
        start = rest.rfind(' "')
        return strip_prefix(rest[:start]), strip_prefix(unquote(rest[start + 1:]))
    half = (len(rest) - 1) // 2  # "a/X b/X": the common case of equal names
    if rest[half] == " " and rest[2:half] == rest[half + 3:]:
        return rest[2:half], rest[half + 3:]
    a, _, b = rest.partition(" b/")
    return strip_prefix(a), b
