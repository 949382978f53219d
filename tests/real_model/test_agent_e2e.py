"""devagent end to end on the real 1.5B model: `devagent run --yes --json --model-file` in a real repo.

Each test is one everyday task from scripts/bench_model.py, scored the same way (what changed
on disk, what the answer says). The timeout is a hang guard, not a speed target.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.real_model, pytest.mark.slow]


def run_task(bench: Any, name: str, model: Path, tmp_path: Path) -> tuple[bool, str, Any]:
    _, prompt, check = next(t for t in bench.TASKS if t[0] == name)
    repo = bench.build_fixture(tmp_path / "repo")
    config = bench.write_user_config(tmp_path / "config.toml", max_steps=6)
    run = bench.run_agent(repo, prompt, model, config=config, state=tmp_path / "state", timeout=420)
    ok, why = check(repo, run)
    return ok, f"{why}; tools={run.tool_names()}; answer={run.answer[-300:]!r}", run


def test_read_only_question_answered_from_a_file(real_model_path: Path, bench: Any, tmp_path: Path) -> None:
    ok, why, run = run_task(bench, "q_constant", real_model_path, tmp_path)
    assert run.rc == 0, why
    assert ok, why
    assert any(n in ("read_file", "search") for n in run.tool_names()), why


def test_edit_proposed_and_applied_with_yes(real_model_path: Path, bench: Any, tmp_path: Path) -> None:
    """The edit itself must land; whether the rest of the file survived is the benchmark's stricter score."""
    _, why, run = run_task(bench, "edit_constant", real_model_path, tmp_path)
    edits = [e["proposal"] for e in run.events if e.get("type") == "proposal" and e["proposal"].get("kind") == "edit"]
    assert edits, why
    assert any(e.get("type") == "decision" and e.get("decision") == "approve" for e in run.events), why
    assert re.search(r"^DEFAULT_TIMEOUT\s*=\s*60\b", (tmp_path / "repo" / "config.py").read_text(), re.M), why


def test_tests_run_on_request(real_model_path: Path, bench: Any, tmp_path: Path) -> None:
    _, why, run = run_task(bench, "run_tests", real_model_path, tmp_path)
    assert any(e.get("type") == "command_started" for e in run.events) or "run_tests" in run.tool_names(), why
