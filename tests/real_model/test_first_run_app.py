"""First run for real: no server, no model; the app downloads a real model, loads it embedded, and answers.

The source is a real HTTP server on 127.0.0.1 serving the cached 0.5B GGUF (the catalog entry is
pointed at it; the network may not reach the real sources), so the whole path runs: the offer, the
download with its sha256, the connect loop's fallback to the embedded backend, and a streamed answer.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from tests.app.snapshot_apps.factory import wait_for
from tests.app.test_download_screen import connection_notes, first_run_app
from tests.download_server import DownloadServer
from tests.ollama_server import ScriptedOllama
from tui.app.screens.download import DownloadScreen
from tui.app.widgets.agent_pane import Reply
from tui.app.widgets.prompt_input import PromptInput
from tui.app.widgets.status_bar import StatusBar
from tui.llm import catalog

pytestmark = pytest.mark.real_model

SMALL = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"


@pytest.fixture
def real_source(monkeypatch: pytest.MonkeyPatch) -> DownloadServer:
    if importlib.util.find_spec("xllamacpp") is None:
        pytest.skip("xllamacpp is not installed: pip install -e '.[embedded]'")
    path = Path(os.environ.get("DEVAGENT_TEST_MODEL_DIR", "")) / SMALL
    if not path.is_file():
        pytest.skip(f"real model not cached at {path}: devagent models pull qwen2.5-coder-0.5b")
    entry = catalog.find("qwen2.5-coder-0.5b")
    assert entry is not None
    with DownloadServer({SMALL: path.read_bytes()}) as srv:
        monkeypatch.setattr(catalog, "CATALOG", (catalog.CatalogModel(
            entry.name, entry.aliases, entry.file, entry.size, entry.sha256, f"{srv.url}/ok/{SMALL}", None,
            entry.note),))
        with ScriptedOllama() as down:
            dead = down.url
        monkeypatch.setenv("OLLAMA_HOST", dead)
        yield srv


async def test_download_then_load_then_answer_without_a_restart(repo: Path, real_source: DownloadServer) -> None:
    cache = Path(os.environ["DEVAGENT_MODEL_DIR"])
    app = first_run_app(repo)
    app.config.model.temperature, app.config.model.seed, app.config.model.context = 0.0, 42, 2048
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, DownloadScreen), what="the download offer")
        await pilot.press("enter")
        await wait_for(pilot, lambda: (cache / SMALL).is_file() and not isinstance(app.screen, DownloadScreen),
                       timeout=120, what="the verified download")
        await wait_for(pilot, lambda: app.query_one(StatusBar).server == "connected", timeout=180,
                       what="the embedded model loaded")
        assert f"Using the embedded model {SMALL}" in connection_notes(app)
        prompt = app.query_one(PromptInput)
        prompt.focus()
        prompt.load_text("Reply with the single word: hello")
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(r.source.strip() for r in app.query(Reply)), timeout=240,
                       what="a streamed answer from the real model")
        await pilot.press("escape")  # stop the rest of the turn: the test is about the first answer
