"""A model reply as lines on screen, exactly as the model wrote it.

Prose is literal text: every character the model sent is shown, in place (``__init__.py``, ``__all__``,
``*args``, ``C:\\temp``, ``**bold**``, ``# heading``); nothing is taken as emphasis, a link or an escape, and
line breaks stay where they were. Only what cannot change code is styled: an inline code span keeps its
backticks and gets the code colour, a heading line is bold. A fenced code block is shown as a highlighted
code box (its fence lines become the box's top and bottom rows, so the height is the text's).
The fence rule is tui/safety/mdtext.py's, the one the block splitter of streamed text uses.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from tui.safety.mdtext import Fence, code_spans, fence_closes, fence_open, split_fences

_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
TAB = 4


class ReplyStyle(NamedTuple):
    code_theme: str = "monokai"  # a Pygments style for fenced code
    code: Style = Style(bold=True)  # inline code spans
    heading: Style = Style(bold=True)  # lines that start with #


def prose_text(text: str, style: ReplyStyle) -> Text:
    """Prose lines as one literal Text: code spans and heading lines styled, nothing else touched."""
    out = Text(text, tab_size=TAB, overflow="fold", end="")
    offset = 0
    for line in text.split("\n"):
        if _HEADING.match(line):
            out.stylize(style.heading, offset, offset + len(line))
        for start, end in code_spans(line) if "`" in line else ():
            out.stylize(style.code, offset + start, offset + end)
        offset += len(line) + 1
    return out


def code_box(code: str, fence: Fence, style: ReplyStyle) -> Any:
    """A fenced block's code, highlighted in a padded box whose top and bottom rows stand for the fences."""
    from rich.syntax import Syntax

    code = code[:-1] if code.endswith("\n") else code
    return Syntax(code, fence.lang or "text", theme=style.code_theme, word_wrap=True, padding=1, tab_size=TAB)


def finished_lines(text: str, start: int) -> int:
    """End of the last line of ``text[start:]`` that can no longer change how it looks (``start`` is outside any
    fence): a whole line of prose (each is shown on its own), or a fenced block up to its closing line."""
    cut = pos = start
    fence: Fence | None = None
    for line in text[start:].splitlines(keepends=True):
        if not line.endswith("\n"):
            break
        pos += len(line)
        if fence is None:
            fence = fence_open(line) if line.lstrip(" \t")[:1] in ("`", "~") else None
            if fence is None:
                cut = pos
        elif fence_closes(line, fence):
            fence, cut = None, pos
    return cut


def renderables(text: str, style: ReplyStyle) -> list[Any]:
    """What to render for ``text``, one renderable per run of prose lines or fenced block."""
    parts: list[Any] = []
    for body, fence in split_fences(text):
        if fence is not None:
            parts.append(code_box(body, fence, style))
        else:
            parts.append(prose_text(body[:-1] if body.endswith("\n") else body, style))
    return parts


def reply_strips(console: Any, text: str, width: int, style: ReplyStyle) -> list[Strip]:
    """``text`` rendered at ``width`` as padded strips, one per screen line: a line of text is at least one
    screen line (rich drops a Text's last line when it is empty: it is added back)."""
    options = console.options.update_width(width)
    strips: list[Strip] = []
    for part in renderables(text, style):
        strips.extend(Strip(line, width) for line in console.render_lines(part, options, pad=True))
        if isinstance(part, Text) and part.plain.endswith("\n"):
            strips.append(Strip.blank(width))
    return strips
