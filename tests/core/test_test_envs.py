"""Tests and Python run in the project's own environment, end to end: `devagent test` and `devagent run --yes
--json` (the scripted model calling run_tests and run_python) as real subprocesses, devagent running from its
own interpreter like a pipx install, with the project's environment arranged the ways developers have it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import make_repo
from tests.core.env_fixtures import (  # noqa: F401
    bare_venv, lib_repo, make_venv, pipx_like_env, project_venv, unittest_repo)
from tests.ollama_server import Reply, ScriptedOllama
from tui.config import Config
from tui.sandbox.runner import detect

needs_bwrap = pytest.mark.skipif(not detect(Config()).active, reason="bubblewrap does not work here")
PYTHON_CHECK = "import mylib; print('double(2) =', mylib.double(2))"


def devagent(repo: Path, env: dict[str, str], *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui", *args], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def json_of(repo: Path, env: dict[str, str], *args: str) -> dict:
    out = devagent(repo, env, "test", "--json", *args)
    assert out.stdout.strip(), out.stderr
    return json.loads(out.stdout)


def agent_run(repo: Path, env: dict[str, str], server: ScriptedOllama, *calls: dict) -> dict[str, list[dict]]:
    """`devagent run --yes --json` with the model making ``calls`` in turn; the tool results by tool name."""
    server.push(*[Reply(tool_calls=[call]) for call in calls], Reply("Done."))
    out = devagent(repo, {**env, "OLLAMA_HOST": server.url}, "run", "--yes", "--json",
                   "check that the project environment works")  # not "run the tests": that asks for a report
    assert out.returncode == 0, out.stderr
    results: dict[str, list[dict]] = {}
    for event in (json.loads(line) for line in out.stdout.splitlines() if line.strip()):
        if event["type"] == "tool_result":
            results.setdefault(event["name"], []).append(event)
    return results


def seen_by_model(server: ScriptedOllama) -> str:
    return json.dumps(server.requests[-1]["messages"])


@needs_bwrap
def test_a_src_layout_importable_only_through_its_activated_venv(tmp_path: Path, project_venv: Path,
                                                                  ollama_server: ScriptedOllama) -> None:
    repo = lib_repo(tmp_path / "lib", venv=project_venv)
    env = pipx_like_env(project_venv)
    text = devagent(repo, env, "test")
    assert text.returncode == 1, text.stdout + text.stderr
    assert text.stdout.splitlines()[0] == f"python: {project_venv}/bin/python3 (activated VIRTUAL_ENV)"
    assert "pytest: 1 passed, 1 failed" in text.stdout and "assert 6 == 4" in text.stdout
    run = json_of(repo, env)["runs"][0]
    assert (run["passed"], run["failed"], run["status"]) == (1, 1, "ran") and str(project_venv) in run["interpreter"]
    results = agent_run(repo, env, ollama_server, {"name": "run_tests", "arguments": {}},
                        {"name": "run_python", "arguments": {"code": PYTHON_CHECK}})
    tests_out, python_out = results["run_tests"][0]["output"], results["run_python"][0]["output"]
    assert tests_out.startswith("RESULT: 1 of 2 tests FAILED.") and "tests/test_lib.py::test_double" in tests_out
    assert f"python: {project_venv}/bin/python3 (activated VIRTUAL_ENV)" in tests_out
    assert python_out.splitlines()[:2] == ["exit code 0", f"python: {project_venv}/bin/python3 (activated VIRTUAL_ENV)"]
    assert "double(2) = 6" in python_out
    assert "RESULT: 1 of 2 tests FAILED" in seen_by_model(ollama_server)


@needs_bwrap
def test_without_its_env_the_import_error_is_the_result(tmp_path: Path, project_venv: Path,
                                                        ollama_server: ScriptedOllama) -> None:
    repo = lib_repo(tmp_path / "lib")  # not installed anywhere; pytest exists in the activated venv
    env = pipx_like_env(project_venv)
    text = devagent(repo, env, "test")
    assert text.returncode == 2
    assert "ImportError while importing test module tests/test_lib.py: No module named 'mylib'" in text.stdout
    assert "0 passed, 0 failed" not in text.stdout and "PYTHONPATH=src" in text.stdout
    run = json_of(repo, env)["runs"][0]
    assert run["status"] == "collection_error" and run["problem"].startswith("ImportError while importing")
    results = agent_run(repo, env, ollama_server, {"name": "run_tests", "arguments": {}},
                        {"name": "run_python", "arguments": {"code": PYTHON_CHECK}})
    tests_out = results["run_tests"][0]["output"]
    assert tests_out.startswith("RESULT: the tests could not be collected: ImportError while importing test module "
                                "tests/test_lib.py: No module named 'mylib'.")
    assert "What to do: mylib is this repo's own code (src/mylib)" in tests_out and "0 passed" not in tests_out
    assert "No module named 'mylib'" in results["run_python"][0]["output"]


@needs_bwrap
@pytest.mark.parametrize("how", ["devagent's environment", "the repo's config"])
def test_pythonpath_src_reaches_the_tests(tmp_path: Path, project_venv: Path, how: str,
                                          ollama_server: ScriptedOllama) -> None:
    repo = lib_repo(tmp_path / "lib")
    env = pipx_like_env(project_venv)
    if how == "devagent's environment":
        env["PYTHONPATH"] = "src"  # relative, as a developer exports it in the repo's root
    else:
        (repo / ".devagent.toml").write_text('[project]\nenv = { PYTHONPATH = "src" }\n')
    run = json_of(repo, env)["runs"][0]
    assert (run["passed"], run["failed"], run["status"]) == (1, 1, "ran"), run["output_tail"]
    results = agent_run(repo, env, ollama_server, {"name": "run_tests", "arguments": {}},
                        {"name": "run_python", "arguments": {"code": PYTHON_CHECK}})
    assert results["run_tests"][0]["output"].startswith("RESULT: 1 of 2 tests FAILED.")
    assert "double(2) = 6" in results["run_python"][0]["output"]


@needs_bwrap
def test_a_unittest_project_without_pytest_runs_with_unittest(unittest_repo: Path,
                                                              ollama_server: ScriptedOllama) -> None:
    env = pipx_like_env(None)
    listed = devagent(unittest_repo, env, "test", "--list")
    assert "-m unittest discover -v -s tests" in listed.stdout and "no pytest in the environment" in listed.stdout
    run = json_of(unittest_repo, env)["runs"][0]
    assert (run["suite"], run["passed"], run["failed"], run["skipped"], run["status"]) == ("unittest", 1, 1, 1, "ran")
    failure = run["failures"][0]
    assert failure["test_id"] == "tests/test_calc.py::TestCalc::test_add" and failure["line"] == 8
    assert failure["message"] == "AssertionError: -1 != 3"
    one = json_of(unittest_repo, env, "tests/test_calc.py::TestCalc::test_add")["runs"][0]
    # tests/ is not a package: the one test is found by discovery (an installed package named "tests", as some
    # sdists ship, would shadow tests.test_calc)
    assert (one["passed"], one["failed"]) == (0, 1), one
    assert one["command"].endswith("-s tests -p test_calc.py -k TestCalc.test_add"), one["command"]
    (unittest_repo / ".venv/lib").mkdir(exist_ok=True)
    site = next((unittest_repo / ".venv/lib").glob("python3*/site-packages"))
    (site / "tests").mkdir()
    (site / "tests/__init__.py").write_text("")
    shadowed = json_of(unittest_repo, env, "tests/test_calc.py")["runs"][0]
    assert (shadowed["passed"], shadowed["failed"], shadowed["skipped"]) == (1, 1, 1), shadowed["output_tail"]
    results = agent_run(unittest_repo, env, ollama_server, {"name": "run_tests", "arguments": {}},
                        {"name": "run_python", "arguments": {"code": "import sys, calc; print(sys.prefix)"}})
    out = results["run_tests"][0]["output"]
    assert out.startswith("RESULT: 1 of 3 tests FAILED. 1 passed, 1 skipped.") and "python: .venv/bin/python3 (the repo's .venv)" in out
    python_out = results["run_python"][0]["output"]
    assert "python: .venv/bin/python3 (the repo's .venv)" in python_out and str(unittest_repo / ".venv") in python_out


@needs_bwrap
def test_an_env_without_pytest_says_so(tmp_path: Path, bare_venv: Path) -> None:
    repo = lib_repo(tmp_path / "lib")
    text = devagent(repo, pipx_like_env(bare_venv), "test")
    assert text.returncode == 1
    assert f"did not run: No module named pytest in {bare_venv}/bin/python3" in text.stdout
    assert "what to do: pytest is not installed in the project's environment" in text.stdout


def _no_python_path(tmp_path: Path) -> str:
    tools = tmp_path / "tools"  # what devagent itself needs (git, bwrap): no python3 anywhere on PATH
    tools.mkdir()
    for name in ("git", "bwrap"):
        found = shutil.which(name)
        if found:
            (tools / name).symlink_to(found)
    return str(tools)


def test_no_interpreter_at_all(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = lib_repo(tmp_path / "lib")
    env = {**pipx_like_env(None), "PATH": _no_python_path(tmp_path), "HOME": str(tmp_path)}
    text = devagent(repo, env, "test")
    assert text.returncode == 127, text.stdout + text.stderr
    assert "did not run: no Python interpreter found (no VIRTUAL_ENV, no .venv or venv" in text.stdout
    assert json_of(repo, env)["runs"][0]["status"] == "not_started"
    results = agent_run(repo, env, ollama_server, {"name": "run_tests", "arguments": {}},
                        {"name": "run_python", "arguments": {"code": "print(1)"}})
    for name in ("run_tests", "run_python"):
        assert not results[name][0]["ok"] and "no Python interpreter" in results[name][0]["output"]


@needs_bwrap
@pytest.mark.skipif(os.getuid() != 0, reason="needs root to give the venv to another user")
def test_an_interpreter_the_sandbox_cannot_show_is_reported_as_such(tmp_path: Path) -> None:
    venv = make_venv(tmp_path / "someone-elses" / "venv", system_site=True)
    os.chown(venv, 65534, 65534)  # not the developer's: never bound into the sandbox
    repo = lib_repo(tmp_path / "lib")
    text = devagent(repo, pipx_like_env(venv), "test")
    assert text.returncode != 0
    assert f"did not run: cannot start {venv}/bin/python3: No such file or directory" in text.stdout
    assert "0 passed, 0 failed" not in text.stdout
    doctor = devagent(repo, pipx_like_env(venv), "doctor", "--host", "http://127.0.0.1:9")
    assert "FAIL  python" in doctor.stdout and "the sandbox cannot show it" in doctor.stdout


@needs_bwrap
def test_doctor_says_which_python_and_why(tmp_path: Path, project_venv: Path) -> None:
    repo = lib_repo(tmp_path / "lib", venv=project_venv)
    out = devagent(repo, pipx_like_env(project_venv, PYTHONPATH="src"), "doctor", "--host", "http://127.0.0.1:9")
    line = next(ln for ln in out.stdout.splitlines() if ln.strip().startswith("ok    python"))
    assert f"python: {project_venv}/bin/python3 (activated VIRTUAL_ENV); has pytest" in line
    assert f"PYTHONPATH={repo}/src" in line and f"shown read-only in the sandbox: {project_venv}" in line


def test_a_repo_cannot_pass_devagents_environment_or_set_other_variables(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {".devagent.toml": '[project]\npass_env = ["DEVAGENT_API_KEY"]\n'})
    out = devagent(repo, pipx_like_env(None), "test")
    assert out.returncode == 78 and "cannot set project.pass_env" in out.stderr
    for toml in ('[project]\nenv = { LD_PRELOAD = "./x.so" }\n', '[project]\nenv = { PYTHONPATH = "/etc" }\n',
                 '[project]\nenv = { PYTHONPATH = "../up" }\n'):
        (repo / ".devagent.toml").write_text(toml)
        out = devagent(repo, pipx_like_env(None), "test")
        assert out.returncode == 78 and "Traceback" not in out.stderr, out.stderr


@needs_bwrap
def test_pytest_on_path_when_the_only_python_has_none(tmp_path: Path, bare_venv: Path, project_venv: Path) -> None:
    """No project environment; python3 on PATH lacks pytest; a pipx-style pytest (its own venv, linked from a
    bin directory on PATH) is what `pytest` in a shell would run."""
    repo = make_repo(tmp_path / "flat", {"calc.py": "def add(a, b):\n    return a + b\n",
                                         "test_calc.py": "from calc import add\n\n\ndef test_add():\n"
                                                         "    assert add(1, 2) == 3\n"})
    script = project_venv / "bin" / "pytest"  # as pip writes a console script
    script.write_text(f"#!{project_venv}/bin/python\nimport sys\nfrom pytest import console_main\n"
                      "sys.exit(console_main())\n")
    script.chmod(0o755)
    local_bin = tmp_path / "local-bin"
    local_bin.mkdir()
    (local_bin / "pytest").symlink_to(script)
    env = {**pipx_like_env(None), "PATH": f"{bare_venv}/bin:{local_bin}:/usr/bin:/bin"}
    run = json_of(repo, env)["runs"][0]
    assert (run["passed"], run["failed"], run["status"]) == (1, 0, "ran"), run["output_tail"]
    assert run["command"].startswith(f"{local_bin}/pytest ")
    assert run["interpreter"] == (f"python: {bare_venv}/bin/python3 (python3 on PATH); it has no pytest, so "
                                  f"{local_bin}/pytest (pytest on PATH) runs the tests")
