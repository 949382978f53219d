"""One definition rewritten by the model, tried, and the best version proposed: the step fix, change and add
share. The model is shown the definition and what the change must achieve; it answers with the whole new
definition (JSON, several candidates); the program splices each into its file, tries it in the throwaway copy
and proposes the best, saying what was tried. A rejection's reason goes into one more round.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from tui.engine.pipelines.codetext import code_of, elide_docstring, joined_strings, restore_docstring, same_code
from tui.engine.pipelines.job import Job, NotHandled
from tui.engine.work import trial
from tui.engine.work.index import Definition
from tui.engine.work.trial import Candidate, Verdict
from tui.protocol.errors import ToolError

CODE_SCHEMA = {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}


@dataclass
class Goal:
    """What a rewrite must achieve and how it is checked."""

    prompt: str  # the narrow question (the definition's code is in it)
    label: str  # for the wait line ("a fix for ordinal")
    target: str | None = None  # a test selection that must pass
    check: str | None = None  # a snippet that must run cleanly (asserts)
    language: str = "python"
    baseline: Any = None  # the suite before (failures it already had do not count against a candidate)
    before_label: str = ""  # set: the suite before is run only when a candidate's suite fails (then it matters)
    max_tokens: int = 900
    notes: list[str] = field(default_factory=list)
    mode: str = "whole"  # whole: the model writes the whole definition; edits: a few {"old", "new"} edits of it
    original: str = ""  # the definition as it is (what edits apply to)
    doc: str = ""  # its docstring, left out of the prompt and put back into a whole rewrite that has none


def spliced(job: Job, rel: str, text: str, symbol: str, code: str) -> str | None:
    """The file with ``symbol`` replaced by (or extended with) ``code``; None when it cannot go in cleanly."""
    from tui.tools.edit_symbol import splice

    try:
        return splice(rel, text, symbol, code).text
    except (ToolError, SyntaxError, ValueError, RecursionError) as err:
        job.note(f"a candidate for {symbol} could not be placed: {getattr(err, 'message', err)}")
        return None


def shown(code: str, language: str = "python") -> tuple[str, str, str]:
    """(the code to show, the mode, its docstring left out) for a definition the model is to change. Its length
    is counted without the docstring left out: a long docstring does not make a short function long."""
    short, doc = elide_docstring(code) if language == "python" else (code, "")
    if short.count("\n") + 1 > LONG:
        return code, "edits", ""
    return short, "whole", doc


def reply_for(goal: Goal, kind: str) -> str:
    if goal.mode == "edits":
        return EDITS_REPLY
    return f'Reply as JSON: {{"code": "<the whole new {kind}, from its first line to its last>"}}'


async def candidates(job: Job, goal: Goal, place: Callable[[str], dict[str, bytes | None] | None],
                     n: int) -> list[Candidate]:
    schema = EDITS_SCHEMA if goal.mode == "edits" else CODE_SCHEMA
    asked = await job.ask.json(goal.prompt, schema, n=n, max_tokens=goal.max_tokens if goal.mode == "whole" else 400,
                               label=goal.label)
    out: list[Candidate] = []
    seen: set[str] = set()
    for value in asked.values:
        if goal.mode == "edits":
            code = apply_edits(goal.original, value.get("edits") or []) if isinstance(value, dict) else None
            if code is None:
                job.note(f"an edit for {goal.label} did not match the code: {str(value)[:300]}")
                continue
        else:
            code = code_of(value)
            code = restore_docstring(joined_strings(code) if goal.language == "python" else code, goal.doc)
        if not code or code in seen:
            continue
        seen.add(code)
        changes = await asyncio.to_thread(place, code)
        if changes:
            out.append(Candidate(changes, f"candidate {len(out) + 1}"))
    return out


async def attempt(job: Job, goal: Goal, place: Callable[[str], dict[str, bytes | None] | None],
                  before: dict[str, bytes | None], seeds: list[Candidate] | None = None
                  ) -> tuple[list[Verdict], Verdict | None]:
    """Candidates, tried; (all verdicts, the best one that passes every check, or None). ``seeds``: candidates the
    program made itself, tried first; when one passes, the model is not asked."""
    found = list(seeds or [])
    if seeds:
        verdicts, best = await _try(job, goal, found, before)
        if best is not None:
            return verdicts, best
    else:
        verdicts = []
    found = await candidates(job, goal, place, job.samples)
    more, best = await _try(job, goal, found, before)
    return trial.rank(verdicts + more, before, goal.baseline), best


async def _try(job: Job, goal: Goal, found: list[Candidate], before: dict[str, bytes | None]
               ) -> tuple[list[Verdict], Verdict | None]:
    """The cheap checks (static, the targeted check) of every candidate first, then the whole suite for the best
    of those that passed, one at a time, until one passes it or the turn's time runs out (then the best that
    passed its checks, its verdict saying the suite did not run)."""
    if not found:
        return [], None
    scratch = await job.scratch()
    if scratch is None:
        return await _static_only(job, goal, found, before)
    verdicts: list[Verdict] = []
    for cand in found:
        verdicts.append(await job.step("try", {"candidate": cand.label}, lambda cand=cand: trial.judge(
            job, scratch, cand, before=before, target=goal.target, check=goal.check, language=goal.language,
            suite=False), lambda v: v.line()))
    if goal.check and not any(trial.passed(v, goal.baseline) for v in verdicts):
        verdicts = await _without_dead_asserts(job, goal, scratch, verdicts, before)
    for v in trial.rank(verdicts, before, goal.baseline):
        if not trial.passed(v, goal.baseline):
            break  # ranked: none after this one passed its checks either
        await job.step("try", {"candidate": v.candidate.label, "with": "the whole suite"},
                       lambda v=v: trial.run_suite(job, scratch, v), lambda v: v.line())
        if v.unrun:
            return trial.rank(verdicts, before, goal.baseline), v
        if v.suite is not None and not v.suite.ok:
            await _baseline(job, goal)
        if trial.passed(v, goal.baseline):
            return trial.rank(verdicts, before, goal.baseline), v
    return trial.rank(verdicts, before, goal.baseline), None


async def _without_dead_asserts(job: Job, goal: Goal, scratch: Any, verdicts: list[Verdict],
                                before: dict[str, bytes | None]) -> list[Verdict]:
    """When no candidate passes the check: the asserts none of them satisfies are dropped from it (graded.py says
    when that is justified), and the candidates that satisfy the rest are judged again by what is left (a new
    test file written from the check loses those asserts too)."""
    from tui.engine.work import graded

    check = goal.check or ""
    total = graded.count(check, goal.language)
    drop = graded.live(total, job.graded_before.get(check), [v.asserts for v in verdicts if v.static_ok])
    if not drop:
        return verdicts
    goal.check = graded.without(check, goal.language, drop)
    gone = [line for line in check.splitlines() if line.strip() and line not in goal.check.splitlines()]
    job.note("asserts of the check that no candidate satisfies, dropped: " + " | ".join(gone))
    goal.notes.append(f"{len(drop)} of the {total} asserts of the check written for the request were dropped: no "
                      "candidate satisfied them (" + "; ".join(line.strip() for line in gone)[:300] + ")")
    out = []
    for v in verdicts:
        if not v.static_ok or any(not v.asserts.get(i) for i in range(1, total + 1) if i not in drop):
            out.append(v)
            continue
        changes = {rel: _without_lines(new, gone) if before.get(rel) is None and new is not None else new
                   for rel, new in v.candidate.changes.items()}
        cand = Candidate(changes, v.candidate.label, v.candidate.notes)
        out.append(await job.step("try", {"candidate": cand.label, "with": "the check's other asserts"},
                                  lambda cand=cand: trial.judge(job, scratch, cand, before=before, target=goal.target,
                                                                check=goal.check, language=goal.language,
                                                                suite=False), lambda v: v.line()))
    return out


def _without_lines(data: bytes, gone: list[str]) -> bytes:
    """A new file (a test written from the check) without the dropped asserts' lines, however indented."""
    drop = {line.strip() for line in gone}
    text = data.decode("utf-8", "replace")
    return "".join(line for line in text.splitlines(keepends=True) if line.strip() not in drop).encode()


async def _baseline(job: Job, goal: Goal) -> None:
    """The suite before the change, once, when a candidate's suite failed (which of its failures are new)."""
    if goal.baseline is None and goal.before_label:
        goal.baseline = await job.tests(label=goal.before_label)
        goal.before_label = ""


async def _static_only(job: Job, goal: Goal, found: list[Candidate], before: dict[str, bytes | None]
                       ) -> tuple[list[Verdict], Verdict | None]:
    """Nothing can run here: the best candidate that parses, said plainly in the proposal."""
    verdicts = []
    for cand in found:
        v = Verdict(cand)
        for rel, new in cand.changes.items():
            v.problems += await asyncio.to_thread(trial.static_problems, rel, before.get(rel), new, job.repo)
        verdicts.append(v)
    ranked = trial.rank(verdicts, before, goal.baseline)
    if ranked and ranked[0].static_ok:
        goal.notes.append("not tried: running checks was not allowed here")
        return ranked, ranked[0]
    return ranked, None


def tried_text(verdicts: list[Verdict]) -> str:
    return "; ".join(v.line() for v in verdicts) or "no candidate"


Repair = Callable[[list[Verdict]], Awaitable["Verdict | None"]]


async def propose_best(job: Job, goal: Goal, place: Callable[[str], dict[str, bytes | None] | None],
                       before: dict[str, bytes | None], summary: str, *, rounds: int = 2,
                       seeds: list[Candidate] | None = None, repair: Repair | None = None) -> tuple[bool, str]:
    """Rounds of candidates until one passes, then its proposal; a rejection's reason feeds one more round.
    ``repair``: given the verdicts when none passed, a combined candidate that does (tests updated). (applied?,
    what happened in words)."""
    history: list[str] = []
    for round_no in range(rounds):
        if not job.budget.fits("round"):  # another round like the last one would not end in time
            history.append(job.budget.skip(f"round {round_no + 1} was not started" if round_no else "nothing was tried"))
            break
        began = time.monotonic()
        verdicts, best = await attempt(job, goal, place, before, seeds if round_no == 0 else None)
        if best is None and repair is not None and verdicts and job.budget.fits("tests:"):
            best = await repair(verdicts)
            if best is not None:
                verdicts = [best] + verdicts
        job.budget.measure("round", time.monotonic() - began)
        history.append(tried_text(verdicts))
        if best is None:
            if verdicts and verdicts[0].static_ok and verdicts[0].target is not None:
                goal.prompt += _feedback(verdicts[0])
            continue
        tried = f"tried {len(verdicts)} candidate(s): {tried_text(verdicts)}"
        note = tried + (f"; {best.unrun}" if best.unrun else "")
        try:
            outcome = await job.propose(best.candidate.changes, f"{summary} ({best.line()})",
                                        warnings=goal.notes + [best.unrun] * bool(best.unrun) + [tried])
        except NotHandled as err:
            history.append(err.why)
            continue
        if outcome.applied:
            return True, note
        reason = outcome.reason or "no reason given"
        goal.prompt += (f"\n\nThe developer rejected this version:\n```\n{_first_code(best)}\n```\nTheir reason: "
                        f"{reason}\nWrite a different version that takes the reason into account.")
        history.append(f"rejected: {reason}")
    raise NotHandled("no candidate passed the checks: " + " | ".join(history))


def _first_code(v: Verdict) -> str:
    return next(iter(v.candidate.notes), "") or "(the proposed change)"


def _feedback(v: Verdict) -> str:
    run = v.target
    text = getattr(run, "output", "") or ""
    if hasattr(run, "failures") and run.failures:
        f = run.failures[0]
        text = f"{f.test_id}: {f.message}"
    return (f"\n\nA version like that was tried and the check still failed:\n{text.strip()[-700:]}\n"
            "Write a version that makes it pass.")


def definition_text(job: Job, d: Definition) -> str:
    return "\n".join((job._index.text(d.path) or "").splitlines()[d.symbol.start - 1:d.symbol.end]) \
        if job._index is not None else ""


# -- small edits inside a long definition ---------------------------------------------------------------------
EDITS_SCHEMA = {"type": "object", "properties": {"edits": {
    "type": "array", "minItems": 1, "maxItems": 3,
    "items": {"type": "object", "properties": {"old": {"type": "string"}, "new": {"type": "string"}},
              "required": ["old", "new"]}}}, "required": ["edits"]}
EDITS_REPLY = ('Reply as JSON: {"edits": [{"old": "<the exact lines to change, copied from the code>", '
               '"new": "<what they become>"}]} (one to three edits, each a few lines)')
LONG = 30  # lines: a longer definition is changed by edits of a few lines, not rewritten whole


def _match(lines: list[str], old: list[str]) -> int:
    """Where ``old`` (lines) occurs in ``lines``, compared without leading/trailing spaces; -1 unless exactly once."""
    want = [ln.strip() for ln in old if ln.strip()]
    if not want:
        return -1
    body = [ln.strip() for ln in lines]
    hits = [i for i in range(len(body)) if body[i] == want[0] and
            [b for b in body[i:i + len(want) * 2] if b][:len(want)] == want]
    return hits[0] if len(hits) == 1 else -1


def apply_edits(code: str, edits: list[Any]) -> str | None:
    """``code`` (a definition) with each {"old", "new"} edit made; the new lines take the indentation of the lines
    they replace; an ``old`` that is part of one line is replaced in it. None when an ``old`` is not found exactly
    once."""
    import textwrap

    lines = code.split("\n")
    for edit in edits:
        if not isinstance(edit, dict):
            return None
        old, new = str(edit.get("old") or ""), str(edit.get("new") or "")
        old_lines = [ln for ln in old.split("\n")]
        at = _match(lines, old_lines)
        if at < 0:
            joined = "\n".join(lines)  # a part of a line ("parameterLimit: 1000"), found exactly once
            if "\n" in old.strip() or not old.strip() or "\n" in new.strip() or joined.count(old.strip()) != 1:
                return None
            lines = joined.replace(old.strip(), new.strip(), 1).split("\n")
            continue
        span = 0
        seen = 0
        want = sum(1 for ln in old_lines if ln.strip())
        while seen < want and at + span < len(lines):
            seen += bool(lines[at + span].strip())
            span += 1
        indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())]
        block = textwrap.dedent(new.strip("\n")).split("\n") if new.strip() else []
        lines[at:at + span] = [(indent + ln) if ln.strip() else "" for ln in block]
    return "\n".join(lines)


def definition_place(job: Job, goal: Goal, rel: str, text: str, qualname: str, start: int, end: int
                     ) -> Callable[[str], dict[str, bytes | None] | None]:
    """Where a new version of one definition goes: its own lines (edits keep the indentation) or, for a whole
    rewrite, through the splicer (which re-indents and keeps decorators)."""
    def place(code: str) -> dict[str, bytes | None] | None:
        if goal.mode == "edits":
            lines = text.split("\n")
            new = "\n".join(lines[:start - 1] + code.split("\n") + lines[end:])
        else:
            new = spliced(job, rel, text, qualname, code)
        if new is None or new == text or same_code(rel, text, new):
            return None
        return {rel: new.encode()}
    return place
