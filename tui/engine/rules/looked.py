"""An answer about the code needs a look at the code: answered before any read, search or run this turn, the
model is asked once to look first."""

from __future__ import annotations

from typing import Any

from tui.engine.rules.base import PASS, Rule, TurnState, Verdict


class Looked(Rule):
    name = "looked"
    point = "at_end"
    failure = "a small model answers a question about the repository from memory, without reading anything"
    # (only for a question that names a file, directory or definition of the repository: a structural fact)

    def reset(self) -> None:
        self.told = False

    def check(self, turn: TurnState, **seen: Any) -> Verdict:
        asking = turn.kind in ("question", "history") or (not turn.kind and turn.question)
        if self.told or turn.looked or turn.changes or not asking or not turn.names_code:
            return PASS  # small talk ("still there?") names nothing of the repository
        self.told = True
        return Verdict("say", "Look at the code before you answer: call a tool that reads, searches or runs it.",
                       detail="answered without looking at anything; asked to look first")
