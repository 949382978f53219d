"""A turn has a time and a step budget: past either, the model is asked for its answer (no more calls)."""

from __future__ import annotations

import time
from typing import Any

from tui.engine.rules.base import PASS, Rule, TurnState, Verdict


class Budget(Rule):
    name = "budget"
    point = "after_reply"
    failure = "a small model keeps calling tools until the developer gives up waiting"

    def __init__(self, seconds: float, steps: int) -> None:
        self.seconds, self.steps = seconds, steps

    def check(self, turn: TurnState, **seen: Any) -> Verdict:
        if self.seconds and time.monotonic() - turn.started > self.seconds:
            return Verdict("answer", detail=f"this request took over {self.seconds:.0f} s (model.turn_seconds)")
        if turn.steps >= self.steps:
            return Verdict("answer", detail=f"{self.steps} model steps (model.max_steps)")
        return PASS
