"""Test-suite detection, real runs parsed into structure, selection, and the fix loop."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import git
from tests.core import fixtures_repos as fx
from tui.config import Config, load_config
from tui.protocol.errors import ToolError
from tui.protocol.events import FixAttempt
from tui.testing import (Failure, FixLoop, TestRun, detect_suites, fix_loop, pick_suite, plan_run, run_plan,
                         run_tests)
from tui.testing import parsers


async def _run(repo: Path, selection: str = "", suite_name: str | None = None) -> TestRun:
    config = load_config(repo)
    suites = detect_suites(repo, config)
    suite = pick_suite(suites, suite_name) if suite_name else suites[0]
    assert suite is not None
    plan = plan_run(suite, selection, repo)
    seen: list[str] = []
    run = await run_plan(plan, repo, config, runner=fx.runner_for(repo, config), on_output=seen.append)
    assert seen, "live output reached the callback"
    assert not (repo / ".devagent-tmp").exists(), "the report directory is removed after the run"
    return run


# --- detection -------------------------------------------------------------------------------------------


def test_detects_each_kind(tmp_path: Path) -> None:
    cases = {
        "py": (fx.PY_FILES, "pytest", "pytest"),
        "node": (fx.NODE_TEST_FILES, "node", "node"),
        "jest": (fx.NEXT_JEST_FILES, "jest", "npm"),
        # a pnpm project: pnpm where it is installed, else npm (tests/core/test_js_managers.py)
        "vitest": (fx.NEXT_VITEST_FILES, "vitest", "pnpm" if shutil.which("pnpm") else "npm"),
        "go": (fx.GO_FILES, "go", "go"),
    }
    for name, (files, kind, head) in cases.items():
        repo = fx.build(tmp_path / name, files)
        suites = detect_suites(repo, Config())
        assert [s.kind for s in suites] == [kind], name
        assert Path(suites[0].argv[0]).name.startswith(head) or kind == "pytest"
        assert suites[0].cwd == repo.resolve()


def test_pytest_sources_and_npm_placeholder(tmp_path: Path) -> None:
    ini = fx.build(tmp_path / "ini", {"pytest.ini": "[pytest]\n", "x.py": ""})
    assert detect_suites(ini)[0].source == "pytest.ini"
    cfg = fx.build(tmp_path / "cfg", {"setup.cfg": "[tool:pytest]\naddopts = -q\n"})
    assert detect_suites(cfg)[0].source == "setup.cfg [tool:pytest]"
    tox = fx.build(tmp_path / "tox", {"tox.ini": "[pytest]\n"})
    assert detect_suites(tox)[0].source == "tox.ini [pytest]"
    placeholder = {"scripts": {"test": 'echo "Error: no test specified" && exit 1'}}
    npm = fx.build(tmp_path / "npm", {"package.json": json.dumps(placeholder)})
    assert detect_suites(npm) == []


def test_monorepo_lists_every_suite_and_make_fallback(tmp_path: Path) -> None:
    files = {f"api/{k}": v for k, v in fx.PY_FILES.items()}
    files.update({f"web/{k}": v for k, v in fx.NEXT_JEST_FILES.items()})
    files["tools/Makefile"] = "test:\n\t@echo 1 passed\n"
    files["node_modules/x/package.json"] = json.dumps({"scripts": {"test": "jest"}})
    repo = fx.build(tmp_path / "mono", files)
    suites = detect_suites(repo)
    assert [s.name for s in suites] == ["api:pytest", "tools:make", "web:jest"]
    assert pick_suite(suites, "web").kind == "jest"
    assert pick_suite(suites, "api:pytest").cwd == repo / "api"
    assert pick_suite(suites, "nope") is None


async def test_tests_inside_the_package_are_a_pytest_suite_without_any_config(tmp_path: Path) -> None:
    """toolz, and many older projects: setup.py, the tests in toolz/tests/ and no pytest configuration. They are
    found and run (they were "no test suite found", so no change could be checked against them)."""
    repo = fx.build(tmp_path / "lib", {
        "setup.py": "from setuptools import setup\nsetup(name='lib')\n",
        "lib/__init__.py": "def twice(x):\n    return 2 * x\n",
        "lib/tests/__init__.py": "",
        "lib/tests/test_twice.py": "from lib import twice\n\n\ndef test_twice():\n    assert twice(2) == 4\n\n\n"
                                   "def test_wrong():\n    assert twice(2) == 5\n"})
    assert [s.kind for s in detect_suites(repo)] == ["pytest"]
    run = await _run(repo)
    assert (run.passed, run.failed) == (1, 1)


def test_config_command_overrides_detection(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "py", {**fx.PY_FILES, ".devagent.toml": '[tests]\ncommand = "python3 -m pytest -q tests"\n'})
    suites = detect_suites(repo, load_config(repo))
    assert len(suites) == 1 and suites[0].name == "custom" and suites[0].kind == "pytest"
    assert suites[0].argv == ["python3", "-m", "pytest", "-q", "tests"]


# --- real runs ---------------------------------------------------------------------------------------------


async def test_real_pytest_one_failing_of_three(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "py", fx.PY_FILES)
    run = await _run(repo)
    assert (run.passed, run.failed, run.errored, run.skipped) == (2, 1, 0, 0)
    assert run.exit_code == 1 and not run.ok and run.parsed_from == "junit"
    assert len(run.failures) == 1
    failure = run.failures[0]
    assert failure.test_id == "tests/test_ops.py::test_add_wrong"
    assert failure.file == "tests/test_ops.py"
    assert failure.line == 13
    assert failure.message.startswith("assert 4 == 5")
    text = run.to_model_text(500)
    assert text.index("FAIL tests/test_ops.py::test_add_wrong") < 200
    assert len(text) <= 500
    assert git(repo, "status", "--porcelain") == "" or ".devagent-tmp" not in git(repo, "status", "--porcelain")


async def test_pytest_selection_by_id_and_k(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "py", fx.PY_FILES)
    only = await _run(repo, "tests/test_ops.py::test_add")
    assert (only.passed, only.failed) == (1, 0) and only.ok
    by_k = await _run(repo, "zero or wrong")
    assert (by_k.passed, by_k.failed) == (1, 1)
    assert "-k" in plan_run(detect_suites(repo)[0], "zero or wrong", repo).argv
    with pytest.raises(ToolError):
        plan_run(detect_suites(repo)[0], "--rm", repo)


async def test_real_node_test_runner_parsed(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "node", fx.NODE_TEST_FILES)
    run = await _run(repo)
    assert (run.passed, run.failed, run.skipped) == (2, 1, 0)
    assert run.parsed_from == "tap" and run.exit_code not in (0, None)
    assert [f.test_id for f in run.failures] == ["shouts twice"]
    assert run.failures[0].file == "test/shout.test.js"
    assert run.failures[0].line == 9
    assert "AA!" in run.failures[0].message or "Expected" in run.failures[0].message
    named = await _run(repo, "whispers")
    assert (named.passed, named.failed) == (1, 0)
    one_file = await _run(repo, "test/whisper.test.js")
    assert (one_file.passed, one_file.failed) == (1, 0) and one_file.ok


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed: the npm fixture cannot run")
async def test_npm_test_runs_the_test_script_without_its_pre_and_post_hooks(tmp_path: Path) -> None:
    """Seen with qs: `pretest` ran a README checker that was not installed, so no test ran at all."""
    files = {**fx.NODE_TEST_FILES, "package.json": json.dumps({"name": "strs", "version": "1.0.0", "scripts": {
        "pretest": "readme-checker README.md", "test": "npm run tests-only", "tests-only": "node --test test/",
        "posttest": "npm audit --production"}}) + "\n"}
    repo = fx.build(tmp_path / "npm", files)
    run = await _run(repo)
    assert (run.passed, run.failed) == (2, 1), run  # the tests ran: the missing checker never started
    assert "readme-checker" not in (run.output_tail or "")


async def test_a_coverage_wrapper_that_is_not_installed_runs_the_tests_it_wraps(tmp_path: Path) -> None:
    """Seen with qs: `tests-only` is `nyc tape 'test/**/*.js'`, tape installed and nyc not; every run said "nyc:
    command not found" and no test ran. The runner it wraps runs (with its arguments), and says why."""
    files = {**fx.NODE_TEST_FILES, "package.json": json.dumps({"name": "strs", "version": "1.0.0", "scripts": {
        "test": "npm run tests-only", "tests-only": "nyc --reporter=text runner 'test/'"}}) + "\n",
        "node_modules/.bin/runner": "#!/bin/sh\nexec node --test \"$@\"\n"}
    repo = fx.build(tmp_path / "npm", files)
    (repo / "node_modules/.bin/runner").chmod(0o755)
    run = await _run(repo)
    assert (run.passed, run.failed) == (2, 1), run
    suite = detect_suites(repo)[0]
    assert suite.argv == ["./node_modules/.bin/runner", "test/"] and "nyc" in suite.interpreter
    (repo / "node_modules/.bin/nyc").write_text("#!/bin/sh\nexit 3\n")
    assert detect_suites(repo)[0].argv[:2] == ["npm", "test"], "installed, the wrapper is the project's to run"


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed: the Go fixture cannot run")
async def test_real_go_test(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "go", fx.GO_FILES)
    run = await _run(repo)
    assert (run.passed, run.failed) == (1, 1)
    assert run.failures[0].test_id.endswith("TestSquareWrong") and run.failures[0].file == "area_test.go"


@pytest.mark.skipif(not fx.tool_works("cargo", "--version"), reason="cargo is not installed (or has no toolchain)")
async def test_real_cargo_test(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "crate", fx.CARGO_FILES)
    run = await _run(repo)
    assert (run.passed, run.failed, run.parsed_from) == (1, 1, "cargo"), run.output_tail
    failure = run.failures[0]
    assert (failure.test_id, failure.file, failure.line) == ("tests::adds_wrong", "src/lib.rs", 16)
    assert "left == right" in failure.message


# --- parsers on captured output (runners that are not installed here) ---------------------------------------


def test_jest_and_vitest_json(tmp_path: Path) -> None:
    data = {
        "numPassedTests": 4, "numFailedTests": 1, "numPendingTests": 1, "numTodoTests": 0,
        "testResults": [
            {"name": str(tmp_path / "src/Button.test.tsx"), "status": "failed", "message": "",
             "assertionResults": [
                 {"fullName": "Button renders", "status": "passed", "failureMessages": []},
                 {"fullName": "Button clicks", "status": "failed", "location": None,
                  "failureMessages": [f"Error: expect(received).toBe(expected)\n    at Object.<anonymous> "
                                      f"({tmp_path}/src/Button.test.tsx:12:30)"]}]},
            {"name": str(tmp_path / "src/Broken.test.tsx"), "status": "failed",
             "message": "SyntaxError: Unexpected token", "assertionResults": []},
        ],
    }
    parsed = parsers.parse_jest_json(json.dumps(data), tmp_path, tmp_path)
    assert (parsed.passed, parsed.failed, parsed.errored, parsed.skipped) == (1, 1, 1, 0)  # per-test statuses win
    assert parsed.failures[1] == Failure("src/Broken.test.tsx", "src/Broken.test.tsx", None,
                                         "SyntaxError: Unexpected token", "error")
    assert (parsed.failures[0].test_id, parsed.failures[0].file, parsed.failures[0].line) == (
        "Button clicks", "src/Button.test.tsx", 12)


def test_captured_jest_and_vitest_reports(tmp_path: Path) -> None:
    for report, line, message in ((fx.JEST_REPORT, 7, "Expected: 5\nReceived: 4"),
                                  (fx.VITEST_REPORT, 8, "expected 4 to be 5")):
        text = json.dumps(report).replace("ROOT", str(tmp_path))
        parsed = parsers.parse_jest_json(text, tmp_path, tmp_path)
        assert (parsed.passed, parsed.failed, parsed.skipped, parsed.errored) == (1, 1, 1, 0)
        [failure] = parsed.failures
        assert (failure.test_id, failure.file, failure.line) == ("sum adds wrong", "src/sum.test.js", line)
        assert message in failure.message and " at " not in failure.message


def test_go_json_and_cargo_and_summary(tmp_path: Path) -> None:
    events = [
        {"Action": "run", "Package": "ex/p", "Test": "TestA"},
        {"Action": "output", "Package": "ex/p", "Test": "TestA", "Output": "    a_test.go:9: want 5\n"},
        {"Action": "fail", "Package": "ex/p", "Test": "TestA/sub"},
        {"Action": "fail", "Package": "ex/p", "Test": "TestA"},
        {"Action": "output", "Package": "ex/p", "Test": "TestA/sub", "Output": "    a_test.go:9: want 5\n"},
        {"Action": "pass", "Package": "ex/p", "Test": "TestB"},
        {"Action": "fail", "Package": "ex/p"},
    ]
    go = parsers.parse_go_json("\n".join(json.dumps(e) for e in events), tmp_path, tmp_path)
    # go's own "--- FAIL" lines: the subtest and its parent (tests/core/test_runner_counts.py); the subtest is listed
    assert (go.passed, go.failed) == (1, 2) and [f.test_id for f in go.failures] == ["ex/p.TestA/sub"]
    cargo_out = ("running 2 tests\ntest tests::ok ... ok\ntest tests::bad ... FAILED\n\nfailures:\n\n"
                 "---- tests::bad stdout ----\nthread 'tests::bad' panicked at src/lib.rs:10:9:\n"
                 "assertion `left == right` failed\n\ntest result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured\n")
    cargo = parsers.parse_cargo(cargo_out, tmp_path, tmp_path)
    assert (cargo.passed, cargo.failed) == (1, 1)
    assert (cargo.failures[0].test_id, cargo.failures[0].file, cargo.failures[0].line) == ("tests::bad", "src/lib.rs", 10)
    summary = parsers.parse_summary("lots\nof output\n==== 3 passed, 1 failed, 2 skipped in 0.1s ====\n")
    assert (summary.passed, summary.failed, summary.skipped, summary.source) == (3, 1, 2, "summary")
    jest_line = parsers.parse_summary("Tests:       1 failed, 5 passed, 6 total\n")
    assert (jest_line.passed, jest_line.failed) == (5, 1)


def test_model_text_is_bounded_with_failures_first() -> None:
    run = TestRun("pytest", passed=100, failed=30, exit_code=1, output_tail="x" * 10000, parsed_from="junit",
                  failures=[Failure(f"t::test_{i}", "t.py", i, "boom " * 200) for i in range(30)])
    text = run.to_model_text(1500)
    assert len(text) <= 1500 and text.splitlines()[1].startswith("FAIL t::test_0")
    assert TestRun.from_dict(run.to_dict()).failures[3] == run.failures[3]


# --- fix loop ----------------------------------------------------------------------------------------------


def _failing(*ids: str) -> TestRun:
    return TestRun("s", passed=1, failed=len(ids), exit_code=1 if ids else 0,
                   failures=[Failure(i, "t.py", 1, f"{i} broke") for i in ids])


async def test_fix_loop_stops_on_repeat_and_limit_and_pass() -> None:
    events: list[FixAttempt] = []
    runs = iter([_failing("a", "b"), _failing("a"), _failing("a")])
    fixes: list[int] = []

    async def ask(run: TestRun, attempt: int) -> bool:
        fixes.append(attempt)
        return True

    async def run_tests() -> TestRun:
        return next(runs)

    result = await fix_loop(run_tests, ask, limit=5, emit=events.append)
    assert (result.reason, result.attempts, fixes) == ("repeated", 2, [1, 2])
    assert [(e.attempt, e.state) for e in events] == [(1, "fixing"), (2, "fixing"), (2, "stopped")]

    changing = iter([_failing("a"), _failing("b"), _failing("c"), _failing("d"), _failing("e")])
    limited = await FixLoop(lambda: asyncio.sleep(0, next(changing)), ask, limit=3).run()
    assert (limited.reason, limited.attempts, len(limited.runs)) == ("limit", 3, 4)

    green = iter([_failing("a"), _failing()])
    passed = await fix_loop(lambda: asyncio.sleep(0, next(green)), ask, limit=3)
    assert (passed.reason, passed.attempts) == ("passed", 1)

    async def decline(run: TestRun, attempt: int) -> bool:
        return False

    declined = await fix_loop(lambda: asyncio.sleep(0, _failing("a")), decline, limit=3)
    assert (declined.reason, declined.attempts) == ("declined", 1)


async def test_fix_loop_cancellation() -> None:
    started = asyncio.Event()

    async def ask(run: TestRun, attempt: int) -> bool:
        started.set()
        await asyncio.sleep(60)
        return True

    loop = FixLoop(lambda: asyncio.sleep(0, _failing("a")), ask, limit=3)
    task = asyncio.create_task(loop.run())
    await asyncio.wait_for(started.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert loop.result.reason == "cancelled" and loop.result.attempts == 1


async def test_fix_loop_with_real_pytest(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "py", fx.PY_FILES)

    async def ask(run: TestRun, attempt: int) -> bool:
        test_file = repo / run.failures[0].file
        test_file.write_text(test_file.read_text().replace("== 5", "== 4"))
        return True

    config = load_config(repo)
    runner = fx.runner_for(repo, config)
    result = await fix_loop(lambda: run_tests(repo, config, runner=runner), ask, limit=config.tests.fix_attempts)
    assert result.reason == "passed" and result.attempts == 1
    assert [(r.passed, r.failed) for r in result.runs] == [(2, 1), (3, 0)]


# --- monorepo selection and the CLI ------------------------------------------------------------------------


def _mono(tmp_path: Path) -> Path:
    files = {f"api/{k}": v for k, v in fx.PY_FILES.items()}
    files.update({f"js/{k}": v for k, v in fx.NODE_TEST_FILES.items()})
    return fx.build(tmp_path / "mono", files)


async def test_selected_file_picks_its_suite_in_a_monorepo(tmp_path: Path) -> None:
    from tui.testing import choose_suite

    repo = _mono(tmp_path)
    suites = detect_suites(repo)
    with pytest.raises(ToolError, match="several test suites"):
        choose_suite(suites, "")
    suite = choose_suite(suites, "", "js/test/whisper.test.js", repo)
    assert suite.name == "js:node"
    plan = plan_run(suite, "js/test/whisper.test.js", repo)
    assert plan.argv[-1] == "test/whisper.test.js"  # relative to where the suite runs
    run = await run_plan(plan, repo, Config(), runner=fx.runner_for(repo, Config()))
    assert (run.passed, run.failed) == (1, 0)


def _cli(repo: Path, *args: str) -> "subprocess.CompletedProcess[str]":
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    return subprocess.run([sys.executable, "-m", "tui", "test", *args], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(root)}, timeout=120, stdin=subprocess.DEVNULL)


def test_cli_exit_codes_listing_and_json(tmp_path: Path) -> None:
    repo = _mono(tmp_path)
    listing = _cli(repo)
    assert listing.returncode == 2 and "--suite NAME" in listing.stderr
    assert "api:pytest" in listing.stdout and "js:node" in listing.stdout
    failing = _cli(repo, "--suite", "js")
    assert failing.returncode == 1
    assert "FAIL shouts twice  (js/test/shout.test.js:9)" in failing.stdout and "not ok 2" in failing.stdout
    passing = _cli(repo, "js/test/whisper.test.js")
    assert passing.returncode == 0 and "js:node: 1 passed, 0 failed" in passing.stdout
    data = json.loads(_cli(repo, "--all", "--json").stdout)
    assert data["exit_code"] == 1 and [(r["suite"], r["passed"], r["failed"]) for r in data["runs"]] == [
        ("api:pytest", 2, 1), ("js:node", 2, 1)]


async def test_run_tests_tool_is_a_command_proposal_with_structured_result(tmp_path: Path) -> None:
    import shlex

    from tui.protocol.proposals import Decision
    from tui.protocol.events import CommandOutput
    from tui.tools.base import ToolContext
    from tui.tools.run_tests import SPEC

    repo = fx.build(tmp_path / "py", fx.PY_FILES)
    config = load_config(repo)
    events: list = []
    ctx = ToolContext(repo=repo.resolve(), config=config, emit=events.append, sandbox=fx.runner_for(repo, config))
    proposal = await SPEC.propose(ctx, {"selection": "tests/test_ops.py"})
    assert proposal.kind == "command" and proposal.tool == "run_tests"
    assert shlex.split(proposal.command)[1:3] == ["-m", "pytest"] and proposal.command.endswith("tests/test_ops.py")
    assert git(repo, "status", "--porcelain") == "", "proposing runs nothing"
    result = await SPEC.execute(ctx, proposal, Decision("approve"))
    data = result.data["test_run"]
    assert not result.ok and (data["passed"], data["failed"]) == (2, 1)
    assert data["failures"][0]["test_id"] == "tests/test_ops.py::test_add_wrong"
    assert result.output.splitlines()[1].startswith("FAIL tests/test_ops.py::test_add_wrong")
    assert any(isinstance(e, CommandOutput) for e in events)


def test_same_failures_ignore_addresses_and_timings() -> None:
    def run(message: str) -> TestRun:
        return TestRun("s", failed=1, exit_code=1, failures=[Failure("t::x", "t.py", 3, message)])

    assert run("<Obj at 0x7f01> timed out after 120ms").failure_set() == run(
        "<Obj at 0x7fa9> timed out after 95ms").failure_set()
    assert run("assert 4 == 5").failure_set() != run("assert 3 == 5").failure_set()


def test_a_root_tests_dir_is_a_pytest_suite_beside_a_web_suite(tmp_path: Path) -> None:
    from tests.conftest import make_repo
    from tui.testing import detect_suites

    repo = make_repo(tmp_path / "mono", {
        "tests/test_core.py": "def test_ok():\n    assert True\n",
        "web/package.json": '{"name": "web", "scripts": {"test": "node --test"}}\n',
    })
    assert sorted((s.name, s.kind) for s in detect_suites(repo)) == [("pytest", "pytest"), ("web:node", "node")]


def test_root_level_test_files_are_a_pytest_suite(tmp_path: Path) -> None:
    from tests.conftest import make_repo
    from tui.testing import detect_suites

    repo = make_repo(tmp_path / "flat", {"calc.py": "x = 1\n", "test_calc.py": "def test_x():\n    pass\n"})
    assert [(s.name, s.kind) for s in detect_suites(repo)] == [("pytest", "pytest")]
