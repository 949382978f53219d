"""Counted words as a person writes them: "1 file", "2 files", "1,320 tokens" (never "1 files" or "file(s)")."""

from __future__ import annotations


def plural(count: int, one: str, many: str | None = None) -> str:
    """``count`` and the noun in the number it needs: plural(1, "file") -> "1 file"; plural(2, "match", "matches")."""
    return f"{count:,} {one if count == 1 else (many or one + 's')}"
