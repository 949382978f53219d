"""The app says each thing once: a tool call written into the model's text shows as its call line only,
the missing sandbox is one notice, a progress notice changes one line, the proposal screen lists risk once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.snapshot_apps.factory import build_app, feed, wait_for
from tests.app.test_app_flows import connected, send
from tests.ollama_server import Reply, ScriptedOllama, ollama_server  # noqa: F401 - fixture
from tui.app.screens.proposal import describe
from tui.app.widgets.agent_pane import AgentPane, Reply as ReplyBlock
from tui.app.widgets.tool_call_line import ToolCallLine
from tui.protocol import events as ev
from tui.protocol.proposals import Proposal
from tui.config import load_config
from tui.policy.rules import Policy

CALL = '{"name": "read_file", "arguments": {"path": "app.py"}}'
FENCED = f"I will read the file first.\n\n```json\n{CALL}\n```\n"


def screen_text(app) -> str:  # type: ignore[no-untyped-def]
    """The conversation as painted: every reply's rendered lines and every other line's text."""
    pane = app.query_one(AgentPane)
    parts = []
    for child in pane.children:
        if isinstance(child, ReplyBlock):
            parts += [strip.text for strip in child.lines]
        else:
            parts.append(str(child.render()))
    return "\n".join(parts)


async def test_a_written_tool_call_shows_once_as_its_call_line(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(FENCED), Reply("It defines add()."))
    app = build_app(repo, server_url=ollama_server.url)
    async with app.run_test(size=(160, 48)) as pilot:
        await connected(pilot, app)
        await send(pilot, "what does the code do?")
        await wait_for(pilot, lambda: "It defines add()." in screen_text(app), what="the final answer")
        await pilot.pause(0.2)
        shown = screen_text(app)
        assert shown.count("I will read the file first.") == 1
        assert '"name"' not in shown and '"arguments"' not in shown  # the raw JSON is gone
        lines = [line for line in app.query(ToolCallLine) if line.tool_name == "read_file"]
        assert len(lines) == 1 and lines[0].state == "done"


async def test_a_reply_that_was_only_a_call_leaves_only_the_call_line(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(120, 40)) as pilot:
        feed(app, ev.TextDelta(CALL[:20]), ev.TextDelta(CALL[20:]), ev.TextDone(CALL, ""),
             ev.ToolCallStarted("c1", "read_file", {"path": "app.py"}, source="json"))
        await wait_for(pilot, lambda: app.query(ToolCallLine))
        await pilot.pause(0.1)
        assert not app.query(ReplyBlock)
        assert not app.query_one(AgentPane).streaming  # nothing left waiting to be painted


async def test_no_sandbox_is_one_notice(repo: Path, ollama_server: ScriptedOllama, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "user.toml"
    config.write_text('[sandbox]\nmode = "none"\n[model]\npipelines = "off"\n')
    monkeypatch.setenv("DEVAGENT_CONFIG", str(config))
    app = build_app(repo, server_url=ollama_server.url)
    async with app.run_test(size=(160, 48)) as pilot:
        await connected(pilot, app)
        await pilot.pause(0.2)
        notices = [str(n.render()) for n in app.query(".notice")]
        assert sum("SANDBOX OFF" in n for n in notices) == 1, notices
        assert " ".join(notices).lower().count("every command needs your") == 1


async def test_a_keyed_notice_changes_its_line_in_place(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(120, 40)) as pilot:
        feed(app, *(ev.Notice(f"model: loading … {s} s", key="model-load") for s in (1, 2, 3)))
        feed(app, ev.Notice("context trimmed"), ev.Notice("model: ready", key="model-load"))
        await pilot.pause(0.2)
        notices = [str(n.render()) for n in app.query(".notice")]
        assert notices == ["model: ready", "context trimmed"]


def test_the_proposal_screen_lists_risk_once(repo: Path) -> None:
    proposal = Proposal(id="p1", kind="command", summary="rm -rf build", command="rm -rf build")
    Policy(load_config(repo), True, repo).evaluate(proposal)
    assert proposal.risk_reasons  # the real policy explains the label
    text = str(describe(proposal))
    assert text.count("risk:") == 1
    for reason in proposal.risk_reasons:
        assert text.count(reason) == 1
