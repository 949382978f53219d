"""What you see is what runs: the one test for characters that display as something else (or as nothing).

Hidden means: control characters (Cc, except tab and newline), format characters (Cf: bidi
controls, zero-width characters, the tag block), surrogates (Cs: undecodable bytes), private-use
(Co) and unassigned (Cn) code points, line/paragraph separators (Zl, Zp), and every
Default_Ignorable_Code_Point (Hangul fillers, variation selectors, the combining grapheme joiner...).
In commands, spaces other than U+0020 are flagged too: `ls\u00a0-la` looks like two words and is one.
Every front end (TUI, headless text, JSON flags) uses ``visible`` and ``literal_warnings`` from here.
"""

from __future__ import annotations

import re
import unicodedata

# Unicode 15 DerivedCoreProperties.txt, Default_Ignorable_Code_Point (the whole property, as ranges).
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_BIDI = frozenset({0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)})
_BLANK_LOOKALIKES = frozenset({0x2800, 0x115F, 0x1160, 0x3164, 0xFFA0})  # Braille blank, Hangul fillers
_CANDIDATE = re.compile(r"[^\t\n\x20-\x7e]")  # only these need a closer look: printable ASCII never hides


def _ignorable(code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in DEFAULT_IGNORABLE)


def hidden_kind(ch: str, command: bool = False) -> str:
    """Why ``ch`` is not what it looks like ('' when it is): shown in warnings."""
    code = ord(ch)
    if ch in "\t\n" or 0x20 <= code <= 0x7E:
        return ""
    category = unicodedata.category(ch)
    if category == "Cc":
        extra = " (carriage return: can hide text)" if ch == "\r" else \
            " (escape: terminal control sequence)" if ch == "\x1b" else ""
        return "control character" + extra
    if code in _BIDI:
        return "bidirectional control"
    if code in _BLANK_LOOKALIKES:
        return "blank-looking character"
    if 0xE0000 <= code <= 0xE007F:
        return "tag character (invisible text)"
    if category in _HIDDEN_CATEGORIES or _ignorable(code):
        return {"Cs": "undecodable byte", "Co": "private-use character", "Cn": "unassigned code point",
                "Zl": "line separator", "Zp": "paragraph separator"}.get(category, "invisible character")
    if command and category == "Zs":
        return "space that is not U+0020"
    return ""


def escape(ch: str) -> str:
    """Python-style escape: \\x1b, \\u200b, \\U000e0061."""
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def hidden_positions(text: str, command: bool = False) -> list[int]:
    """Indices of every hidden character in ``text``."""
    return [m.start() for m in _CANDIDATE.finditer(text) if hidden_kind(m.group(), command)]


def visible(text: str, command: bool = False) -> str:
    """``text`` with every hidden character replaced by its escape (newlines and tabs kept)."""
    if not _CANDIDATE.search(text):
        return text
    return _CANDIDATE.sub(lambda m: escape(m.group()) if hidden_kind(m.group(), command) else m.group(), text)


def literal_warnings(text: str, command: bool = False) -> list[str]:
    """One line per kind of hidden character: what it is and where (first five positions)."""
    found: dict[str, list[int]] = {}
    for i in hidden_positions(text, command):
        ch = text[i]
        name = unicodedata.name(ch, "") or ("unnamed" if unicodedata.category(ch) != "Cs" else "surrogate")
        found.setdefault(f"{hidden_kind(ch, command)} U+{ord(ch):04X} ({name})", []).append(i)
    out = []
    for kind, positions in found.items():
        where = ", ".join(str(p) for p in positions[:5]) + (" ..." if len(positions) > 5 else "")
        out.append(f"{kind} at position {where}")
    return out
