"""`enter` on the queue: the whole proposal, literally, with risk reasons and warnings.

Returns the key the developer chose ("approve", "reject", "edit") or None; the app acts.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.app.widgets.approval_queue import proposal_text
from tui.app.widgets.tool_call_line import literal_warnings, visible


def describe(proposal: Any) -> Text:
    """A plain-text rendering of every field a reviewer needs."""
    text = Text()
    rows = [
        ("kind", proposal.kind),
        ("summary", proposal.summary),
        ("tool", proposal.tool),
        ("risk", proposal.risk),
        ("policy", f"{proposal.policy} ({proposal.rule})"),
        ("sandbox", proposal.sandbox),
        ("network", "yes" if proposal.network else "no"),
        ("timeout", f"{proposal.timeout}s" if proposal.timeout else "default"),
        ("files", ", ".join(proposal.files)),
    ]
    reasons = [r for r in dict.fromkeys(proposal.risk_reasons) if r and r != proposal.risk]
    for key, value in rows:
        if value:
            text.append(f"{key:>8}: ", style="bold")
            text.append(visible(str(value)) + "\n")
        if key == "risk":  # the reasons for the label, once each, right under it
            for number, reason in enumerate(reasons):
                text.append("     why: " if number == 0 else " " * 10, style="bold")
                text.append(visible(reason) + "\n")
    command = proposal.kind == "command"
    warnings = dict.fromkeys([*proposal.warnings, *literal_warnings(proposal_text(proposal), command)])
    for warning in [w for w in warnings if w not in reasons]:
        text.append("       ⚠ ", style="bold red")
        text.append(visible(warning) + "\n", style="red")
    body = proposal_text(proposal)
    if body and body != proposal.summary:
        text.append("\n")
        text.append(visible(body, command) + "\n", style="bold")
    if proposal.diff:
        text.append("\n")
        for line in visible(proposal.diff).splitlines():
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else ""
            text.append(line + "\n", style=style)
    return text


class ProposalScreen(ModalScreen[str | None]):
    BINDINGS = [
        Binding("a", "choose('approve')", "Approve"),
        Binding("r", "choose('reject')", "Reject"),
        Binding("e", "choose('edit')", "Edit"),
        Binding("escape,q", "choose('')", "Close"),
    ]

    DEFAULT_CSS = """
    ProposalScreen { align: center middle; }
    ProposalScreen > VerticalScroll { width: 90%; height: 90%; border: thick $primary; background: $surface;
        padding: 0 1; }
    """

    def __init__(self, proposal: Any) -> None:
        super().__init__()
        self.proposal = proposal

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = "Proposal — a approve · r reject · e edit · escape close"
            yield Static(describe(self.proposal))

    def action_choose(self, action: str) -> None:
        self.dismiss(action or None)
