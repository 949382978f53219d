"""What reaches the app before its main screen is whole waits for it.

The main screen's first frame shows a stand-in prompt and diff view (tui/app/screens/first_frame.py); the real
ones are put in right after that frame. Until then the app keeps, in order, the keys and pastes it receives
(typed while devagent starts) and the engine's events and approval requests, and hands them on (``release``)
once the real widgets are in, as if they had arrived then.
"""

from __future__ import annotations

from typing import Any

from textual import events


class HoldUntilReady:
    """A mixin for the App (before ``App`` in the bases). The app's handlers of the engine's messages start with
    ``if self.held(message): return``; ``release()`` once the main screen is whole."""

    _held: list[Any] | None = None
    _released = False

    async def on_event(self, event: events.Event) -> None:
        if not self._released and isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded:
            self.held(event)
            return
        await super().on_event(event)  # type: ignore[misc]

    def held(self, message: Any) -> bool:
        """True when ``message`` is kept until ``release`` (the main screen is not whole yet)."""
        if self._released:
            return False
        if self._held is None:
            self._held = []
        self._held.append(message)
        return True

    def release(self) -> None:
        """The main screen is whole: what was held goes on, before anything that arrives from now on."""
        self.call_next(self._release)  # type: ignore[attr-defined]

    async def _release(self) -> None:
        held, self._held, self._released = self._held or [], None, True
        for message in held:
            if isinstance(message, events.Event):
                await super().on_event(message)  # type: ignore[misc]
            else:
                getattr(self, message.handler_name)(message)
