"""`devagent run` as a user runs it: a real subprocess, real repo, the scripted server over HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import git
from tests.ollama_server import Reply, ScriptedOllama


def devagent(cwd: Path, *args: str, stdin: str = "", url: str = "", timeout: float = 60) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if url:
        env["OLLAMA_HOST"] = url
    return subprocess.run([sys.executable, "-m", "tui", *args], cwd=cwd, input=stdin, capture_output=True,
                          text=True, timeout=timeout, env=env)


def json_lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_version_and_help() -> None:
    out = devagent(Path.cwd(), "--version")
    assert out.returncode == 0 and out.stdout.startswith("devagent ")
    helped = devagent(Path.cwd(), "--help")
    assert helped.returncode == 0 and "run" in helped.stdout and "doctor" in helped.stdout
    sub = devagent(Path.cwd(), "run", "--help")
    assert sub.returncode == 0 and "--json" in sub.stdout and "--yes" in sub.stdout


def test_not_a_repo_is_a_clear_message(tmp_path: Path) -> None:
    out = devagent(tmp_path, "run", "hi")
    assert out.returncode == 3
    assert "not inside a git repository" in out.stderr and "Traceback" not in out.stderr


def test_bare_repo_is_a_clear_message(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "b.git")], check=True)
    out = devagent(tmp_path / "b.git", "run", "hi")
    assert out.returncode == 3 and "bare repository" in out.stderr and "Traceback" not in out.stderr


def test_no_server_names_the_host_and_how_to_start_one(repo: Path) -> None:
    server = ScriptedOllama()
    url = server.start()
    server.stop()
    out = devagent(repo, "run", "hi", url=url)
    assert out.returncode == 5, out.stderr
    assert url.split("//")[1] in out.stderr and "ollama serve" in out.stderr and "Traceback" not in out.stderr


def test_unknown_model_lists_models(repo: Path, ollama_server: ScriptedOllama) -> None:
    out = devagent(repo, "run", "--model", "llama9", "hi", url=ollama_server.url)
    assert out.returncode == 6 and "qwen2.5-coder:1.5b" in out.stderr


def test_text_mode_streams_and_asks_y_n(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(
        Reply(tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}]),
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "app.py", "old": "a + b", "new": "b + a"}}]),
        Reply("Swapped the operands."))
    out = devagent(repo, "run", "swap the operands", stdin="y\n", url=ollama_server.url)
    assert out.returncode == 0, out.stderr
    assert "→ read_file" in out.stdout and "-    return a + b" in out.stdout and "+    return b + a" in out.stdout
    assert "Approve? [y]es / [n]o / [e]dit / [q]uit" in out.stdout
    assert out.stdout.rstrip().endswith("Swapped the operands.")
    assert (repo / "app.py").read_text().endswith("return b + a\n")


def test_text_mode_reject_with_reason(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(tool_calls=[{"name": "run_command", "arguments": {"command": "touch x.txt"}}]),
                       Reply("OK, I will not."))
    out = devagent(repo, "run", "make x", stdin="n\nno new files please\n", url=ollama_server.url)
    assert out.returncode == 0, out.stderr
    assert not (repo / "x.txt").exists()
    assert "no new files please" in json.dumps(ollama_server.requests[1]["messages"])


def test_json_mode_protocol(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(tool_calls=[{"name": "write_file", "arguments": {"path": "new.txt", "content": "hi\n"}}]),
                       Reply("Created."))
    # the first line is garbage (an error event, not a crash); decisions may arrive before their proposal
    proposal_id_guess = "will-not-match"
    stdin = "not json\n" + json.dumps({"id": proposal_id_guess, "decision": "approve"}) + "\n"
    proc = subprocess.Popen([sys.executable, "-m", "tui", "run", "--json", "create new.txt"], cwd=repo,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, OLLAMA_HOST=ollama_server.url))
    assert proc.stdin and proc.stdout
    proc.stdin.write(stdin)
    proc.stdin.flush()
    events = []
    for line in proc.stdout:
        event = json.loads(line)
        events.append(event)
        if event["type"] == "proposal":
            proc.stdin.write(json.dumps({"id": event["proposal"]["id"], "decision": "approve"}) + "\n")
            proc.stdin.flush()
        if event["type"] == "turn_done":
            break
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    kinds = [e["type"] for e in events]
    assert kinds[0] == "session" and kinds[-1] == "turn_done"
    assert {"text", "tool_call", "proposal", "decision", "tool_result", "checkpoint"} <= set(kinds)
    assert any(e["type"] == "error" and e["source"] == "protocol" for e in events)
    proposal = next(e["proposal"] for e in events if e["type"] == "proposal")
    assert proposal["kind"] == "edit" and "+hi" in proposal["diff"]
    assert (repo / "new.txt").read_text() == "hi\n"


def test_json_client_disconnect_applies_nothing(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(tool_calls=[{"name": "write_file", "arguments": {"path": "app.py", "content": "x\n"}}]))
    out = devagent(repo, "run", "--json", "rewrite", stdin="", url=ollama_server.url)
    events = json_lines(out.stdout)
    assert events[-1]["type"] == "turn_done" and events[-1]["reason"] == "stopped"
    assert git(repo, "status", "--porcelain") == ""


def test_yes_approves_but_never_lifts_a_deny(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(tool_calls=[{"name": "run_command", "arguments": {"command": "sudo rm -rf /"}}]),
                       Reply(tool_calls=[{"name": "run_command", "arguments": {"command": "echo ok > ok.txt"}}]),
                       Reply("Done."))
    out = devagent(repo, "run", "--yes", "--json", "go", url=ollama_server.url)
    assert out.returncode == 0, out.stderr
    decisions = [e for e in json_lines(out.stdout) if e["type"] == "decision"]
    assert decisions[0]["decision"] == "reject" and decisions[0]["by"] == "policy"
    assert decisions[1]["decision"] == "approve"
    assert (repo / "ok.txt").read_text() == "ok\n"


def test_resume_after_kill_mid_turn_loses_nothing(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply("Looking.", tool_calls=[{"name": "write_file",
                                                       "arguments": {"path": "app.py", "content": "x\n"}}]))
    proc = subprocess.Popen([sys.executable, "-m", "tui", "run", "--json", "rewrite app.py"], cwd=repo,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, OLLAMA_HOST=ollama_server.url))
    assert proc.stdout
    seen = []
    for line in proc.stdout:
        seen.append(json.loads(line))
        if seen[-1]["type"] == "proposal":
            proc.kill()  # killed while the proposal waits for a decision
            break
    proc.wait(timeout=10)
    assert git(repo, "status", "--porcelain") == ""
    ollama_server.push(Reply("Resumed."))
    out = devagent(repo, "run", "--resume", "--json", "continue", url=ollama_server.url)
    assert out.returncode == 0, out.stderr
    events = json_lines(out.stdout)
    assert events[0]["type"] == "session" and events[0]["resumed"] and events[0]["session_id"] == seen[0]["session_id"]
    sent = json.dumps(ollama_server.requests[-1]["messages"])
    assert "rewrite app.py" in sent and "interrupted" in sent
    from tui.engine.session import git_common_dir
    from tui.engine.session.store import Store, default_store_path

    store = Store(default_store_path(git_common_dir(repo)))
    recorded = [e["type"] for e in store.events(seen[0]["session_id"])]
    for event in seen:
        assert event["type"] in recorded
