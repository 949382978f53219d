"""The git-workflow and repo-aware actions of the TUI: undo, tests, the fix loop, commit, /scaffold.

app.py binds keys to one-line actions that call these; the logic lives here, the screens in
tui/app/screens/. Nothing heavy is imported at module level (the app imports this before its
first frame).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from textual.app import SystemCommand

from tui.app.flows import commit, download, slash, tests, undo

if TYPE_CHECKING:
    from tui.app.host import Host

__all__ = ["commit", "download", "slash", "tests", "undo", "system_commands"]


def system_commands(app: "Host") -> Iterable[SystemCommand]:
    """Palette entries for every action here (the same as the keys)."""
    yield SystemCommand("Undo", "Show the diff restoring the latest checkpoint will apply, then restore it (u)",
                        lambda: undo.start_undo(app))
    yield SystemCommand("Tests: run and list results", "Run the test suite through approval; list failures (t)",
                        lambda: tests.start_tests(app))
    yield SystemCommand("Tests: run the new test", "Run the test the last /scaffold created (T)",
                        lambda: slash.run_offered_test(app))
    yield SystemCommand("Tests: fix loop", "Tests, a fix from the model, tests again; escape stops (F)",
                        lambda: tests.start_fix(app))
    yield SystemCommand("Commit staged changes", "Review the staged diff and a generated message, then commit (c)",
                        lambda: commit.start_commit(app))
    yield SystemCommand("Download the default model", "Get the local model for the embedded backend, then load it",
                        lambda: download.offer(app))
    yield SystemCommand("Scaffold…", "Type /scaffold KIND NAME [--dir D] in the prompt", lambda: _prefill(app))


def _prefill(app: "Host") -> None:
    from tui.app.widgets.prompt_input import PromptInput

    prompt = app.main.query_one(PromptInput)
    prompt.load_text("/scaffold ")
    prompt.move_cursor(prompt.document.end)
    prompt.focus()
