"""Messages the app passes between the engine bridge, widgets and handlers.

Workers never touch widgets: the engine's emit callback and the TUI approver post
these, and handlers on the app own all state changes.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual.message import Message


class EngineEvent(Message):
    """One engine event (tui.protocol.events), delivered on the app's loop."""

    def __init__(self, event: Any) -> None:
        super().__init__()
        self.event = event


class ApprovalRequested(Message):
    """The approver wants a decision; resolve ``future`` with a Decision."""

    def __init__(self, proposal: Any, future: asyncio.Future[Any]) -> None:
        super().__init__()
        self.proposal = proposal
        self.future = future


class ApprovalWithdrawn(Message):
    """The engine stopped waiting (turn cancelled): drop the proposal from the queue."""

    def __init__(self, proposal_id: str) -> None:
        super().__init__()
        self.proposal_id = proposal_id


class SessionReady(Message):
    """The Session opened (or failed to); ``error`` is a user-facing message."""

    def __init__(self, session: Any | None, error: str = "", hint: str = "") -> None:
        super().__init__()
        self.session = session
        self.error = error
        self.hint = hint


class RepoRefreshed(Message):
    """Fresh repo facts (a worktree.TreeState) for the status bar and the working-tree diff."""

    def __init__(self, state: Any) -> None:
        super().__init__()
        self.state = state
