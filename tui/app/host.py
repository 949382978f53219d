"""The app as its flows see it: one typed base, so tui/app/flows/ never imports app.py (which imports them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App
from textual.screen import Screen
from textual.worker import Worker

from tui.config import Config


class Host(App[int]):
    """DevagentApp's base class. The flows take a Host; app.py (or its mixins) defines every member below."""

    repo: Path
    config: Config
    session: Any | None
    server_state: str  # connecting | connected | down | reconnecting
    download_offered: bool  # the first-run model download is offered once

    @property
    def main(self) -> Screen:
        """The main screen, whatever modal is on top."""
        raise NotImplementedError

    def refresh_repo(self) -> None:
        """Re-read the working tree and the index into the file list and diff view, off the UI thread."""
        raise NotImplementedError

    def action_reconnect(self) -> None:
        raise NotImplementedError

    def _busy(self) -> list[Worker[Any]]:
        """The turn and command workers still running."""
        raise NotImplementedError

    def _update_keys(self) -> None:
        """Redraw the key hints for what matters now."""
        raise NotImplementedError
