"""The git-workflow and repo-aware actions of the TUI: undo, tests, the fix loop, commit, /scaffold, the
first-run download.

app.py binds the global keys to one-line actions that call these with the main screen they act on; the
logic lives here, the modal screens in tui/app/screens/. Nothing heavy is imported at module level (the app imports this before its
first frame).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.app.flows import commit, copy, download, slash, tests, turn, undo

if TYPE_CHECKING:
    from tui.app.screens.main import MainScreen

__all__ = ["commit", "copy", "download", "slash", "tests", "turn", "undo", "prefill_scaffold", "prefill_refactor"]


def _prefill(screen: "MainScreen", text: str) -> None:
    from tui.app.widgets.prompt_input import PromptInput

    prompt = screen.query_one(PromptInput)
    prompt.load_text(text)
    prompt.move_cursor(prompt.document.end)
    prompt.focus()


def prefill_scaffold(screen: "MainScreen") -> None:
    """The palette's "Scaffold…": the prompt, focused, starting with /scaffold."""
    _prefill(screen, "/scaffold ")


def prefill_refactor(screen: "MainScreen") -> None:
    """The palette's "Refactor…": the prompt, focused, starting with /refactor."""
    _prefill(screen, "/refactor ")
