"""First run with no server and no model: the app offers the download, shows its progress, Esc keeps a partial.

A real Session (its Ollama host is a closed port on 127.0.0.1), the real download code, and a real HTTP
server on 127.0.0.1 standing in for the model's source (the catalog entry is swapped for a tiny model).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import ProgressBar, Static

from tests.app.snapshot_apps.factory import no_blink, wait_for
from tests.download_server import DownloadServer, model_bytes, sha256
from tests.ollama_server import ScriptedOllama
from tui.app.app import DevagentApp
from tui.app.launch import open_session
from tui.app.screens.download import DownloadScreen
from tui.app.widgets.agent_pane import AgentPane
from tui.app.widgets.details_line import DetailsLine
from tui.config import load_config
from tui.llm import catalog
from tui.llm.catalog import CatalogModel

SIZE = (120, 36)
DATA = model_bytes(1_200_000)
NAME = "tiny-first-run-q4.gguf"


def notices(app: DevagentApp) -> str:
    return "\n".join(str(w.render()) for w in app.main.query_one(AgentPane).query(".notice"))


def connection_notes(app: DevagentApp) -> str:
    """The connection messages on the details line (the banner shows the latest while not connected)."""
    return "\n".join(text for line in app.main.query(DetailsLine) for kind, text in line.items if kind == "connection")


@pytest.fixture
def source(monkeypatch: pytest.MonkeyPatch) -> Any:
    with DownloadServer({NAME: DATA}, pace=0.03) as srv:
        entry = CatalogModel("tiny-first-run", (), NAME, len(DATA), sha256(DATA), f"{srv.url}/slow/{NAME}", None,
                             "Tiny Test Model: for the first-run test")
        monkeypatch.setattr(catalog, "CATALOG", (entry,))
        with ScriptedOllama() as down:
            dead = down.url
        monkeypatch.setenv("OLLAMA_HOST", dead)  # no --host: the session may fall back to a cached model
        yield srv


def first_run_app(repo: Path) -> DevagentApp:
    app = DevagentApp(repo, load_config(repo), session_factory=open_session, session_options={},
                      clock=lambda: 100.0, git_refresh=False)
    app.retry_seconds = 0.3
    return app


async def test_offer_download_progress_cancel_then_resume_and_load(repo: Path, source: DownloadServer) -> None:
    cache = Path(os.environ["DEVAGENT_MODEL_DIR"])
    app = first_run_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, DownloadScreen) and bool(app.screen.query("#download-offer")),
                       what="the download offer, composed")
        screen = app.screen
        assert "Tiny Test Model (1 MB)" in str(screen.query_one("#download-offer", Static).render())
        await pilot.press("enter")
        bar = screen.query_one("#download-bar", ProgressBar)
        await wait_for(pilot, lambda: (bar.progress or 0) > 5, what="the bar moving")
        status = str(screen.query_one("#download-status", Static).render())
        assert "downloading:" in status and "of 1 MB" in status and "/s" in status and "left" in status
        await pilot.press("escape")  # cancel: at once, the partial file kept
        await wait_for(pilot, lambda: not isinstance(app.screen, DownloadScreen), what="the screen closed")
        part = cache / f"{NAME}.part"
        await wait_for(pilot, lambda: part.exists(), what="the partial file")
        have = part.stat().st_size
        assert 0 < have < len(DATA) and not (cache / NAME).exists()
        assert "No model downloaded" in notices(app)
        await pilot.pause(1.0)
        assert not isinstance(app.screen, DownloadScreen)  # offered once per run, not at every retry
        app.action_download_model()  # the palette entry offers it again
        await wait_for(pilot, lambda: isinstance(app.screen, DownloadScreen), what="the offer again")
        source.pace = 0.0
        await pilot.press("enter")
        await wait_for(pilot, lambda: (cache / NAME).exists() and not isinstance(app.screen, DownloadScreen),
                       timeout=30, what="the verified model")
        assert (cache / NAME).read_bytes() == DATA
        assert any(r == f"bytes={have}-" for _, r in source.requests)  # resumed, not started over
        # no restart: the session's no-server fallback picks the cached file up (this fake one cannot load)
        await wait_for(pilot, lambda: f"Using the embedded model {NAME}" in connection_notes(app), timeout=30,
                       what="the fallback to the downloaded model (a connection message: off the conversation)")
        assert "Using the embedded model" not in notices(app)
        assert "downloaded and verified" in notices(app)


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("devagent")

    def on_mount(self) -> None:
        model = catalog.default_model()
        self.push_screen(DownloadScreen(model.name, "Qwen2.5-Coder 1.5B Instruct, Q4_K_M (Apache-2.0)", model.size,
                                        Path("/home/dev/.cache/devagent/models")))


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
def test_offer_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    async def settle(pilot: Any) -> None:
        no_blink(pilot.app)
        await pilot.pause(0.1)

    assert snap_compare(_Host(), terminal_size=size, run_before=settle)
