"""Per-line pieces for the diff viewer: safe text, syntax tokens and theme styles.

Kept apart from the widget so the widget holds navigation and state only.
Everything here builds rich Segments from plain strings: file and model text
is never parsed as markup, and hidden characters (control, bidi, invisible) are made visible.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.color import Color, ColorParseError

from tui.safety.literal import hidden_positions

from ..themes import variable_defaults

TAB_SIZE = 4


def _visible(ch: str) -> str:
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ .. ␟
    if code == 0x7F:
        return "␡"
    return f"<U+{code:04X}>"


def safe_segments(text: str, style: Style | None, warn: Style) -> tuple[list[Segment], bool]:
    """Split ``text`` into segments, replacing hidden characters (tui/safety/literal.py) with visible, flagged stand-ins."""
    text = text.expandtabs(TAB_SIZE) if "\t" in text else text
    positions = hidden_positions(text)
    if not positions:
        return [Segment(text, style)], False
    out: list[Segment] = []
    last = 0
    for pos in positions:
        if pos > last:
            out.append(Segment(text[last:pos], style))
        out.append(Segment(_visible(text[pos]), warn))
        last = pos + 1
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
        self._token_styles: dict[Any, Style] = {}  # token type -> colour-only style, for the current theme

    def set_theme(self, name: str) -> None:
        """Use the Pygments style ``name`` (loaded on first use, so the first frame never waits for it)."""
        if name != self._theme_name:
            self._theme_name = name
            self._theme = None
            self._cache.clear()
            self._token_styles.clear()

    def _syntax_theme(self) -> Any:
        if self._theme is None:
            from pygments.util import ClassNotFound
            from rich.syntax import PygmentsSyntaxTheme

            try:
                self._theme = PygmentsSyntaxTheme(self._theme_name or "monokai")
            except ClassNotFound:
                self._theme = PygmentsSyntaxTheme("monokai")
        return self._theme

    def ready(self, path: str) -> bool | None:
        """True: can highlight ``path`` now; False: never (unknown type); None: not looked up yet."""
        lexer = self._lexers.get(_lexer_key(path), ...)
        if lexer is ...:
            return None
        return lexer is not None and self._theme is not None

    def clear(self) -> None:
        self._cache.clear()

    def lexer_for(self, path: str) -> Any:
        """A lexer for ``path`` from Pygments' static table (its own lookup scans plugins: over a second)."""
        key = _lexer_key(path)
        if key not in self._lexers:
            self._lexers[key] = _lexer_for(path.rsplit("/", 1)[-1])
        return self._lexers[key]

    def cached(self, key: int, path: str) -> list[tuple[str, Style]] | None:
        hit = self._cache.get((key, path))
        if hit is not None:
            self._cache.move_to_end((key, path))
        return hit

    def tokens(self, key: int, code: str, path: str) -> list[tuple[str, Style]] | None:
        """Styled pieces of one code line (no background), or None when the file type is unknown."""
        hit = self.cached(key, path)
        if hit is not None:
            return hit
        lexer = self.lexer_for(path)
        if lexer is None:
            return None
        pieces: list[tuple[str, Style]] = []
        styles = self._token_styles
        for ttype, value in lexer.get_tokens(code):
            if value:
                style = styles.get(ttype)
                if style is None:
                    st = self._syntax_theme().get_style_for_token(ttype)
                    style = styles[ttype] = Style(color=st.color, bold=st.bold, italic=st.italic)
                pieces.append((value.rstrip("\n") if value.endswith("\n") else value, style))
        self._cache[(key, path)] = pieces
        if len(self._cache) > self._size:
            self._cache.popitem(last=False)
        return pieces


def _lexer_key(path: str) -> str:
    base = path.rsplit("/", 1)[-1]
    return "." + base.rsplit(".", 1)[-1] if "." in base else base


_SIMPLE: dict[str, tuple[str, str]] = {}
_PATTERNS: list[tuple[str, str, str]] = []


def _lexer_for(base: str) -> Any:
    from fnmatch import fnmatch

    from pygments.lexers._mapping import LEXERS

    if not _PATTERNS:
        for class_name, (module, _name, _aliases, patterns, _mimes) in LEXERS.items():
            for pattern in patterns:
                _PATTERNS.append((pattern, module, class_name))
                if pattern.startswith("*.") and not any(c in pattern[2:] for c in "*?["):
                    _SIMPLE.setdefault(pattern[1:], (module, class_name))
                elif not any(c in pattern for c in "*?["):
                    _SIMPLE.setdefault(pattern, (module, class_name))
    ext = "." + base.rsplit(".", 1)[-1] if "." in base else ""
    found = _SIMPLE.get(base) or _SIMPLE.get(ext)
    if found is None:
        found = next(((m, c) for pattern, m, c in _PATTERNS if fnmatch(base, pattern)), None)
    if found is None:
        return None
    import importlib

    try:
        cls = getattr(importlib.import_module(found[0]), found[1])
        return cls(stripnl=False, ensurenl=False, stripall=False)
    except Exception:  # a broken lexer plug-in must not break the viewer: show plain text
        return None


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
    plain: Style = Style()

    def on(self, base: Style) -> "DiffStyles":
        """The same styles laid over the widget's own style (so rows need no second styling pass)."""
        fields = {name: base + value if isinstance(value, Style) else value for name, value in vars(self).items()}
        fields["plain"] = base
        return DiffStyles(**fields)

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
