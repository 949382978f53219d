"""The hidden-character test against an independent reading of the Unicode data, over every code point."""

from __future__ import annotations

import sys
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.safety.literal import escape, hidden_kind, hidden_positions, literal_warnings, visible

# Independent of literal.py's tables: what Unicode itself says is invisible, unprintable or look-alike.
_NAMES = ("VARIATION SELECTOR", "HANGUL FILLER", "HANGUL CHOSEONG FILLER", "HANGUL JUNGSEONG FILLER",
          "GRAPHEME JOINER", "KHMER VOWEL INHERENT", "BRAILLE PATTERN BLANK",
          "ZERO WIDTH", "MONGOLIAN VOWEL SEPARATOR", "INVISIBLE", "FUNCTION APPLICATION")


def _should_hide(ch: str) -> bool:
    if ch in "\t\n":
        return False
    if not ch.isprintable() and unicodedata.category(ch) != "Zs":
        return True  # Cc, Cf, Cs, Co, Cn, Zl, Zp
    return any(part in unicodedata.name(ch, "") for part in _NAMES)


def test_every_code_point() -> None:
    wrong = []
    for code in range(sys.maxunicode + 1):
        ch = chr(code)
        if bool(hidden_kind(ch)) != _should_hide(ch):
            wrong.append(f"U+{code:04X} {unicodedata.name(ch, '?')} {unicodedata.category(ch)}")
    assert not wrong, wrong[:20]


def test_the_issues_examples_are_hidden() -> None:
    examples = [*range(0x2061, 0x2065), 0x3164, 0x115F, 0x1160, 0xFFA0, 0x180E, 0x034F, *range(0x200B, 0x2010),
                0x2028, 0x2029, 0xFEFF, 0xFE0F, 0xE0100, *range(0xE0000, 0xE0080)]
    assert [f"U+{c:04X}" for c in examples if not hidden_kind(chr(c))] == []


def test_spaces_other_than_u0020_are_flagged_in_commands_only() -> None:
    assert not literal_warnings("prix\u00a0: 5 €") and literal_warnings("ls\u00a0-la", command=True)
    assert visible("ls\u3000x", command=True) == "ls\\u3000x" and visible("ls\u3000x") == "ls\u3000x"


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(min_codepoint=0, max_codepoint=sys.maxunicode), max_size=40))
def test_visible_leaves_nothing_hidden_and_warns_exactly_when_needed(text: str) -> None:
    shown = visible(text, command=True)
    assert hidden_positions(shown, command=True) == []
    assert bool(literal_warnings(text, command=True)) == any(hidden_kind(c, command=True) for c in text)
    for ch in text:
        if hidden_kind(ch, command=True):
            assert escape(ch) in shown and f"U+{ord(ch):04X}" in " ".join(literal_warnings(text, command=True))


def test_escapes_read_back_as_the_character() -> None:
    for ch in ("\x1b", "\u200b", "\U000e0061", "\ud800"):
        assert escape(ch).encode().decode("unicode_escape") == ch
