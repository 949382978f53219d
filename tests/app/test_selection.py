"""Selecting text with the mouse and copying it with ctrl+c (this crashed the app: Reply._render shadowed
Textual's Widget._render, which get_selection calls)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.app.snapshot_apps.factory import ask, build_app, feed, sample_proposals, wait_for
from tui.app.widgets.agent_pane import AgentPane, Reply
from tui.app.widgets.approval_queue import ApprovalQueue
from tui.app.widgets.tool_call_line import ToolCallLine
from tui.protocol import events as ev

REPLY = ["The function `add` returns ", "the sum of a and b.\n\n", "Second paragraph here.\n"]


async def conversation(pilot: Any) -> None:
    """A prompt, a two-paragraph reply and a tool-call line, all painted."""
    app = pilot.app
    app.query_one(AgentPane).add_prompt("what does add do?")
    feed(app, *(ev.TextDelta(chunk) for chunk in REPLY), ev.TextDone("".join(REPLY)))
    feed(app, ev.ToolCallStarted("c1", "read_file", {"path": "app.py"}))
    await wait_for(pilot, lambda: app.query(ToolCallLine) and not app.query_one(AgentPane).streaming)
    await pilot.pause(0.1)


async def test_drag_over_a_reply_then_ctrl_c_copies_its_text(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await conversation(pilot)
        # press on the reply's first character, drag to the middle of its third line, release
        await pilot.mouse_down(Reply, offset=(1, 0))
        await pilot.hover(Reply, offset=(7, 2))
        await pilot.mouse_up(Reply, offset=(7, 2))
        await pilot.pause(0.1)
        await pilot.press("ctrl+c")
        await pilot.pause(0.1)
        assert app.is_running  # no crash
        copied = app.clipboard  # the text as the model wrote it (backticks and all), up to the release point
        assert copied.startswith("The function `add` returns the sum of a and b.\n\nSecond") and "here" not in copied
        # the selection is painted: the selected cells carry the screen's selection style
        reply = app.query_one(Reply)
        selected = app.screen.get_component_rich_style("screen--selection")
        first = reply.render_line(0)
        assert any(seg.text.strip() and selected.bgcolor == seg.style.bgcolor for seg in first)


async def test_a_selection_across_prompt_reply_and_tool_line_copies_all_of_it(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await conversation(pilot)
        await pilot.mouse_down(".prompt", offset=(1, 0))
        await pilot.hover(ToolCallLine, offset=(30, 0))
        await pilot.mouse_up(ToolCallLine, offset=(30, 0))
        await pilot.pause(0.1)
        await pilot.press("ctrl+c")
        await pilot.pause(0.1)
        copied = app.clipboard
        assert "what does add do?" in copied
        assert "the sum of a and b." in copied and "Second paragraph here." in copied
        assert "read_file" in copied


async def test_textual_can_still_render_the_approval_queue_its_own_way(repo: Path) -> None:
    """The queue had the same collision (ApprovalQueue._render(proposal)); OptionList does not allow selecting,
    so no key reached it, but any Textual path calling Widget._render() on it raised TypeError."""
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(160, 48)) as pilot:
        for proposal in sample_proposals():
            ask(app, proposal)
        await wait_for(pilot, lambda: len(app.main.queue.pending) == 4)
        queue = app.query_one(ApprovalQueue)
        queue._render()  # Textual's Widget._render: no arguments
        await pilot.mouse_down(ApprovalQueue, offset=(2, 1))
        await pilot.mouse_up(ApprovalQueue, offset=(20, 3))
        await pilot.press("ctrl+c")
        await pilot.pause(0.1)
        assert app.is_running and len(app.main.queue.pending) == 4  # a click only highlights; nothing was decided
