"""Test counts equal to each runner's own totals, checked against the real runner's output: devagent runs a small
real suite the way it runs any suite (detected, planned, in the sandbox), and its counts are compared with the
closing lines the same runner printed (read here independently of devagent's parsers).

The suites hold what made counts disagree before: unittest tests with docstrings (their status ends the next
line), subtests, errors, skips, expected failures and unexpected successes, a test that prints "... ok";
pytest errors in setup and teardown, xfail and xpass; jest/vitest skips and todos; mocha pending tests and a
failing hook; go subtests. Seen: "unittest: 536 passed" where the runner said "Ran 817 tests".

go cannot be installed by CI here: tests/core/runner_output/go holds a real `go test -json` and `go test -v` run
of the suite beside them (go 1.19.8, captured for this test); where go is installed, the suite is also run.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.core import fixtures_repos as fx
from tests.core import node_tools
from tui.config import load_config
from tui.testing import TestRun, detect_suites, plan_run, run_plan
from tui.testing.parsers import parse_go_json

OUTPUTS = Path(__file__).parent / "runner_output"

UNITTEST_SUITE = '''import unittest


class TestX(unittest.TestCase):
    def test_plain(self):
        self.assertEqual(1, 1)

    def test_documented(self):
        """Adds one and one.

        More words.
        """
        self.assertEqual(1 + 1, 2)

    def test_documented_failure(self):
        """A documented failure."""
        self.assertEqual(1, 2)

    def test_subtests(self):
        for i in range(4):
            with self.subTest(i=i):
                self.assertLess(i, 2)

    def test_subtests_pass(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertGreaterEqual(i, 0)

    def test_error(self):
        raise RuntimeError("boom")

    @unittest.skip("not today")
    def test_skipped(self):
        pass

    @unittest.expectedFailure
    def test_xfail(self):
        self.assertEqual(1, 2)

    @unittest.expectedFailure
    def test_xpass(self):
        self.assertEqual(1, 1)

    def test_prints(self):
        print("noise ... ok")
'''

PYTEST_SUITE = '''import pytest


@pytest.fixture
def broken():
    raise RuntimeError("setup fails")


@pytest.fixture
def bad_teardown():
    yield 1
    raise RuntimeError("teardown fails")


def test_pass():
    assert 1


def test_fail():
    assert 1 == 2


def test_setup_error(broken):
    pass


def test_teardown_error(bad_teardown):
    assert bad_teardown


@pytest.mark.skip(reason="no")
def test_skip():
    pass


@pytest.mark.xfail(reason="known")
def test_xfail():
    assert 0


@pytest.mark.xfail(reason="known")
def test_xpass():
    assert 1


@pytest.mark.parametrize("n", [1, 2, 3])
def test_param(n):
    assert n < 3
'''

JS_SUITE = '''const sum = (a, b) => a + b;
describe('sum', () => {
  test('adds', () => { expect(sum(1, 2)).toBe(3); });
  test('adds wrong', () => { expect(sum(2, 2)).toBe(5); });
  test.skip('skipped', () => {});
  test.todo('later');
  test.each([1, 2, 3])('small %i', (n) => { expect(n).toBeLessThan(3); });
});
'''

MOCHA_SUITE = '''const assert = require('node:assert');
const sum = (a, b) => a + b;
describe('sum', function () {
  it('adds', function () { assert.strictEqual(sum(1, 2), 3); });
  it('adds wrong', function () { assert.strictEqual(sum(2, 2), 5); });
  it.skip('skipped', function () {});
  it('later');
  [1, 2, 3].forEach((n) => it(`small ${n}`, function () { assert.ok(n < 3); }));
  describe('hooks', function () {
    before(function () { throw new Error('hook fails'); });
    it('never runs', function () {});
  });
});
'''


async def _run(repo: Path) -> TestRun:
    config = load_config(repo)
    [suite] = detect_suites(repo, config)
    return await run_plan(plan_run(suite, "", repo), repo, config, runner=fx.runner_for(repo, config))


def _runner_line(pattern: str, text: str) -> re.Match[str]:
    found = list(re.finditer(pattern, re.sub(r"\x1b\[[0-9;]*m", "", text), re.M))
    assert found, f"the runner's closing line ({pattern}) is not in its output:\n{text[-2000:]}"
    return found[-1]


async def test_unittest_counts_are_the_runners_own(tmp_path: Path) -> None:
    """In the project's own venv, which has no pytest: unittest, as in the report that found the disagreement."""
    repo = fx.build(tmp_path / "ut", {"tests/__init__.py": "", "tests/test_x.py": UNITTEST_SUITE})
    subprocess.run(["python3", "-m", "venv", "--without-pip", str(repo / ".venv")], check=True, timeout=120)
    run = await _run(repo)
    assert run.suite == "unittest" and run.interpreter.startswith("python: .venv/bin/python")
    assert "the repo's .venv" in run.interpreter
    python = str(repo / ".venv" / "bin" / "python")
    own = subprocess.run([python, "-m", "unittest", "discover", "-v", "-s", "tests", "-t", "."], cwd=repo,
                         capture_output=True, text=True, timeout=120).stderr
    ran = int(_runner_line(r"^Ran (\d+) tests? in", own).group(1))
    said = dict((k.strip(), int(v)) for k, v in (
        part.split("=") for part in _runner_line(r"^FAILED \((.*)\)$", own).group(1).split(", ")))
    assert run.failed == said["failures"] + said.get("unexpected successes", 0)
    assert run.errored == said["errors"]
    assert run.skipped == said["skipped"] + said.get("expected failures", 0)
    not_ok = {m.group(1) for m in re.finditer(r"^(?:FAIL|ERROR|UNEXPECTED SUCCESS): (\S+)", own, re.M)}
    assert run.passed == ran - len(not_ok) - run.skipped
    assert run.passed == 4, "test_plain, test_documented, test_subtests_pass and test_prints pass"


async def test_pytest_counts_are_the_runners_own(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "pt", {"tests/test_all.py": PYTEST_SUITE, "pytest.ini": "[pytest]\n" +
                                      fx.PYTEST_QUIET})
    run = await _run(repo)
    line = _runner_line(r"^=* ?((?:\d+ \w+(?:, )?)+) in [\d.]+s", run.output_tail).group(1)
    said = {word: int(num) for num, word in (part.split(" ", 1) for part in line.split(", "))}
    assert run.passed == said["passed"] + said.get("xpassed", 0)
    assert run.failed == said["failed"]
    assert run.errored == said["errors"]
    assert run.skipped == said["skipped"] + said.get("xfailed", 0)
    assert [f.test_id for f in run.failures if f.kind == "error"] == [
        "tests/test_all.py::test_setup_error", "tests/test_all.py::test_teardown_error"]


@pytest.fixture(scope="module")
def tools() -> Path:
    return node_tools.install()


def _js_project(tmp_path: Path, tools: Path, name: str, script: str, test: str, esm: bool = False) -> Path:
    package = {"name": name, "version": "1.0.0", **({"type": "module"} if esm else {}), "scripts": {"test": script}}
    repo = fx.build(tmp_path / name, {"package.json": json.dumps(package) + "\n", "package-lock.json": "{}\n",
                                      "test/sum.test.js": test})
    node_tools.add_node_modules(repo, tools)
    return repo


async def test_jest_counts_are_the_runners_own(tmp_path: Path, tools: Path) -> None:
    run = await _run(_js_project(tmp_path, tools, "jested", "jest", JS_SUITE))
    line = _runner_line(r"^Tests:\s+(.*), (\d+) total$", run.output_tail)
    said = {word: int(num) for num, word in (part.split(" ", 1) for part in line.group(1).split(", "))}
    assert (run.passed, run.failed, run.errored) == (said["passed"], said["failed"], 0)
    assert run.skipped == said.get("skipped", 0) + said.get("todo", 0)
    assert run.total == int(line.group(2))
    assert [(f.test_id, f.file, f.line) for f in run.failures] == [("sum adds wrong", "test/sum.test.js", 4),
                                                                  ("sum small 3", "test/sum.test.js", 7)]


async def test_vitest_counts_are_the_runners_own(tmp_path: Path, tools: Path) -> None:
    suite = 'import { describe, test, expect } from "vitest";\n' + JS_SUITE
    run = await _run(_js_project(tmp_path, tools, "vitested", "vitest", suite, esm=True))
    line = _runner_line(r"^\s*Tests\s+(.*) \((\d+)\)$", run.output_tail)
    said = {word: int(num) for num, word in (part.strip().split(" ", 1) for part in line.group(1).split("|"))}
    assert (run.passed, run.failed, run.errored) == (said["passed"], said["failed"], 0)
    assert run.skipped == said.get("skipped", 0) + said.get("todo", 0)
    assert run.total == int(line.group(2))


async def test_mocha_counts_are_the_runners_own(tmp_path: Path, tools: Path) -> None:
    """mocha prints its counts on three lines and its failures after them; a failing hook is one of them."""
    run = await _run(_js_project(tmp_path, tools, "mochaed", "mocha", MOCHA_SUITE))
    said = {word: int(_runner_line(rf"^\s+(\d+) {word}\b", run.output_tail).group(1))
            for word in ("passing", "pending", "failing")}
    assert (run.passed, run.skipped, run.failed) == (said["passing"], said["pending"], said["failing"])
    assert run.parsed_from == "mocha"
    assert [(f.test_id, f.file, f.line) for f in run.failures] == [
        ("sum adds wrong", "test/sum.test.js", 5), ("sum small 3", "test/sum.test.js", 8),
        ('sum hooks "before all" hook for "never runs"', "test/sum.test.js", 10)]
    assert "4 !== 5" in run.failures[0].message


def _go_says(verbose: str) -> dict[str, int]:
    """go's own result lines, every test and subtest: "--- PASS: TestX", "    --- FAIL: TestT/d"."""
    results = re.findall(r"^\s*--- (PASS|FAIL|SKIP): ", verbose, re.M)
    return {word: results.count(word) for word in ("PASS", "FAIL", "SKIP")}


def test_go_counts_are_the_runners_own_in_captured_output() -> None:
    """A real `go test -json` / `go test -v` pair captured on a machine with go 1.19.8 (CI has no go)."""
    parsed = parse_go_json((OUTPUTS / "go" / "test.json").read_text(), OUTPUTS / "go", OUTPUTS / "go")
    said = _go_says((OUTPUTS / "go" / "test-v.txt").read_text())
    assert (parsed.passed, parsed.failed, parsed.skipped) == (said["PASS"], said["FAIL"], said["SKIP"])
    assert [f.test_id for f in parsed.failures] == ["example.com/area.TestSquareWrong", "example.com/area.TestTable/d"]


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed: the captured output above stands in")
async def test_go_counts_are_the_runners_own(tmp_path: Path) -> None:
    files = {str(p.relative_to(OUTPUTS / "go")): p.read_text() for p in (OUTPUTS / "go").rglob("*.go")}
    repo = fx.build(tmp_path / "gomod", {**files, "go.mod": (OUTPUTS / "go" / "go.mod").read_text()})
    run = await _run(repo)
    own = subprocess.run(["go", "test", "-v", "./..."], cwd=repo, capture_output=True, text=True, timeout=300)
    said = _go_says(own.stdout)
    assert (run.passed, run.failed, run.skipped) == (said["PASS"], said["FAIL"], said["SKIP"])
