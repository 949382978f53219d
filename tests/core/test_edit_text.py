"""edit_file's text replacement: exact first, whitespace-tolerant when unique, clear refusals."""

from __future__ import annotations

import pytest

from tui.core.errors import ToolError
from tui.core.tools.edit_file import replace_once

SRC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"


def test_exact_replacement() -> None:
    assert replace_once(SRC, "return a - b", "return a - b - 0", "m.py").endswith("return a - b - 0\n")


def test_indentation_slips_are_tolerated_when_unique() -> None:
    out = replace_once(SRC, "def sub(a, b):\nreturn a - b", "def sub(a, b):\n    return b - a", "m.py")
    assert "return b - a" in out and "return a - b" not in out and out.startswith("def add")


def test_ambiguous_and_missing_text_are_refused_with_a_reason() -> None:
    with pytest.raises(ToolError, match="2 times"):
        replace_once(SRC, "(a, b):", "(x, y):", "m.py")
    with pytest.raises(ToolError, match="not found"):
        replace_once(SRC, "return a * b", "x", "m.py")
    with pytest.raises(ToolError, match="must not be empty"):
        replace_once(SRC, "", "x", "m.py")
