"""Engine events reach the main screen's handlers by their class (tui/app/engine_events.py: ``@handles``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.snapshot_apps.factory import build_app, feed, wait_for
from tui.app.engine_events import HANDLERS, handler_for, handles
from tui.app.screens.main import MainScreen
from tui.app.widgets.status_bar import StatusBar
from tui.protocol import events as ev


def _kinds(base: type[ev.Event]) -> set[type[ev.Event]]:
    found = set()
    for sub in base.__subclasses__():
        found |= {sub} | _kinds(sub)
    return found


def test_every_event_kind_has_a_handler_but_the_ones_the_app_ignores() -> None:
    """A new event kind fails here until the app handles it (or it is added to the ignored ones)."""
    ignored = {ev.TurnStarted,  # the prompt is already on screen when the turn starts
               }
    assert {k for k in _kinds(ev.Event) if handler_for(k) is None} == ignored
    assert all(getattr(MainScreen, h.__name__) is h for h in HANDLERS.values())


def test_a_second_handler_for_one_kind_is_refused() -> None:
    with pytest.raises(TypeError, match="TextDelta already has a handler"):
        handles(ev.TextDelta)(lambda app, event: None)


async def test_an_event_subclass_is_handled_as_its_parent(repo: Path) -> None:
    """Dispatch is by class: a kind derived from a known one reaches that one's handler."""

    class Whisper(ev.Notice):
        pass

    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(120, 40)) as pilot:
        feed(app, ev.ContextUsage(used=10, limit=100), Whisper("a quiet notice"))
        bar = app.query_one(StatusBar)
        await wait_for(pilot, lambda: bar.context == "ctx 10/100")
        await wait_for(pilot, lambda: "a quiet notice" in " ".join(str(w.render()) for w in app.query(".notice")))


async def test_the_context_meter_shows_what_agents_md_takes(repo: Path) -> None:
    """The instructions' share of the request (ContextUsage.parts, from the engine) is on the status bar."""
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(160, 40)) as pilot:
        feed(app, ev.ContextUsage(used=1200, limit=4096, parts={"instructions": 212}))
        bar = app.query_one(StatusBar)
        await wait_for(pilot, lambda: "ctx 1200/4096 (AGENTS.md 212)" in str(bar.render()))
        feed(app, ev.ContextUsage(used=900, limit=4096))  # a request without instructions says nothing of them
        await wait_for(pilot, lambda: "ctx 900/4096" in str(bar.render()) and "AGENTS.md" not in str(bar.render()))


def test_every_handler_names_an_event_class() -> None:
    """Handlers are bound by class name (the events module loads after the first frame): a misspelt or removed
    name would leave its handler unreachable."""
    assert all(isinstance(getattr(ev, name, None), type) and issubclass(getattr(ev, name), ev.Event)
               for name in HANDLERS)
