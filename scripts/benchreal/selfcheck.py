"""The self-check: every check is shown to FAIL on the untouched fixture (and for a wrong answer or a wrong
change) and to PASS on the task's reference solution, with no model involved."""

from __future__ import annotations

from dataclasses import dataclass

from bench_common import Outcome
from benchreal.fixtures import Fixtures, apply_edits
from benchreal.spec import Ctx, Project, Task
from benchreal.suite import run_suite


@dataclass
class SelfCheck:
    task: str
    ok: bool
    why: str


def _answer(text: str) -> Outcome:
    return Outcome(events=[], answer=text, rc=0, seconds=0.0)


def prepare(fixtures: Fixtures, project: Project, task: Task) -> Ctx:
    """A fresh task repo and the context a check will see (the fixture's test count taken first when needed)."""
    repo, base = fixtures.fresh(project, task)
    ctx = Ctx(repo, project, fixtures, _answer(""), base)
    if task.counts_tests:
        ctx.base_total = run_suite(fixtures, project, repo).total
    return ctx


def selfcheck(fixtures: Fixtures, project: Project, task: Task) -> SelfCheck:
    ref = task.reference
    ctx = prepare(fixtures, project, task)
    for label, answer in (("untouched fixture, empty answer", ""),
                          ("untouched fixture, wrong answer", ref.wrong),
                          ("untouched fixture, reference answer", ref.answer if ref.edits else None)):
        if answer is None or (label.endswith("wrong answer") and not ref.wrong):
            continue
        ctx.run = _answer(answer)
        ok, why = task.check(ctx)
        if ok:
            return SelfCheck(task.id, False, f"check passes on the {label} ({why})")
    if ref.wrong_edits:
        apply_edits(ctx.repo, ref.wrong_edits)
        ctx.run = _answer(ref.answer)
        ok, why = task.check(ctx)
        if ok:
            return SelfCheck(task.id, False, f"check passes the wrong change ({why})")
        ctx.repo, ctx.base = fixtures.fresh(project, task)
    apply_edits(ctx.repo, ref.edits)
    ctx.run = _answer(ref.answer)
    ok, why = task.check(ctx)
    if not ok:
        return SelfCheck(task.id, False, f"check fails on the reference solution: {why}")
    return SelfCheck(task.id, True, "fails untouched" + (", rejects the wrong change" if ref.wrong_edits else "")
                     + ", passes the reference")
