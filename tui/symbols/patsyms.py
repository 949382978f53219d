"""Definitions in other languages, by line pattern: start lines only, no end lines.

Good enough for an outline of Go, Rust, Java, C#, Kotlin, Swift, Ruby, PHP, C/C++, shell and
the like; edits by name are offered for Python and JS/TS only.
"""

from __future__ import annotations

import re

from tui.symbols.model import Symbol

_MODS = r"(?:(?:pub(?:\([^)]*\))?|public|private|protected|internal|static|final|abstract|async|export|override|" \
        r"open|sealed|data|inline|unsafe|extern|virtual|const)\s+)*"
PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("function", re.compile(r"^\s*func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)")),  # Go
    ("function", re.compile(rf"^\s*{_MODS}fn\s+([A-Za-z_]\w*)")),  # Rust
    ("class", re.compile(rf"^\s*{_MODS}(?:struct|enum|trait|interface|class|object|record|protocol|module|impl)"
                         r"\s+(?:<[^>]*>\s*)?([A-Za-z_][\w:]*)")),
    ("type", re.compile(r"^\s*type\s+([A-Za-z_]\w*)\s")),  # Go
    ("function", re.compile(rf"^\s*{_MODS}(?:fun|function|def|sub|proc)\s+([A-Za-z_][\w.?!]*)")),  # Kotlin, PHP, Ruby
    ("function", re.compile(r"^([A-Za-z_][\w-]*)\s*\(\)\s*\{")),  # shell functions
    ("function", re.compile(rf"^\s*{_MODS}[A-Za-z_][\w<>\[\],.*& ]*?[\s*&]([A-Za-z_]\w*)\s*\([^;]*$")),  # C-like
]
_NOT_NAMES = {"if", "for", "while", "switch", "return", "else", "catch", "sizeof", "new", "delete"}


def pattern_symbols(text: str, limit: int = 2000) -> list[Symbol]:
    """Lines that look like definitions, in order (one per line, the first pattern that matches)."""
    out: list[Symbol] = []
    for number, line in enumerate(text.splitlines()[:100_000], 1):
        if len(line) > 400 or not line.strip() or line.lstrip().startswith(("//", "#", "*", "/*", "--")):
            continue
        for kind, pattern in PATTERNS:
            match = pattern.match(line)
            if match and match.group(1) not in _NOT_NAMES:
                indent = line[: len(line) - len(line.lstrip())]
                out.append(Symbol(match.group(1), kind, number, number, number, marks=["pattern"], exact=False,
                                  indent=indent))
                break
        if len(out) >= limit:
            break
    return out
