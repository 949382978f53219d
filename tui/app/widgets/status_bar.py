"""One line at the bottom: repo and branch, dirty/staged counts, model and server health,
sandbox strength and the keys that matter right now. All text is literal."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from tui.app.themes import theme_variables

_HEALTH = {"connected": "●", "reconnecting": "◌", "down": "✗", "connecting": "◌"}


class StatusBar(Static):
    """Reactives are set by the app's handlers; the bar re-renders itself."""

    DEFAULT_CSS = """
    StatusBar { dock: bottom; height: 1; background: $panel; color: $text; padding: 0 1; }
    """

    repo_name: reactive[str] = reactive("")
    branch: reactive[str] = reactive("")
    dirty: reactive[int] = reactive(0)
    staged: reactive[int] = reactive(0)
    model: reactive[str] = reactive("")
    server: reactive[str] = reactive("connecting")
    sandbox: reactive[str] = reactive("")
    sandbox_strong: reactive[bool] = reactive(True)
    context: reactive[str] = reactive("")
    keys: reactive[str] = reactive("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)

    def render(self) -> Text:  # type: ignore[override]
        variables = theme_variables(self.app)
        health_style = {
            "connected": variables.get("success", "green"),
            "down": variables.get("error", "red"),
        }.get(self.server, variables.get("warning", "yellow"))
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(self.repo_name or "?", style="bold")
        if self.branch:
            text.append(f" ⎇ {self.branch}")
        text.append(f"  ±{self.dirty} ●{self.staged}")
        text.append("  ")
        model = f"{self.model or 'model'} " if self.size.width >= 100 else ""
        text.append(f"{_HEALTH.get(self.server, '?')} {model}{self.server}", style=health_style)
        text.append("  ")
        sandbox_style = "" if self.sandbox_strong else f"bold {variables.get('error', 'red')}"
        text.append(f"sandbox: {self.sandbox or '…'}" if self.size.width >= 100 else (self.sandbox or "…"),
                    style=sandbox_style)
        if self.context:
            text.append(f"  {self.context}")
        if self.keys:
            text.append("  │ ")
            text.append(self.keys, style="dim")
        return text

