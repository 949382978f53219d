"""The first-run offer: no model server and no model file, so download the default model, with a progress bar.

enter downloads (or tries again, resuming); escape declines, or cancels a running download and keeps
the partial file (the next download resumes it). Dismissed with the verified file's path, or None.
The download runs as this screen's worker; its progress lands in ``latest`` (it may be reported from
the hashing thread) and a timer paints it, so the screen never redraws more than ten times a second.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import ProgressBar, Static


class DownloadScreen(ModalScreen[Path | None]):
    """Offer, download, verify. ``spec`` is what download.pull gets (a catalog name, URL or path)."""

    BINDINGS = [Binding("enter", "download", "Download"), Binding("escape", "cancel", "Not now / cancel")]

    DEFAULT_CSS = """
    DownloadScreen { align: center middle; }
    DownloadScreen > Vertical { width: 84; max-width: 100%; height: auto; border: thick $accent;
        background: $surface; padding: 0 1; }
    DownloadScreen #download-bar { margin: 1 0 0 0; display: none; }
    DownloadScreen.-running #download-bar { display: block; }
    DownloadScreen #download-status { height: auto; }
    DownloadScreen #download-keys { color: $text-muted; margin: 1 0 0 0; }
    """

    def __init__(self, spec: str, title: str, size: int, cache: Path, *, sha256: str | None = None,
                 stall: float = 30.0) -> None:
        super().__init__()
        self.spec, self.title_text, self.model_size, self.cache = spec, title, size, cache
        self.sha256, self.stall = sha256, stall
        self.latest: Any = None  # the newest download.Progress
        self.running = False
        self.error = ""

    def compose(self) -> ComposeResult:
        from tui.llm.transfer import size_text

        with Vertical() as box:
            box.border_title = "No model yet"
            yield Static("No model server answers, and there is no model file yet.", markup=False)
            yield Static(f"Download {self.title_text} ({size_text(self.model_size)}) into {self.cache}? It runs inside "
                         "devagent (llama.cpp, no server), checked by sha256 before it is used.",
                         id="download-offer", markup=False)
            yield ProgressBar(total=100, show_eta=False, id="download-bar")
            yield Static("", id="download-status", markup=False)
            yield Static("enter: download    escape: not now", id="download-keys", markup=False)

    def on_mount(self) -> None:
        self.set_interval(0.1, self._paint, name="download-progress")

    def action_download(self) -> None:
        if self.running:
            return
        self.running, self.error = True, ""
        self.add_class("-running")
        self.query_one("#download-keys", Static).update("escape: cancel (what arrived is kept; the next "
                                                         "download resumes it)")
        self.query_one("#download-status", Static).update("starting…")
        self.run_worker(self._download(), name="download", group="download", exclusive=True, exit_on_error=False)

    async def _download(self) -> None:
        from tui.protocol.errors import DevagentError
        from tui.llm.download import pull

        try:
            path = await pull(self.spec, sha256=self.sha256, on_progress=self._progress, stall=self.stall)
        except DevagentError as err:
            self.running = False
            self.error = f"{err.message}\n{err.hint}".strip()
            self.query_one("#download-status", Static).update(self.error)
            self.query_one("#download-keys", Static).update("enter: try again (resumes)    escape: close")
            return
        self.running = False
        self._paint()
        self.dismiss(path)

    def _progress(self, progress: Any) -> None:
        self.latest = progress  # one attribute store: safe from the hashing thread too

    def _paint(self) -> None:
        from tui.llm.transfer import progress_text

        progress = self.latest
        if progress is None or not self.running:
            return
        self.query_one("#download-bar", ProgressBar).update(progress=round(progress.fraction * 100, 1))
        self.query_one("#download-status", Static).update(f"{progress.stage}: {progress_text(progress)}")

    def action_cancel(self) -> None:
        if self.running:
            self.workers.cancel_group(self, "download")
            self.running = False
            self.app.notify("Download cancelled; what arrived is kept, and the next download resumes it.",
                            severity="warning", timeout=6)
        self.dismiss(None)
