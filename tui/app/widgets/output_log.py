"""The output pane's Log, without the repaint Textual gives it at every layout of the screen.

Imported when the output pane mounts its Log (after the first frame).
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widgets import Log


class OutputLog(Log):
    """Textual's Log, whose scrollbars are not repainted when some other widget changes size.

    A ScrollView compares the virtual size the compositor passes in at each layout with its own; for a Log
    they always differ, so every layout of the screen (a streamed reply growing by a line, 10-30 times a
    second) repainted both of its scrollbars and widened the repaint to the whole screen. Its own virtual
    size is the one that counts (docs/streaming.md).
    """

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        return super()._size_updated(size, self.virtual_size, container_size, layout)
