"""Path-safety corpus for devagent's own edits: nothing outside the repo, nothing in .git, no symlink escapes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.conftest import git
from tui.core import paths
from tui.core.errors import PathRefused
from tui.core.paths import atomic_write, resolve_in_repo


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    target = tmp_path / "outside"
    target.mkdir()
    (target / "secret.txt").write_text("outside\n")
    return target


@pytest.fixture
def links(repo: Path, outside: Path) -> Path:
    (repo / "out_link").symlink_to(outside)
    (repo / "out_file_link").symlink_to(outside / "secret.txt")
    (repo / "dangling_out").symlink_to(outside / "missing.txt")
    (repo / "git_link").symlink_to(repo / ".git")
    (repo / "sub").mkdir()
    (repo / "sub" / "in_link").symlink_to(repo / "app.py")
    (repo / "dir_link").symlink_to(repo / "sub")
    return repo


REFUSED = [
    "../outside/secret.txt", "../../etc/passwd", "/etc/passwd", "sub/../../outside/secret.txt", "~/x",
    ".git/config", ".git/hooks/pre-commit", ".GIT/HEAD", ".Git/hooks/x", "sub/.git", "./.git", ".git",
    "out_link/secret.txt", "out_link/new.txt", "out_file_link", "dangling_out", "git_link/config",
    "app.py\x00.txt", "", "   ", ".",
]


@pytest.mark.parametrize("path", REFUSED)
def test_refused_paths(links: Path, path: str) -> None:
    with pytest.raises(PathRefused):
        resolve_in_repo(links, path)
    with pytest.raises(PathRefused):
        atomic_write(links, path, b"pwned")


@pytest.mark.parametrize(("path", "expected"), [
    ("app.py", "app.py"), ("./app.py", "app.py"), ("sub/new.py", "sub/new.py"), ("sub/../app.py", "app.py"),
    ("sub/in_link", "app.py"), ("dir_link/x.py", "sub/x.py"), ("new/dir/file.py", "new/dir/file.py"),
    (".gitignore", ".gitignore"), ("docs/.github/x.yml", "docs/.github/x.yml"),
])
def test_allowed_paths_resolve_inside(links: Path, path: str, expected: str) -> None:
    assert resolve_in_repo(links, path) == links.resolve() / expected


def test_absolute_path_inside_repo_is_allowed(repo: Path) -> None:
    assert resolve_in_repo(repo, str(repo / "app.py")) == repo.resolve() / "app.py"


def test_nothing_outside_changed_after_refusals(links: Path, outside: Path) -> None:
    for path in REFUSED:
        with pytest.raises(PathRefused):
            atomic_write(links, path, b"pwned")
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "outside\n"
    assert git(links, "status", "--porcelain", "--ignored").count(".git") == 0


def test_worktree_dot_git_file_is_refused(repo: Path, tmp_path: Path) -> None:
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree), "-b", "wt")
    with pytest.raises(PathRefused):
        atomic_write(worktree, ".git", b"gitdir: /tmp/evil\n")
    assert (worktree / ".git").read_text().startswith("gitdir:")


def test_atomic_write_keeps_mode_and_replaces_content(repo: Path) -> None:
    script = repo / "run.sh"
    script.write_text("old\n")
    script.chmod(0o754)
    atomic_write(repo, "run.sh", b"new\n")
    assert script.read_bytes() == b"new\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o754
    assert [p.name for p in repo.iterdir() if ".devagent-" in p.name] == []  # no temp files left


def test_atomic_write_creates_files_and_dirs(repo: Path) -> None:
    atomic_write(repo, "pkg/sub/mod.py", b"x = 1\n")
    assert (repo / "pkg" / "sub" / "mod.py").read_text() == "x = 1\n"


def test_atomic_write_through_inside_symlink_writes_the_target(links: Path) -> None:
    atomic_write(links, "sub/in_link", b"via link\n")
    assert (links / "app.py").read_text() == "via link\n"
    assert (links / "sub" / "in_link").is_symlink()


def test_write_refuses_a_parent_swapped_for_a_symlink(repo: Path, outside: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The race: the path checked fine, then a parent directory became a symlink out of the repo."""
    (repo / "sub").mkdir()
    checked = resolve_in_repo(repo, "sub/file.txt")
    (repo / "sub").rmdir()
    (repo / "sub").symlink_to(outside)
    monkeypatch.setattr(paths, "resolve_in_repo", lambda _repo, _path: checked)
    with pytest.raises(PathRefused):
        atomic_write(repo, "sub/file.txt", b"pwned")
    assert sorted(os.listdir(outside)) == ["secret.txt"]


def test_write_refuses_non_regular_target(repo: Path) -> None:
    os.mkfifo(repo / "fifo")
    with pytest.raises(PathRefused):
        atomic_write(repo, "fifo", b"x")
