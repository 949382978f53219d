"""`r`: ask why a proposal is rejected. The reason goes back to the model in Decision.reason."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from tui.app.widgets.tool_call_line import one_line


class ReasonScreen(ModalScreen[str | None]):
    """Returns the reason ("" is fine), or None when escape cancels the rejection."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    DEFAULT_CSS = """
    ReasonScreen { align: center middle; }
    ReasonScreen > Vertical { width: 80; max-width: 100%; height: auto; border: thick $error; background: $surface;
        padding: 0 1; }
    """

    def __init__(self, summary: str) -> None:
        super().__init__()
        self.summary = summary

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Reject"
            yield Static("Rejecting: " + one_line(self.summary, 200), markup=False)
            yield Static("Why? (optional; the model sees it) enter rejects, escape cancels", markup=False)
            yield Input(placeholder="reason", id="reason")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)
