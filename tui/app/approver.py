"""The TUI Approver: every decision the engine asks for goes through the approval queue.

``decide`` posts an ApprovalRequested message carrying a future and waits; the app's
handler resolves the future when the developer presses a key. If the turn is cancelled
while waiting, the proposal is withdrawn from the queue.
"""

from __future__ import annotations

import asyncio
from typing import Callable

from textual.message import Message

from tui.app.messages import ApprovalRequested, ApprovalWithdrawn
from tui.protocol.proposals import Decision, Proposal


class TuiApprover:
    """Approver protocol implementation backed by the app's queue."""

    def __init__(self, post: Callable[[Message], object]) -> None:
        self._post = post

    async def decide(self, proposal: Proposal) -> Decision:
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self._post(ApprovalRequested(proposal, future))
        try:
            return await future
        except asyncio.CancelledError:
            self._post(ApprovalWithdrawn(proposal.id))
            raise
