"""The line above the prompt that says what devagent is waiting for, how long it has been and how to cancel it
("⠼ reading the prompt: 512 of 1,320 tokens · 27 s · esc cancels"). Shown only while there is a wait; redrawn
once a second from the last Progress (tui/protocol/waits.py), so the seconds move with no new event."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from textual.timer import Timer
from textual.widgets import Static

if TYPE_CHECKING:
    from tui.protocol.waits import Waits


class WaitLine(Static):
    """``feed`` it every engine event; ``cancel`` says the cancel key while something can be cancelled."""

    DEFAULT_CSS = """
    WaitLine { height: 1; padding: 0 1; color: $text-muted; display: none; }
    WaitLine.-active { display: block; }
    """

    def __init__(self, clock: Callable[[], float], cancel: Callable[[], str], **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)
        self.clock = clock
        self.cancel = cancel
        self._waits: Waits | None = None
        self._timer: Timer | None = None

    @property
    def waits(self) -> Waits:
        """Made on first use: tui.protocol.waits loads the engine's event classes, which the first frame does
        not need."""
        if self._waits is None:
            from tui.protocol.waits import Waits

            self._waits = Waits(self.clock)
        return self._waits

    def feed(self, event: Any) -> None:
        if self.waits.feed(event):
            self.show()

    def work_ended(self) -> None:
        """A turn or command worker ended (done, failed or cancelled): its wait with it; a model still loading
        is not the turn's."""
        current = self.waits.current
        if current is not None and current.stage != "loading":
            self.waits.clear()
            self.show()

    @property
    def text(self) -> str:
        return self.waits.line(self.cancel())

    def show(self) -> None:
        """Draw the wait (or hide the line); the timer runs only while there is one."""
        active = self.waits.current is not None
        self.set_class(active, "-active")
        self.update(self.text if active else "")
        if active and self._timer is None:
            self._timer = self.set_interval(1.0, self.show)
        elif not active and self._timer is not None:
            self._timer.stop()
            self._timer = None
