"""One streamed model reply as a single Line-API widget: frozen blocks plus a live tail.

Why one widget: every widget whose height changes makes Textual lay out the screen and repaint the
widgets that moved, so a reply is one ``height: auto`` widget whose lines are cached strips.
Finished lines (a whole line outside a code fence, or a closed fence) are rendered once per width
and never again; only the unfinished tail is re-rendered per flush. When the reply's height does not
change, only the lines that differ are repainted, with no layout at all; when it does, the lines above
the first change keep their cached paint. While text streams in fast (lines less than ``GROW_WINDOW``
apart), the reply grows ``GROW`` lines at a time, the last rows waiting blank for the text: the screen is
laid out, the conversation scrolled and its scrollbar repainted once per ``GROW`` lines, not once per line
(each is a repaint of the whole pane). ``settle`` gives it its text's height.
The text is shown exactly as the model wrote it (reply_render.py): literal prose, fenced code highlighted.
"""

from __future__ import annotations

import gc
import threading
import time
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from tui.app.widgets.reply_render import ReplyStyle, finished_lines, reply_strips

_frozen_heap = False
GROW = 8  # lines a fast-streaming reply grows by at a time
GROW_WINDOW = 0.5  # seconds: a reply that grew less than this long ago is streaming fast


def _warm() -> None:
    """Compile a code lexer and the highlighter, so the first code block does not stall the loop.

    Then freeze the start-up heap (once per process): streaming allocates many short-lived strips,
    and a full collection that walks every start-up object paused the loop for 70-130 ms.
    """
    global _frozen_heap
    from rich.console import Console

    console = Console(width=40, file=open("/dev/null", "w"), color_system="truecolor")  # noqa: SIM115
    try:
        reply_strips(console, "warm `up`\n\n```python\ndef f(a):\n    return a\n```\n", 40, ReplyStyle())
    finally:
        console.file.close()
    if not _frozen_heap:
        _frozen_heap = True
        gc.freeze()


def warm_in_background() -> None:
    """Run the one-off lexer set-up in a daemon thread (call after the first frame)."""
    threading.Thread(target=_warm, name="highlight-warm", daemon=True).start()


class Reply(Widget):
    """One model message. ``source`` is all text taken in so far; ``pending`` is text not yet shown."""

    _grown_from: int | None = None  # first changed line when the height changes (until laid out)
    _partial: int | None = None  # set while Textual handles that resize
    _render_started = 0.0  # when the tail was last rendered (monotonic) and the CPU it took
    _render_cost = 0.0
    _relayout = False  # a paint found the text taller than the rows laid out, and asked for a layout
    _asked = False  # a paint of the tail is requested and has not happened yet
    _painting = 0  # the end of the rows that paint covers
    takes = 0  # times pending text was taken in (each a render of the tail)

    DEFAULT_CSS = """
    Reply { height: auto; margin: 0 0 1 0; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.source = ""
        self.pending: list[str] = []
        self.frozen = 0  # characters of source already in frozen blocks
        self.look: ReplyStyle | None = None  # the theme's colours, looked up once per reply
        self._blocks: list[str] = []  # frozen block texts
        self._live_text = ""
        self._width = 0  # width the strips below were rendered at
        self._frozen_lines: list[Strip] = []
        self._rendered_blocks = 0
        self._live_lines: list[Strip] = []
        self._live_stale = True
        self._style: Style | None = None
        self._styled_frozen: dict[int, Strip] = {}  # line index -> strip with the widget's style applied
        self._styled_live: dict[int, Strip] = {}
        self.growing = True  # streaming: the height only grows, by GROW lines at a time when fast (until settle())
        self._reserved = 0  # the height while growing
        self._grew_at = -GROW_WINDOW

    def _height(self, lines: int) -> int:
        """The widget's height for ``lines`` lines of text."""
        return max(lines, self._reserved) if self.growing else lines

    def _grow(self, lines: int) -> None:
        """``lines`` of text to show while streaming: room for them, and for more when they come fast."""
        if self.growing and lines > self._reserved:
            now = time.monotonic()
            self._reserved = lines + (GROW - 1 if now - self._grew_at < GROW_WINDOW else 0)
            self._grew_at = now

    def settle(self) -> None:
        """The reply is complete: its height becomes its text's (the rows kept for growth go)."""
        if self.growing:
            self.growing = False
            if self.is_mounted and self._width and self._height(len(self.lines)) != self.size.height:
                self.refresh(layout=True)

    @property
    def blocks(self) -> int:
        return len(self._blocks)

    @property
    def lines(self) -> list[Strip]:
        return self._frozen_lines + self._live_lines

    def _look(self) -> ReplyStyle:
        """The theme's code colours, looked up once per reply (computing CSS variables is not free)."""
        if self.look is None:
            variables = self.app.get_css_variables()
            accent = variables.get("text-accent") or variables.get("accent")
            self.look = ReplyStyle(variables.get("syntax-theme", "monokai"),
                                   Style(bold=True, color=accent) if accent else Style(bold=True),
                                   Style(bold=True))
        return self.look

    def _strips(self, text: str, width: int) -> list[Strip]:
        if not self._frozen_lines:
            text = text.lstrip("\n")  # the reply starts at its first line of text
        return reply_strips(self.app.console, text, width, self._look())

    def _ensure(self, width: int) -> None:
        """Bring the cached strips up to date for ``width``, rendering only what is new or stale."""
        width = max(1, width)
        if width != self._width:
            self._width, self._frozen_lines, self._rendered_blocks, self._live_stale = width, [], 0, True
            self._styled_frozen.clear()
        while self._rendered_blocks < len(self._blocks):
            self._frozen_lines.extend(self._strips(self._blocks[self._rendered_blocks], width))
            self._rendered_blocks += 1
        if self._live_stale:
            self._live_lines = self._strips(self._live_text, width) if self._live_text else []
            self._styled_live.clear()
            self._live_stale = False

    @property
    def text(self) -> str:
        """Everything received, shown or not."""
        return self.source + "".join(self.pending)

    def show_only(self, text: str) -> None:
        """Show ``text`` in place of everything received (the message without the calls written into it)."""
        self.pending.clear()
        self.source = text
        self.frozen = finished_lines(text, 0)
        self._blocks = [text[:self.frozen]] if self.frozen else []
        self._live_text = text[self.frozen:]
        self._width, self._live_stale, self._render_cost = 0, True, 0.0  # everything renders again
        self.refresh(layout=True)

    def add(self, text: str) -> None:
        """Streamed text: it is taken in and rendered when the screen next paints the reply, so a token waits
        for one paint (Textual paints at most 60 times a second), never for a flush and then a paint."""
        self.pending.append(text)
        if not self._asked:
            self._ask()

    def _ask(self) -> None:
        """One paint request for the tail and the row below it (a layout when there is none); a paint that finds
        the new text ran further asks for those rows too."""
        self._asked = True
        if not self.is_mounted:
            self.call_after_refresh(self._ask_again)  # mounting: ask once it is
            return
        start, height = len(self._frozen_lines), self.size.height  # lines above the live tail never change
        if self._width and not self.is_on_screen:  # scrolled out of view: no paint would take the text in
            self._asked = False
            self._take()
            self._ensure(self._width)
            self._grow(len(self.lines))
            if self._height(len(self.lines)) != height:
                self._grown_from = start
                self.refresh(layout=True)
            return
        if not self._width or start >= height:
            self._grown_from = start if self._width else None
            self.refresh(layout=True)
        else:
            self._painting = min(height, start + len(self._live_lines) + 1)
            self.refresh(Region(0, start, self._width, self._painting - start))

    def _ask_again(self) -> None:
        self._asked = False
        if self.pending:
            self._ask()

    def _take(self) -> None:
        """Move the pending text into the reply; a tail that is expensive to render (a long open code block is
        highlighted again as a whole) takes new text at most a third of the time, so keys and paints go on."""
        wait = self._render_started + 3 * self._render_cost - time.monotonic()
        if wait > 0:
            if not self._asked:  # one later request, not one per token meanwhile
                self._asked = True
                self.set_timer(wait, self._ask_again, name="reply-expensive-tail")
            return
        self.takes += 1
        self.source += "".join(self.pending)
        self.pending.clear()
        cut = finished_lines(self.source, self.frozen)
        if cut > self.frozen:
            self._blocks.append(self.source[self.frozen:cut])
            self.frozen = cut
        self._live_text = self.source[self.frozen:]
        self._live_stale = True

    def _paint_ready(self, width: int) -> None:
        """Before a paint: the text up to date; when it outgrew the rows laid out, a layout for the next frame."""
        self._asked = False
        if self.pending:
            self._take()
        if not (self._live_stale or self._rendered_blocks < len(self._blocks) or width != self._width):
            return
        start = len(self._frozen_lines) if width == self._width else 0
        self._render_started, cpu = time.monotonic(), time.thread_time()
        self._ensure(width)
        self._render_cost = time.thread_time() - cpu
        lines = len(self._frozen_lines) + len(self._live_lines)
        self._grow(lines)
        if self._height(lines) != self.size.height and not self._relayout:
            self._relayout, self._grown_from = True, start
            self.call_later(self.refresh, layout=True)
        elif 0 < self._painting < lines:  # more rows than this tail paint covers: they are painted next
            self.call_later(self.refresh, Region(0, self._painting, width, lines - self._painting))
        self._painting = 0

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        """A height change from new text keeps the styles cache above the first changed line (Textual drops it
        all), and asks for no second layout: the size comes from the layout that is running."""
        grown, self._grown_from = self._grown_from, None
        if grown is None or size.width != self._size.width:
            return super()._size_updated(size, virtual_size, container_size, layout=False)
        self._partial = grown
        try:
            return super()._size_updated(size, virtual_size, container_size, layout=False)
        finally:
            self._partial = None

    def _set_dirty(self, *regions: Region) -> None:
        if not regions and self._partial is not None:
            regions = (Region(0, self._partial, self._width, max(1, self._height(len(self.lines)) - self._partial)),)
        super()._set_dirty(*regions)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._relayout = False
        if self.pending:
            self._take()
        self._ensure(width)
        lines = len(self._frozen_lines) + len(self._live_lines)
        self._grow(lines)
        return self._height(lines)

    def notify_style_update(self) -> None:
        """A theme or CSS change: the lines are styled again when next painted."""
        self._style = None
        super().notify_style_update()

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        self._paint_ready(width)
        style = self._style
        if style is None:
            style = self._style = self.rich_style
            self._styled_frozen.clear()
            self._styled_live.clear()
        frozen = self._frozen_lines
        if y < len(frozen):
            lines, cache, index = frozen, self._styled_frozen, y
        elif y - len(frozen) < len(self._live_lines):
            lines, cache, index = self._live_lines, self._styled_live, y - len(frozen)
        else:
            return Strip.blank(width, style)
        styled = cache.get(index)
        if styled is None:  # offsets let the screen map a mouse position to text, for selecting it
            styled = cache[index] = lines[index].apply_style(style).apply_offsets(0, y)
        selection = self.text_selection
        return styled if selection is None else self._highlight(styled, selection.get_span(y))

    def _highlight(self, strip: Strip, span: tuple[int, int] | None) -> Strip:
        """``strip`` with the selected characters ``span`` (end -1: to the end of the text) in the selection style."""
        if span is None:
            return strip
        text = strip.text
        start, end = span
        end = len(text.rstrip()) if end == -1 else min(end, len(text))
        first, last = cell_len(text[:start]), cell_len(text[:end])
        if last <= first:
            return strip
        before, middle, after = strip.divide([first, last, strip.cell_length])
        style = self.screen.get_component_rich_style("screen--selection")
        marked = Strip(Segment.apply_style(list(middle), post_style=style), middle.cell_length)
        return Strip.join([before, marked, after])

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text as shown (one line per screen row, trailing padding dropped)."""
        return selection.extract("\n".join(strip.text.rstrip() for strip in self.lines)), "\n"
