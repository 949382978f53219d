"""Checkpoints in real repos: the developer's index/HEAD/branches untouched, undo and undo of undo exact."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import git
from tui.git import checkpoints as cps
from tui.config import Config
from tui.protocol.errors import RepoBusyError, RepoError
from tui.sandbox.runner import Sandbox


def tree_state(repo: Path) -> dict[str, bytes]:
    """Every non-.git file with its bytes (symlinks as their target)."""
    out: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(repo):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            p = Path(dirpath, name)
            rel = str(p.relative_to(repo))
            out[rel] = os.readlink(p).encode() if p.is_symlink() else p.read_bytes()
    return out


def messy_worktree(repo: Path) -> None:
    """Staged, unstaged, untracked, ignored, CRLF, binary, executable and a symlink."""
    (repo / ".gitignore").write_text("build/\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-qm", "ignore build")
    (repo / "app.py").write_text("def add(a, b):\n    return a + b + 0\n")  # unstaged
    (repo / "README.md").write_text("# staged change\r\n")
    git(repo, "add", "README.md")  # staged
    (repo / "notes").mkdir()
    (repo / "notes" / "todo.txt").write_text("untracked\n")
    (repo / "blob.bin").write_bytes(bytes(range(256)) * 4)
    (repo / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (repo / "run.sh").chmod(0o755)
    os.symlink("app.py", repo / "link.py")
    (repo / "build").mkdir()
    (repo / "build" / "out.o").write_text("ignored\n")


def index_bytes(repo: Path) -> bytes:
    return (repo / ".git" / "index").read_bytes()


def test_create_touches_nothing_of_the_developers(repo: Path) -> None:
    messy_worktree(repo)
    before_index = index_bytes(repo)
    before_head = git(repo, "rev-parse", "HEAD")
    before_branches = git(repo, "for-each-ref", "refs/heads")
    before_status = git(repo, "status", "--porcelain")
    cp = cps.create(repo, "before edit", "s1")
    assert index_bytes(repo) == before_index
    assert git(repo, "rev-parse", "HEAD") == before_head
    assert git(repo, "for-each-ref", "refs/heads") == before_branches
    assert git(repo, "status", "--porcelain") == before_status
    assert cp.ref == "refs/devagent/checkpoints/s1/1"
    files = git(repo, "ls-tree", "-r", "--name-only", cp.sha).split()
    assert "notes/todo.txt" in files and "link.py" in files and "build/out.o" not in files
    assert set(cp.files) >= {"app.py", "README.md", "notes/todo.txt", "blob.bin", "run.sh", "link.py"}
    assert git(repo, "rev-parse", f"{cp.sha}^") == before_head


def test_list_and_metadata(repo: Path) -> None:
    a = cps.create(repo, "first", "s1")
    (repo / "app.py").write_text("x\n")
    b = cps.create(repo, "second: with colon", "s1")
    listed = cps.list_checkpoints(repo)
    assert [c.sha for c in listed] == [b.sha, a.sha]
    assert listed[0].label == "second: with colon" and listed[0].files == ["app.py"]
    assert listed[0].session_id == "s1" and listed[0].number == 2 and listed[0].created >= listed[1].created
    assert cps.resolve(repo, None).sha == a.sha  # b holds exactly what is on disk now: nothing to undo there
    assert cps.resolve(repo, "s1/1").sha == a.sha
    assert cps.resolve(repo, "2").sha == a.sha


async def test_sandboxed_rm_rf_then_undo_restores_everything(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_OPTIONAL_LOCKS", "0")  # our own `git status` calls must not refresh the index
    messy_worktree(repo)
    status = git(repo, "status", "--porcelain", "--untracked-files=all")
    state = tree_state(repo)
    index = index_bytes(repo)
    cp = cps.create(repo, "before rm -rf", "s1")
    result = await Sandbox(repo, Config()).run("rm -rf ./*", timeout=60)
    assert result.exit_code == 0, result.output
    assert not (repo / "app.py").exists()
    diff = cps.undo_diff(repo, cp)
    assert "app.py" in diff and "notes/todo.txt" in diff
    assert "deleted file mode" in cps.changes_since(repo, cp)  # what the command did, for review
    cps.restore(repo, cp)
    restored = tree_state(repo)
    # ignored files are not covered: build/ is gone and stays gone
    assert {k: v for k, v in state.items() if not k.startswith("build/")} == restored
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == status
    assert index_bytes(repo) == index
    assert os.access(repo / "run.sh", os.X_OK)
    assert (repo / "link.py").is_symlink()


def test_undo_of_undo(repo: Path) -> None:
    cp = cps.create(repo, "before edit", "s1")
    (repo / "app.py").write_text("edited by the agent\n")
    (repo / "new.txt").write_text("created\n")
    os.remove(repo / "README.md")
    after_edit = tree_state(repo)
    before_undo = cps.restore(repo, cp)
    assert (repo / "README.md").read_text() == "# demo\n"
    assert not (repo / "new.txt").exists()
    assert "new.txt" in cps.undo_diff(repo, before_undo)
    cps.restore(repo, cps.resolve(repo, None))  # the newest is the one taken before the undo
    assert tree_state(repo) == after_edit


def test_restore_replaces_dir_with_file_and_back(repo: Path) -> None:
    cp = cps.create(repo, "x", "s")
    os.remove(repo / "app.py")
    (repo / "app.py").mkdir()
    (repo / "app.py" / "inner.txt").write_text("i\n")
    cps.restore(repo, cp)
    assert (repo / "app.py").read_text().startswith("def add")


def test_restore_refuses_busy_repo(repo: Path) -> None:
    cp = cps.create(repo, "x", "s")
    (repo / ".git" / "MERGE_HEAD").write_text("0" * 40)
    with pytest.raises(RepoBusyError):
        cps.restore(repo, cp)


def test_checkpoint_in_a_repo_without_commits(tmp_path: Path) -> None:
    from tests.conftest import make_repo

    path = make_repo(tmp_path / "r", {"a.txt": "a\n"}, commit=False)
    cp = cps.create(path, "first", "s")
    (path / "a.txt").write_text("changed\n")
    cps.restore(path, cp)
    assert (path / "a.txt").read_text() == "a\n"
    assert git(path, "rev-parse", "--verify", "-q", "HEAD", check=False) == ""


def test_prune_keeps_newest_and_current_session(repo: Path) -> None:
    old = [cps.create(repo, f"old {i}", "old-session") for i in range(4)]
    cur = [cps.create(repo, f"cur {i}", "current") for i in range(2)]
    removed = cps.prune(repo, keep=3, session_id="current")
    assert removed == 3
    left = {c.sha for c in cps.list_checkpoints(repo)}
    assert left == {cur[0].sha, cur[1].sha, old[3].sha}
    assert cps.prune(repo, keep=0, session_id="current") == 1
    assert {c.sha for c in cps.list_checkpoints(repo)} == {c.sha for c in cur}
    newest = cps.create(repo, "new session", "next", keep=1)  # pruning as part of create
    assert [c.sha for c in cps.list_checkpoints(repo)] == [newest.sha]


def test_cli_undo_and_checkpoints(repo: Path) -> None:
    from tests.core.test_commit import devagent

    out = devagent(repo, "undo", "--yes")
    assert out.returncode == 3 and "no checkpoints" in out.stderr
    cps.create(repo, "before edit", "s1")
    (repo / "app.py").write_text("broken\n")
    listed = devagent(repo, "checkpoints")
    assert "s1/1" in listed.stdout and "before edit" in listed.stdout and "Ignored files" in listed.stdout
    refused = devagent(repo, "undo", stdin="")
    assert refused.returncode == 3 and "--yes" in refused.stderr
    assert (repo / "app.py").read_text() == "broken\n"
    out = devagent(repo, "undo", "--yes")
    assert out.returncode == 0, out.stderr
    assert "-broken" in out.stdout and "s1/2" in out.stdout
    assert (repo / "app.py").read_text().startswith("def add")
    again = devagent(repo, "undo", "--yes", "s1/2")  # undo of the undo
    assert again.returncode == 0 and (repo / "app.py").read_text() == "broken\n"
    data = json.loads(devagent(repo, "checkpoints", "--json").stdout)
    assert [c["name"] for c in data][:3] == ["s1/3", "s1/2", "s1/1"]


def test_default_undo_target_skips_checkpoints_equal_to_now(repo: Path) -> None:
    before = cps.create(repo, "before command", "s1")
    (repo / "app.py").write_text("changed by a command\n")
    after = cps.create(repo, "after command", "s1")  # a snapshot of the current state
    assert after.tree and after.tree != before.tree
    assert cps.resolve(repo, None).sha == before.sha
    cps.restore(repo, cps.resolve(repo, None))
    assert (repo / "app.py").read_text().startswith("def add")
    cps.restore(repo, cps.resolve(repo, None))  # undo of the undo
    assert (repo / "app.py").read_text() == "changed by a command\n"


def test_nested_repositories_are_left_out_and_said(repo: Path) -> None:
    """An empty nested repo made every checkpoint fail; a committed one was entered (its config applied)."""
    (repo / "empty").mkdir()
    git(repo / "empty", "init", "-q")
    (repo / "vendored").mkdir()
    git(repo / "vendored", "init", "-q")
    (repo / "vendored" / "lib.py").write_text("x = 1\n")
    git(repo / "vendored", "add", "-A")
    git(repo / "vendored", "-c", "user.name=a", "-c", "user.email=a@b.invalid", "commit", "-qm", "v")
    (repo / "app.py").write_text("changed\n")
    cp = cps.create(repo, "with nested repos", "s1")
    assert [n.split(" ")[0] for n in cp.not_covered] == ["empty/", "vendored/"]
    assert cps.list_checkpoints(repo)[0].not_covered == cp.not_covered  # kept in the commit message
    (repo / "app.py").write_text("later\n")
    (repo / "vendored" / "lib.py").write_text("x = 2\n")
    cps.restore(repo, cp)
    assert (repo / "app.py").read_text() == "changed\n"
    assert (repo / "vendored" / "lib.py").read_text() == "x = 2\n"  # not covered: not touched


def test_a_tracked_file_turned_fifo_does_not_stop_checkpoints(repo: Path) -> None:
    (repo / "README.md").unlink()
    os.mkfifo(repo / "README.md")
    (repo / "app.py").write_text("changed\n")
    cp = cps.create(repo, "fifo", "s1")
    assert cp.not_covered == ["README.md (not a regular file or symlink: kept as last recorded)"]
    assert "app.py" in cp.files


def test_restore_refuses_to_write_through_an_ignored_symlink(repo: Path) -> None:
    (repo / "d" / "hooks").mkdir(parents=True)
    (repo / "d" / "hooks" / "pre-commit").write_text("#!/bin/sh\necho pwned\n")
    cp = cps.create(repo, "d is a directory", "s1")
    for path in sorted((repo / "d").rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    (repo / "d").rmdir()
    (repo / "d").symlink_to(".git")
    (repo / ".gitignore").write_text("d\n")
    before = {p: p.read_bytes() for p in (repo / ".git").rglob("*") if p.is_file() and "hooks" in p.parts}
    with pytest.raises(RepoError, match="d is now a symlink"):
        cps.restore(repo, cp)
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    assert before == {p: p.read_bytes() for p in (repo / ".git").rglob("*") if p.is_file() and "hooks" in p.parts}
    assert (repo / ".gitignore").read_text() == "d\n"  # nothing was written at all


def test_the_diff_of_a_huge_change_is_cut_at_a_file_boundary(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cps, "DIFF_LIMIT", 200_000)
    cp = cps.create(repo, "before", "s1")
    (repo / "0.dat").write_text("0\n" * 60_000)  # a 120 kB file, over half the limit: shown as a binary change
    (repo / "a.txt").write_text("a\n" * 40_000)  # 120 kB of diff: shown
    (repo / "b.txt").write_text("b\n" * 40_000)  # passes the limit: left out, and said
    diff = cps.changes_since(repo, cp)
    assert diff.cut and len(diff) <= 200_000 and diff.endswith("\n")
    assert "Binary files /dev/null and b/0.dat differ" in diff and "+a\n" in diff and "b/b.txt" not in diff
