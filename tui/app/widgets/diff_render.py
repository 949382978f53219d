"""Per-line pieces for the diff viewer: safe text, syntax tokens and theme styles.

Kept apart from the widget so the widget holds navigation and state only.
Everything here builds rich Segments from plain strings: file and model text
is never parsed as markup, and control or bidi characters are made visible.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.color import Color, ColorParseError

from ..themes import variable_defaults

_UNSAFE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
TAB_SIZE = 4


def _visible(ch: str) -> str:
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ .. ␟
    if code == 0x7F:
        return "␡"
    return f"<U+{code:04X}>"


def safe_segments(text: str, style: Style | None, warn: Style) -> tuple[list[Segment], bool]:
    """Split ``text`` into segments, replacing control/bidi characters with visible, flagged stand-ins."""
    text = text.expandtabs(TAB_SIZE) if "\t" in text else text
    if not _UNSAFE.search(text):
        return [Segment(text, style)], False
    out: list[Segment] = []
    last = 0
    for m in _UNSAFE.finditer(text):
        if m.start() > last:
            out.append(Segment(text[last:m.start()], style))
        out.append(Segment(_visible(m.group(0)), warn))
        last = m.end()
    if last < len(text):
        out.append(Segment(text[last:], style))
    return out, True


class Highlighter:
    """Pygments tokens for single lines, lexer chosen by file name, with a small LRU cache."""

    def __init__(self, size: int = 4096) -> None:
        self._cache: OrderedDict[tuple[int, str], list[tuple[str, Style]]] = OrderedDict()
        self._size = size
        self._lexers: dict[str, Any] = {}
        self._theme_name = ""
        self._theme: Any = None

    def set_theme(self, name: str) -> None:
        if name == self._theme_name:
            return
        from rich.syntax import PygmentsSyntaxTheme
        from pygments.util import ClassNotFound

        try:
            self._theme = PygmentsSyntaxTheme(name)
        except ClassNotFound:
            self._theme = PygmentsSyntaxTheme("monokai")
        self._theme_name = name
        self._cache.clear()

    def clear(self) -> None:
        self._cache.clear()

    def lexer_for(self, path: str) -> Any:
        ext = path.rsplit("/", 1)[-1]
        ext = "." + ext.rsplit(".", 1)[-1] if "." in ext else ext
        if ext not in self._lexers:
            from pygments.lexers import get_lexer_for_filename
            from pygments.util import ClassNotFound

            try:
                self._lexers[ext] = get_lexer_for_filename(path, stripnl=False, ensurenl=False, stripall=False)
            except ClassNotFound:
                self._lexers[ext] = None
        return self._lexers[ext]

    def tokens(self, key: int, code: str, path: str) -> list[tuple[str, Style]] | None:
        """Styled pieces of one code line (no background), or None when the file type is unknown."""
        cache_key = (key, path)
        hit = self._cache.get(cache_key)
        if hit is not None:
            self._cache.move_to_end(cache_key)
            return hit
        lexer = self.lexer_for(path)
        if lexer is None or self._theme is None:
            return None
        pieces: list[tuple[str, Style]] = []
        for ttype, value in lexer.get_tokens(code):
            if not value:
                continue
            st = self._theme.get_style_for_token(ttype)
            pieces.append((value.rstrip("\n") if value.endswith("\n") else value,
                           Style(color=st.color, bold=st.bold, italic=st.italic)))
        self._cache[cache_key] = pieces
        if len(self._cache) > self._size:
            self._cache.popitem(last=False)
        return pieces


def _colour(value: str | None, fallback: str, under: Color | None = None) -> Color:
    try:
        colour = Color.parse(value) if value else Color.parse(fallback)
    except ColorParseError:
        colour = Color.parse(fallback)
    if under is not None and colour.a < 1:
        colour = under + colour
    return colour


@dataclass
class DiffStyles:
    """Rich styles for each kind of diff row, resolved from the app's theme variables."""

    added: Style
    removed: Style
    added_mark: Style
    removed_mark: Style
    hunk: Style
    hunk_current: Style
    file: Style
    meta: Style
    gutter: Style
    accept_mark: Style
    reject_mark: Style
    rejected: Style
    warn: Style
    syntax_theme: str

    @classmethod
    def from_variables(cls, variables: dict[str, str], dark: bool) -> "DiffStyles":
        defaults = variable_defaults(dark)

        def get(key: str, under: Color | None = None) -> Color:
            return _colour(variables.get(key), defaults.get(key) or variables.get("foreground", "#808080"), under)

        background = _colour(variables.get("background"), "#000000" if dark else "#ffffff")
        foreground = _colour(variables.get("foreground"), "#e0e0e0" if dark else "#202020")
        panel = _colour(variables.get("panel"), "#303030" if dark else "#e0e0e0", background)
        accent = _colour(variables.get("accent"), "#ffa62b")
        muted = foreground.blend(background, 0.45)
        added, removed = get("diff-added"), get("diff-removed")
        added_bg, removed_bg = get("diff-added-bg", background), get("diff-removed-bg", background)
        hunk, rejected = get("diff-hunk"), get("diff-rejected")
        return cls(
            added=Style(color=added.rich_color, bgcolor=added_bg.rich_color),
            removed=Style(color=removed.rich_color, bgcolor=removed_bg.rich_color),
            added_mark=Style(color=added.rich_color, bgcolor=added_bg.rich_color, bold=True),
            removed_mark=Style(color=removed.rich_color, bgcolor=removed_bg.rich_color, bold=True),
            hunk=Style(color=hunk.rich_color, bold=True),
            hunk_current=Style(color=background.rich_color, bgcolor=hunk.rich_color, bold=True),
            file=Style(color=foreground.rich_color, bgcolor=panel.rich_color, bold=True),
            meta=Style(color=muted.rich_color),
            gutter=Style(color=muted.rich_color),
            accept_mark=Style(color=added.rich_color, bold=True),
            reject_mark=Style(color=removed.rich_color, bold=True),
            rejected=Style(color=rejected.rich_color, dim=True),
            warn=Style(color=background.rich_color, bgcolor=accent.rich_color, bold=True),
            syntax_theme=variables.get("syntax-theme") or defaults["syntax-theme"],
        )
