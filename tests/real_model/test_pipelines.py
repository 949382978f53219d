"""The pipelines on the real 1.5B model: several candidates sampled from one request (llama.cpp parallel slots),
each tried in the throwaway copy, and only one that passes the failing tests proposed and applied."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_repo

pytestmark = [pytest.mark.real_model, pytest.mark.slow]

CALC = '''def mul(a, b):
    """The product of a and b."""
    return a + b


def neg(a):
    return -a
'''
TESTS = '''from calc import mul, neg


def test_mul():
    assert mul(2, 3) == 6
    assert mul(0, 5) == 0


def test_neg():
    assert neg(2) == -2
'''


def test_a_fix_is_sampled_tried_and_only_one_that_passes_is_applied(real_model_path: Path, bench: Any,
                                                                    tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"calc.py": CALC, "tests/test_calc.py": TESTS, "pytest.ini": "[pytest]\n"})
    config = bench.write_user_config(tmp_path / "config.toml", max_steps=6, samples=3)
    run = bench.run_agent(repo, "The tests in tests/test_calc.py fail. Fix the bug in the code.", real_model_path,
                          config=config, state=tmp_path / "state", timeout=600)
    events = run.events
    tried = [e for e in events if e.get("type") == "tool_call" and e.get("name") == "try"]
    edits = [e["proposal"] for e in events if e.get("type") == "proposal" and e["proposal"].get("kind") == "edit"]
    assert tried, f"no candidate was tried; answer={run.answer[-300:]!r}"
    assert len(edits) == 1, [e.get("summary") for e in edits]
    assert any("candidate" in w for w in edits[0].get("warnings") or []) or "passed" in edits[0]["summary"]
    suite = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=repo,
                           capture_output=True, text=True, timeout=120)
    assert suite.returncode == 0, suite.stdout[-800:]
    assert '"""The product of a and b."""' in (repo / "calc.py").read_text()
