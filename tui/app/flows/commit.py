"""`c`: open the commit screen for what is staged; refuse plainly while git is busy.

The message comes from the staged diff only (commitmsg.generate_with_source with the
session's backend when the model is connected, the deterministic fallback otherwise).
The commit runs the repo's hooks; --no-verify only when the developer ticks it.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from tui.protocol.errors import DevagentError
from tui.safety.literal import visible

if TYPE_CHECKING:
    from tui.app.screens.main import MainScreen


def start_commit(screen: "MainScreen") -> None:
    screen.run_worker(_commit(screen), name="commit", group="commit", exclusive=True, exit_on_error=False)


async def _commit(screen: "MainScreen") -> None:
    from tui.app.screens.commit import CommitScreen
    from tui.git.repo import Repo

    try:
        repo = await asyncio.to_thread(Repo, screen.repo)
        await asyncio.to_thread(repo.ensure_writable)  # index.lock, a merge, a rebase...: says which and how
        staged = await asyncio.to_thread(repo.diff_staged)
    except DevagentError as err:
        screen.notify(f"Commit refused: {err.message} {err.hint}".strip(), severity="error", timeout=10)
        return
    if not staged.strip():
        screen.notify("Nothing is staged: stage hunks first (ctrl+d shows the working tree, S stages).",
                   severity="warning", timeout=6)
        return
    done: list[Any] = []

    async def generate(diff: str) -> tuple[str, str]:
        return await message_for(screen, repo, diff)

    shown: list[Any] = []

    async def commit(message: str, no_verify: bool) -> Any:
        if not no_verify:
            await _hooks_agreed(repo, shown)
        started = time.monotonic()
        result = await asyncio.to_thread(repo.commit, message, no_verify=no_verify)
        done.append((result, time.monotonic() - started))
        return result

    async def staged_now() -> str:
        return await asyncio.to_thread(repo.diff_staged)

    sha = await screen.app.push_screen_wait(CommitScreen(staged, generate, commit, staged_now))
    if sha is None:
        screen.notify("Commit cancelled; nothing was committed.", timeout=3)
        return
    result, duration = done[-1]
    _report(screen, sha, result.output, duration)


async def _hooks_agreed(repo: Any, shown: list[Any]) -> None:
    """Hooks the work tree controls that changed since the session began: the first ctrl+s shows them (the
    commit is refused with them in the hook pane); the same changes shown, the next ctrl+s runs them."""
    from tui.git import hookwatch

    changes = await asyncio.to_thread(hookwatch.changed, repo)
    if not changes:
        return
    if shown and shown[-1] == changes:
        await asyncio.to_thread(hookwatch.accept, repo)
        return
    shown.append(changes)
    err = hookwatch.refusal(changes)
    raise DevagentError(visible(err.message), "Press ctrl+s again to run them and commit; tick --no-verify to commit "
                        "without hooks; esc cancels.")


async def message_for(screen: "MainScreen", repo: Any, staged: str) -> tuple[str, str]:
    """(message, source) from the staged diff alone."""
    from tui.git import commitmsg

    subjects = await asyncio.to_thread(repo.recent_subjects)
    session = screen.session
    info = getattr(session, "info", None)
    if session is not None and info is not None and screen.server_state == "connected":
        return await commitmsg.generate_with_source(session.backend, staged, subjects, model=info.name)
    return commitmsg.fallback_message(staged, subjects), "fallback (the model server is not connected)"


def _report(screen: "MainScreen", sha: str, output: str, duration: float) -> None:
    from tui.app.widgets.agent_pane import AgentPane
    from tui.app.widgets.output_pane import OutputPane

    if output.strip():
        pane = screen.query_one(OutputPane)
        pane.start("commit", "git commit (hooks included)", "none")
        pane.write(output if output.endswith("\n") else output + "\n")
        pane.finish(0, duration)
        screen.add_class("-has-output")
    text = f"committed {sha[:12]}"
    screen.query_one(AgentPane).add_notice(text)
    screen.notify(text, timeout=4)
    screen.diff.refresh_repo()
