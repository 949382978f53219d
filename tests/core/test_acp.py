"""`devagent acp` driven by a real ACP client (the SDK's) in a subprocess pair, against the scripted model."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.conftest import git
from tests.core.acp_client import ScriptedClient, acp_agent, prompt, sent_to_model
from tests.ollama_server import Reply, ScriptedOllama


async def test_a_full_turn_streams_the_answer_and_reads_the_editor_buffer(
        repo: Path, ollama_server: ScriptedOllama) -> None:
    unsaved = "def add(a, b):\n    return a + b  # UNSAVED-EDIT\n"
    client = ScriptedClient(buffers={str(repo / "app.py"): unsaved})
    ollama_server.push(Reply(tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}]),
                       Reply(chunks=["It ", "adds ", "two ", "numbers."], delay=0.05))
    async with acp_agent(repo, ollama_server.url, client) as (conn, _proc, sid):
        assert await prompt(conn, sid, "what does the add function do?") == "end_turn"
    assert client.text() == "It adds two numbers."
    assert len(client.of("agent_message_chunk")) >= 2  # streamed, not one block at the end
    start = client.of("tool_call")[0]
    assert start.kind == "read" and start.locations[0].path == str(repo / "app.py")
    done = [u for u in client.of("tool_call_update") if u.tool_call_id == start.tool_call_id and u.status]
    assert done[-1].status == "completed"
    assert client.reads == [str(repo / "app.py")]
    assert "UNSAVED-EDIT" in sent_to_model(ollama_server)  # the model saw the buffer, not the disk


async def test_a_call_the_model_writes_into_its_text_is_a_tool_call_not_the_message(
        repo: Path, ollama_server: ScriptedOllama) -> None:
    """Small models write their calls as JSON in their text; an editor cannot take text back, so the call
    must never reach it as the agent's message (live or replayed by session/load), only as a tool call."""
    written = 'I will read it first.\n\n```json\n{"name": "read_file", "arguments": {"path": "app.py"}}\n```\n'
    client = ScriptedClient()
    only_a_call = '{"name": "list_files", "arguments": {}}'
    ollama_server.push(Reply(written), Reply(only_a_call), Reply("It adds two numbers."))
    async with acp_agent(repo, ollama_server.url, client, read_files=False) as (conn, _proc, sid):
        assert await prompt(conn, sid, "what does the add function do?") == "end_turn"
    said = client.text()
    assert said == "I will read it first.\n\nIt adds two numbers."  # two model messages, two paragraphs
    assert [u.title for u in client.of("tool_call")] == ["read_file `app.py`", "list_files"]  # Markdown: a code span
    again = ScriptedClient()
    ollama_server.push(Reply("Yes."))
    async with acp_agent(repo, ollama_server.url, again) as (conn, _proc, _other):
        await asyncio.wait_for(conn.load_session(cwd=str(repo), session_id=sid, mcp_servers=[]), 30)
        assert again.text() == said
        assert await prompt(conn, sid, "sure?") == "end_turn"
    assert again.of("agent_message_chunk")[-1].content.text == "Yes."  # a new message, not a new paragraph


async def test_agents_md_reaches_the_model_of_an_acp_session(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    from tests.conftest import make_repo

    repo = make_repo(tmp_path / "repo", {"AGENTS.md": "Root rule: answer in French.\n", "app.py": "x = 1\n"})
    client = ScriptedClient()
    ollama_server.push(Reply("Bonjour."))
    async with acp_agent(repo, ollama_server.url, client) as (conn, _proc, sid):
        assert await prompt(conn, sid, "hello") == "end_turn"
    assert "Root rule: answer in French." in sent_to_model(ollama_server)


def test_every_tool_the_model_is_offered_has_an_acp_kind() -> None:
    """An editor picks the icon and the review affordance by kind: edit_symbol is an edit, outline a read."""
    from tui.acp.updates import KINDS
    from tui.tools.registry import load_tools

    offered = set(load_tools()) - {"stage", "commit"}  # never offered to the model (README)
    assert offered <= set(KINDS), offered - set(KINDS)
    assert KINDS["edit_symbol"] == "edit" and KINDS["outline"] == "read"


def _kinds(options: list) -> list[str]:
    return [o.kind for o in options]


async def test_a_command_allowed_and_one_rejected_with_a_reason(repo: Path, ollama_server: ScriptedOllama) -> None:
    client = ScriptedClient(answers=[("allow_once", ""), ("reject_once", "no b files, please")])
    ollama_server.push(Reply(tool_calls=[{"name": "run_command", "arguments": {"command": "touch a.txt"}}]),
                       Reply(tool_calls=[{"name": "run_command", "arguments": {"command": "touch b.txt"}}]),
                       Reply("Made a.txt only."))
    async with acp_agent(repo, ollama_server.url, client) as (conn, _proc, sid):
        assert await prompt(conn, sid, "make a.txt and b.txt") == "end_turn"
    assert (repo / "a.txt").exists() and not (repo / "b.txt").exists()
    (first, options), (second, _) = client.permissions
    assert _kinds(options) == ["allow_once", "allow_always", "reject_once", "reject_always"]
    assert "touch a.txt" in first.content[0].content.text and first.kind == "execute"
    assert "no b files, please" in sent_to_model(ollama_server)  # the model read the reason
    statuses = {u.tool_call_id: u.status for u in client.of("tool_call_update") if u.status}
    assert sorted(statuses.values()) == ["completed", "failed"]


async def test_allow_always_and_reject_always_become_session_rules(repo: Path, ollama_server: ScriptedOllama) -> None:
    client = ScriptedClient(answers=[("allow_always", ""), ("reject_always", "never delete")])
    calls = ["touch a1.txt", "touch a2.txt", "rm -f a1.txt", "rm -f a2.txt"]
    ollama_server.push(*[Reply(tool_calls=[{"name": "run_command", "arguments": {"command": c}}]) for c in calls],
                       Reply("Done."))
    async with acp_agent(repo, ollama_server.url, client) as (conn, _proc, sid):
        assert await prompt(conn, sid, "files") == "end_turn"
    assert len(client.permissions) == 2  # touch a2.txt was allowed by the rule, rm -f a2.txt denied by it
    assert (repo / "a1.txt").exists() and (repo / "a2.txt").exists()
    assert "denied by policy (session deny: rm -f" in sent_to_model(ollama_server)


async def test_an_edit_with_one_hunk_allowed_and_one_rejected(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    from tests.conftest import make_repo

    lines = [f"line {i}\n" for i in range(30)]
    repo = make_repo(tmp_path / "repo", {"notes.txt": "".join(lines)})
    new = list(lines)
    new[1], new[27] = "line 1 CHANGED\n", "line 27 CHANGED\n"
    client = ScriptedClient(answers=[("allow_once", ""), ("reject_once", "keep the footer as it is")])
    ollama_server.push(Reply(tool_calls=[{"name": "write_file", "arguments": {"path": "notes.txt",
                                                                              "content": "".join(new)}}]),
                       Reply("Changed line 1."))
    async with acp_agent(repo, ollama_server.url, client) as (conn, _proc, sid):
        assert await prompt(conn, sid, "change lines 1 and 27 of notes.txt") == "end_turn"
    expected = list(lines)
    expected[1] = "line 1 CHANGED\n"
    assert (repo / "notes.txt").read_text() == "".join(expected)
    (first, _), (second, _) = client.permissions
    diff = first.content[0]
    assert diff.type == "diff" and diff.path == str(repo / "notes.txt")
    assert diff.old_text == "".join(lines) and diff.new_text == "".join(expected)  # exactly what is applied
    assert "hunk 2 of 2" in second.title and "line 27 CHANGED" in second.content[0].new_text
    sent = sent_to_model(ollama_server)
    assert "REJECTED" in sent and "keep the footer as it is" in sent


async def test_cancel_stops_the_model_at_once(repo: Path, ollama_server: ScriptedOllama) -> None:
    client = ScriptedClient()
    ollama_server.push(Reply(chunks=[f"word{i} " for i in range(400)], delay=0.05))
    async with acp_agent(repo, ollama_server.url, client) as (conn, _proc, sid):
        turn = asyncio.ensure_future(prompt(conn, sid, "talk"))
        await client.wait_for(lambda: client.of("agent_message_chunk"))
        loop = asyncio.get_running_loop()
        started = loop.time()
        await conn.cancel(session_id=sid)
        assert await asyncio.wait_for(turn, 10) == "cancelled"
        assert loop.time() - started < 5
    assert "word399" not in client.text()


def _running(marker: str) -> bool:
    for proc in Path("/proc").iterdir():
        try:
            if marker in (proc / "cmdline").read_bytes().decode(errors="replace"):
                return True
        except OSError:
            continue
    return False


async def test_cancel_kills_a_running_command(repo: Path, ollama_server: ScriptedOllama) -> None:
    client = ScriptedClient(answers=[("allow_once", "")])
    ollama_server.push(Reply(tool_calls=[{"name": "run_command", "arguments": {"command": "sleep 37.25"}}]))
    async with acp_agent(repo, ollama_server.url, client) as (conn, _proc, sid):
        turn = asyncio.ensure_future(prompt(conn, sid, "wait"))
        await client.wait_for(lambda: any(u.status == "in_progress" for u in client.of("tool_call_update")))
        await asyncio.sleep(0.3)
        assert _running("sleep 37.25")
        await conn.cancel(session_id=sid)
        assert await asyncio.wait_for(turn, 10) == "cancelled"
    for _ in range(50):
        if not _running("sleep 37.25"):
            break
        await asyncio.sleep(0.1)
    assert not _running("sleep 37.25")


async def test_session_load_replays_and_resumes_the_conversation(repo: Path, ollama_server: ScriptedOllama) -> None:
    first = ScriptedClient()
    ollama_server.push(Reply("It adds two numbers."))
    async with acp_agent(repo, ollama_server.url, first) as (conn, _proc, sid):
        assert await prompt(conn, sid, "what is in app.py?") == "end_turn"
    again = ScriptedClient()
    ollama_server.push(Reply("Yes: a + b."))
    async with acp_agent(repo, ollama_server.url, again) as (conn, _proc, other):
        await asyncio.wait_for(conn.load_session(cwd=str(repo), session_id=sid, mcp_servers=[]), 30)
        assert again.text("user_message_chunk") == "what is in app.py?"
        assert "It adds two numbers." in again.text()
        assert await prompt(conn, sid, "are you sure?") == "end_turn"
    assert other != sid
    assert "It adds two numbers." in sent_to_model(ollama_server)  # the model has the earlier turn


async def test_disconnect_mid_permission_applies_nothing_and_exits(tmp_path: Path,
                                                                   ollama_server: ScriptedOllama) -> None:
    from tests.conftest import make_repo

    lines = [f"line {i}\n" for i in range(30)]
    repo = make_repo(tmp_path / "repo", {"notes.txt": "".join(lines)})
    new = list(lines)
    new[1], new[27] = "changed\n", "changed too\n"
    client = ScriptedClient(answers=[("allow_once", "")])  # the second hunk is never answered
    ollama_server.push(Reply(tool_calls=[{"name": "write_file", "arguments": {"path": "notes.txt",
                                                                              "content": "".join(new)}}]))
    async with acp_agent(repo, ollama_server.url, client) as (conn, proc, sid):
        turn = asyncio.ensure_future(prompt(conn, sid, "change it"))
        await client.wait_for(lambda: len(client.permissions) == 2)
        proc.stdin.close()  # the editor goes away while the developer looks at hunk 2
        assert await asyncio.wait_for(proc.wait(), 15) == 0
        turn.cancel()
    assert (repo / "notes.txt").read_text() == "".join(lines)
    assert git(repo, "status", "--porcelain") == ""


def test_malformed_json_rpc_gets_an_error_and_the_agent_keeps_going(repo: Path) -> None:
    import json
    import os
    import subprocess
    import sys

    lines = ["this is not json", "[1, 2, 3]", '{"jsonrpc": "2.0", "id": 3, "method": 42}',
             '{"jsonrpc": "2.0", "id": 4, "method": "no/such/method", "params": {}}',
             '{"jsonrpc": "2.0", "id": 5, "method": "session/new", "params": {"cwd": 17}}',
             '{"jsonrpc": "2.0", "id": 6, "method": "session/prompt", "params": {"sessionId": "nope", "prompt": []}}',
             '{"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"protocolVersion": 1}}']
    out = subprocess.run([sys.executable, "-m", "tui", "acp"], cwd=repo, input="\n".join(lines) + "\n",
                         capture_output=True, text=True, timeout=60, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    replies = [json.loads(line) for line in out.stdout.splitlines()]  # stdout is protocol only: every line JSON
    by_id = {r["id"]: r for r in replies if r["id"] is not None}
    anonymous = [r["error"]["code"] for r in replies if r["id"] is None]
    assert anonymous == [-32700, -32600]
    assert by_id[3]["error"]["code"] == -32600 and by_id[4]["error"]["code"] == -32601
    assert by_id[5]["error"]["code"] == -32602 and by_id[6]["error"]["code"] == -32602
    assert by_id[7]["result"]["agentCapabilities"]["loadSession"] is True
    assert by_id[7]["result"]["agentInfo"]["name"] == "devagent"
    assert "Traceback" not in out.stderr


def test_one_hunk_alone_is_what_git_applies(tmp_path: Path) -> None:
    """Each permission's new text must equal the file after applying that hunk alone, as devagent will."""
    import random
    import subprocess

    from tui.acp.hunks import apply_hunks
    from tui.git.diffs import DiffIndex, file_diff, select_hunks

    rng = random.Random(7)
    for _ in range(60):
        old = [f"line {i}" for i in range(rng.randint(0, 30))]
        new = list(old)
        for _ in range(rng.randint(1, 5)):
            where = rng.randint(0, len(new))
            if rng.random() < 0.5 or not new:
                new.insert(where, "inserted")
            else:
                new[min(where, len(new) - 1)] += " changed"
        before = "\n".join(old) + ("\n" if old and rng.random() < 0.8 else "")
        after = "\n".join(new) + ("\n" if rng.random() < 0.8 else "")
        if before == after:
            continue
        diff = file_diff("f.txt", before.encode(), after.encode())
        index = DiffIndex.from_text(diff)
        assert apply_hunks(before, index, list(range(len(index.hunks)))) == after
        for i in range(len(index.hunks)):
            (tmp_path / "f.txt").write_text(before)
            subprocess.run(["git", "apply", "-"], input=select_hunks(diff, {i}), cwd=tmp_path, text=True, check=True)
            assert apply_hunks(before, index, [i]) == (tmp_path / "f.txt").read_text()


def test_reject_always_is_a_structural_session_deny(repo: Path) -> None:
    """The engine hook behind reject_always: Policy.remember(verdict="deny")."""
    from tui.protocol.proposals import Proposal
    from tui.config import Config
    from tui.policy.rules import Policy

    policy = Policy(Config(), True, repo)

    def verdict(command: str) -> str:
        proposal = Proposal(id="p", kind="command", summary=command, command=command)
        policy.evaluate(proposal)
        return proposal.policy

    assert verdict("rm -f a.txt") == "ask"
    assert policy.remember(Proposal(id="p", kind="command", summary="", command="rm -f a.txt"), "deny") == "rm -f *"
    assert verdict("rm -f b.txt") == "deny" and verdict("rm -rf build") == "deny"
    assert verdict("rm a.txt") == "ask"  # other flags: not what was rejected
    assert verdict("ls") == "allow"  # nothing else changes
