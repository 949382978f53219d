"""`devagent test --fix`: failing tests -> the model proposes a fix -> approved -> tests run again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import make_repo
from tests.ollama_server import Reply, ScriptedOllama

FILES = {
    "pyproject.toml": '[project]\nname = "calc"\nversion = "0"\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "calc.py": "def add(a, b):\n    return a - b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
}


def fix_cli(repo: Path, url: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, OLLAMA_HOST=url, PYTHONPATH=str(repo))
    return subprocess.run([sys.executable, "-m", "tui", "test", "--fix", *args], cwd=repo, capture_output=True,
                          text=True, timeout=240, env=env)


def test_fix_loop_fixes_and_reruns(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "calc", FILES)
    ollama_server.push(
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "calc.py", "old": "a - b", "new": "a + b"}}]),
        Reply("Fixed the operator."))
    out = fix_cli(repo, ollama_server.url, "--yes")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "fix attempt 1/3" in out.stdout and "stopped: passed" in out.stdout
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert "test_add" in str(ollama_server.requests[0]["messages"]), "the failure went to the model"


def test_fix_loop_stops_when_a_turn_changes_nothing(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "calc", FILES)
    ollama_server.default_reply = Reply("I am not sure how to fix this.")
    out = fix_cli(repo, ollama_server.url, "--yes", "--attempts", "2")
    assert out.returncode != 0
    assert "stopped: declined after 1 attempt" in out.stdout
    assert (repo / "calc.py").read_text().endswith("return a - b\n")


def test_fix_loop_stops_at_the_limit(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "calc", FILES)
    counter = iter(range(100))
    wrong = ["None", "[a, b]", "str(a)", "{a: b}"]

    def wrong_fix(body: dict) -> Reply:  # a different wrong answer each attempt: never "the same failure"
        n = next(counter)
        if n % 2:
            return Reply("Tried.")
        return Reply(tool_calls=[{"name": "write_file", "arguments": {
            "path": "calc.py", "content": f"def add(a, b):\n    return {wrong[n // 2]}\n"}}])

    ollama_server.default_reply = Reply("unused")
    ollama_server.push(*[wrong_fix] * 8)
    out = fix_cli(repo, ollama_server.url, "--yes", "--attempts", "2")
    assert out.returncode != 0
    assert "fix attempt 2/2" in out.stdout and "stopped: limit after 2 attempt" in out.stdout
    assert "return [a, b]" in (repo / "calc.py").read_text(), out.stdout
