"""The diff's file list: one row per file with its +/- counts; selecting a file jumps to it."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.app.keymap import hints

from tui.git.diffs import DiffIndex

from .diff_layout import file_counts

_STATUS = {"added": "A", "deleted": "D", "renamed": "R", "copied": "C", "modified": "M"}


class FileList(OptionList):
    """Files of the diff shown in the DiffView next to it.

    BINDINGS: those of OptionList (up/down, home/end, pgup/pgdn, enter selects).
    Messages: FileList.FileSelected(index) when the developer picks a file (enter or click).
    File names are rendered as plain Text: never as markup.
    """

    KEY_HINTS = hints("files")  # the status bar's keys (tui/app/keymap.py)

    DEFAULT_CSS = """
    FileList {
        width: 32;
        height: 1fr;
        border: round $panel-lighten-2;
        background: $surface;
    }
    FileList:focus { border: round $primary; }
    """

    class FileSelected(Message):
        """A file was chosen; ``index`` is its position in the DiffIndex."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.border_title = "Files"

    def set_files(self, index: DiffIndex | None) -> None:
        """Replace the rows with the files of ``index`` (None: no files)."""
        options: list[Option] = []
        if index is not None:
            for f, (added, removed) in zip(index.files, file_counts(index)):
                row = Text(no_wrap=True, overflow="ellipsis")
                row.append(f"{_STATUS.get(f.status, '?')} ", style="bold")
                row.append(f.path)
                row.append(" ")
                if f.binary:
                    row.append("bin", style="italic")
                else:
                    row.append(f"+{added}", style="green")
                    row.append(f" −{removed}", style="red")
                options.append(Option(row, id=f"file-{f.index}"))
        self.set_options(options)
        self.border_title = f"Files ({len(options)})"
        if options:
            self.highlighted = 0

    def show_current(self, index: int) -> None:
        """Highlight file ``index`` without announcing a selection (the viewer moved there)."""
        if 0 <= index < self.option_count and self.highlighted != index:
            with self.prevent(OptionList.OptionHighlighted):
                self.highlighted = index

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.FileSelected(event.option_index))
