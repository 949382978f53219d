"""Pending proposals, oldest first, each with kind, literal summary, risk, rule and sandbox.

Keys (while focused): a approve, r reject (asks for a reason), e edit then approve,
A approve every low-risk pending proposal, enter open the full proposal. The queue owns the
pending decisions: the future the engine awaits for each proposal (``request``), answered by
``resolve``; its keys post ``ApprovalQueue.Act`` (tui/app/approvals.py answers them) and every
proposal leaving the queue posts ``ApprovalQueue.Dropped``.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.app.themes import theme_variables
from tui.app.keymap import bindings, hints
from tui.app.widgets.tool_call_line import label_cell, literal_warnings, one_line
from tui.protocol.words import plural

if TYPE_CHECKING:
    from tui.protocol.proposals import Decision

LOW_RISK = {"read-only", "readonly", "safe", "low", "none"}
HIGH_RISK = {"destructive", "dangerous", "high", "critical", "network", "secrets", "irreversible", "deny"}


def risk_level(label: str) -> str:
    """Map a risk label to low / medium / high for colouring ($risk-low etc.)."""
    label = (label or "").lower()
    if label in LOW_RISK:
        return "low"
    if label in HIGH_RISK or any(word in label for word in ("destruct", "danger", "delete", "force")):
        return "high"
    return "medium"


def is_low_risk(proposal: Any) -> bool:
    """What `A` approves: the policy would allow it, or it only reads; never one with hidden characters."""
    if literal_warnings(proposal_text(proposal), getattr(proposal, "kind", "") == "command"):
        return False
    return getattr(proposal, "policy", "") == "allow" or risk_level(getattr(proposal, "risk", "")) == "low"


def proposal_text(proposal: Any) -> str:
    """The literal thing being approved: command, code, commit message or summary."""
    for attr in ("command", "code", "message"):
        value = getattr(proposal, attr, None)
        if value:
            return str(value)
    return str(getattr(proposal, "summary", ""))


def decision(action: str, **fields: Any) -> Decision:
    """A Decision; tui.protocol.proposals loads on the first answer, not before the first frame."""
    from tui.protocol.proposals import Decision

    return Decision(action, **fields)  # type: ignore[arg-type]


class ApprovalQueue(OptionList):
    """The approval queue. ``proposals`` keeps arrival order (oldest first); ``pending`` maps each one's id to
    the proposal and the future the engine awaits."""

    BINDINGS = bindings("queue")  # tui/app/keymap.py

    KEY_HINTS = hints("approvals")

    DEFAULT_CSS = """
    ApprovalQueue { height: auto; max-height: 12; min-height: 3; }
    """

    class Act(Message):
        """The developer pressed a queue key; ``proposal`` is the highlighted one (None for approve_low)."""

        def __init__(self, action: str, proposal: Any | None) -> None:
            super().__init__()
            self.action = action
            self.proposal = proposal

    class Dropped(Message):
        """A proposal left the queue: answered here (``decision``) or not (withdrawn, decided elsewhere: None)."""

        def __init__(self, proposal_id: str, decision: Any | None) -> None:
            super().__init__()
            self.proposal_id = proposal_id
            self.decision = decision

    class Focused(Message):
        """The highlighted proposal changed (None: the queue is empty)."""

        def __init__(self, proposal: Any | None) -> None:
            super().__init__()
            self.proposal = proposal

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.proposals: list[Any] = []
        self.pending: dict[str, tuple[Any, asyncio.Future[Decision]]] = {}

    # -- the pending decisions ----------------------------------------------------------------------
    def request(self, proposal: Any, future: asyncio.Future[Decision]) -> None:
        """The engine awaits ``future`` for ``proposal``: queue it."""
        self.pending[proposal.id] = (proposal, future)
        self.add(proposal)

    def resolve(self, proposal_id: str, answer: Decision) -> None:
        """Answer the engine for one proposal and take it off the queue."""
        entry = self.pending.get(proposal_id)
        if entry is None:
            return
        if not entry[1].done():
            entry[1].set_result(answer)
        self.drop(proposal_id, answer)

    def drop(self, proposal_id: str, answer: Decision | None = None) -> None:
        """Take a proposal off the queue without answering it (the engine stopped waiting, or decided)."""
        if self.pending.pop(proposal_id, None) is None:
            return
        self.discard(proposal_id)
        self.post_message(self.Dropped(proposal_id, answer))

    def approve_low_risk(self) -> None:
        """A: approve every pending low-risk proposal."""
        chosen = [p for p, _ in self.pending.values() if is_low_risk(p)]
        for proposal in chosen:
            self.resolve(proposal.id, decision("approve"))
        self.notify(f"approved {plural(len(chosen), 'low-risk proposal')}" if chosen else "nothing low-risk is pending",
                    timeout=3)

    def cancel_all(self) -> None:
        """Quitting: every future still awaited is cancelled (the engine's turn ends)."""
        for _, future in list(self.pending.values()):
            if not future.done():
                future.cancel()

    def on_mount(self) -> None:
        self._update_title()

    def _colour(self, level: str) -> str:
        return theme_variables(self.app).get(f"risk-{level}", "yellow")

    def _prompt_for(self, proposal: Any) -> Text:
        level = risk_level(proposal.risk)
        text = Text(no_wrap=False)
        text.append(label_cell(proposal.kind.upper(), self._kind_width), style="bold")
        command = proposal.kind == "command"
        text.append(one_line(proposal.summary or proposal_text(proposal), 160, command))
        text.append("\n  ")
        text.append(f" {proposal.risk or 'unknown'} ", style=f"bold reverse {self._colour(level)}")
        text.append(f"  rule: {one_line(proposal.rule, 60)}  sandbox: {proposal.sandbox}")
        warnings = list(dict.fromkeys([*proposal.warnings, *literal_warnings(proposal_text(proposal), command)]))
        if warnings:
            text.append("\n  ⚠ " + one_line("; ".join(warnings), 160), style=f"bold {self._colour('high')}")
        return text

    @property
    def _kind_width(self) -> int:
        """The kind column: as wide as the longest kind pending."""
        return max((len(p.kind) for p in self.proposals), default=0)

    def add(self, proposal: Any) -> None:
        grows = len(proposal.kind) > self._kind_width
        self.proposals.append(proposal)
        if grows:
            self._rerender(self.proposals[:-1])  # the kind column grows: the rows already shown follow
        self.add_option(Option(self._prompt_for(proposal), id=proposal.id))
        if self.highlighted is None:
            self.highlighted = 0
        self._update_title()

    def discard(self, proposal_id: str) -> None:
        index = next((i for i, p in enumerate(self.proposals) if p.id == proposal_id), None)
        if index is None:
            return
        widest = self._kind_width
        del self.proposals[index]
        self.remove_option(proposal_id)
        if self._kind_width != widest:
            self._rerender(self.proposals)
        if self.proposals and (self.highlighted is None or self.highlighted >= len(self.proposals)):
            self.highlighted = len(self.proposals) - 1
        self._update_title()
        if not self.proposals:
            self.post_message(self.Focused(None))

    def refresh_styles(self) -> None:
        """Re-colour after a theme change."""
        self._rerender(self.proposals)

    def _rerender(self, proposals: list[Any]) -> None:
        for proposal in proposals:
            self.replace_option_prompt(proposal.id, self._prompt_for(proposal))

    @property
    def current(self) -> Any | None:
        if self.highlighted is None or not self.proposals or self.highlighted >= len(self.proposals):
            return None
        return self.proposals[self.highlighted]

    def _update_title(self) -> None:
        count = len(self.proposals)
        self.border_title = f"Approvals ({count})" if count else "Approvals: nothing pending"
        self.set_class(count == 0, "-empty")

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.post_message(self.Focused(self.current))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()

    def action_act(self, action: str) -> None:
        if action == "approve_low":
            self.post_message(self.Act(action, None))
        elif self.current is not None:
            self.post_message(self.Act(action, self.current))
