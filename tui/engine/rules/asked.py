"""A question is answered, not acted on: while the request is a question, calls that change files are refused."""

from __future__ import annotations

from typing import Any

from tui.engine.rules.base import PASS, Rule, TurnState, Verdict

CHANGES = ("edit_file", "edit_symbol", "write_file", "scaffold", "refactor")
ASKING = ("question", "history", "report")


class Asked(Rule):
    name = "asked"
    point = "before_call"
    failure = "asked a question, a small model edits files (it 'fixes' what it was only asked about)"

    def reset(self) -> None:
        self.told = False

    def check(self, turn: TurnState, **seen: Any) -> Verdict:
        asking = turn.kind in ASKING or (not turn.kind and turn.question)
        if not asking or seen["name"] not in CHANGES:
            return PASS
        if self.told:
            return Verdict("answer", detail="the model tried to change files for a question again")
        self.told = True
        return Verdict("refuse", "The developer asked a question: answer it. Do not change any file.",
                       detail=f"a question: {seen['name']} refused")
