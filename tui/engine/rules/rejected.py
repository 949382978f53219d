"""A proposal the developer rejected is never made again unchanged; the reason they gave goes with the refusal."""

from __future__ import annotations

from typing import Any

from tui.engine.rules.base import PASS, Rule, TurnState, Verdict


class Rejected(Rule):
    name = "rejected"
    point = "before_call"
    failure = "after a rejection with a reason, a small model proposes the identical change again"

    def __init__(self, memory: Any = None) -> None:
        self.memory = memory  # the session's pipelines Memory: rejected diffs' digests and reasons

    def check(self, turn: TurnState, **seen: Any) -> Verdict:
        rejected = getattr(self.memory, "rejected_calls", {}) if self.memory is not None else {}
        reason = rejected.get(seen["key"])
        if reason is None:
            return PASS
        why = f" Their reason: {reason}" if reason else ""
        return Verdict("refuse", f"The developer already rejected exactly this.{why} Propose something different "
                                 "that takes the reason into account, or answer.",
                       detail=f"the same {seen['name']} as a rejected one: not proposed again")
