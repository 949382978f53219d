"""The git-workflow and repo-aware actions of the TUI: undo, tests, the fix loop, commit, /scaffold.

app.py binds keys to one-line actions that call these; the logic lives here, the screens in
tui/app/screens/. Nothing heavy is imported at module level (the app imports this before its
first frame).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.app.flows import commit, download, slash, tests, undo

if TYPE_CHECKING:
    from tui.app.host import Host

__all__ = ["commit", "download", "slash", "tests", "undo", "prefill_scaffold"]


def prefill_scaffold(app: "Host") -> None:
    """The palette's "Scaffold…": the prompt, focused, starting with /scaffold."""
    from tui.app.widgets.prompt_input import PromptInput

    prompt = app.main.query_one(PromptInput)
    prompt.load_text("/scaffold ")
    prompt.move_cursor(prompt.document.end)
    prompt.focus()
