"""Snapshots of the main states at 80x24 and 160x48 (pytest-textual-snapshot).

Deterministic: fixed clock, no cursor blink, isolated config (tests/conftest.py), a fresh
repo with fixed content, and engine events fed as messages rather than timed.
Update with `pytest tests/app/test_snapshots.py --snapshot-update` and look at the SVGs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest

from tests.app.snapshot_apps.factory import (STREAM_TEXT, ask, build_app, feed, no_blink, sample_proposals, show_labels,
                                            wait_for)
from tests.conftest import make_repo
from tui.app.widgets.agent_pane import AgentPane
from tui.app.widgets.status_bar import StatusBar
from tui.protocol import events as ev

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]
Scene = Callable[[Any], Awaitable[None]]


@pytest.fixture
def snap_repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo")
    return repo


async def settle(pilot: Any) -> None:
    app = pilot.app
    no_blink(app)
    await wait_for(pilot, lambda: app.query_one(StatusBar).branch == "main", what="git status")
    await wait_for(pilot, lambda: not app.query_one(AgentPane).streaming, what="stream flushed")
    await pilot.pause(0.1)


async def scene_empty(pilot: Any) -> None:
    await settle(pilot)


async def scene_streaming(pilot: Any) -> None:
    app = pilot.app
    feed(app, ev.SessionStarted("s1", "repo", "qwen2.5-coder:1.5b", "ollama", "bwrap"),
         ev.ServerStatus("connected", "http://127.0.0.1:11434", "qwen2.5-coder:1.5b"))
    app.query_one(AgentPane).add_prompt("add a test for add()")
    feed(app, *(ev.TextDelta(chunk) for chunk in STREAM_TEXT))
    await settle(pilot)


async def scene_queue(pilot: Any) -> None:
    app = pilot.app
    feed(app, ev.ServerStatus("connected", "http://127.0.0.1:11434", "qwen2.5-coder:1.5b"))
    for proposal in sample_proposals():
        if proposal.call_id:
            feed(app, ev.ToolCallStarted(proposal.call_id, "write_file" if proposal.diff else "run_command",
                                         {"command": proposal.command or proposal.summary}))
        feed(app, ev.ProposalCreated(proposal))
        ask(app, proposal)
    await wait_for(pilot, lambda: len(app.main.queue.pending) == 4)
    await pilot.press("down")
    await settle(pilot)


async def scene_error(pilot: Any) -> None:
    app = pilot.app
    feed(app, ev.ServerStatus("down", "http://127.0.0.1:11434", "", "connection refused"),
         ev.ErrorEvent("The model server at http://127.0.0.1:11434 is not reachable.",
                       "Start it with `ollama serve`.", source="model"))
    await settle(pilot)


async def scene_help(pilot: Any) -> None:
    await settle(pilot)
    pilot.app.query_one("#queue").focus()
    await pilot.press("question_mark")
    await pilot.pause(0.1)


async def scene_side_by_side(pilot: Any) -> None:
    await scene_queue(pilot)
    pilot.app.query_one("#diff").focus()
    await pilot.press("s", "space")
    await pilot.pause(0.1)


async def scene_unified_rejected(pilot: Any) -> None:
    await scene_queue(pilot)
    pilot.app.query_one("#diff").focus()
    await pilot.press("space")
    await pilot.pause(0.1)


async def scene_labels(pilot: Any) -> None:
    await show_labels(pilot)
    await settle(pilot)


SCENES = {"empty": scene_empty, "streaming": scene_streaming, "queue": scene_queue, "error": scene_error,
          "help": scene_help, "labels": scene_labels}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("scene", list(SCENES))
def test_main_states(snap_compare: Any, snap_repo: Path, scene: str, size: tuple[int, int]) -> None:
    assert snap_compare(build_app(snap_repo), terminal_size=size, run_before=SCENES[scene])


@pytest.mark.parametrize("theme", ["devagent-dark", "devagent-light", "devagent-high-contrast"])
def test_themes(snap_compare: Any, snap_repo: Path, theme: str) -> None:
    assert snap_compare(build_app(snap_repo, theme=theme), terminal_size=(160, 48), run_before=scene_queue)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("view", ["unified", "side_by_side"])
def test_diff_with_rejected_hunk(snap_compare: Any, snap_repo: Path, view: str, size: tuple[int, int]) -> None:
    scene = scene_side_by_side if view == "side_by_side" else scene_unified_rejected
    assert snap_compare(build_app(snap_repo), terminal_size=size, run_before=scene)
