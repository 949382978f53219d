"""The package manager a JS project's tests run with: the one it names when it is installed, else npm (which runs the
same package.json scripts), said in the run; never one that is not installed when another can run the scripts.

Real repos, real runs in the sandbox: node's own test runner behind an environment variable (so the suite goes
through the manager's `test` script), pnpm from tests/node_tools when a test needs it installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.core import fixtures_repos as fx
from tests.core import node_tools
from tui.config import load_config
from tui.testing import detect_suites, plan_run, run_plan

ROOT = Path(__file__).resolve().parents[2]
PNPM_LOCK = "lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n  excludeLinksFromLockfile: false\n\nimporters:\n\n  .: {}\n"


def _project(tmp_path: Path, name: str, script: str = "NODE_ENV=test node --test test/", *,
             lock: tuple[str, str] | None = ("pnpm-lock.yaml", PNPM_LOCK), manager: str | None = "pnpm@9.15.9",
             extra: dict[str, str] | None = None) -> Path:
    package = {"name": name, "version": "1.0.0", "type": "commonjs", "scripts": {"test": script}}
    if manager:
        package["packageManager"] = manager
    files = {**{k: v for k, v in fx.NODE_TEST_FILES.items() if k != "package-lock.json"},
             "package.json": json.dumps(package, indent=2) + "\n", **(extra or {})}
    if lock:
        files[lock[0]] = lock[1]
    return fx.build(tmp_path / name, files)


async def _run(repo: Path):  # type: ignore[no-untyped-def]
    config = load_config(repo)
    [suite] = detect_suites(repo, config)
    run = await run_plan(plan_run(suite, "", repo), repo, config, runner=fx.runner_for(repo, config))
    return suite, run


@pytest.fixture
def no_managers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine with node and npm but without pnpm, yarn or bun."""
    monkeypatch.setenv("PATH", node_tools.path_without("pnpm", "yarn", "bun"))


@pytest.mark.skipif(not fx.tool_works("npm", "--version"), reason="npm is not installed")
async def test_a_pnpm_project_without_pnpm_runs_its_tests_with_npm_and_says_so(tmp_path: Path, no_managers: None) -> None:
    """Seen on a TypeScript repo: every test run and every check failed with "cannot start pnpm", though
    `npm test` worked."""
    repo = _project(tmp_path, "strs")
    suite, run = await _run(repo)
    assert suite.argv[:2] == ["npm", "test"] and suite.manager == "npm"
    assert (run.passed, run.failed, run.status) == (2, 1, "ran"), run.output_tail
    assert "pnpm is not installed here" in run.interpreter and "npm runs the same package.json scripts" in \
        run.interpreter and "packageManager pnpm@9.15.9" in run.interpreter
    assert run.interpreter in run.to_model_text(), "the model is told which runner ran, too"


@pytest.mark.skipif(not fx.tool_works("npm", "--version"), reason="npm is not installed")
async def test_yarn_and_bun_projects_fall_back_the_same_way(tmp_path: Path, no_managers: None) -> None:
    for name, lock in (("yarned", ("yarn.lock", "# yarn lockfile v1\n")), ("bunned", ("bun.lock", "{}\n"))):
        repo = _project(tmp_path, name, lock=lock, manager=None)
        suite, run = await _run(repo)
        named = "yarn" if name == "yarned" else "bun"
        assert suite.argv[:2] == ["npm", "test"], name
        assert (run.passed, run.failed) == (2, 1), run.output_tail
        assert f"names {named} ({lock[0]}) and {named} is not installed here" in run.interpreter


async def test_a_script_that_calls_the_missing_manager_is_not_run_with_npm(tmp_path: Path, no_managers: None) -> None:
    """npm cannot run a script that itself starts pnpm (nor a Plug'n'Play yarn project): nothing runs, and the run
    says why before anything starts, instead of a "command not found" in the middle of the output."""
    calls = _project(tmp_path, "calls", script="pnpm run build && node --test test/")
    pnp = _project(tmp_path, "pnp", lock=("yarn.lock", "# yarn lockfile v1\n"), manager="yarn@4.5.0",
                   extra={".pnp.cjs": "module.exports = {};\n"})
    for repo, why in ((calls, "its test script calls pnpm"), (pnp, "Yarn Plug'n'Play")):
        suite, run = await _run(repo)
        assert suite.argv[0] in ("pnpm", "yarn")
        assert run.status == "not_started" and run.exit_code == 127 and run.total == 0
        assert why in run.problem and "is not installed here" in run.problem
        assert "Install the package manager" in run.hint


@pytest.mark.skipif(not fx.tool_works("npm", "--version"), reason="npm is not installed")
async def test_an_installed_manager_the_project_names_is_the_one_that_runs(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    tools = node_tools.install()
    pnpm_only = node_tools.bin_with(tmp_path / "bin", tools, "pnpm")
    monkeypatch.setenv("PATH", node_tools.path_without("pnpm", "yarn", "bun", extra=pnpm_only))
    repo = _project(tmp_path, "strs")
    suite, run = await _run(repo)
    assert suite.argv[:2] == ["pnpm", "test"] and run.interpreter == "runner: pnpm (packageManager pnpm@9.15.9)"
    assert (run.passed, run.failed) == (2, 1), run.output_tail


@pytest.mark.skipif(not fx.tool_works("npm", "--version"), reason="npm is not installed")
def test_devagent_test_says_which_runner_ran_and_why(tmp_path: Path) -> None:
    repo = _project(tmp_path, "strs")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": node_tools.path_without("pnpm", "yarn", "bun")}
    out = subprocess.run([sys.executable, "-m", "tui", "test"], cwd=repo, capture_output=True, text=True,
                         timeout=300, env=env, stdin=subprocess.DEVNULL)
    lines = out.stdout.splitlines()
    assert lines[0].startswith("runner: npm, because the project names pnpm"), out.stdout
    assert lines[1] == "$ npm test --ignore-scripts"
    assert "2 passed, 1 failed" in out.stdout and out.returncode != 0
