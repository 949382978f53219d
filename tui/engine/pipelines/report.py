"""A test report: run the suite (or the tests the request names) and say what the runner counted.

No model is needed: the counts are the runner's own totals, the failing tests are listed by id, and the
answer says which runner and interpreter ran them.
"""

from __future__ import annotations

from typing import Any

from tui.engine.pipelines.facts import Facts
from tui.engine.pipelines.job import Job, NotHandled
from tui.protocol.events import TurnDone

MAX_LISTED = 10


def selection_of(facts: Facts) -> str:
    """The tests the request names (test files, or named tests in one file), else '' (the whole suite)."""
    if facts.test_files:
        return " ".join(facts.test_files[:3])
    return ""


def describe(run: Any, *, listed: int = MAX_LISTED) -> str:
    """The run in words: the verdict with every count, the failing tests, the runner."""
    if run.status in ("not_started", "no_tests", "no_counts") or not run.ran:
        text = f"The tests did not run: {run.problem or 'no result'}."
        return text + (f" {run.hint}" if run.hint else "")
    failing = [f for f in run.failures if f.kind in ("failed", "error")]
    parts = [f"{run.passed} passed", f"{run.failed} failed"]
    if run.errored:
        parts.append(f"{run.errored} errors")
    if run.skipped:
        parts.append(f"{run.skipped} skipped")
    head = f"{', '.join(parts)} ({run.total} tests)."
    if run.status == "collection_error":
        head = f"Some tests could not be collected ({run.problem}). Of the rest: {head}"
    lines = [head]
    if failing:
        lines.append("Failing:")
        for f in failing[:listed]:
            message = f" — {f.message.strip().splitlines()[0][:140]}" if f.message.strip() else ""
            lines.append(f"- {f.test_id}{message}")
        if len(failing) > listed:
            lines.append(f"- and {len(failing) - listed} more")
    ran_by = run.suite + (f"; {run.interpreter}" if run.interpreter else "")
    lines.append(f"(Run by {ran_by}.)")
    return "\n".join(lines)


async def run(job: Job, facts: Facts) -> TurnDone:
    test_run = await job.tests(selection_of(facts))
    if test_run is None and job.no_suite:
        return job.answer(f"No tests ran: {job.no_suite}")
    if test_run is None:
        raise NotHandled("the tests could not be run")
    return job.answer(describe(test_run))
