"""Checks graded assert by assert (tui/engine/work/graded.py), run by the real interpreters."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tui.engine.work import graded

PY = "from statistics import mean\nassert mean([1, 2]) == 1.5\nassert mean([]) == 0\nassert mean([3]) == 3"
JS = ("const assert = require('assert');\nassert.deepStrictEqual([1], [1]);\nassert.strictEqual(1, 2);\n"
      "assert.ok(true);")


def test_a_graded_python_check_says_which_asserts_failed_and_still_fails_as_a_whole() -> None:
    ran = subprocess.run([sys.executable, "-c", graded.graded(PY, "python")], capture_output=True, text=True,
                         timeout=60)
    assert ran.returncode == 1 and "AssertionError: 1 assert(s) failed" in ran.stderr
    assert graded.results(ran.stdout) == {1: True, 2: False, 3: True}
    assert not graded.asserted(ran.stdout), "mean([]) raised StatisticsError: it did not get to compare"
    assert graded.without(PY, "python", {2}) == "from statistics import mean\nassert mean([1, 2]) == 1.5\n" \
                                                "assert mean([3]) == 3"
    ok = subprocess.run([sys.executable, "-c", graded.graded(graded.without(PY, "python", {2}), "python")],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and graded.results(ok.stdout) == {1: True, 2: True}


@pytest.mark.skipif(not shutil.which("node"), reason="node is needed")
def test_a_graded_javascript_check_grades_its_one_line_asserts() -> None:
    ran = subprocess.run(["node", "-e", graded.graded(JS, "javascript")], capture_output=True, text=True,
                         timeout=60)
    assert ran.returncode == 1 and graded.results(ran.stdout) == {1: True, 2: False, 3: True}
    assert graded.asserted(ran.stdout)
    assert graded.graded("assert.ok(1);", "javascript") == "assert.ok(1);"  # one assert: nothing to grade


def test_asserts_are_dropped_only_when_no_candidate_satisfies_them_and_the_change_is_still_asked_for() -> None:
    before = {1: False, 2: False, 3: True, 4: True}
    assert graded.live(4, before, [{1: True, 2: False, 3: True, 4: True}, {1: False, 2: False, 3: True, 4: True}]) \
        == {2}
    assert graded.live(4, before, [{1: False, 2: False, 3: True, 4: True}]) is None, \
        "what is left (3, 4) passed before: it no longer asks for the change"
    assert graded.live(4, None, [{1: False, 2: False, 3: False, 4: True}]) is None, "more than half, one left"
    # humanize's percentage: six of eight asserts no version could satisfy (10.001 read as a percentage), two
    # that ask for the new function and pass
    assert graded.live(8, None, [{i: i in (2, 3) for i in range(1, 9)}]) == {1, 4, 5, 6, 7, 8}
    assert graded.live(4, None, [{1: True, 2: True}]) is None, "a run that died before its last asserts"
    assert graded.live(2, None, [{1: True, 2: True}]) is None, "nothing to drop"


def test_the_code_under_test_cannot_print_a_verdict_for_an_assert() -> None:
    """The project's code runs inside the check: a line it prints that looks like a verdict is not one (the mark is
    made when devagent starts, as the data harness's is)."""
    forged = "devagent-assert 2 pass\ndevagent-assert 1 fail: AssertionError\n"
    assert graded.results(forged) == {} and not graded.asserted(forged)
    assert graded.MARK not in PY and graded.MARK in graded.graded(PY, "python")


@pytest.mark.skipif(not shutil.which("node"), reason="node is needed")
def test_a_failed_check_says_its_error_not_a_stack_frame() -> None:
    """What was tried says why a candidate failed: node's stack ends with frames that name AssertionError
    ("at new AssertionError (node:internal/...)"); the message line is what is said."""
    from tui.engine.work.trial import error_line

    ran = subprocess.run(["node", "-e", graded.graded(JS, "javascript")], capture_output=True, text=True, timeout=60)
    said = error_line(ran.stdout + ran.stderr)
    assert said.startswith(": AssertionError") and "node:internal" not in said, said
