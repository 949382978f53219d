"""Tests that pin the old behaviour: after a change the developer asked for, the tests that passed before and
fail now because they assert what the code used to do are rewritten to assert what it does now (the model
writes each test again; the program places it and runs it against the changed code). The code and the tests
are then one proposal."""

from __future__ import annotations

from typing import Any

from tui.engine.pipelines import localize
from tui.engine.pipelines.job import Job
from tui.engine.pipelines.codetext import code_of
from tui.engine.pipelines.rewrite import CODE_SCHEMA, spliced
from tui.engine.work import trial
from tui.engine.work.trial import Candidate, Verdict

PROMPT = """A developer asked for this change, and it was made:
<request>
{request}
</request>

This test passed before and fails now, because it still expects the old behaviour:
```
{test}
```
Failure:
```
{failure}
```
Write the test again so that it checks the new behaviour the request asks for. Keep its name and everything else
it checks.
Reply as JSON: {{"code": "<the whole test>"}}"""

MAX_TESTS = 3


def newly_failing(verdict: Verdict, baseline: Any) -> list[Any]:
    before = {f.test_id for f in getattr(baseline, "failures", [])}
    run = verdict.suite
    return [f for f in getattr(run, "failures", []) if f.test_id not in before]


async def repaired(job: Job, request: str, verdicts: list[Verdict], baseline: Any) -> Verdict | None:
    """The best candidate that does what was asked (its check passed) with the tests it broke rewritten; None when
    there is no such candidate, it broke more than a few tests, or no rewrite of them passes."""
    index = await job.index()
    scratch = await job.scratch()
    usable = [v for v in verdicts if v.static_ok and v.target is not None and trial._ok(v.target)
              and v.suite is not None and v.suite.ran]
    if scratch is None or not usable:
        return None
    verdict = usable[0]
    broken = newly_failing(verdict, baseline)
    if not broken or len(broken) > MAX_TESTS:
        return None
    changes = dict(verdict.candidate.changes)
    for failure in broken:
        source, d = localize.test_source(index, failure.test_id, failure.file)
        if d is None:
            return None
        text = (changes.get(d.path) or (index.text(d.path) or "").encode()).decode("utf-8", "replace")
        asked = await job.ask.json(PROMPT.format(request=request.strip()[:1200], test=source[:2000],
                                                 failure=(failure.message or "").strip()[-600:]),
                                   CODE_SCHEMA, n=job.samples, max_tokens=700, label=f"{d.symbol.name} updated")
        placed = None
        for code in dict.fromkeys(c for c in map(code_of, asked.values) if c):
            new = spliced(job, d.path, text, d.qualname, code)
            if new is None or new == text:
                continue
            trial_changes = {**changes, d.path: new.encode()}
            scratch.write(trial_changes)
            try:
                run = await trial.run_tests(job, scratch, d.path)
            finally:
                scratch.reset()
            if run is not None and run.ok:
                placed = new
                break
        if placed is None:
            return None
        changes[d.path] = placed.encode()
    combined = Candidate(changes, f"{verdict.candidate.label} with {len(broken)} test(s) updated")
    before = {rel: (index.text(rel) or "").encode() for rel in changes}
    final = await job.step("try", {"candidate": combined.label}, lambda: trial.judge(
        job, scratch, combined, before=before, suite=True), lambda v: v.line())
    return final if trial.passed(final, baseline) else None
