"""What the approval queue's keys answer: approve (only the hunks the diff panel accepted), reject with a
reason, edit the command or commit message, open the full proposal, approve every low-risk one.

Plain functions on the two widgets they act on: the queue (which owns the futures the engine awaits) and
the diff panel (which knows the accepted hunks). The main screen calls ``act`` for each ``ApprovalQueue.Act``.
"""

from __future__ import annotations

from typing import Any

from tui.app.widgets.approval_queue import ApprovalQueue, decision
from tui.app.widgets.diff_area import DiffArea


def act(queue: ApprovalQueue, diff: DiffArea, action: str, proposal: Any | None) -> None:
    """Answer one queue key for ``proposal`` (None: the highlighted one is gone; only approve_low needs none)."""
    if action == "approve_low":
        queue.approve_low_risk()
    elif proposal is not None:
        {"approve": approve, "reject": reject, "edit": edit, "open": open_proposal}[action](queue, diff, proposal)


def approve(queue: ApprovalQueue, diff: DiffArea, proposal: Any) -> None:
    queue.resolve(proposal.id, decision("approve", hunks=diff.accepted_for(proposal)))


def reject(queue: ApprovalQueue, diff: DiffArea, proposal: Any) -> None:
    def done(reason: str | None) -> None:
        if reason is not None:
            queue.resolve(proposal.id, decision("reject", reason=reason))

    from tui.app.screens.reason import ReasonScreen

    queue.app.push_screen(ReasonScreen(proposal.summary), done)


def edit(queue: ApprovalQueue, diff: DiffArea, proposal: Any) -> None:
    if proposal.kind == "commit":
        what, text = "commit message", proposal.message or ""
    elif proposal.kind in ("command", "python") and (proposal.command or proposal.code):
        what, text = "command", proposal.command or proposal.code or ""
    else:
        queue.notify("Only commands and commit messages can be edited; pick hunks with space in the diff.",
                     severity="warning")
        return

    def done(new: str | None) -> None:
        if new is None:
            return
        if what == "commit message":
            queue.resolve(proposal.id, decision("edit", message=new))
        else:
            queue.resolve(proposal.id, decision("edit", command=new))

    from tui.app.screens.edit_command import EditCommandScreen

    queue.app.push_screen(EditCommandScreen(text, what), done)


def open_proposal(queue: ApprovalQueue, diff: DiffArea, proposal: Any) -> None:
    def done(action: str | None) -> None:
        if action and proposal.id in queue.pending:
            act(queue, diff, action, proposal)

    from tui.app.screens.proposal import ProposalScreen

    queue.app.push_screen(ProposalScreen(proposal), done)
