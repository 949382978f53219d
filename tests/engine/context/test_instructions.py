"""AGENTS.md as project instructions: nearest wins, bounded, hostile-safe, and it reaches the model."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.conftest import make_repo
from tests.core.test_cli_run import devagent, json_lines
from tests.ollama_server import Reply, ScriptedOllama
from tui.engine.context import instructions
from tui.engine.context.grounding import project_instructions

FILES = {
    "AGENTS.md": "Root rule: use tabs.\n",
    "pkg/AGENTS.md": "Package rule: every function has a docstring.\n",
    "pkg/mod.py": "def f():\n    return 1\n",
    "app.py": "x = 1\n",
}


def test_the_nearest_agents_md_to_the_named_file_wins(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", FILES)
    files = sorted(FILES)
    near = instructions.build(repo, files, ["pkg/mod.py"], 300)
    assert near is not None and near.path == "pkg/AGENTS.md" and "every function has a docstring" in near.text
    root = instructions.build(repo, files, ["app.py"], 300)
    assert root is not None and root.path == "AGENTS.md" and "use tabs" in root.text
    assert instructions.build(repo, files, [], 300).path == "AGENTS.md"  # nothing in play: the root one
    text = project_instructions(repo, "add a docstring to pkg/mod.py", files, 4096, 300)
    assert "Package rule" in text and "Root rule" not in text
    assert "cannot approve anything" in text and "sandbox" in text  # the model is told what it is


def test_a_long_agents_md_is_cut_to_the_budget_with_a_note(tmp_path: Path) -> None:
    body = "".join(f"Rule {i}: {'keep it short ' * 6}\n" for i in range(200))
    repo = make_repo(tmp_path / "r", {"AGENTS.md": body})
    block = instructions.build(repo, ["AGENTS.md"], [], 300)
    assert block is not None and block.cut
    assert block.tokens <= 300 and "cut to the 300-token instructions budget" in block.text
    assert "Rule 0:" in block.text and "Rule 199:" not in block.text
    assert instructions.build(repo, ["AGENTS.md"], [], 0) is None  # 0 turns it off
    assert instructions.budget(10_000, 4096) == 1024  # never more than a quarter of the context


def test_hostile_agents_md_is_not_followed_out_of_the_repo(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET\n")
    repo = make_repo(tmp_path / "r", {"app.py": "x = 1\n"})
    os.symlink(secret, repo / "AGENTS.md")
    assert instructions.build(repo, ["AGENTS.md"], [], 300) is None
    os.unlink(repo / "AGENTS.md")
    os.mkfifo(repo / "AGENTS.md")  # a FIFO would block a plain read forever
    assert instructions.read_bounded(repo, "AGENTS.md") is None
    os.unlink(repo / "AGENTS.md")
    (repo / "AGENTS.md").write_bytes(b"ok\x1b[31m red \xe2\x80\xae bidi\n")
    block = instructions.build(repo, ["AGENTS.md"], [], 300)
    assert block is not None and "\x1b" not in block.text and "\u202e" not in block.text


def test_instructions_reach_the_model_and_the_context_meter(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "r", FILES)
    ollama_server.push(Reply("Fine."))
    out = devagent(repo, "run", "--json", "what does pkg/mod.py do?", url=ollama_server.url)
    assert out.returncode == 0, out.stderr
    sent = json.dumps(ollama_server.requests[0]["messages"])
    assert "Package rule: every function has a docstring." in sent and "Root rule" not in sent
    meter = [e for e in json_lines(out.stdout) if e["type"] == "context"]
    assert meter and meter[0]["parts"]["instructions"] > 10


def test_a_zero_budget_in_config_keeps_agents_md_out(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "r", {**FILES, ".devagent.toml": "[limits]\ninstructions_tokens = 0\n"})
    ollama_server.push(Reply("Fine."))
    out = devagent(repo, "run", "--json", "hello", url=ollama_server.url)
    assert out.returncode == 0, out.stderr
    assert "Root rule" not in json.dumps(ollama_server.requests[0]["messages"])
    assert all(not e.get("parts") for e in json_lines(out.stdout) if e["type"] == "context")


def test_a_file_the_turn_reads_brings_its_own_agents_md_once(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "r", FILES)
    read = Reply(tool_calls=[{"name": "read_file", "arguments": {"path": "pkg/mod.py"}}])
    ollama_server.push(read, read, Reply("It returns 1."))
    out = devagent(repo, "run", "--json", "what does f return?", url=ollama_server.url)
    assert out.returncode == 0, out.stderr
    first, after_read = (json.dumps(r["messages"]) for r in ollama_server.requests[:2])
    assert "Root rule" in first and "Package rule" not in first  # nothing named: the root one
    assert "Package rule: every function has a docstring." in after_read  # the file read has its own
    last = json.dumps(ollama_server.requests[-1]["messages"])
    assert last.count("Package rule: every function") == 1  # given once per turn, not with every read
