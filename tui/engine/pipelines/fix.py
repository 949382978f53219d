"""A fix from a failing test or a traceback (Agentless's shape: localise, repair, validate).

1. What fails: the pasted traceback, or the tests run in the throwaway copy (the ones the request names, else
   the suite). Nothing fails and nothing was pasted: this is a change of behaviour, not a fix.
2. Where: suspects ranked by program (localize.py): frames, the definitions the failing tests call, recent changes.
3. Repair: for the best suspects in turn, several rewrites of that one definition; each tried in the copy (the
   failing tests' file, then the suite); the first that passes is proposed with what was tried.
"""

from __future__ import annotations

import asyncio

from tui.engine.pipelines import localize
from tui.engine.pipelines.facts import Facts
from tui.engine.pipelines.job import Job, NotHandled
from tui.engine.pipelines.report import selection_of
from tui.engine.pipelines.rewrite import Goal, definition_place, propose_best, reply_for, shown
from tui.engine.work.trial import Candidate
from tui.engine.work.index import is_test
from tui.protocol.events import TurnDone

PROMPT = """{problem}
{changed}
The code that most likely causes it, {path} lines {start}-{end}:
```{fence}
{code}
```

Change this {kind} so that the failure goes away. Change as little as possible: keep its name, its parameters
and everything that is not part of the bug. Do not add prints or comments about the fix.
{reply}"""


def _problem(index, facts: Facts, failures: list) -> str:
    if facts.traceback:
        tail = facts.request.strip()[-1200:]
        return f"This error happens:\n```\n{tail}\n```"
    parts = []
    for f in failures[:2]:
        source, _ = localize.test_source(index, f.test_id, f.file)
        parts.append(f"The test {f.test_id} fails:\n```\n{source[:1400] or '(source not found)'}\n```\n"
                     f"Failure:\n```\n{(f.message or '').strip()[-700:]}\n```")
    return "\n".join(parts)


async def run(job: Job, facts: Facts) -> TurnDone:
    index = await job.index()
    failures: list = []
    baseline = None
    target = selection_of(facts) or None
    if not facts.traceback:
        baseline = await job.tests(selection_of(facts), label="before the fix")
        if baseline is None:  # nothing shows a failure: what is asked is a change of behaviour
            raise NotHandled("the tests could not be run", hint="route:change")
        if not baseline.ran:
            raise NotHandled(f"the tests did not run: {baseline.problem}", hint="route:change")
        failures = [f for f in baseline.failures if f.kind in ("failed", "error")]
        if not failures:
            raise NotHandled("no test fails", hint="route:change")
        files = [f.file for f in failures if f.file and is_test(f.file)]
        target = files[0] if files else (failures[0].test_id.split("::")[0] or None)
    diff = await asyncio.to_thread(localize.recent_diff, job.repo)
    found = localize.suspects(index, facts, failures, diff)
    if not found:
        raise NotHandled("nothing in the code could be tied to the failure")
    job.note("suspects: " + "; ".join(f"{s.definition.where()} {s.definition.qualname} ({', '.join(s.why)})"
                                      for s in found))
    problem = _problem(index, facts, failures)
    reasons: list[str] = []
    for suspect in found[:2]:
        d = suspect.definition
        text = index.text(d.path) or ""
        code = "\n".join(text.splitlines()[d.symbol.start - 1:d.symbol.end])
        if d.symbol.end - d.symbol.start > 120:
            reasons.append(f"{d.qualname} is too long to rewrite whole")
            continue
        changed = f"\nRecent change to this file:\n```diff\n{suspect.changed.strip()[:1200]}\n```\n" \
            if suspect.changed else ""
        language = "python" if d.path.endswith(".py") else "javascript"
        show, mode, doc = shown(code, language)
        kind = "method" if d.symbol.kind == "method" else "function"
        goal = Goal("", label=f"a fix in {d.qualname}", target=target, baseline=baseline, language=language,
                    mode=mode, original=code, doc=doc)
        goal.prompt = PROMPT.format(problem=problem, changed=changed, path=d.path, start=d.symbol.start,
                                    end=d.symbol.end, fence="python" if language == "python" else "js", code=show,
                                    kind=kind, reply=reply_for(goal, kind))
        place = definition_place(job, goal, d.path, text, d.qualname, d.symbol.start, d.symbol.end)
        seeds = []
        back = localize.reverted(text, suspect.changed, d.symbol.start, d.symbol.end) if suspect.changed else None
        if back is not None and back != text:
            seeds.append(Candidate({d.path: back.encode()}, "the lines before the recent change"))
        try:
            applied, note = await propose_best(job, goal, place, {d.path: text.encode()},
                                               f"fix {d.qualname} in {d.path}", seeds=seeds)
        except NotHandled as err:
            reasons.append(f"{d.qualname}: {err.why}")
            continue
        if applied:
            where = f"{d.qualname} ({d.path}:{d.symbol.start})"
            return job.answer(f"Fixed {where}: {', '.join(suspect.why)}. The change was checked before it was "
                              f"shown: {note}.")
        return job.answer(f"The fix for {d.qualname} was not applied.")
    raise NotHandled("no fix passed the tests: " + "; ".join(reasons))
