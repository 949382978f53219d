"""The repository's config files are repo files: read bounded, never through a symlink out of the work tree.

Found by this suite: `.devagent.toml` was opened with a plain open(), so a symlink to a private TOML file
outside the repo was read and its values echoed in the error message (a type mismatch quotes the value);
a huge `.devagent.toml` was read whole; a pyproject.toml with `tool = 1` crashed devagent with an internal
error. devagent now reads them like any repo file (tui/safety/paths.py), at most 1 MiB.

Values of the wrong type: `checkpoints.keep = false` counted as 0 (a bool is an int in Python) and pruned the
undo history of every earlier session; `model.context = false` or `model.threads = false` meant "no bound";
`sandbox.mask = [1]` crashed every command with a TypeError. A bool is no number now, list items must be
strings, and model.seed must be an int.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.attacks.harness import SECRET, Attack, call, devagent
from tests.attacks.hostile import fifo, sparse
from tests.attacks.policy_kit import hostile_repo
from tests.attacks.test_host_reads import HANG, HUGE, limited
from tests.ollama_server import ScriptedOllama

CONFIG_ERROR = 78


def test_a_config_symlinked_to_a_private_file_is_not_read(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    private = tmp_path / "outside" / "private.toml"
    private.parent.mkdir()
    private.write_text(f'[model]\ntemperature = "{SECRET}"\n')  # a value of the wrong type is quoted in errors
    repo = hostile_repo(tmp_path / "r", {})
    (repo / ".devagent.toml").symlink_to(private)
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "hello", timeout=HANG)
    attack.check(run, allow_rc=(CONFIG_ERROR,))
    assert "symlink" in run.stdout + run.stderr


def test_a_fifo_config_is_refused_at_once(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = hostile_repo(tmp_path / "r", {})
    fifo(repo / ".devagent.toml")
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "hello", timeout=HANG)
    attack.check(run, allow_rc=(0, CONFIG_ERROR))  # defended before too (skipped); now named as an error


def test_a_huge_config_is_not_read_whole(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = hostile_repo(tmp_path / "r", {})
    sparse(repo / "pyproject.toml", HUGE)
    attack = Attack(repo)
    run = limited(repo, ollama_server, "hello")
    attack.check(run, allow_rc=(0,))


def test_a_pyproject_whose_tool_is_not_a_table(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = hostile_repo(tmp_path / "r", {"pyproject.toml": "tool = 1\n[project]\nname = 'x'\n"})
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "hello", timeout=HANG)
    attack.check(run, allow_rc=(0,))
    assert "internal error" not in run.stderr


@pytest.mark.parametrize("toml, key", [
    ("[checkpoints]\nkeep = false\n", "checkpoints.keep"),
    ("[model]\ncontext = false\n", "model.context"),
    ("[model]\nthreads = false\n", "model.threads"),
    ("[limits]\noutput_cap = false\n", "limits.output_cap"),
    ("[limits]\nmax_processes = true\n", "limits.max_processes"),
    ("[sandbox]\nmask = [1]\n", "sandbox.mask"),
    ("[sandbox]\nmask = [[\"~/.ssh\"]]\n", "sandbox.mask"),
    ("[model]\nseed = \"x\"\n", "model.seed"),
])
def test_a_value_of_the_wrong_type_is_an_error(tmp_path: Path, ollama_server: ScriptedOllama, toml: str,
                                               key: str) -> None:
    repo = hostile_repo(tmp_path / "r", {})
    earlier = Attack(repo).run_agent(ollama_server, "go", call("write_file", path="a.txt", content="1\n"))
    assert earlier.rc == 0, earlier.stderr[-500:]
    (repo / ".devagent.toml").write_text(toml)
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "go", call("run_command", command="echo hi"),
                           call("write_file", path="b.txt", content="1\n"), timeout=HANG)
    history = devagent(repo, "checkpoints", "--json")
    attack.check(run, allow_rc=(CONFIG_ERROR,))
    assert key in run.stdout + run.stderr
    assert len(json.loads(history.stdout)) == 1  # the earlier session's undo history is all still there
