"""One line at the bottom: repo and branch, dirty/staged counts, model and server health,
sandbox strength and the keys that matter right now: the focused pane's own keys (keyhints.py),
shortened to the room left. All text is literal."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from tui.app.keyhints import KeyHints, fit
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
    keys: reactive[str] = reactive("")  # a message shown instead of the key hints (quitting)
    hints: reactive[KeyHints] = reactive(KeyHints)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)

    def show_session(self, session: Any) -> None:
        """The opened session's sandbox (and why it is weak, in the session's notice) and model."""
        info = getattr(session, "sandbox_info", None)
        if info is not None:
            self.sandbox = f"{info.kind}" + ("" if info.active else " (inactive)")
            self.sandbox_strong = bool(info.active) and info.kind != "none"
        self.model = getattr(session, "model_name", "") or self.model

    def render(self) -> Text:  # type: ignore[override]
        """The facts, then the keys; when the keys do not fit, the facts are said shorter first."""
        width = self.content_size.width
        levels = (0, 1, 2, 3, 4) if width >= 100 else (1, 2, 3, 4)
        best: tuple[tuple[bool, bool, bool, int], Text, str] | None = None
        for level in levels:  # the longest facts with which the keys fit: the pane's labelled, and help
            facts = self._facts(level)
            room = width - facts.cell_len - 4  # the "  │ " before the keys
            keys, labelled = (self.keys, True) if self.keys else fit(self.hints, room)
            fits = cell_len(keys) <= room
            helped = any(f"{key} {label}" in keys for key, label in self.hints.app if label == "help")
            labels = sum(f"{key} {label}" in keys for key, label in self.hints.pane if label)
            score = (fits, labelled, helped, labels)
            if best is None or score > best[0]:
                best = (score, facts, keys)
        assert best is not None
        _, text, keys = best
        if keys:
            text.append("  │ ")
            text.append(keys, style="dim")
        return text

    def _facts(self, level: int) -> Text:
        """Repo, branch, counts, model health, sandbox, context. Level 1: no model name, the sandbox without
        its label, single spaces; level 2 also drops the repo's name (the branch stays); level 3 says the
        server's health by its icon alone (its shape and colour: ● connected, ◌ connecting, ✗ down); level 4 also
        leaves out the context meter's parts (the AGENTS.md share)."""
        compact = level > 0
        variables = theme_variables(self.app)
        health_style = {
            "connected": variables.get("success", "green"),
            "down": variables.get("error", "red"),
        }.get(self.server, variables.get("warning", "yellow"))
        gap = " " if compact else "  "
        text = Text(no_wrap=True, overflow="ellipsis")
        if level < 2:
            text.append((self.repo_name or "?") + " ", style="bold")
        if self.branch:
            text.append(f"⎇ {self.branch}")
        text.append(f"{gap}±{self.dirty} ●{self.staged}{gap}")
        icon = _HEALTH.get(self.server, "?")
        health = icon if level >= 3 else f"{icon} {self.server}" if compact else \
            f"{icon} {self.model or 'model'} {self.server}"
        text.append(health, style=health_style)
        text.append(gap)
        sandbox_style = "" if self.sandbox_strong else f"bold {variables.get('error', 'red')}"
        text.append(self.sandbox or "…" if compact else f"sandbox: {self.sandbox or '…'}", style=sandbox_style)
        if self.context:
            text.append(f"{gap}{self.context.split(' (')[0] if level >= 4 else self.context}")
        return text
