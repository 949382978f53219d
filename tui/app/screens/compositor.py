"""The main screen's compositor: a partial paint renders only the rows that changed.

Textual's compositor, asked to repaint a few rows (a streamed token, the prompt's cursor blink), renders
every widget whose *container* overlaps those rows over the widget's whole visible height: the containers,
the conversation's scroll bar, the prompt and the status bar, each frame, to keep two to four rows of the
result. Here each such widget renders only the rows being painted, over its full width (the compositor's
column cuts stay aligned). A full paint is unchanged. Checked against the Textual version in
tui/app/textual_overrides.py.
"""

from __future__ import annotations

from typing import Iterable

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip


class RowCompositor(Compositor):
    """``_get_renders`` with each widget's render cropped to the painted rows."""

    def _get_renders(self, crop: Region | None = None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if not crop:
            yield from super()._get_renders(crop)
            return
        top, bottom = crop.y, crop.bottom
        overlaps = crop.overlaps
        for widget, (region, clip) in self.visible_widgets.items():
            if not overlaps(clip):
                continue
            first, last = max(clip.y, top), min(clip.bottom, bottom)
            rows = Region(clip.x, first, clip.width, last - first)  # the painted rows of the clip, full width
            x, y, width, height = region.intersection(rows)
            if width and height:
                yield region, rows, widget.render_lines(Region(x - region.x, y - region.y, width, height))
