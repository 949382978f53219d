"""What the agent loop remembers within one turn: what was changed, tried, told and checked.

The checks (tui/engine/checks.py, targets.py, testedits.py) read and set these flags; each "told" flag makes
a reminder fire at most once per turn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tui.engine.verify import changed_files


@dataclass
class Turn:
    """What the loop remembers within one turn."""

    seen: set[str] = field(default_factory=set)  # calls made since the working tree last changed
    failed: dict[str, str] = field(default_factory=dict)  # of those, the ones that failed: key -> error
    bad_calls: int = 0
    changed: bool = False
    failed_change: str = ""
    pushed_back: bool = False
    warned_repeat: bool = False
    nudged_repeat: bool = False
    answer_checked: bool = False  # a question's run_python output was offered as the answer once
    asked_question: bool = False
    echoed: bool = False
    looped: bool = False
    touched: set[str] = field(default_factory=set)  # files this turn changed
    shown_defs: set[tuple[str, str]] = field(default_factory=set)  # definitions shown before a blind replace
    parts_reminded: bool = False
    scratch: list[dict[str, Any]] = field(default_factory=list)  # a malformed reply and the feedback on it
    unverified: str = ""  # the diff of changes no test run has exercised yet
    problems: list[str] = field(default_factory=list)  # what the static check found after the latest change
    problems_told: bool = False
    tests_told: bool = False  # an "add a test" turn was told its edits added no test
    test_edits: int = 0  # edits of the tests refused because the developer said to keep them
    verifications: int = 0  # runs devagent started to check a change (at most checks.MAX_VERIFY a turn)
    added_code: str = ""  # the diff of changes whose new definitions have not been run yet
    exercised: bool = False  # the model was asked once to run a new definition no test calls
    tests_run: list[str] = field(default_factory=list)  # the test selections run this turn
    written: set[str] = field(default_factory=set)  # definitions the model's own changes wrote this turn
    printed_told: bool = False  # an exercise run that printed nothing was told to print, once
    subject_told: bool = False  # the new test was told once that it calls nothing the request names
    target_told: bool = False  # an edit of a definition the request does not name was sent back once
    no_test_told: bool = False  # add-a-test code that defined no test was sent back once
    results: int = 0  # tool results in this turn, devagent's own reads included
    look_told: bool = False  # a question answered before anything was looked at was sent back once
    force_look: bool = False  # the next reply must be a call that looks (no answer, no edit)
    last_reply: Any = None  # the model's previous reply (text, native calls), to see it sent again
    reheats: int = 0  # replies sent again that were asked for once more, warmer (coach.reheat)
    data_told: bool = False  # a data file retyped through edit_file/write_file was sent back once (retyped.retyped_data)

    def record_change(self, diff: str) -> None:
        """What a change that applied leaves for the checks before the turn may end."""
        self.unverified += diff + "\n"
        self.added_code += diff + "\n"
        self.written.update(re.findall(r"(?m)^\+\s*(?:export\s+)?(?:async\s+)?(?:def|class|function)\s+([\w$]+)", diff))
        self.touched.update(changed_files(diff))
