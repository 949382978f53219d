"""File list plus diff viewer, wired together: what the app mounts in its diff pane."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal

from .diff_frame import DiffFrame
from .diff_view import DiffView
from .file_list import FileList


class DiffPanel(Horizontal):
    """A FileList beside a DiffView. The file list hides itself on narrow screens and for one-file diffs.

    Use ``panel.view`` for the DiffView (its messages bubble up through this panel).
    """

    DEFAULT_CSS = """
    DiffPanel { height: 1fr; }
    DiffPanel > DiffFrame { width: 1fr; }
    DiffPanel.-narrow > FileList, DiffPanel.-single > FileList { display: none; }
    """

    def compose(self) -> ComposeResult:
        yield FileList()
        with DiffFrame(classes="-proposal"):
            yield DiffView()

    @property
    def view(self) -> DiffView:
        return self.query_one(DiffView)

    @property
    def files(self) -> FileList:
        return self.query_one(FileList)

    def show_diff(self, text: str, *, mode: str = "proposal", title: str = "") -> None:
        view = self.view
        view.show_diff(text, mode=mode, title=title)
        self.files.set_files(view.index)
        self.set_class(view.index is not None and len(view.index.files) <= 1, "-single")

    def clear(self) -> None:
        self.view.clear()
        self.files.set_files(None)

    def accepted_hunks(self) -> set[int]:
        return self.view.accepted_hunks()

    def on_resize(self) -> None:
        self.set_class(self.size.width < 100, "-narrow")

    def on_file_list_file_selected(self, event: FileList.FileSelected) -> None:
        event.stop()
        self.view.jump_to_file(event.index)
        self.view.focus()

    def on_diff_view_file_focused(self, event: DiffView.FileFocused) -> None:
        self.files.show_current(event.index)
