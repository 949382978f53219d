"""A turn's time budget (model.turn_seconds): a change whose suite is slow ends with what was found, when the budget
ends, not after everything ran (real repo, bwrap, pytest, git; the scripted model's replies are the JSON each
narrow question is decoded under). The slow suite sleeps far longer than the budget, so a turn that ends near the
budget was ended by it."""

from __future__ import annotations

import time
from pathlib import Path

from tests.conftest import make_repo
from tests.engine.pipelines.helpers import edits, js, pipeline_turn

FMT = 'def size(n, digits=1):\n    """n bytes as kB."""\n    return f"{n / 1000:.{digits}f} kB"\n'
SLOW = "import time\n\n\ndef test_slow():\n    time.sleep({seconds})\n    assert True\n"
CHECK = {"code": "from pkg.fmt import size\nassert size(1500) == '1.50 kB'"}
KEEPS = {"code": 'def size(n, digits=1):\n    return f"{n / 1000:.{digits}f} kB"\n'}
WRONG = {"code": 'def size(n, digits=3):\n    return f"{n / 1000:.{digits}f} kB"\n'}
NONE = {"code": 'def size(n, digits=0):\n    return f"{n / 1000:.{digits}f} kB"\n'}
RIGHT = {"code": 'def size(n, digits=2):\n    return f"{n / 1000:.{digits}f} kB"\n'}
PROMPT = "Make `size` show two decimals by default."
BUDGET = 15.0
SLEEP = 90


def _repo(tmp_path: Path, seconds: float) -> Path:
    return make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/fmt.py": FMT, "pytest.ini": "[pytest]\n",
                                         "tests/test_slow.py": SLOW.format(seconds=seconds)})


async def test_a_change_whose_suite_cannot_finish_is_proposed_when_the_budget_ends(tmp_path: Path,
                                                                                  ollama_server) -> None:
    repo = _repo(tmp_path, SLEEP)
    started = time.monotonic()
    events, done, approver = await pipeline_turn(
        repo, ollama_server, PROMPT, [js({"kind": "change"}), js(CHECK), js(CHECK), js(CHECK), js(KEEPS),
                                      js(RIGHT), js(WRONG)], turn_seconds=BUDGET)
    took = time.monotonic() - started
    assert took < BUDGET + 15 < SLEEP, f"the turn took {took:.0f} s: the suite ran instead of the budget ending it"
    proposed = edits(approver)
    assert len(proposed) == 1 and "digits=2" in proposed[0].diff, [p.summary for p in proposed]
    said = " ".join(proposed[0].warnings)
    assert "whole suite" in said and f"time budget ({BUDGET:.0f} s" in said, said
    assert "digits=2" in (repo / "pkg/fmt.py").read_text()
    assert "whole suite" in done.text and "time budget" in done.text, done.text
    assert any(e.type == "progress" for e in events), "the wait is shown"


async def test_when_nothing_passes_in_time_the_answer_says_what_was_tried(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path, SLEEP)
    started = time.monotonic()
    events, done, approver = await pipeline_turn(
        repo, ollama_server, PROMPT, [js({"kind": "change"}), js(CHECK), js(CHECK), js(CHECK)] +
        [js(NONE), js(WRONG), js(KEEPS)] * 2, turn_seconds=BUDGET)
    took = time.monotonic() - started
    assert took < BUDGET + 15 < SLEEP, f"the turn took {took:.0f} s"
    assert not edits(approver), "nothing that failed its check is proposed"
    assert "size" in (repo / "pkg/fmt.py").read_text() and "digits=1" in (repo / "pkg/fmt.py").read_text()
    assert done.text.startswith("Not finished"), done.text
    assert "candidate 1: target failed" in done.text and "candidate 2: target failed" in done.text, done.text
    assert "time budget" in done.text


async def test_with_a_generous_budget_the_whole_suite_runs(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path, 2)
    events, done, approver = await pipeline_turn(
        repo, ollama_server, PROMPT, [js({"kind": "change"}), js(CHECK), js(CHECK), js(CHECK), js(KEEPS),
                                      js(RIGHT), js(WRONG)], turn_seconds=240.0)
    proposed = edits(approver)
    assert len(proposed) == 1 and "digits=2" in proposed[0].diff
    assert "suite passed (1 passed" in proposed[0].summary, proposed[0].summary
    assert "time budget" not in " ".join(proposed[0].warnings) + done.text
