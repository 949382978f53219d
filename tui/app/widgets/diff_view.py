"""The diff viewer: a Line-API scroll view that stays instant on million-line diffs.

Only visible rows are rendered; only visible code is highlighted (with a small
cache). Headers are indexed up front by ``tui.git.diffs.DiffIndex`` (a regex
pass); hunk bodies are read when they scroll into view. In idle time the page
above and the page below are built ahead, so a page step paints cached rows.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from textual import events
from textual.binding import BindingType
from textual.color import Color
from textual.filter import LineFilter
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.theme import Theme

from tui.app.keymap import bindings, hints

from .diff_frame import MODES, Finish, finished, show_counts, show_mode, show_title
from .diff_render import DiffStyles, Highlighter

if TYPE_CHECKING:  # imported by show_diff: the empty view of the first frame needs none of them
    from tui.git.diffs import DiffIndex

    from .diff_layout import Layout
    from .diff_rows import DiffRows


class DiffView(ScrollView, can_focus=True):
    """Shows one diff; each hunk can be accepted (default) or rejected.

    BINDINGS:
        n / ]        next hunk            p / [        previous hunk
        } / J        next file            { / K        previous file
        space        accept/reject the current hunk (click on a hunk header too)
        s            unified <-> side by side
        j / k, arrows, pgup/pgdn, home/end   scroll

    Reactives:
        accepted: set[int]    accepted hunk indices (assign a new set; DiffIndex order, as select_hunks expects)
        current_hunk: int     the hunk `space` acts on (-1 when there is none)
        side_by_side: bool    the view layout
        mode: str             "proposal" | "unstaged" | "staged": the border label and its colour

    Messages: DiffView.HunkToggled(index, accepted), DiffView.FileFocused(index).
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("diff")  # type: ignore[assignment]  # tui/app/keymap.py

    KEY_HINTS = hints("diff")

    DEFAULT_CSS = """
    DiffView {
        background: $surface;
        color: $foreground;
        border: round $panel-lighten-2;
        border-title-style: bold;
        border-subtitle-color: $text-muted;
    }
    DiffView:focus { border: round $primary; }
    DiffView.-proposal { border-title-color: $accent; }
    DiffView.-unstaged { border-title-color: $warning; }
    DiffView.-staged { border-title-color: $success; }
    """

    # repaint=False: the watchers refresh exactly the rows that change
    accepted: reactive[set[int]] = reactive(set, always_update=True, init=False, repaint=False)
    current_hunk: reactive[int] = reactive(-1, init=False, repaint=False)
    side_by_side: reactive[bool] = reactive(False, init=False, repaint=False)
    mode: reactive[str] = reactive("proposal", init=False)

    class HunkToggled(Message):
        """A hunk was accepted or rejected by the developer."""

        def __init__(self, index: int, accepted: bool) -> None:
            super().__init__()
            self.index = index
            self.accepted = accepted

    class FileFocused(Message):
        """The current hunk moved into another file (for the file list)."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._layout: Layout | None = None
        self._title = ""
        self._styles: DiffStyles | None = None
        self._highlighter = Highlighter()
        self._max_len = 0
        self._num_width = 1
        self._current_file = -1
        self._rows: DiffRows | None = None
        self._idle_scheduled = False
        self._finish: Finish = ((), Color(0, 0, 0))  # the line filters applied to rows, and their background
        self.add_class("-proposal")

    # -- public API -----------------------------------------------------------------------------
    def show_diff(self, text: str, *, mode: str = "proposal", title: str = "") -> None:
        """Show ``text`` (a git diff); every hunk starts accepted."""
        from tui.git.diffs import DiffIndex

        from .diff_layout import Layout, number_width
        from .diff_rows import DiffRows

        index = DiffIndex.from_text(text)
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        self._layout = Layout(lines, index)
        self._highlighter.clear()
        self._num_width = number_width(index)
        self._rows = DiffRows(self._layout, self._num_width, self._highlighter, self._schedule_highlight)
        self._max_len = max(map(len, lines), default=0)
        self._title = title
        self._current_file = -1
        self.set_reactive(DiffView.current_hunk, 0 if index.hunks else -1)
        self.mode = mode
        self._update_title()
        self.accepted = set(range(len(index.hunks)))
        if self.side_by_side:
            self._layout.build_side_by_side()
        self._update_size()
        self.scroll_to(0, 0, animate=False, immediate=True)
        self._announce_file()
        self.refresh()

    def clear(self) -> None:
        """Show nothing (an empty, labelled view)."""
        self._layout = None
        self._rows = None
        self._title = ""
        self._max_len = 0
        self.set_reactive(DiffView.current_hunk, -1)
        self._update_title()
        self.accepted = set()
        self._update_size()
        self.refresh()

    @property
    def index(self) -> DiffIndex | None:
        return self._layout.index if self._layout else None

    def accepted_hunks(self) -> set[int]:
        """A copy of the accepted hunk indices (what the approver applies)."""
        return set(self.accepted)

    def rejected_hunks(self) -> set[int]:
        return set(range(self.hunk_count)) - self.accepted

    @property
    def hunk_count(self) -> int:
        return len(self._layout.hunks) if self._layout else 0

    @property
    def current_file(self) -> int:
        if not self._layout or self.current_hunk < 0:
            return -1
        return self._layout.hunks[self.current_hunk].file_index

    def set_hunk(self, index: int, accepted: bool) -> None:
        if not 0 <= index < self.hunk_count or (index in self.accepted) == accepted:
            return
        self.accepted = self.accepted | {index} if accepted else self.accepted - {index}
        self.post_message(self.HunkToggled(index, accepted))

    def toggle_hunk(self, index: int) -> None:
        self.set_hunk(index, index not in self.accepted)

    def jump_to_hunk(self, index: int) -> None:
        if not self._layout or not 0 <= index < self.hunk_count:
            return
        self.current_hunk = index
        self.scroll_to(y=self._hunk_rows()[index], animate=False, immediate=True)

    def jump_to_file(self, index: int) -> None:
        if not self._layout or not 0 <= index < len(self._layout.index.files):
            return
        hunks = self._layout.index.files[index].hunks
        if hunks:
            self.current_hunk = hunks[0]
        self.scroll_to(y=self._layout.file_rows(self.side_by_side)[index], animate=False, immediate=True)

    # -- actions --------------------------------------------------------------------------------
    def action_next_hunk(self) -> None:
        self.jump_to_hunk(min(self.current_hunk + 1, self.hunk_count - 1))

    def action_prev_hunk(self) -> None:
        self.jump_to_hunk(max(self.current_hunk - 1, 0))

    def action_next_file(self) -> None:
        if self._layout and self._layout.index.files:
            self.jump_to_file(min(self.current_file + 1, len(self._layout.index.files) - 1))

    def action_prev_file(self) -> None:
        if self._layout and self._layout.index.files:
            self.jump_to_file(max(self.current_file - 1, 0))

    def action_toggle_hunk(self) -> None:
        if self.current_hunk >= 0:
            self.toggle_hunk(self.current_hunk)

    def action_toggle_side_by_side(self) -> None:
        self.side_by_side = not self.side_by_side

    # -- watchers -------------------------------------------------------------------------------
    def watch_accepted(self) -> None:
        self._update_subtitle()
        self.refresh()

    def watch_current_hunk(self, old: int, new: int) -> None:
        self._announce_file()
        if self._layout is None:
            return
        rows = self._hunk_rows()
        for h in (old, new):  # only the two header rows change
            if 0 <= h < len(rows):
                self.refresh_line(rows[h])

    def watch_side_by_side(self, value: bool) -> None:
        if self._layout is None:
            return
        if value:
            self._layout.build_side_by_side()
        self._update_size()
        if self.current_hunk >= 0:
            self.scroll_to(y=self._hunk_rows()[self.current_hunk], animate=False, immediate=True)
        self.refresh()

    def validate_mode(self, mode: str) -> str:
        return mode if mode in MODES else "proposal"

    def watch_mode(self, mode: str) -> None:
        show_mode(self, mode)
        self._update_title()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._follow_scroll()

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        show_mode(self, self.mode)  # the frame learns the mode the view was born with
        self._update_title()
        self._update_subtitle()

    def _theme_changed(self, _theme: Theme) -> None:
        self._styles = None
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or self._layout is None:
            return
        row = offset.y + round(self.scroll_y)
        line = self._row_line(row)
        if line < 0:
            return
        h = self._layout.hunk_at_line(line)
        if h < 0:
            return
        self.current_hunk = h
        from .diff_layout import FILE, HUNK

        if self._layout.kind(line, h) in (HUNK, FILE):
            self.toggle_hunk(h)

    # -- helpers --------------------------------------------------------------------------------
    def _hunk_rows(self) -> Sequence[int]:
        assert self._layout is not None
        return self._layout.hunk_rows(self.side_by_side)

    def _row_count(self) -> int:
        return self._layout.row_count(self.side_by_side) if self._layout is not None else 1

    def _row_line(self, row: int) -> int:
        return self._layout.row_line(row, self.side_by_side) if self._layout is not None else -1

    def _gutter_width(self) -> int:
        return 2 + self._num_width * (1 if self.side_by_side else 2) + (1 if self.side_by_side else 2)

    def _update_size(self) -> None:
        content = self._max_len + 1
        width = self._gutter_width() + content
        if self.side_by_side:
            width = 2 * width + 1
        self.virtual_size = Size(width if self._layout else 0, self._row_count())

    def _follow_scroll(self) -> None:
        """Keep the current hunk on screen: after a manual scroll it becomes the first hunk in view."""
        if self._layout is None or self.current_hunk < 0 or not self.size.height:
            return
        rows = self._hunk_rows()
        top = round(self.scroll_y)
        bottom = top + self.scrollable_content_region.height
        start = rows[self.current_hunk]
        end = rows[self.current_hunk + 1] if self.current_hunk + 1 < len(rows) else self._row_count()
        if end <= top or start >= bottom:
            first = max(0, bisect_right(rows, top) - 1)
            if rows[first] < top and first + 1 < len(rows) and rows[first + 1] < bottom:
                first += 1
            self.current_hunk = first

    def _announce_file(self) -> None:
        current = self.current_file
        if current != self._current_file:
            self._current_file = current
            if current >= 0:
                self.post_message(self.FileFocused(current))

    def _update_title(self) -> None:
        show_title(self, self.mode, self._title)

    def _update_subtitle(self) -> None:
        show_counts(self, self._layout.summary(len(self.accepted)) if self._layout is not None else "no changes")

    @property
    def styles_for_diff(self) -> DiffStyles:
        if self._styles is None:
            theme = self.app.current_theme
            self._styles = DiffStyles.from_variables(self.app.theme_variables, theme.dark if theme else True).on(
                self.rich_style)
            self._highlighter.set_theme(self._styles.syntax_theme)
        return self._styles

    # -- rendering ------------------------------------------------------------------------------
    @property
    def highlight_pending(self) -> int:
        """Visible lines still waiting for syntax colours (painted plain meanwhile)."""
        return len(self._rows.pending) if self._rows else 0

    def _schedule_highlight(self) -> None:
        if not self._idle_scheduled:
            self._idle_scheduled = True
            self.call_after_refresh(self._idle_work)

    def _idle_work(self) -> None:
        """After a paint: colour the visible lines painted plain, then build the pages either side."""
        self._idle_scheduled = False
        rows = self._rows
        if rows is None or rows.st is None:  # nothing painted yet
            return
        if rows.pending:
            for row in rows.recoloured(self.size.height, self._row_count(), self.side_by_side):
                self.refresh_line(row)
            self._schedule_highlight()
        elif not rows.build_ahead(self.scrollable_content_region.height, self._row_count()):
            self._schedule_highlight()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Without a border or padding of its own, the view's rows are the whole lines: the app's filters are
        applied to each cached row once (render_lines), not by Textual to every row of every frame."""
        return () if self._filters_in_rows() else super().get_line_filters()

    def _filters_in_rows(self) -> bool:
        styles = self.styles
        return not any(edge for edge, _ in styles.border) and not any(styles.padding)

    def render_lines(self, crop: Region) -> list[Strip]:
        filters = tuple(self.app.get_line_filters()) if self._filters_in_rows() else ()
        self._finish = (filters, self.background_colors[1])
        if self._rows is not None:
            from .diff_rows import Frame

            self._rows.begin(Frame(self.scrollable_content_region.width, round(self.scroll_x), round(self.scroll_y),
                                   self.side_by_side, self.accepted, self.current_hunk), self.styles_for_diff,
                             self._finish)
            self._schedule_highlight()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        rows = self._rows
        st = self.styles_for_diff
        if rows is None or not rows.layout.lines:
            width = self.scrollable_content_region.width
            text = "  No changes to show." if y == 0 else ""
            return finished(Strip(Segment.adjust_line_length([Segment(text, st.meta)], width, style=st.plain),
                                  width), self._finish)
        row = y + rows.frame.top
        if row >= self._row_count():
            width = rows.frame.width
            return finished(Strip([Segment(" " * width, st.plain)], width), self._finish)
        return rows.strip(row)
