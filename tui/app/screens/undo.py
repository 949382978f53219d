"""`u`: the diff that restoring a checkpoint will apply, shown before anything is written.

Returns True when the developer approves (the app restores, in a thread), None otherwise.
Restoring is all or nothing: hunks cannot be picked here (the diff view is read for review only).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.app.widgets.diff_view import DiffView

NOT_COVERED = ("Ignored files (.gitignore: build output, node_modules, an ignored .env...) are not covered: undo "
               "neither restores nor deletes them, except one it would replace, which it saves first. Your index "
               "(what you staged) and your commits are not touched.")


class UndoScreen(ModalScreen[bool | None]):
    """The undo diff in a DiffView (mode "proposal"); `a` / ctrl+s restores, escape / q cancels."""

    BINDINGS = [
        Binding("a,ctrl+s", "approve", "Restore", priority=True),
        Binding("escape,q", "cancel", "Cancel"),
    ]

    DEFAULT_CSS = """
    UndoScreen { align: center middle; }
    UndoScreen > Vertical { width: 95%; height: 95%; border: thick $warning; background: $surface; padding: 0 1; }
    UndoScreen #undo-what { height: auto; }
    UndoScreen #undo-note { height: auto; color: $warning; }
    UndoScreen #undo-committed { height: auto; max-height: 8; overflow-y: auto; color: $error; text-style: bold; }
    UndoScreen DiffView { height: 1fr; }
    """

    def __init__(self, diff: str, what: str, files: int, notes: list[str] | None = None) -> None:
        super().__init__()
        self.diff = diff
        self.what = what
        self.files = files
        self.notes = notes or []  # already committed (and where), saved first: read before approving

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Undo — a restores · escape cancels"
            count = f"{self.files} file" + ("" if self.files == 1 else "s")
            yield Static(f"Restore {self.what}: {count} change back as shown (all of it: "
                         "hunks cannot be picked). Undo makes a checkpoint first, so u again undoes this undo.",
                         id="undo-what", markup=False)
            if self.notes:
                yield Static("\n".join(self.notes), id="undo-committed", markup=False)
            yield Static(NOT_COVERED, id="undo-note", markup=False)
            yield DiffView(id="undo-diff")

    def on_mount(self) -> None:
        view = self.query_one(DiffView)
        view.show_diff(self.diff, mode="proposal", title=f"undo: {self.what}")
        view.focus()

    def action_approve(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(None)
