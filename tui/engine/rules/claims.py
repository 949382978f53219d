"""What the answer says happened must have happened: an answer that reports a change when none was applied this
turn is pushed back once; if it stands, the developer reads plainly that no file was changed."""

from __future__ import annotations

import re
from typing import Any

from tui.engine.rules.base import PASS, Rule, TurnState, Verdict

_DONE = r"(?:added|changed|updated|renamed|modified|fixed|removed|created|replaced|edited|wrote|written|moved|deleted)"
CLAIM = re.compile(rf"\b(?:I(?: have|'ve)?|has been|have been|was|were) {_DONE}\b|\b(?:I|we) {_DONE}\b", re.I)
# In the present: "The function percentage is added to src/humanize/number.py", "getPathsToTry is modified to return
# an empty array" (a file named after it, or "modified to": not how an answer about code's behaviour reads).
PRESENT = re.compile(rf"\b(?:is|are) (?:now )?(?:{_DONE} (?:to|in|into|from) [\w./-]*\.(?:py|[cm]?[jt]sx?|json|md|rst|"
                     rf"txt|csv|toml|ya?ml|cfg|ini)\b|modified to\b)", re.I)
# A report without its subject, the way a summary opens: "Added JSDoc comment to combine in lib/utils.js."
REPORT = re.compile(rf"(?:^|[.!?:]\s+)(?=[A-Z]){_DONE}\s+(?:(?:a|an|the)\b|(?:\S+\s+){{1,3}}(?:to|in|of|for|from|into)\b)",
                    re.I)


class Claims(Rule):
    name = "claims"
    point = "at_end"
    failure = "a small model says it added or fixed something when nothing was changed (a refused or rejected edit)"

    def reset(self) -> None:
        self.told = False

    def check(self, turn: TurnState, **seen: Any) -> Verdict:
        answer = str(seen.get("answer") or "")
        if turn.changes or not (CLAIM.search(answer) or REPORT.search(answer) or PRESENT.search(answer)):
            return PASS
        if not self.told:
            self.told = True
            why = f" Your last change failed: {turn.failed_change}" if turn.failed_change else ""
            return Verdict("say", ("No file was changed in this request." + why + " If a change is needed, make it "
                                   "now with one tool call; otherwise answer and say plainly what was not done."),
                           detail="the answer reported a change that did not happen; told once")
        return Verdict("note", "No file was changed.", detail="the answer still reports a change that did not happen")
