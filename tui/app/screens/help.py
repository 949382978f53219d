"""`?`: every key binding, grouped by where it works."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

# (where, key, what) -- also the source of the key list in docs/tui.md
KEYS: list[tuple[str, str, str]] = [
    ("anywhere", "?", "this help"),
    ("anywhere", "ctrl+p", "command palette (every action)"),
    ("anywhere", "tab / shift+tab", "cycle panes"),
    ("anywhere", "escape", "cancel the model reply or the running command"),
    ("anywhere", "ctrl+k", "kill the running command"),
    ("anywhere", "ctrl+t", "next theme"),
    ("anywhere", "ctrl+d", "show the working-tree diff; again: the staged diff"),
    ("anywhere", "ctrl+o", "focus the diff; pressed in the diff, back to the pane you came from"),
    ("anywhere", "ctrl+r", "reconnect to the model server now"),
    ("anywhere", "ctrl+q", "quit (q too, outside the prompt)"),
    ("prompt", "enter", "send the prompt (`!cmd` runs your own command)"),
    ("prompt", "ctrl+j / shift+enter", "new line"),
    ("prompt", "up / down", "prompt history (on the first / last line)"),
    ("approvals", "a", "approve the highlighted proposal (edits: only the accepted hunks)"),
    ("approvals", "r", "reject, with an optional reason sent to the model"),
    ("approvals", "e", "edit the command or commit message, then approve"),
    ("approvals", "A", "approve every pending low-risk proposal"),
    ("approvals", "enter", "open the full proposal"),
    ("approvals", "up / down", "move between proposals"),
    ("diff", "space", "accept / reject the hunk under the cursor"),
    ("diff", "n / p", "next / previous hunk"),
    ("diff", "} / {", "next / previous file"),
    ("diff", "s", "unified / side-by-side"),
    ("diff", "S", "stage the accepted hunks (in the staged view: unstage them)"),
    ("panes", "u", "undo: show the diff restoring the latest checkpoint applies, then restore"),
    ("panes", "t", "run the tests (approved like any command); then the results list"),
    ("panes", "T", "run the test the last /scaffold created"),
    ("panes", "F", "fix loop: tests, a fix from the model, tests again (escape stops)"),
    ("panes", "c", "commit the staged changes with a generated, editable message"),
    ("prompt", "/scaffold KIND NAME", "propose new files the repo's way (--dir D); /test [SELECTION] runs tests"),
]


class HelpScreen(ModalScreen[None]):
    """Modal list of KEYS; escape, q or ? closes it (Screen.action_dismiss)."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90; max-width: 100%; height: auto; max-height: 100%;
        border: thick $primary; background: $surface; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        table = Table(box=None, expand=True, show_header=True, header_style="bold")
        table.add_column("where", no_wrap=True)
        table.add_column("key", no_wrap=True, style="bold")
        table.add_column("what")
        for where, key, what in KEYS:
            table.add_row(Text(where), Text(key), Text(what))
        with VerticalScroll() as scroll:
            scroll.border_title = "devagent keys (escape closes)"
            yield Static(table)
