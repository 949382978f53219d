"""First run with nothing to talk to: offer the default model's download, then load it (no restart).

Offered once per run, after a connect found no server, when nothing else would work: the backend is
the default (Ollama, not chosen on the command line), no model file is configured or cached, and the
embedded runtime is installed (without it, the notice says what to install instead). After the
download the connect loop runs again, and the session's no-server fallback loads the cached file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from tui.app.screens.main import MainScreen


class DownloadOffer:
    """The app's one offer per run; it shows on ``screen`` and calls ``reconnect`` after a download."""

    def __init__(self, screen: MainScreen, reconnect: Callable[[], None]) -> None:
        self.screen = screen
        self.reconnect = reconnect
        self.offered = False

    def would_help(self, err: Any) -> bool:
        from tui.llm.modelcache import resolve_model_file
        from tui.protocol.errors import ServerUnreachable

        session, config = self.screen.session, self.screen.config
        if not isinstance(err, ServerUnreachable) or session is None:
            return False
        if getattr(session, "_backend_choice", None) is not None or config.model.backend != "ollama":
            return False
        if config.model.model_file:
            return False  # a configured file that is missing: the error names it
        path = resolve_model_file("")
        return path is None or not path.is_file()

    def maybe_offer(self, err: Any) -> None:
        """Called by the connect loop after each failed attempt."""
        if self.offered or not self.would_help(err):
            return
        self.offer()

    def offer(self) -> None:
        from tui.app.screens.download import DownloadScreen
        from tui.llm.catalog import default_model
        from tui.llm.modelcache import model_dir, runtime_installed

        self.offered = True
        app = self.screen.app
        if any(isinstance(screen, DownloadScreen) for screen in app.screen_stack):
            return  # already on screen (the palette while the first-run offer is open)
        if not runtime_installed():
            self.screen.agent.add_notice(
                "No model server, and the embedded runtime is not installed: run pip install -e '.[embedded]' "
                "(or pip install xllamacpp), then start devagent again: it offers to download a model.", "warning")
            return
        model = default_model()
        title = model.note.split(":")[0] or model.name
        app.push_screen(DownloadScreen(model.name, title, model.size, model_dir()), callback=self.downloaded)

    def downloaded(self, path: Path | None) -> None:
        from tui.llm.catalog import default_model

        pane = self.screen.agent
        if path is None:
            pane.add_notice(f"No model downloaded. Later: ctrl+p \u2192 'Download the default model', or "
                            f"`devagent models pull {default_model().name}`.", "warning")
            return
        pane.add_notice(f"{path.name} downloaded and verified; loading it\u2026")
        self.reconnect()
