"""`e`: edit a command or commit message before approving it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea


class EditCommandScreen(ModalScreen[str | None]):
    """Returns the edited text (approved as edited), or None when escape cancels."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Approve edited", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    DEFAULT_CSS = """
    EditCommandScreen { align: center middle; }
    EditCommandScreen > Vertical { width: 100; max-width: 100%; height: auto; max-height: 100%;
        border: thick $warning; background: $surface; padding: 0 1; }
    EditCommandScreen TextArea { height: auto; min-height: 3; max-height: 16; }
    """

    def __init__(self, text: str, what: str = "command") -> None:
        super().__init__()
        self.text = text
        self.what = what

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = f"Edit {self.what}"
            yield Static(f"ctrl+s approves the edited {self.what}; escape cancels", markup=False)
            yield TextArea(self.text, id="edit", soft_wrap=True)

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        text = self.query_one(TextArea).text
        self.dismiss(text.strip("\n") if self.what == "command" else text)

    def action_cancel(self) -> None:
        self.dismiss(None)
