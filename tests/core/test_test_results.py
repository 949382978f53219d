"""Runs that never got to their tests are reported as that (real pytest in the real sandbox), unittest output
from older Pythons, tox/nox detection, and the fix loop stopping when the tests cannot run."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_repo
from tests.core import fixtures_repos as fx
from tui.config import load_config
from tui.testing import FixLoop, TestRun, detect_suites, run_tests
from tui.testing.unittest_parse import parse_unittest

PYPROJECT = '[project]\nname = "p"\nversion = "0"\n[tool.pytest.ini_options]\n' + fx.PYTEST_QUIET


async def _run(repo: Path, selection: str = "") -> TestRun:
    config = load_config(repo)
    return await run_tests(repo, config, selection, runner=fx.runner_for(repo, config))


async def test_a_syntax_error_a_broken_conftest_and_no_match(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "p", {"pyproject.toml": PYPROJECT, "tests/test_ok.py": "def test_ok():\n    pass\n",
                                      "tests/test_bad.py": "def test_c(:\n    pass\n"})
    run = await _run(repo)
    assert run.status == "collection_error" and run.exit_code == 2
    assert run.problem.startswith("could not collect tests/test_bad.py: ") and "SyntaxError" in run.problem
    assert run.to_model_text().startswith("RESULT: the tests could not be collected: could not collect tests/test_bad.py")
    (repo / "tests" / "test_bad.py").unlink()
    (repo / "tests" / "conftest.py").write_text("import nothere\n")
    run = await _run(repo)
    assert run.status == "collection_error" and run.exit_code == 4
    assert run.problem == "ImportError while loading conftest tests/conftest.py: No module named 'nothere'"
    assert "nothere is not installed" in run.hint
    (repo / "tests" / "conftest.py").unlink()
    run = await _run(repo, "nomatch")
    assert (run.status, run.exit_code, run.problem) == ("no_tests", 5, "no tests were collected matching 'nomatch'")
    assert "0 passed" not in run.summary() and "No test passed or failed" in run.to_model_text()


async def test_a_command_that_is_not_there(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "p", {".devagent.toml": '[tests]\ncommand = "no-such-runner --all"\n'})
    run = await _run(repo)
    assert run.status == "not_started" and run.exit_code != 0 and "no-such-runner" in run.problem
    assert "not installed" in run.hint and "0 passed" not in run.summary()
    assert run.to_model_text().startswith("RESULT: the tests did not run: ")


def test_unittest_output_of_python_3_8() -> None:
    """Before 3.11 the method name is not repeated inside the parentheses (captured from Python 3.8.18)."""
    text = """test_add (test_calc.TestCalc) ... FAIL
test_ok (test_calc.TestCalc) ... ok
test_skip (test_calc.TestCalc) ... skipped 'later'

======================================================================
FAIL: test_add (test_calc.TestCalc)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/r/tests/test_calc.py", line 6, in test_add
    self.assertEqual(add(1, 2), 3)
AssertionError: -1 != 3

----------------------------------------------------------------------
Ran 3 tests in 0.001s

FAILED (failures=1, skipped=1)
"""
    parsed = parse_unittest(text, Path("/r"), Path("/r"), "tests")
    assert (parsed.passed, parsed.failed, parsed.skipped) == (1, 1, 1)
    failure = parsed.failures[0]
    assert (failure.file, failure.line, failure.message) == ("tests/test_calc.py", 6, "AssertionError: -1 != 3")


def test_a_unittest_failure_says_what_differs_not_the_diffs_marker_line(tmp_path: Path) -> None:
    """assertEqual on two dicts ends its block with a "?   +   +" marker line: that alone told a model nothing."""
    import subprocess
    import sys

    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_shape.py").write_text(
        "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_list(self):\n"
        "        self.assertEqual({'server': {'name': 'a'}}, {'server': [{'name': 'a'}]})\n")
    out = subprocess.run([sys.executable, "-m", "unittest", "discover", "-v", "-s", "tests"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    message = parse_unittest(out.stdout + out.stderr, tmp_path, tmp_path, "tests").failures[0].message
    assert message.startswith("AssertionError: {'server': {'name': 'a'}} != {'server': [{'name': 'a'}]}")
    assert "- {'server': {'name': 'a'}}" in message and "+ {'server': [{'name': 'a'}]}" in message


def test_tox_and_nox_are_found_when_nothing_else_is(tmp_path: Path) -> None:
    tox = make_repo(tmp_path / "t", {"tox.ini": "[tox]\nenvlist = py311\n[testenv]\ncommands = python -m unittest\n"})
    assert [(s.kind, s.argv) for s in detect_suites(tox)] == [("tox", ["tox"])]
    nox = make_repo(tmp_path / "n", {"noxfile.py": "import nox\n"})
    assert [s.kind for s in detect_suites(nox)] == ["nox"]
    both = make_repo(tmp_path / "b", {"tox.ini": "[tox]\n", "tests/test_x.py": "def test_x():\n    pass\n"})
    assert [s.kind for s in detect_suites(both)] == ["pytest"], "the suite itself beats its wrapper"


async def test_the_fix_loop_stops_when_the_tests_cannot_run() -> None:
    asked: list[int] = []

    async def run() -> TestRun:
        return TestRun("pytest", exit_code=1, status="not_started", problem="No module named pytest")

    async def ask(test_run: TestRun, attempt: int) -> bool:
        asked.append(attempt)
        return True

    result = await FixLoop(run, ask, limit=3).run()
    assert result.reason == "not_run" and asked == []
