"""Work kinds as pipelines: the program localises and checks, the model answers narrow questions.

``run`` decides the kind of a request (classify.py) and hands it to its pipeline; a pipeline that cannot do
the request exactly raises NotHandled and the general loop (tui/engine/agent.py) takes over, told what was
found. The kinds and their pipelines are listed in ``PIPELINES``.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from tui.engine.pipelines.facts import Facts
from tui.engine.pipelines.job import Job, Memory, NotHandled

Pipeline = Callable[[Job, Facts], Awaitable[Any]]


def _change(kind: str) -> Pipeline:
    async def run(job: Job, facts: Facts) -> Any:
        from tui.engine.pipelines import change

        return await change.run(job, facts, kind)
    return run


async def _report(job: Job, facts: Facts) -> Any:
    from tui.engine.pipelines import report

    return await report.run(job, facts)


async def _question(job: Job, facts: Facts) -> Any:
    from tui.engine.pipelines import question

    return await question.run(job, facts)


async def _fix(job: Job, facts: Facts) -> Any:
    from tui.engine.pipelines import fix

    return await fix.run(job, facts)


def _lazy(module: str, attr: str = "run") -> Pipeline:
    async def run(job: Job, facts: Facts) -> Any:
        import importlib

        return await getattr(importlib.import_module(f"tui.engine.pipelines.{module}"), attr)(job, facts)
    return run


PIPELINES: dict[str, Pipeline] = {
    "report": _report,
    "question": _question,
    "fix": _fix,
    "change": _change("change"),
    "add": _change("add"),
    "add_test": _lazy("addtest"),
    "data": _lazy("data"),
    "docs": _lazy("docs"),
    "history": _lazy("history"),
    "scaffold": _lazy("scaffold"),
    "refactor": _lazy("refactor"),
}

__all__ = ["Facts", "Job", "Memory", "NotHandled", "PIPELINES"]
