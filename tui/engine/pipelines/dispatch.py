"""One request through its pipeline: facts, kind, the pipeline; the general loop when none can do it.

A request of several kinds runs as its steps, each through its own pipeline, the answers joined. What a
pipeline found before it gave up is handed to the general loop as a hint (a Detail shows the developer why).
"""

from __future__ import annotations

import time
from typing import Any

from tui.engine.pipelines import PIPELINES
from tui.engine.pipelines.classify import Kind, classify
from tui.engine.pipelines.facts import gather
from tui.engine.pipelines.job import Job, Memory, NotHandled
from tui.protocol.events import TurnDone

LOOP_SECONDS = 60.0  # the least time left for which the general loop takes over from a pipeline (a reply or two)


async def _one(job: Job, kind: str, request: str) -> TurnDone | None:
    index = await job.index()
    facts = gather(request, index)
    pipeline = PIPELINES.get(kind)
    if pipeline is None:
        return None
    try:
        return await pipeline(job, facts)
    except NotHandled as err:
        if err.hint == "route:change" and kind == "fix" and job.budget.fits("round"):
            job.note(f"{err.why}: handled as a change of behaviour")
            return await _one(job, "change", request)
        raise


async def handle(agent: Any, prompt: str, memory: Memory) -> TurnDone | None:
    """The turn done by a pipeline, or None (the general loop takes it; ``agent.pipeline_hint`` says why)."""
    job = Job(agent, prompt, memory)
    started = time.monotonic()
    kind: Kind | None = None
    try:
        index = await job.index()
        facts = gather(prompt, index)
        kind = await classify(job.ask, facts)
        job.note(f"request kind: {kind.name} (by {kind.how}); {facts.summary() or 'names nothing the index knows'}")
        if kind.steps:
            answers = []
            for step_kind, step in kind.steps:
                job.note(f"step: {step_kind}: {step}")
                done = await _one(job, step_kind, step)
                if done is None:
                    raise NotHandled(f"no pipeline for the step {step!r}")
                answers.append(done.text)
            return TurnDone("complete", "\n\n".join(a for a in answers if a))
        done = await _one(job, kind.name, prompt)
        if done is None:
            agent.turn_kind = kind.name
        return done
    except NotHandled as err:
        if not job.budget.fits("loop", LOOP_SECONDS):
            return out_of_time(job, kind.name if kind else "", err)
        agent.turn_kind = kind.name if kind else ""
        agent.pipeline_hint = err.hint if err.hint and not err.hint.startswith("route:") else ""
        job.note(f"{kind.name if kind else 'pipeline'}: {err.why} ({time.monotonic() - started:.0f} s); "
                 "the general loop takes over")
        return None
    finally:
        job.close()
        if job.budget.bounded:  # the general loop gets what is left (the developer's approvals not counted)
            agent.turn_started = job.budget.deadline - job.budget.seconds


def out_of_time(job: Job, kind: str, err: NotHandled) -> TurnDone:
    """The turn's time is (nearly) up and the pipeline found nothing to propose: the answer says what was tried
    and why each try failed, rather than starting the general loop it has no time for."""
    why = job.budget.ran_out or (f"too little of the turn's time budget ({job.budget.seconds:.0f} s, "
                                 "model.turn_seconds) is left to try another way")
    job.note(f"{kind or 'pipeline'}: {err.why}; no time left for the general loop")
    return job.answer(f"Not finished: {why}. What was tried: {err.why}.", "limit")


async def pipelined(agent: Any, prompt: str) -> TurnDone | None:
    """The turn through a pipeline when pipelines are on (model.pipelines), else None."""
    if agent.config.model.pipelines == "off":
        return None
    if agent.memory is None:
        agent.memory = Memory()
    agent.pipeline_hint = ""
    return await handle(agent, prompt, agent.memory)
