"""Path-safety corpus for devagent's own edits: nothing outside the repo, nothing in .git, no symlink escapes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.conftest import git
from tui.safety import paths
from tui.protocol.errors import PathRefused
from tui.safety.paths import atomic_write, resolve_in_repo


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


@pytest.mark.parametrize("operation", ["write", "read"])
def test_a_parent_swapped_for_a_symlink_is_refused(repo: Path, outside: Path, monkeypatch: pytest.MonkeyPatch,
                                                   operation: str) -> None:
    """The race: the path checked fine, then a parent directory became a symlink out of the repo."""
    (repo / "sub").mkdir()
    checked = resolve_in_repo(repo, "sub/secret.txt")
    (repo / "sub").rmdir()
    (repo / "sub").symlink_to(outside)
    monkeypatch.setattr(paths, "resolve_in_repo", lambda _repo, _path: checked)
    with pytest.raises(PathRefused):
        if operation == "write":
            atomic_write(repo, "sub/secret.txt", b"pwned")
        else:
            paths.read_bounded(repo, "sub/secret.txt", 100)
    assert sorted(os.listdir(outside)) == ["secret.txt"] and (outside / "secret.txt").read_text() == "outside\n"


def test_write_refuses_non_regular_target(repo: Path) -> None:
    os.mkfifo(repo / "fifo")
    with pytest.raises(PathRefused):
        atomic_write(repo, "fifo", b"x")


def test_reads_are_bounded_and_report_the_size(repo: Path) -> None:
    with (repo / "big.bin").open("wb") as fh:
        fh.write(b"head")
        fh.truncate(10 << 30)  # 10 GiB of hole: reading it whole would take the machine's memory
    data, size = paths.read_bounded(repo, "big.bin", 1000)
    assert data[:4] == b"head" and len(data) == 1000 and size == 10 << 30


@pytest.mark.parametrize("make", ["fifo", "socket", "dir"])
def test_reads_refuse_what_is_not_a_regular_file_without_blocking(repo: Path, make: str) -> None:
    import socket

    target = repo / "thing"
    if make == "fifo":
        os.mkfifo(target)
    elif make == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(target))
    else:
        target.mkdir()
    with pytest.raises(PathRefused, match="not a regular file"):
        paths.read_bounded(repo, "thing", 100)


def test_reads_refuse_symlinks_out_and_into_git_in_any_component(links: Path) -> None:
    for path in ("out_file_link", "out_link/secret.txt", "git_link/config", "dir_link/../out_link/secret.txt"):
        with pytest.raises(PathRefused):
            paths.read_bounded(links, path, 100)
    assert paths.read_bounded(links, "sub/in_link", 100)[0].startswith(b"def add")  # inside the repo: fine


def test_read_regular_without_follow_refuses_a_symlink(repo: Path, outside: Path) -> None:
    (repo / "package.json").symlink_to(outside / "secret.txt")
    with pytest.raises(OSError):
        paths.read_regular(repo / "package.json", 100, follow=False)
    assert paths.read_regular(repo / "package.json", 100) == b"outside\n"  # follow=True: hooks may be links


def test_restore_never_writes_through_a_symlinked_directory(repo: Path, outside: Path) -> None:
    (repo / "d").symlink_to(repo / ".git")
    (repo / "o").symlink_to(outside)
    config = (repo / ".git" / "config").read_bytes()
    for rel in ("d/config", "d/hooks/pre-commit", "o/new.txt", "o/secret.txt"):
        with pytest.raises(PathRefused):
            paths.restore_file(repo, rel, b"pwned", "100755")
        with pytest.raises(PathRefused):
            paths.remove_file(repo, rel)
    assert (repo / ".git" / "config").read_bytes() == config
    assert sorted(os.listdir(outside)) == ["secret.txt"] and (outside / "secret.txt").read_text() == "outside\n"
    assert paths.blocked_by_link(repo, "d/hooks/pre-commit") == "d" and paths.blocked_by_link(repo, "x/y") is None


def test_restore_replaces_a_symlink_instead_of_following_it(repo: Path, outside: Path) -> None:
    (repo / "link").symlink_to(outside / "secret.txt")
    paths.restore_file(repo, "link", b"restored\n", "100644")
    assert not (repo / "link").is_symlink() and (repo / "link").read_bytes() == b"restored\n"
    assert (outside / "secret.txt").read_text() == "outside\n"
    paths.restore_file(repo, "a/b/run.sh", b"#!/bin/sh\n", "100755")
    assert stat.S_IMODE((repo / "a" / "b" / "run.sh").stat().st_mode) == 0o755
    paths.remove_file(repo, "a/b/run.sh")
    assert not (repo / "a").exists()  # emptied parents go


@pytest.mark.parametrize("rel", [".git/config", "sub/.GIT/config", "../x", "a//b", "./a", "a\x00b"])
def test_restore_refuses_paths_git_would_never_store(repo: Path, rel: str) -> None:
    with pytest.raises(PathRefused):
        paths.restore_file(repo, rel, b"x", "100644")


def test_replace_file_does_not_follow_a_planted_link(tmp_path: Path, outside: Path) -> None:
    hooks_dir = tmp_path / "hooks"
    hooks_dir.mkdir()
    (hooks_dir / "pre-commit").symlink_to(outside / "secret.txt")
    paths.replace_file(hooks_dir / "pre-commit", b"#!/bin/sh\n", 0o755)
    assert (outside / "secret.txt").read_text() == "outside\n"
    assert (hooks_dir / "pre-commit").read_bytes() == b"#!/bin/sh\n" and os.listdir(hooks_dir) == ["pre-commit"]
