"""A turn's time budget (``model.turn_seconds``): a deadline from the turn's start that every pipeline step asks
before it starts, so a turn ends with what it found instead of running past what a developer will wait.

Each expensive step (a suite run, a check, another candidate, another round, another sample) asks ``fits`` with
the kind of step it is; the last measured duration of that kind predicts the next one (the suite run "before"
predicts a candidate's suite run). What runs gets ``timeout(cap)``: never more than is left. Time spent waiting
for the developer (an approval) is not counted. A budget of 0 (or less) is no budget.
"""

from __future__ import annotations

import math
import time
from contextlib import asynccontextmanager
from typing import AsyncIterator, Callable

MARGIN = 1.0  # seconds kept for what follows a step (placing a candidate, the proposal)


class Budget:
    def __init__(self, seconds: float, started: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = float(seconds) if seconds and seconds > 0 else 0.0
        self.clock = clock
        self.deadline = ((started if started is not None else clock()) + self.seconds) if self.seconds else math.inf
        self.measured: dict[str, float] = {}  # kind of step -> how long the last one took
        self.ran_out = ""  # the first thing left out because the time was up (said in the answer)

    @property
    def bounded(self) -> bool:
        return bool(self.seconds)

    def left(self) -> float:
        return max(0.0, self.deadline - self.clock())

    def fits(self, kind: str, guess: float = 0.0) -> bool:
        """Whether a step of ``kind`` can end before the deadline: its last measured duration (else ``guess``)
        plus a margin must be left."""
        return self.left() > self.measured.get(kind, guess) + MARGIN

    def timeout(self, cap: float) -> float:
        """What a step may take: ``cap``, or less when less is left."""
        return min(cap, self.left())

    def measure(self, kind: str, seconds: float) -> None:
        self.measured[kind] = max(0.0, seconds)

    def words(self) -> str:
        return f"the turn's time budget ({self.seconds:.0f} s, model.turn_seconds) ran out"

    def skip(self, what: str) -> str:
        """``what`` was left out for lack of time: the sentence that says so (the first one is kept)."""
        said = f"{what}: {self.words()}"
        self.ran_out = self.ran_out or said
        return said

    @asynccontextmanager
    async def paused(self) -> AsyncIterator[None]:
        """The developer's time (an approval) is not the turn's: the deadline moves by the wait."""
        started = self.clock()
        try:
            yield
        finally:
            if self.bounded:
                self.deadline += self.clock() - started
