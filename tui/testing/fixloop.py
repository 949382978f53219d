"""The fix loop: tests fail -> ask for a fix -> tests again, until green, the limit, a repeat, or cancellation.

Independent of the agent: it takes two callables and returns what happened, so any front end can drive it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Awaitable, Callable

from tui.protocol.events import Emit, FixAttempt
from tui.testing.model import TestRun

RunTests = Callable[[], Awaitable[TestRun]]
AskFix = Callable[[TestRun, int], Awaitable[bool]]  # (failing run, attempt number) -> a fix was applied?


@dataclass
class FixLoopResult:
    reason: str  # passed | limit | repeated | declined | cancelled | not_run
    attempts: int
    runs: list[TestRun] = field(default_factory=list)

    @property
    def last(self) -> TestRun | None:
        return self.runs[-1] if self.runs else None


class FixLoop:
    """Stops at ``limit`` attempts, when the failure set comes back unchanged, or when its task is cancelled."""

    def __init__(self, run_tests: RunTests, ask_fix: AskFix, limit: int, emit: Emit | None = None) -> None:
        self.run_tests = run_tests
        self.ask_fix = ask_fix
        self.limit = max(0, limit)
        self.emit = emit or (lambda event: None)
        self.result = FixLoopResult("cancelled", 0)

    def _stop(self, reason: str) -> FixLoopResult:
        self.result.reason = reason
        last = self.result.last
        self.emit(FixAttempt(self.result.attempts, self.limit, "stopped", reason,
                             last.failed + last.errored if last else 0))
        return self.result

    async def run(self) -> FixLoopResult:
        try:
            run = await self.run_tests()
            self.result.runs.append(run)
            while True:
                if run.ok:
                    return self._stop("passed")
                if run.status in ("not_started", "no_tests", "no_counts"):
                    return self._stop("not_run")  # no code edit makes a missing runner start
                if self.result.attempts >= self.limit:
                    return self._stop("limit")
                self.result.attempts += 1
                attempt = self.result.attempts
                self.emit(FixAttempt(attempt, self.limit, "fixing", "", run.failed + run.errored))
                if not await self.ask_fix(run, attempt):
                    return self._stop("declined")
                previous = run
                run = await self.run_tests()
                self.result.runs.append(run)
                if not run.ok and run.failure_set() == previous.failure_set() and (
                        run.failed, run.errored) == (previous.failed, previous.errored):
                    return self._stop("repeated")
        except asyncio.CancelledError:
            self._stop("cancelled")
            raise


async def fix_loop(run_tests: RunTests, ask_fix: AskFix, limit: int, emit: Emit | None = None) -> FixLoopResult:
    """Function form of FixLoop; on cancellation it raises (the loop's ``result`` says "cancelled")."""
    return await FixLoop(run_tests, ask_fix, limit, emit).run()
