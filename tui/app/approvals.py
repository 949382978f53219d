"""Approval handlers of the app: the queue keys resolve the TUI approver's futures.

A mixin of DevagentApp (kept apart so app.py stays wiring): every decision the engine waits
for is answered here, with the reason, the edited command or message, or the accepted hunks.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from tui.app import messages as msg
from tui.app.widgets.agent_pane import AgentPane
from tui.app.widgets.approval_queue import ApprovalQueue, is_low_risk
from tui.app.widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from textual.app import App

    from tui.protocol.proposals import Decision, Proposal

    Base = App[int]
else:
    Base = object


def _decision(action: str, **fields: Any) -> Decision:
    """A Decision; the modal screens and tui.protocol.proposals load on the first answer, not before the first frame."""
    from tui.protocol.proposals import Decision

    return Decision(action, **fields)  # type: ignore[arg-type]


class ApprovalsMixin(Base):
    """Needs ``pending``, ``diff_for``, ``_show_proposal_diff`` and ``_update_keys`` from the app."""

    pending: dict[str, tuple[Proposal, asyncio.Future[Decision]]]
    diff_for: str
    quitting: bool

    if TYPE_CHECKING:  # provided by the app and the other mixins; real stubs here would shadow them in the MRO
        def _show_proposal_diff(self, proposal: Proposal | None) -> None: ...

        def _update_keys(self) -> None: ...

        @property
        def main(self) -> Screen: ...

    def on_approval_requested(self, message: msg.ApprovalRequested) -> None:
        if self.quitting:
            message.future.cancel()
            return
        proposal = message.proposal
        self.pending[proposal.id] = (proposal, message.future)
        queue = self.main.query_one(ApprovalQueue)
        queue.add(proposal)
        self.main.add_class("-has-queue")
        prompt = self.main.query_one(PromptInput)
        if not prompt.text.strip() and isinstance(self.screen, Screen) and not self.screen.is_modal:
            queue.focus()
        if queue.current is proposal:
            self._show_proposal_diff(proposal)
        self._update_keys()

    def on_approval_withdrawn(self, message: msg.ApprovalWithdrawn) -> None:
        if self.quitting:
            return
        self._drop_pending(message.proposal_id)
        line = self.main.query_one(AgentPane).tool_call_for_proposal(message.proposal_id)
        if line is not None and line.state == "waiting":
            line.state = "rejected"
            line.result = "withdrawn (cancelled)"

    def _drop_pending(self, proposal_id: str) -> None:
        self.pending.pop(proposal_id, None)
        queue = self.main.query_one(ApprovalQueue)
        queue.discard(proposal_id)
        if not self.pending:
            self.main.remove_class("-has-queue")
            if queue.has_focus:
                self.main.query_one(PromptInput).focus()
        if self.diff_for == proposal_id:
            self._show_proposal_diff(queue.current)
        self._update_keys()

    def resolve(self, proposal_id: str, decision: Decision) -> None:
        """Answer the engine for one proposal and take it off the queue."""
        entry = self.pending.get(proposal_id)
        if entry is None:
            return
        _, future = entry
        if not future.done():
            future.set_result(decision)
        line = self.main.query_one(AgentPane).tool_call_for_proposal(proposal_id)
        if line is not None:
            line.state = "approved" if decision.approved else "rejected"
        self._drop_pending(proposal_id)

    def approve(self, proposal: Proposal) -> None:
        hunks: tuple[int, ...] | None = None
        if proposal.diff and self.diff_for == proposal.id:
            accepted = getattr(self.main.query_one("#diff"), "accepted_hunks", None)
            if accepted is not None:
                hunks = tuple(accepted())
        self.resolve(proposal.id, _decision("approve", hunks=hunks))

    def reject(self, proposal: Proposal) -> None:
        def done(reason: str | None) -> None:
            if reason is not None:
                self.resolve(proposal.id, _decision("reject", reason=reason))

        from tui.app.screens.reason import ReasonScreen

        self.push_screen(ReasonScreen(proposal.summary), done)

    def edit(self, proposal: Proposal) -> None:
        if proposal.kind == "commit":
            what, text = "commit message", proposal.message or ""
        elif proposal.kind in ("command", "python") and (proposal.command or proposal.code):
            what, text = "command", proposal.command or proposal.code or ""
        else:
            self.notify("Only commands and commit messages can be edited; pick hunks with space in the diff.",
                        severity="warning")
            return

        def done(new: str | None) -> None:
            if new is None:
                return
            if what == "commit message":
                self.resolve(proposal.id, _decision("edit", message=new))
            else:
                self.resolve(proposal.id, _decision("edit", command=new))

        from tui.app.screens.edit_command import EditCommandScreen

        self.push_screen(EditCommandScreen(text, what), done)

    def approve_low_risk(self) -> None:
        chosen = [p for p, _ in self.pending.values() if is_low_risk(p)]
        for proposal in chosen:
            self.resolve(proposal.id, _decision("approve"))
        self.notify(f"approved {len(chosen)} low-risk proposal(s)" if chosen else "nothing low-risk is pending",
                    timeout=3)

    def open_proposal(self, proposal: Proposal) -> None:
        def done(action: str | None) -> None:
            if action and proposal.id in self.pending:
                self._act(action, proposal)

        from tui.app.screens.proposal import ProposalScreen

        self.push_screen(ProposalScreen(proposal), done)

    def _act(self, action: str, proposal: Proposal | None) -> None:
        if action == "approve_low":
            self.approve_low_risk()
        elif proposal is not None:
            {"approve": self.approve, "reject": self.reject, "edit": self.edit, "open": self.open_proposal}[action](
                proposal)

    def on_approval_queue_act(self, message: ApprovalQueue.Act) -> None:
        self._act(message.action, message.proposal)

    def on_approval_queue_focused(self, message: ApprovalQueue.Focused) -> None:
        self._show_proposal_diff(message.proposal)

    def _queue_action(self, action: str) -> None:
        self._act(action, self.main.query_one(ApprovalQueue).current)

