"""A call the model already made, with nothing changed since: its result is in the conversation already."""

from __future__ import annotations

from typing import Any

from tui.engine.rules.base import PASS, Rule, TurnState, Verdict


class Repeat(Rule):
    name = "repeat"
    point = "before_call"
    failure = ("a small model calls the same tool with the same arguments again (often what devagent already "
               "showed it) instead of taking the next step, until the turn runs out")

    def reset(self) -> None:
        self.told = False

    def check(self, turn: TurnState, **seen: Any) -> Verdict:
        key = seen["key"]
        if key not in turn.since_change:
            return PASS
        if self.told:
            return Verdict("answer", detail=f"the model repeated {seen['name']} again; asking for its answer")
        self.told = True
        return Verdict("refuse", (f"You already made this {seen['name']} call and have its result above; it will not "
                                  "change. Take the next step the request needs, or answer."),
                       detail=f"the model repeated {seen['name']}")
