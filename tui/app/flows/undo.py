"""`u`: restore the newest checkpoint that differs from the working tree, after showing its diff.

Restoring checkpoints the current state first, so pressing `u` again undoes the undo. Before anything is written
the screen says which of the changes undo reverses are already committed (and in which commit), and which files
no checkpoint holds it saves first; what it would have to destroy (a nested repository) stops it with a message.
Nothing is written while git is busy (index.lock, a merge...) or while a command runs.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from tui.protocol.errors import DevagentError

if TYPE_CHECKING:
    from tui.app.screens.main import MainScreen


def start_undo(screen: "MainScreen") -> None:
    if screen.busy():
        screen.notify("Something is running: escape cancels it, then undo.", severity="warning")
        return
    screen.run_worker(_undo(screen), name="undo", group="undo", exclusive=True, exit_on_error=False)


async def _undo(screen: "MainScreen") -> None:
    from tui.app.screens.undo import UndoScreen
    from tui.app.widgets.agent_pane import AgentPane
    from tui.git import checkpoints
    from tui.git.repo import Repo
    from tui.git.undoplan import describe, plural, saved_note

    try:
        repo = await asyncio.to_thread(Repo, screen.repo)
        await asyncio.to_thread(repo.ensure_writable)
        cp = await asyncio.to_thread(checkpoints.resolve, repo, None)
        seen = await asyncio.to_thread(checkpoints.preview, repo, cp)
    except DevagentError as err:
        screen.notify(f"Undo: {err.message} {err.hint}".strip(), severity="warning", timeout=8)
        return
    what = f"checkpoint {cp.short} ({cp.label})"
    if not seen.files:
        screen.notify(f"Nothing to undo: the working tree already equals {what}.", timeout=4)
        return
    if seen.problem:
        screen.notify(f"Undo: {seen.problem}", severity="error", timeout=12)
        return
    notes = describe(seen.committed, len(seen.files)) + ([saved_note(seen.save)] if seen.save else [])
    if not await screen.app.push_screen_wait(UndoScreen(seen.diff, what, len(seen.files), notes)):
        screen.notify("Undo cancelled; nothing changed.", timeout=3)
        return
    session_id = getattr(screen.session, "session_id", None)
    try:
        before = await asyncio.to_thread(checkpoints.restore, repo, cp, session_id=session_id)
    except DevagentError as err:
        screen.notify(f"Undo failed: {err.message} {err.hint}".strip(), severity="error", timeout=8)
        return
    text = (f"undo: restored {what}, {plural(len(seen.files), 'file')}. The state before is checkpoint "
            f"{before.short}: press u again to undo this undo. Ignored files were not touched"
            + (", except those saved first." if seen.save else "."))
    screen.query_one(AgentPane).add_notice(text)
    screen.notify(text, timeout=6)
    screen.diff.refresh_repo()
