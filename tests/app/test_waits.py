"""Every wait is visible in the app: the line above the prompt says the stage (loading the model, reading N of M
prompt tokens, writing, running the tests), the seconds so far and how to cancel, and goes away when the wait
ends. Seen before: about 100 s between a request and its first token with nothing moving but "esc cancel" in
the footer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.app.snapshot_apps.factory import build_app, feed, no_blink, wait_for
from tests.ollama_server import Reply, ScriptedOllama, ollama_server  # noqa: F401 - fixture
from tui.app.widgets.prompt_input import PromptInput
from tui.app.widgets.wait_line import WaitLine
from tui.protocol import events as ev

READING = ev.Progress("reading", done=512, total=1320, elapsed=27.4)


def _line(app: Any) -> str:
    wait = app.query_one(WaitLine)
    return str(wait.render()) if wait.display else ""


async def _send(app: Any, pilot: Any, text: str) -> None:
    await wait_for(pilot, lambda: app.main.server_state == "connected", what="connected")
    prompt = app.query_one(PromptInput)
    prompt.load_text(text)
    prompt.focus()
    await pilot.press("enter")


async def test_each_stage_is_said_with_its_seconds_and_ends_with_its_wait(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(160, 48)) as pilot:
        assert _line(app) == "", "no wait, no line"
        steps = [
            (ev.Progress("loading", detail="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", elapsed=3.2),
             "loading the model qwen2.5-coder-1.5b-instruct-q4_k_m.gguf · 3 s"),
            (ev.ServerStatus("connected", "http://127.0.0.1:4", "qwen"), ""),
            (READING, "reading the prompt: 512 of 1,320 tokens · 27 s"),
            (ev.Progress("writing", done=1, elapsed=0.0), "writing the reply: 1 token · 0 s"),
            (ev.Progress("writing", done=45, elapsed=3.0), "writing the reply: 45 tokens · 3 s"),
            (ev.TextDone("done"), ""),
            (ev.Progress("testing", detail="python -m pytest -q", elapsed=12.0),
             "running the tests: python -m pytest -q · 12 s"),
            (ev.CommandFinished("p1", 0, 12.5), ""),
            (ev.Progress("reading", detail="about 2,073 tokens", elapsed=0.0),
             "reading the prompt (about 2,073 tokens) · 0 s"),
            (ev.TurnDone(reason="complete"), ""),
        ]
        for event, shown in steps:
            feed(app, event)
            await wait_for(pilot, lambda: (shown in _line(app)) if shown else _line(app) == "",
                           what=f"{event}: {shown!r}")


async def test_a_slow_first_token_shows_the_reading_wait_with_the_cancel_key(repo: Path,
                                                                            ollama_server: ScriptedOllama) -> None:
    """A real turn against the scripted server, whose first chunk comes 3 s late: while it waits, the line says
    the prompt is being read, about how long it is, and that esc cancels; after the answer, the line is gone."""
    ollama_server.push(Reply(text="The answer.", first_delay=3.0))
    app = build_app(repo, server_url=ollama_server.url)
    async with app.run_test(size=(160, 48)) as pilot:
        await _send(app, pilot, "what does app.py do?")
        await wait_for(pilot, lambda: "reading the prompt (about " in _line(app), what="the reading wait")
        line = _line(app)
        assert line.endswith("tokens) · 0 s · esc cancels"), line  # the fixed test clock: the event's 0 s
        await wait_for(pilot, lambda: not app.main.busy(), what="the turn's end")
        await wait_for(pilot, lambda: _line(app) == "", what="the wait line goes with the turn")


async def test_escape_ends_the_wait_with_the_turn(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(text="Too late.", first_delay=20.0))
    app = build_app(repo, server_url=ollama_server.url)
    async with app.run_test(size=(160, 48)) as pilot:
        await _send(app, pilot, "explain the repository")
        await wait_for(pilot, lambda: "esc cancels" in _line(app), what="the reading wait")
        await pilot.press("escape")
        await wait_for(pilot, lambda: _line(app) == "" and not app.main.busy(), what="cancelled")


@pytest.mark.parametrize("size", [(160, 48), (80, 24)], ids=["160x48", "80x24"])
def test_snapshot_the_wait_above_the_prompt(snap_compare: Any, repo: Path, size: tuple[int, int]) -> None:
    async def scene(pilot: Any) -> None:
        no_blink(pilot.app)
        feed(pilot.app, ev.TurnStarted(1, "what does app.py do?"), READING)
        await wait_for(pilot, lambda: "512 of 1,320" in _line(pilot.app))

    assert snap_compare(build_app(repo, git_refresh=False), terminal_size=size, run_before=scene)
