"""The first frame (tui/app/screens/first_frame.py): painted with stand-ins for the prompt and the diff view,
the real ones right after; what arrives meanwhile (typed keys, the engine's events) reaches them in order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.app.snapshot_apps.factory import build_app, feed, wait_for
from tui.app.app import DevagentApp
from tui.app.widgets.agent_pane import AgentPane
from tui.app.widgets.prompt_input import PromptInput
from tui.protocol import events as ev


class FirstFrame(DevagentApp):
    """Keeps the text of the first frame handed to the terminal (not one drawn inside a batch, which is
    never sent)."""

    first: str | None = None

    def _display(self, screen: Any, update: Any) -> None:
        super()._display(screen, update)
        if update is not None and not self._batch_count and self.first is None:
            self.first = self.export_screenshot()


def _run(repo: Path, size: tuple[int, int], pilot_fn: Any) -> FirstFrame:
    app = FirstFrame(repo, build_app(repo).config, git_refresh=False, clock=lambda: 100.0)

    async def auto(pilot: Any) -> None:
        try:
            await pilot_fn(pilot)
        finally:
            app.exit()

    app.run(headless=True, size=size, auto_pilot=auto)  # the pilot starts before the first frame is painted
    return app


def test_keys_typed_before_the_prompt_is_in_reach_it_in_order(repo: Path) -> None:
    seen: dict[str, Any] = {}

    async def typed_at_once(pilot: Any) -> None:
        app = pilot.app
        seen["prompt_was_real"] = isinstance(app.main.query_one("#prompt"), PromptInput)
        await pilot.press("h", "e", "l", "l", "o")
        await wait_for(pilot, lambda: app.main.complete and isinstance(app.focused, PromptInput)
                       and app.focused.text == "hello", what="the typed text in the prompt")
        seen["text"] = app.main.prompt.text

    app = _run(repo, (100, 30), typed_at_once)
    assert seen == {"prompt_was_real": False, "text": "hello"}
    assert app.first is not None and "Prompt" in app.first and "Diff" in app.first


def test_engine_events_sent_before_the_panes_are_in_are_shown(repo: Path) -> None:
    async def early_events(pilot: Any) -> None:
        app = pilot.app
        feed(app, ev.ServerStatus("connected", "http://127.0.0.1:11434", "qwen2.5-coder:1.5b"),
             ev.Notice("an early notice"), ev.TextDelta("an early reply"))
        pane = app.query_one(AgentPane)
        await wait_for(pilot, lambda: "an early reply" in " ".join(str(w.render_line(0).text) for w in pane.children
                                                                      if w.display and w.size.height),
                       what="the early reply painted")
        assert "an early notice" in " ".join(str(w.render()) for w in app.query(".notice"))
        assert app.main.server_state == "connected"
        assert not app.query("#welcome")  # the conversation began before the welcome line was due

    _run(repo, (120, 40), early_events)


def test_the_first_frame_and_the_settled_screen_show_the_same_frames(repo: Path) -> None:
    """What the stand-ins show is what the real widgets show once in: titles, the empty diff's words."""
    seen: dict[str, str] = {}

    async def settle(pilot: Any) -> None:
        await wait_for(pilot, lambda: pilot.app.main.complete and pilot.app.query("#welcome"), what="complete")
        await pilot.pause(0.1)
        seen["settled"] = pilot.app.export_screenshot()

    app = _run(repo, (160, 48), settle)
    assert app.first is not None
    for words in ("Conversation", "Prompt", "Diff", "No changes to show.", "no changes",
                  "Approvals: nothing pending", "Output", "no command yet"):
        assert words.replace(" ", "&#160;") in app.first or words in app.first, words
        assert words.replace(" ", "&#160;") in seen["settled"] or words in seen["settled"], words
