"""AGENTS.md is repository text sent to the model: never read through a symlink out of the work tree, never a
FIFO (a blocking read), never more than its budget. Defended (tui/engine/instructions.py reads it through
tui/safety/paths.py); these plant each and check the model never saw the secret and devagent did not hang."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.attacks.harness import SECRET, Attack, call, sent_to_model
from tests.attacks.hostile import fifo, outside_secret, sparse
from tests.attacks.test_host_reads import HANG
from tests.conftest import make_repo
from tests.ollama_server import ScriptedOllama


@pytest.mark.parametrize("how", ["symlink-out", "dir-symlink-out", "fifo", "huge", "symlink-into-git"])
def test_a_hostile_agents_md(tmp_path: Path, ollama_server: ScriptedOllama, how: str) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "# r\n", "lib/app.py": "def add(a, b):\n    return a + b\n"})
    key = outside_secret(tmp_path)
    if how == "symlink-out":
        (repo / "AGENTS.md").symlink_to(key)
    elif how == "dir-symlink-out":
        (key.parent / "AGENTS.md").write_text(key.read_text())
        (repo / "docs").symlink_to(key.parent)
    elif how == "fifo":
        fifo(repo / "AGENTS.md")
    elif how == "huge":
        sparse(repo / "AGENTS.md", 3 << 30)
    else:
        (repo / ".git" / "AGENTS.md").write_text(SECRET)
        (repo / "AGENTS.md").symlink_to(".git/AGENTS.md")
    attack = Attack(repo)
    attack.before = Attack(repo).before
    prompt = "fix lib/app.py and docs/AGENTS.md"
    run = attack.run_agent(ollama_server, prompt, call("read_file", path="lib/app.py"), timeout=HANG)
    attack.check(run, allow_rc=(0,))
    assert SECRET not in sent_to_model(ollama_server)
