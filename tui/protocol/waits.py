"""The one wait a front end shows, read from the engine's events, and how every front end words it.

A ``Progress`` event starts or updates the wait; it lasts until the next Progress, or until what ends it: the
turn's end, an error, a proposal waiting for the developer's decision (then the wait is theirs, not devagent's),
the reply it counted (TextDone), the command it timed (CommandFinished), the model it loaded (ServerStatus). Its elapsed time goes on from the
event's ``elapsed``, so a front end redraws it every second without any new event. The app's line, the headless
stderr line and the ACP thought all say it the same way (``text``), each with its own cancel key.
"""

from __future__ import annotations

import time
from typing import Callable

from tui.protocol.events import (CommandFinished, ErrorEvent, Event, Progress, ProposalCreated, ServerStatus,
                                 TextDone, TurnDone)
from tui.protocol.words import plural

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
COMMAND_STAGES = ("testing", "running", "checking")


def _n(value: int) -> str:
    return f"{value:,}"


def what(p: Progress) -> str:
    """The wait in words, without the time: 'reading the prompt: 512 of 1,320 tokens (722 cached)'."""
    detail = f" ({p.detail})" if p.detail else ""
    if p.stage == "loading":
        return f"loading the model{' ' + p.detail if p.detail else ''}"
    if p.stage == "reading":
        if p.total:
            return f"reading the prompt: {_n(p.done)} of {plural(p.total, 'token')}{detail}"
        return f"reading the prompt{detail}"
    if p.stage == "writing":
        return f"writing the reply: {plural(p.done, 'token')}{detail}"
    if p.stage == "testing":
        return f"running the tests{': ' + p.detail if p.detail else ''}"
    if p.stage == "running":
        return f"running{': ' + p.detail if p.detail else ' a command'}"
    if p.stage == "checking":
        return f"checking the change{': ' + p.detail if p.detail else ''}"
    return p.detail or p.stage or "working"


def text(p: Progress, elapsed: float, cancel: str = "") -> str:
    """'reading the prompt: 512 of 1,320 tokens · 27 s · esc cancels'."""
    parts = [what(p), f"{elapsed:.0f} s"]
    if cancel:
        parts.append(cancel)
    return " · ".join(parts)


class Waits:
    """The current wait of one front end. ``feed`` every event; ``current`` is the Progress shown (or None)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.current: Progress | None = None
        self.since = 0.0  # the clock's time when the current stage began

    def feed(self, event: Event) -> bool:
        """Take one event; True when the wait shown changed (began, moved, or ended)."""
        if isinstance(event, Progress):
            self.current, self.since = event, self.clock() - event.elapsed
            return True
        if self.current is None:
            return False
        stage = self.current.stage
        ends = (isinstance(event, (TurnDone, ErrorEvent))
                or (isinstance(event, ProposalCreated) and getattr(event.proposal, "policy", "ask") == "ask")
                or (isinstance(event, TextDone) and stage in ("reading", "writing"))
                or (isinstance(event, CommandFinished) and stage in COMMAND_STAGES)
                or (isinstance(event, ServerStatus) and stage == "loading"))
        if ends:
            self.current = None
        return ends

    def clear(self) -> None:
        self.current = None

    @property
    def elapsed(self) -> float:
        return max(0.0, self.clock() - self.since)

    def line(self, cancel: str = "") -> str:
        """The wait as shown now, after a spinner that turns with the seconds ('' when there is none)."""
        if self.current is None:
            return ""
        elapsed = self.elapsed
        return f"{SPINNER[int(elapsed) % len(SPINNER)]} {text(self.current, elapsed, cancel)}"
