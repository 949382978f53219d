"""Key flows through the real app, a real Session and the scripted Ollama server.

Each test drives the keyboard with Pilot and checks what a developer would see (or what
lands on disk, or what the model receives).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.app.snapshot_apps.factory import build_app, wait_for
from tests.conftest import git, make_repo
from tests.ollama_server import Reply, ScriptedOllama, ollama_server  # noqa: F401 - fixture
from tui.app.widgets.agent_pane import AgentPane, Reply as ReplyBlock
from tui.app.widgets.approval_queue import ApprovalQueue
from tui.app.widgets.diff_view import DiffView
from tui.app.widgets.output_pane import OutputPane
from tui.app.widgets.prompt_input import PromptInput
from tui.app.widgets.status_bar import StatusBar

SIZE = (160, 48)


def reply_text(app) -> str:  # type: ignore[no-untyped-def]
    return "".join(block.source for block in app.query(ReplyBlock))


async def connected(pilot, app) -> None:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: app.query_one(StatusBar).server == "connected", what="server connected")


async def send(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    pilot.app.query_one(PromptInput).focus()
    pilot.app.query_one(PromptInput).load_text(text)
    await pilot.press("enter")


def all_request_text(server: ScriptedOllama) -> str:
    return json.dumps(server.requests)


async def test_prompt_streams_reply(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(text="Hello there. Here is **bold** and `code`.\n\n```python\nprint(1)\n```\n"))
    app = build_app(repo, server_url=ollama_server.url)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, "say hello")
        await wait_for(pilot, lambda: "print(1)" in reply_text(app), what="streamed reply")
        assert "Hello there." in reply_text(app)
        pane = app.query_one(AgentPane)
        assert pane.flushes <= pane.tokens_received  # batched, never more renders than tokens
        assert app.query_one(PromptInput).sent[-1] == "say hello"
    sent = ollama_server.requests[-1]["messages"]
    assert [m["content"] for m in sent if m["role"] == "user"][0] == "say hello"  # the repo map follows it


async def test_approve_command_shows_output(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(
        Reply(tool_calls=[{"name": "run_command", "arguments": {"command": "echo visible-output-42 | tee out.txt"}}]),
        Reply(text="It printed the marker."),
    )
    app = build_app(repo, server_url=ollama_server.url)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, "run echo")
        queue = app.query_one(ApprovalQueue)
        await wait_for(pilot, lambda: queue.proposals, what="proposal queued")
        assert queue.has_focus  # the prompt was empty: the queue's keys act at once
        assert "tee out.txt" in queue.proposals[0].command
        await pilot.press("a")
        log = app.query_one(OutputPane).log_widget
        await wait_for(pilot, lambda: "visible-output-42" in log.lines, what="command output")
        await wait_for(pilot, lambda: "marker" in reply_text(app), what="final reply")
    assert "visible-output-42" in all_request_text(ollama_server)
    assert (repo / "out.txt").read_text() == "visible-output-42\n"


async def test_reject_with_reason_reaches_model(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(
        Reply(tool_calls=[{"name": "run_command", "arguments": {"command": "rm -rf docs"}}]),
        Reply(text="Understood, I will not delete anything."),
    )
    app = build_app(repo, server_url=ollama_server.url)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, "clean up")
        queue = app.query_one(ApprovalQueue)
        await wait_for(pilot, lambda: queue.proposals, what="proposal queued")
        await pilot.press("r")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ReasonScreen")
        await pilot.press(*"keep the docs folder")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "will not delete" in reply_text(app), what="reply after rejection")
    assert "keep the docs folder" in json.dumps(ollama_server.requests[-1]["messages"])


async def test_hunk_toggle_applies_only_accepted(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    lines = [f"line {i}\n" for i in range(1, 31)]
    repo = make_repo(tmp_path / "repo", {"data.txt": "".join(lines)})
    new = list(lines)
    new[1] = "line 2 CHANGED-FIRST\n"
    new[27] = "line 28 CHANGED-SECOND\n"
    ollama_server.push(
        Reply(tool_calls=[{"name": "write_file", "arguments": {"path": "data.txt", "content": "".join(new)}}]),
        Reply(text="Edited."),
    )
    app = build_app(repo, server_url=ollama_server.url)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, "edit data")
        queue = app.query_one(ApprovalQueue)
        await wait_for(pilot, lambda: queue.proposals, what="edit proposal")
        view = app.query_one(DiffView)
        await wait_for(pilot, lambda: view.hunk_count == 2, what="two hunks shown")
        view.focus()
        await pilot.press("space")  # reject the first hunk
        assert view.accepted_hunks() == {1}
        queue.focus()
        await pilot.press("a")
        await wait_for(pilot, lambda: "Edited." in reply_text(app), what="turn finished")
    text = (repo / "data.txt").read_text()
    assert "CHANGED-SECOND" in text and "CHANGED-FIRST" not in text


async def test_escape_frees_a_stalled_stream(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(chunks=["partial ", "answer ", "never"], fault="stall", fault_after=2, stall=60))
    app = build_app(repo, server_url=ollama_server.url)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        await send(pilot, "stall please")
        await wait_for(pilot, lambda: "partial" in reply_text(app), what="partial text")
        assert app.main.busy()
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.main.busy(), timeout=3, what="turn cancelled")
        ollama_server.push(Reply(text="fresh reply"))
        await send(pilot, "again")
        await wait_for(pilot, lambda: "fresh reply" in reply_text(app), what="UI usable again")


async def test_server_down_then_up(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.set_down(True)
    app = build_app(repo, server_url=ollama_server.url)
    async with app.run_test(size=SIZE) as pilot:
        bar = app.query_one(StatusBar)
        await wait_for(pilot, lambda: bar.server in ("down", "reconnecting"), what="server down")
        banner = app.query_one("#banner")
        assert banner.has_class("-shown")
        assert "ollama serve" in str(banner.render())
        # what needs no model keeps working: the developer's own command
        await send(pilot, "!echo works-without-model | tee marker.txt")
        queue = app.query_one(ApprovalQueue)
        await wait_for(pilot, lambda: queue.proposals, what="user command queued")
        await pilot.press("a")
        log = app.query_one(OutputPane).log_widget
        await wait_for(pilot, lambda: any(line == "works-without-model" for line in log.lines), what="output")
        ollama_server.set_down(False)
        await wait_for(pilot, lambda: bar.server == "connected", what="reconnected")
        assert not banner.has_class("-shown")


async def test_quit_closes_session(repo: Path, ollama_server: ScriptedOllama) -> None:
    app = build_app(repo, server_url=ollama_server.url)
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, app)
        app.query_one(ApprovalQueue).focus()
        await pilot.press("q")
        await pilot.pause()
    assert app.return_value == 0
    assert git(repo, "status", "--porcelain") == ""
