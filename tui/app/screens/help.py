"""`?`: every key binding, grouped by where it works."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.app.keymap import listed

# (where, key, what), from the one table of actions and keys
KEYS: list[tuple[str, str, str]] = [(a.where, a.shown, a.what) for a in listed()]


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
