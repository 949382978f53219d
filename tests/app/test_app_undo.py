"""`u` in the real app, in real repos: the undo screen says which changes are already committed (and in which
commit) and which files no checkpoint holds it saves first; what it would have to destroy stops it (issue 31.7,
issue 30 class 3). Snapshots of the screen at 80x24 and 160x48."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.app.snapshot_apps.factory import build_app, no_blink, wait_for
from tests.app.test_app_git_flows import away_from_prompt, notes, on_screen
from tests.conftest import git, make_repo
from tui.app.screens.undo import UndoScreen
from tui.app.widgets.status_bar import StatusBar
from tui.git import checkpoints

SIZE = (160, 48)
FIXED_DATE = {"GIT_AUTHOR_DATE": "2026-01-02T03:04:05+00:00", "GIT_COMMITTER_DATE": "2026-01-02T03:04:05+00:00"}


def committed_after_checkpoint(root: Path) -> tuple[Path, str]:
    """A checkpoint, then the developer edits app.py and commits it, and leaves notes.txt uncommitted."""
    repo = make_repo(root)
    checkpoints.create(repo, "before edit_file app.py", "s1")
    (repo / "app.py").write_text("def add(a, b):\n    return a - b\n")
    (repo / "notes.txt").write_text("mine\n")
    git(repo, "add", "app.py")
    git(repo, "commit", "-qm", "feat: subtract")
    return repo, git(repo, "rev-parse", "--short", "HEAD").strip()


def screen_text(app: Any, selector: str) -> str:
    return app.screen.query_one(selector).render().plain


async def test_the_undo_screen_names_the_commit_before_anything_is_restored(tmp_path: Path) -> None:
    repo, sha = committed_after_checkpoint(tmp_path / "repo")
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await away_from_prompt(pilot)
        await pilot.press("u")
        await wait_for(pilot, lambda: on_screen(app, UndoScreen), what="undo screen")
        said = screen_text(app, "#undo-committed")
        assert "Already committed: 1 of the 2 files" in said and f"app.py: in {sha} feat: subtract" in said
        assert "notes.txt" not in said and "2 files change back" in screen_text(app, "#undo-what")
        assert "return a - b" in (repo / "app.py").read_text()  # nothing restored yet
        await pilot.press("a")
        await wait_for(pilot, lambda: "return a + b" in (repo / "app.py").read_text(), what="restored")
        await wait_for(pilot, lambda: "undo this undo" in notes(app), what="undo notice")
    assert git(repo, "rev-parse", "--short", "HEAD").strip() == sha


async def test_undo_saves_a_file_a_command_made_ignored_and_the_second_u_brings_it_back(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "notes.txt").write_text("first draft\n")
    checkpoints.create(repo, "before run_command", "s1")
    (repo / ".gitignore").write_text("notes.txt\n")  # what the approved command did
    (repo / "notes.txt").write_text("the developer's later edit\n")
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await away_from_prompt(pilot)
        await pilot.press("u")
        await wait_for(pilot, lambda: on_screen(app, UndoScreen), what="undo screen")
        assert "Saved first: notes.txt (1 file no checkpoint holds" in screen_text(app, "#undo-committed")
        await pilot.press("a")
        await wait_for(pilot, lambda: (repo / "notes.txt").read_text() == "first draft\n", what="undo")
        await away_from_prompt(pilot)
        await pilot.press("u")
        await wait_for(pilot, lambda: on_screen(app, UndoScreen), what="second undo screen")
        await pilot.press("a")
        await wait_for(pilot, lambda: (repo / "notes.txt").read_text() == "the developer's later edit\n",
                       what="the undo of the undo")


async def test_undo_refuses_where_it_would_delete_a_nested_repository(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "lib").write_text("a file\n")
    checkpoints.create(repo, "before run_command", "s1")
    (repo / "lib").unlink()
    (repo / "lib").mkdir()
    git(repo / "lib", "init", "-q")
    (repo / "lib" / "work.py").write_text("work = 1\n")
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await away_from_prompt(pilot)
        await pilot.press("u")
        await wait_for(pilot, lambda: "nested repository" in notes(app), what="the refusal")
        assert not on_screen(app, UndoScreen)
    assert (repo / "lib" / ".git").is_dir() and (repo / "lib" / "work.py").read_text() == "work = 1\n"


@pytest.fixture
def dated(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in FIXED_DATE.items():
        monkeypatch.setenv(key, value)


@pytest.mark.parametrize("size", [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")])
def test_snapshot_of_the_undo_screen_with_a_committed_change(snap_compare: Any, tmp_path: Path, dated: None,
                                                             size: tuple[int, int]) -> None:
    repo, _ = committed_after_checkpoint(tmp_path / "repo")

    async def open_undo(pilot: Any) -> None:
        app = pilot.app
        no_blink(app)
        await wait_for(pilot, lambda: app.query_one(StatusBar).branch == "main", what="git status")
        await away_from_prompt(pilot)
        await pilot.press("u")
        await wait_for(pilot, lambda: on_screen(app, UndoScreen), what="undo screen")
        await pilot.pause(0.2)

    assert snap_compare(build_app(repo), terminal_size=size, run_before=open_undo)
