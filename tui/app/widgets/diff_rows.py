"""Turns rows of a laid-out diff into segments: gutter (hunk mark, line numbers), then coloured content.

A plain object (no widget): the DiffView gives it one frame's state and asks
for rows. Syntax colouring gets a time budget per frame; lines beyond it are
returned plain and queued in ``pending`` for the view to colour next (``recoloured``).
Finished rows are kept as Strips, and in the view's idle time the pages around the
visible one are built ahead (``build_ahead``), so a page step only looks rows up.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from itertools import chain
from time import perf_counter
from typing import NamedTuple

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.strip import Strip

from .diff_frame import Finish, finished
from .diff_layout import ADD, CTX, DEL, FILE, HUNK, META, NOTE, Layout
from .diff_render import DiffStyles, Highlighter, safe_segments

ACCEPT, REJECT = "✓ ", "✗ "
HIGHLIGHT_BUDGET = 0.006  # seconds of Pygments work per frame; the rest is painted plain, coloured next frame
CONTENT_CACHE = 2048  # rendered lines kept
ROW_CACHE = 512  # finished rows (Strips, about 1.8 KB each) kept: the visible page and the pages either side
PREFETCH_BUDGET = 0.004  # seconds of row building per idle slice, so a key press never waits long


class Frame(NamedTuple):
    """The view's state for one paint, read once instead of once per row."""

    width: int
    left: int  # scroll_x
    top: int  # scroll_y
    side_by_side: bool
    accepted: set[int]
    current: int


class DiffRows:
    """Row segments for one diff; caches rendered lines and queues lines still to highlight."""

    def __init__(self, layout: Layout, num_width: int, highlighter: Highlighter,
                 on_pending: Callable[[], None]) -> None:
        self.layout = layout
        self.num_width = num_width
        self.highlighter = highlighter
        self.pending: dict[int, tuple[str, str]] = {}
        self._on_pending = on_pending
        self._cache: OrderedDict[tuple[int, bool, bool], tuple[list[Segment], Style]] = OrderedDict()
        self._rows: OrderedDict[tuple[int, bool, bool], Strip] = OrderedDict()
        self._row_state: tuple[int, int, bool] = (-1, -1, False)
        self._lex_spent = 0.0
        self.frame = Frame(0, 0, 0, False, set(), -1)
        self.st: DiffStyles | None = None
        self.finish: Finish = ((), Color(0, 0, 0))
        self._ahead: tuple[tuple[int, ...], Iterator[int] | None] = ((), None)  # build_ahead's key, rows left

    def begin(self, frame: Frame, styles: DiffStyles, finish: Finish | None = None) -> None:
        if styles is not self.st:
            self.clear_cache()
            self.st = styles
        if finish is not None and finish != self.finish:  # kept rows carry the old filters' colours
            self._rows.clear()
            self.finish = finish
        state = (frame.width, frame.left, frame.side_by_side)
        if state != self._row_state:  # rows are cut to the width and scroll_x they were built for
            self._rows.clear()
            self._row_state = state
        self.frame = frame
        self._lex_spent = 0.0

    def clear_cache(self) -> None:
        self._cache.clear()
        self._rows.clear()

    def highlight_pending(self, budget: float = HIGHLIGHT_BUDGET) -> list[int]:
        """Colour queued lines for up to ``budget`` seconds; return the lines done."""
        started = perf_counter()
        done: list[int] = []
        for line, (code, path) in list(self.pending.items()):
            del self.pending[line]
            self.highlighter.tokens(line, code, path)
            done.append(line)
            if perf_counter() - started > budget:
                break
        return done

    def recoloured(self, height: int, count: int, side_by_side: bool) -> list[int]:
        """Colour the lines painted plain (a frame's budget); the visible rows showing them, to repaint."""
        done = set(self.highlight_pending())
        right = self.layout.sbs_right if side_by_side else None
        top = self.frame.top
        return [row for row in range(top, min(top + height, count))
                if self.layout.row_line(row, side_by_side) in done or (right is not None and right[row] in done)]

    def build_ahead(self, page: int, count: int) -> bool:
        """Idle time: build the page below the one painted last, then the page above; True when both are ready
        (a call goes on where the last one stopped while the view has not moved or changed)."""
        frame = self.frame
        key = (frame.top, page, frame.width, frame.left, frame.side_by_side, frame.current, id(frame.accepted),
               id(self.st))
        todo = self._ahead[1]
        if self._ahead[0] != key:  # the view moved or changed: the page below first, then the one above
            below = range(min(frame.top + page, count), min(frame.top + 2 * page, count))
            todo = chain(below, reversed(range(max(frame.top - page, 0), frame.top)))
        if todo is None or self.prefetch(todo):
            self._ahead = (key, None)
            return True
        self._ahead = (key, todo)  # go on from here in the next idle slice
        return False

    # -- rows -----------------------------------------------------------------------------------
    def strip(self, row: int) -> Strip:
        """Row ``row`` of the current layout as a finished Strip (cached while nothing it shows changes)."""
        layout, frame = self.layout, self.frame
        line = row
        if frame.side_by_side:
            assert layout.sbs_left is not None and layout.sbs_right is not None
            left = layout.sbs_left[row]
            line = left if left >= 0 else layout.sbs_right[row]
        h = layout.hunk_at_line(line)
        # a row depends on its hunk being rejected, and (its header only) on being the current hunk
        key = (row, h >= 0 and h not in frame.accepted, h >= 0 and h == frame.current and line == layout.hunks[h].start)
        hit = self._rows.get(key)
        if hit is not None:
            self._rows.move_to_end(key)
            return hit
        segments = self.side_by_side(row) if frame.side_by_side else self.unified(row)
        strip = finished(Strip(_merge(segments), frame.width), self.finish)  # fewer segments: less later work
        if not self.pending or not self._row_pending(row, line):
            self._rows[key] = strip
            if len(self._rows) > ROW_CACHE:
                self._rows.popitem(last=False)
        return strip

    def _row_pending(self, row: int, line: int) -> bool:
        """Whether the row shows a line still waiting for colours (such rows are not kept)."""
        if line in self.pending:
            return True
        right = self.layout.sbs_right
        return self.frame.side_by_side and right is not None and right[row] in self.pending

    def prefetch(self, rows: Iterator[int], budget: float = PREFETCH_BUDGET) -> bool:
        """Build and colour ``rows`` ahead of time for up to ``budget`` seconds; True when all are ready.

        Rows are taken from the iterator, so the next call goes on where this one stopped.
        """
        started = perf_counter()
        self._lex_spent = float("-inf")  # off-screen rows: colour them now, queue nothing
        try:
            for row in rows:
                self.strip(row)
                if perf_counter() - started > budget:
                    return False
        finally:
            self._lex_spent = 0.0
        return True

    def unified(self, row: int) -> list[Segment]:
        assert self.st is not None
        st, layout = self.st, self.layout
        h = layout.hunk_at_line(row)
        kind = layout.kind(row, h)
        content, fill = self._content(row, h, kind)
        old, new = self._numbers(row, h, kind)
        gutter = [self._mark(h, kind), Segment(f"{old} {new} ", st.gutter)]
        return self._join(gutter, content, fill, self.frame.width)

    def side_by_side(self, row: int) -> list[Segment]:
        layout = self.layout
        assert self.st is not None and layout.sbs_left is not None and layout.sbs_right is not None
        st = self.st
        left, right = layout.sbs_left[row], layout.sbs_right[row]
        line = left if left >= 0 else right
        h = layout.hunk_at_line(line)
        kind = layout.kind(line, h)
        width = self.frame.width
        if left == right and kind != CTX:
            content, fill = self._content(line, h, kind)
            return self._join([self._mark(h, kind), Segment(" " * (self.num_width + 1), st.gutter)],
                              content, fill, width)
        half = (width - 1) // 2
        out: list[Segment] = []
        for side, number_index in ((left, 0), (right, 1)):
            if number_index:
                out.append(Segment("│", st.gutter))
            if side < 0:
                out.append(Segment(" " * half, st.plain))
                continue
            side_kind = kind if side == line else layout.kind(side, h)
            content, fill = self._content(side, h, side_kind)
            number = self._numbers(side, h, side_kind)[number_index]
            mark = self._mark(h, side_kind) if number_index == 0 else Segment(" ", st.gutter)
            out.extend(self._join([mark, Segment(f"{number} ", st.gutter)], content, fill, half))
        return Segment.adjust_line_length(out, width, style=st.plain)

    def _join(self, gutter: list[Segment], content: list[Segment], fill: Style, width: int) -> list[Segment]:
        """Gutter, then the content scrolled by scroll_x, cropped or padded (with ``fill``) to ``width``."""
        room = max(0, width - sum(len(seg.text) for seg in gutter))
        x = self.frame.left
        if x:
            content = list(Segment.divide(content, [x, x + room]))[1] if content else []
        return gutter + Segment.adjust_line_length(content, room, style=fill)

    def _mark(self, h: int, kind: str) -> Segment:
        assert self.st is not None
        st = self.st
        if h < 0:
            return Segment("  ", st.gutter)
        accepted = h in self.frame.accepted
        if kind == HUNK or (kind == FILE and self.layout.hunks[h].whole_file):
            return Segment(ACCEPT if accepted else REJECT, st.accept_mark if accepted else st.reject_mark)
        return Segment("▏ " if accepted else "┊ ", st.gutter if accepted else st.rejected)

    def _numbers(self, line: int, h: int, kind: str) -> tuple[str, str]:
        w = self.num_width
        if kind not in (ADD, DEL, CTX):
            return " " * w, " " * w
        old, new = self.layout.numbers(line, h)
        return (f"{old:>{w}}" if kind != ADD else " " * w), (f"{new:>{w}}" if kind != DEL else " " * w)

    # -- content --------------------------------------------------------------------------------
    def _content(self, line: int, h: int, kind: str) -> tuple[list[Segment], Style]:
        """Content segments (prefix + code) for one diff line, and the style that fills the row (cached)."""
        rejected = h >= 0 and h not in self.frame.accepted
        key = (line, rejected, kind == HUNK and h == self.frame.current)  # only a header shows "current"
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        result = self._build(line, h, kind, rejected)
        if line not in self.pending:
            self._cache[key] = result
            if len(self._cache) > CONTENT_CACHE:
                self._cache.popitem(last=False)
        return result

    def _build(self, line: int, h: int, kind: str, rejected: bool) -> tuple[list[Segment], Style]:
        assert self.st is not None
        st = self.st
        text = self.layout.lines[line]
        if kind == FILE:
            return self._file_title(line), st.file
        if kind == HUNK:
            current = h == self.frame.current
            style = st.hunk_current if current else st.rejected if rejected else st.hunk
            return safe_segments(text, style, st.warn)[0], style if current else st.plain
        if kind in (META, NOTE):
            return safe_segments(text, st.rejected if rejected else st.meta, st.warn)[0], st.plain
        if rejected:
            fill, line_style, prefix_style = st.plain, st.rejected, st.rejected
        else:
            fill = st.added if kind == ADD else st.removed if kind == DEL else st.plain
            line_style = fill
            prefix_style = st.added_mark if kind == ADD else st.removed_mark if kind == DEL else fill
        segs = [Segment(text[:1] or " ", prefix_style)]
        crlf = text.endswith("\r")
        code = text[1:-1] if crlf else text[1:]
        body, unsafe = safe_segments(code, line_style, st.warn)
        if not unsafe and not rejected and code:
            tokens = self._tokens(line, code.expandtabs(4), self.layout.index.files[
                self.layout.hunks[h].file_index].path)
            if tokens:
                body = [Segment(value, line_style + tok) for value, tok in tokens]
        segs.extend(body)
        if crlf:
            segs.append(Segment("␍", st.meta))
        return segs, fill

    def _tokens(self, line: int, code: str, path: str) -> list[tuple[str, Style]] | None:
        """Cached tokens, or tokens now if the frame's budget allows, else None and the line is queued."""
        hl = self.highlighter
        tokens = hl.cached(line, path)
        if tokens is not None:
            return tokens
        ready = hl.ready(path)  # None: Pygments not loaded yet, which waits for the frame after this one
        if ready is False:
            return None
        if (ready or self._lex_spent < 0) and self._lex_spent < HIGHLIGHT_BUDGET:
            started = perf_counter()
            tokens = hl.tokens(line, code, path)
            self._lex_spent += perf_counter() - started
            return tokens
        self.pending[line] = (code, path)
        self._on_pending()
        return None

    def _file_title(self, line: int) -> list[Segment]:
        assert self.st is not None
        st = self.st
        f = self.layout.index.files[self.layout.file_at_line(line)]
        name = f.path if f.status not in ("renamed", "copied") else f"{f.old_path} → {f.new_path}"
        added, removed = self.layout.counts[f.index]
        segs, _ = safe_segments(f"▌ {name}", st.file, st.warn)
        extra = f"  +{added} −{removed}" if not f.binary else "  binary"
        if f.status != "modified":
            extra += f"  ({f.status})"
        segs.append(Segment(extra, st.file))
        return segs


def _merge(segments: list[Segment]) -> list[Segment]:
    """Join neighbours that share a style object (cheaper than Segment.simplify's equality test)."""
    out: list[Segment] = []
    for seg in segments:
        if out and seg.style is out[-1].style:
            out[-1] = Segment(out[-1].text + seg.text, seg.style)
        else:
            out.append(seg)
    return out
