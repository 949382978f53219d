"""Undo and commit through the real app: real temp git repos, a real Session, the scripted Ollama server."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from tests.app.snapshot_apps.factory import build_app, wait_for
from tests.conftest import git, make_repo
from tests.ollama_server import Reply, ScriptedOllama, ollama_server  # noqa: F401 - fixture
from tui.app.screens.commit import CommitScreen
from tui.app.screens.undo import UndoScreen
from tui.app.widgets.agent_pane import AgentPane
from tui.app.widgets.approval_queue import ApprovalQueue
from tui.app.widgets.prompt_input import PromptInput
from tui.app.widgets.status_bar import StatusBar

SIZE = (160, 48)


def notes(app) -> str:  # type: ignore[no-untyped-def]
    return " ".join(str(n.message) for n in app._notifications)


def on_screen(app, cls) -> bool:  # type: ignore[no-untyped-def]
    return isinstance(app.screen, cls) and app.screen.is_mounted


async def away_from_prompt(pilot) -> None:  # type: ignore[no-untyped-def]
    """Plain-letter keys act outside the prompt (there they are typed)."""
    pilot.app.main.query_one(AgentPane).focus()
    await pilot.pause()


async def test_undo_restores_an_approved_edit_and_undo_of_undo(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(
        Reply(tool_calls=[{"name": "write_file", "arguments": {"path": "app.py", "content": "def add(a, b):\n"
                                                                "    return a - b  # BROKEN\n"}}]),
        Reply(text="Edited."),
    )
    original = (repo / "app.py").read_text()
    app = build_app(repo, server_url=ollama_server.url, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.query_one(StatusBar).server == "connected", what="server connected")
        app.query_one(PromptInput).load_text("break it")
        await pilot.press("enter")
        queue = app.query_one(ApprovalQueue)
        await wait_for(pilot, lambda: queue.proposals, what="edit proposal")
        queue.focus()
        await pilot.press("a")
        await wait_for(pilot, lambda: "BROKEN" in (repo / "app.py").read_text(), what="edit applied")
        await wait_for(pilot, lambda: not app.main.busy(), what="turn finished")

        await away_from_prompt(pilot)
        await pilot.press("u")
        await wait_for(pilot, lambda: on_screen(app, UndoScreen), what="undo screen")
        assert "BROKEN" in app.screen.diff and "Ignored files" in app.screen.query_one("#undo-note").render().plain
        await pilot.press("a")
        await wait_for(pilot, lambda: (repo / "app.py").read_text() == original, what="undo restored the file")
        await wait_for(pilot, lambda: "undo this undo" in notes(app), what="undo notice")

        await away_from_prompt(pilot)
        await pilot.press("u")
        await wait_for(pilot, lambda: on_screen(app, UndoScreen), what="second undo screen")
        await pilot.press("a")
        await wait_for(pilot, lambda: "BROKEN" in (repo / "app.py").read_text(), what="undo of the undo")
    assert git(repo, "diff", "--cached", "--name-only") == ""  # the index was never touched


async def test_undo_escape_changes_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    from tui.git import checkpoints

    checkpoints.create(repo, "before test edit", "s1")
    (repo / "app.py").write_text("changed\n")
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await away_from_prompt(pilot)
        await pilot.press("u")
        await wait_for(pilot, lambda: on_screen(app, UndoScreen), what="undo screen")
        await pilot.press("escape")
        await wait_for(pilot, lambda: "Undo cancelled" in notes(app), what="cancel notice")
    assert (repo / "app.py").read_text() == "changed\n"


async def test_commit_uses_only_the_staged_diff(repo: Path, ollama_server: ScriptedOllama) -> None:
    (repo / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef greet():\n    return 'hi'\n")
    git(repo, "add", "app.py")
    (repo / "README.md").write_text("# demo\nUNSTAGED-SECRET-LINE\n")
    (repo / "notes.txt").write_text("UNTRACKED-SECRET\n")
    ollama_server.push(Reply(text="Add a greet helper\n\nIt says hi."))
    app = build_app(repo, server_url=ollama_server.url, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.query_one(StatusBar).server == "connected", what="server connected")
        await away_from_prompt(pilot)
        await pilot.press("c")
        await wait_for(pilot, lambda: on_screen(app, CommitScreen), what="commit screen")
        screen = app.screen
        await wait_for(pilot, lambda: "greet" in screen.message, what="generated message")
        assert screen.source.startswith("model")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not isinstance(app.screen, CommitScreen), what="committed")
        await wait_for(pilot, lambda: "committed" in notes(app), what="commit notice")
    assert git(repo, "log", "-1", "--format=%B").strip() == "Add a greet helper\n\nIt says hi."
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["app.py"]
    assert "UNSTAGED-SECRET-LINE" in (repo / "README.md").read_text()  # still there, uncommitted
    sent = json.dumps(ollama_server.requests)
    assert "greet" in sent and "UNSTAGED-SECRET" not in sent and "UNTRACKED-SECRET" not in sent


async def test_failing_hook_keeps_the_message(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho HOOK-SAYS-NO >&2\nexit 1\n")
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)
    (repo / "app.py").write_text("x = 1\n")
    git(repo, "add", "app.py")
    head = git(repo, "rev-parse", "HEAD")
    app = build_app(repo, git_refresh=False)  # no model server: the deterministic message
    async with app.run_test(size=SIZE) as pilot:
        await away_from_prompt(pilot)
        await pilot.press("c")
        await wait_for(pilot, lambda: on_screen(app, CommitScreen), what="commit screen")
        screen = app.screen
        await wait_for(pilot, lambda: screen.message.strip() != "", what="fallback message")
        assert screen.source.startswith("fallback")
        screen.query_one("#commit-message").load_text("My own careful message")
        await pilot.press("ctrl+s")
        hooks = screen.query_one("#commit-hooks")
        await wait_for(pilot, lambda: any("HOOK-SAYS-NO" in line for line in hooks.lines), what="hook output")
        assert isinstance(app.screen, CommitScreen)
        assert screen.message == "My own careful message"
    assert git(repo, "rev-parse", "HEAD") == head
    assert (repo / ".git" / "devagent" / "COMMIT_MSG").read_text().startswith("My own careful message")


async def test_commit_refused_while_git_is_busy(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "app.py").write_text("x = 1\n")
    git(repo, "add", "app.py")
    (repo / ".git" / "index.lock").write_text("")
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await away_from_prompt(pilot)
        await pilot.press("c")
        await wait_for(pilot, lambda: "Commit refused" in notes(app), what="busy notice")
        assert not isinstance(app.screen, CommitScreen)
        assert "index.lock" in notes(app)
