"""The turn's time budget on its own, with a clock the test moves (the pipelines' use of it, with real suites that
sleep, is tests/engine/pipelines/test_budget.py)."""

from __future__ import annotations

from tui.engine.work.budget import Budget


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_step_is_skipped_when_the_last_one_like_it_would_not_end_in_time() -> None:
    clock = Clock()
    budget = Budget(60, started=clock(), clock=clock)
    assert budget.fits("tests:")  # nothing measured yet: it may start
    clock.now += 25
    budget.measure("tests:", 25)  # the suite before took 25 s
    assert budget.fits("tests:")  # 35 s left
    clock.now += 12
    assert not budget.fits("tests:") and budget.fits("code", 2.0)  # 23 s left: no suite, a short check still
    assert budget.timeout(240) == 23
    said = budget.skip("the whole suite was not run")
    assert said == "the whole suite was not run: the turn's time budget (60 s, model.turn_seconds) ran out"
    assert budget.ran_out == said


async def test_the_developers_time_deciding_is_not_the_turns() -> None:
    clock = Clock()
    budget = Budget(30, started=clock(), clock=clock)
    async with budget.paused():
        clock.now += 300  # the developer reads a proposal for five minutes
    assert budget.left() == 30


def test_zero_is_no_budget() -> None:
    clock = Clock()
    budget = Budget(0, clock=clock)
    clock.now += 10**6
    budget.measure("tests:", 10**5)
    assert not budget.bounded and budget.fits("tests:") and budget.timeout(240) == 240
