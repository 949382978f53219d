"""The box a DiffView is shown in: its border, title (what the diff is) and subtitle (counts).

Why a frame: Textual draws a widget's own border into every row it paints, so a bordered view paid
for its border on every page step (about half of a step's time on a 100k-line diff). The frame's
border is painted when it changes; a scroll repaints only the view's rows. A DiffView inside a frame
puts its labels and its mode class (-proposal / -unstaged / -staged) on the frame.
"""

from __future__ import annotations

from rich.text import Text
from textual.color import Color
from textual.containers import Vertical
from textual.filter import LineFilter
from textual.strip import Strip
from textual.widget import Widget

MODES = {"proposal": "Proposed change", "unstaged": "Unstaged changes", "staged": "Staged changes"}
Finish = tuple[tuple[LineFilter, ...], Color]  # the app's line filters for a view's rows, and their background


def finished(strip: Strip, finish: Finish) -> Strip:
    """``strip`` through the line filters (each result is cached on the strip by Textual): a framed view's
    rows are whole lines, so its rows are filtered once each, not by Textual on every frame."""
    filters, background = finish
    for line_filter in filters:
        strip = strip.apply_filter(line_filter, background)
    return strip


class DiffFrame(Vertical):
    """Holds one DiffView. The border brightens and thickens while the view or its frame has the focus."""

    DEFAULT_CSS = """
    DiffFrame {
        height: 1fr;
        width: 1fr;
        border: round $panel-lighten-2;
        border-title-style: bold;
        border-subtitle-color: $text-muted;
    }
    DiffFrame:focus-within { border: heavy $primary; }
    DiffFrame.-proposal { border-title-color: $accent; }
    DiffFrame.-unstaged { border-title-color: $warning; }
    DiffFrame.-staged { border-title-color: $success; }
    DiffFrame > DiffView, DiffFrame > DiffView:focus { border: none; height: 1fr; width: 1fr; }
    """


def labels_of(view: Widget) -> Widget:
    """Where a diff view's title, subtitle and mode class go: its DiffFrame, else its own border."""
    return view.parent if isinstance(view.parent, DiffFrame) else view


def show_mode(view: Widget, mode: str) -> None:
    """The mode's class (-proposal / -unstaged / -staged) on the view and where its labels go."""
    labels = labels_of(view)
    for name in MODES:
        view.set_class(name == mode, f"-{name}")
        labels.set_class(name == mode, f"-{name}")


def show_title(view: Widget, mode: str, title: str) -> None:
    """The border title where the view's labels go: the mode, then what the diff is."""
    text = Text(MODES.get(mode, mode))
    if title:
        text.append(" · " + title)
    labels_of(view).border_title = text


def show_counts(view: Widget, counts: str) -> None:
    """The border subtitle where the view's labels go: the files, hunks and lines, and how many are accepted."""
    labels_of(view).border_subtitle = Text(counts)
