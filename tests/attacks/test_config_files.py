"""The repository's config files are repo files: read bounded, never through a symlink out of the work tree.

Found by this suite: `.devagent.toml` was opened with a plain open(), so a symlink to a private TOML file
outside the repo was read and its values echoed in the error message (a type mismatch quotes the value);
a huge `.devagent.toml` was read whole; a pyproject.toml with `tool = 1` crashed devagent with an internal
error. devagent now reads them like any repo file (tui/safety/paths.py), at most 1 MiB.
"""

from __future__ import annotations

from pathlib import Path

from tests.attacks.harness import SECRET, Attack
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
