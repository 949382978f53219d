"""Repo: status, diffs, hunk staging/unstaging of any change, busy detection, commits with hooks."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from tui.git.diffs import DiffIndex, file_diff, select_hunks
from tui.protocol.errors import NotARepoError, PatchError, RepoBusyError, RepoError
from tui.git.repo import Repo

BASE = "".join(f"l{i}\n" for i in range(60))
THREE_HUNKS = BASE.replace("l1\n", "one\n").replace("l30\n", "thirty\n").replace("l55\n", "fifty-five\n")


def test_not_a_repo(tmp_path: Path) -> None:
    with pytest.raises(NotARepoError):
        Repo(tmp_path)


def test_status_lists_staged_unstaged_untracked(repo: Path) -> None:
    (repo / "app.py").write_text("changed\n")
    (repo / "README.md").write_text("staged\n")
    git(repo, "add", "README.md")
    (repo / "new dir").mkdir()
    (repo / "new dir" / "n.txt").write_text("n\n")
    st = Repo(repo).status()
    assert st.branch == "main" and st.head
    assert [f.path for f in st.staged] == ["README.md"]
    assert [f.path for f in st.unstaged] == ["app.py"]
    assert st.untracked == ["new dir/n.txt"]
    assert not st.clean and st.busy is None


def test_status_of_a_fresh_repo(tmp_path: Path) -> None:
    path = make_repo(tmp_path / "r", {"a": "x\n"}, commit=False)
    st = Repo(path).status()
    assert st.head is None and st.untracked == ["a"]


def test_accept_two_of_three_hunks_then_stage_them(repo: Path) -> None:
    """The issue's scenario: the working tree and later the index hold exactly the accepted hunks."""
    (repo / "f.txt").write_text(BASE)
    git(repo, "add", "f.txt")
    git(repo, "commit", "-qm", "base")
    r = Repo(repo)
    proposal = file_diff("f.txt", BASE.encode(), THREE_HUNKS.encode())
    r.apply(select_hunks(proposal, {0, 2}))
    expected = BASE.replace("l1\n", "one\n").replace("l55\n", "fifty-five\n")
    assert (repo / "f.txt").read_text() == expected
    assert git(repo, "diff", "--cached") == ""  # applying never stages
    wt = r.diff_worktree()
    assert len(DiffIndex.from_text(wt).hunks) == 2
    r.stage_hunks(wt, {0, 1})
    assert git(repo, "show", ":f.txt") == expected
    assert git(repo, "diff") == ""


def test_stage_and_unstage_single_hunks_of_any_change(repo: Path) -> None:
    (repo / "f.txt").write_text(BASE)
    git(repo, "add", "f.txt")
    git(repo, "commit", "-qm", "base")
    (repo / "f.txt").write_text(THREE_HUNKS)  # the developer's own edit, not the agent's
    (repo / "untracked.txt").write_text("brand new\n")
    r = Repo(repo)
    wt = r.diff_worktree()
    idx = DiffIndex.from_text(wt)
    assert [f.path for f in idx.files] == ["f.txt", "untracked.txt"]
    r.stage_hunks(wt, {1, 3})  # the middle hunk of f.txt and the untracked file
    assert git(repo, "show", ":f.txt") == BASE.replace("l30\n", "thirty\n")
    assert git(repo, "show", ":untracked.txt") == "brand new\n"
    staged = r.diff_staged()
    sidx = DiffIndex.from_text(staged)
    assert [f.path for f in sidx.files] == ["f.txt", "untracked.txt"]
    r.unstage_hunks(staged, {1})  # unstage the new file again
    assert "untracked.txt" in r.status().untracked
    assert (repo / "f.txt").read_text() == THREE_HUNKS  # the working tree never moved


def test_crlf_and_binary_staging_round_trip(repo: Path) -> None:
    r = Repo(repo)
    (repo / "w.txt").write_bytes(b"a\r\nb\r\n")
    (repo / "img.bin").write_bytes(bytes(range(256)))
    r.stage_hunks(r.diff_worktree())
    proc = r.run_git("show", ":w.txt")
    assert proc.stdout == b"a\r\nb\r\n"
    assert r.read_blob(":img.bin") == bytes(range(256))


def test_stale_patch_raises_patch_error(repo: Path) -> None:
    r = Repo(repo)
    diff = file_diff("app.py", b"something else\n", b"new\n")
    with pytest.raises(PatchError) as err:
        r.apply(diff)
    assert "does not apply" in str(err.value)


@pytest.mark.parametrize("marker,word", [
    ("index.lock", "index.lock"), ("MERGE_HEAD", "merge"), ("rebase-merge", "rebase"),
    ("rebase-apply", "rebase"), ("CHERRY_PICK_HEAD", "cherry-pick"), ("REVERT_HEAD", "revert"),
    ("BISECT_LOG", "bisect"),
])
def test_busy_repo_refuses_writes(repo: Path, marker: str, word: str) -> None:
    r = Repo(repo)
    target = r.git_dir / marker
    if marker.startswith("rebase"):
        target.mkdir()
    else:
        target.write_text("")
    assert word in (r.busy_reason() or "")
    with pytest.raises(RepoBusyError) as err:
        r.apply(file_diff("new.txt", None, b"x\n"))
    assert err.value.hint  # says how to finish it
    assert not (repo / "new.txt").exists()
    with pytest.raises(RepoBusyError):
        r.commit("msg")


def test_real_merge_in_progress_is_detected(repo: Path) -> None:
    git(repo, "checkout", "-qb", "other")
    (repo / "app.py").write_text("other\n")
    git(repo, "commit", "-qam", "other")
    git(repo, "checkout", "-q", "main")
    (repo / "app.py").write_text("main\n")
    git(repo, "commit", "-qam", "main")
    git(repo, "merge", "other", check=False)
    assert "merge" in (Repo(repo).busy_reason() or "")


def write_hook(repo: Path, name: str, body: str) -> None:
    hook = repo / ".git" / "hooks" / name
    hook.write_text("#!/bin/sh\n" + body)
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)


def test_commit_runs_hooks_and_shows_their_output(repo: Path) -> None:
    write_hook(repo, "pre-commit", "echo 'lint ok from hook'\n")
    (repo / "app.py").write_text("x = 1\n")
    git(repo, "add", "app.py")
    result = Repo(repo).commit("feat: set x\n\nBody line.")
    assert result.ok and result.sha
    assert "lint ok from hook" in result.output
    assert git(repo, "log", "-1", "--format=%B").strip() == "feat: set x\n\nBody line."
    assert not (repo / ".git" / "devagent" / "COMMIT_MSG").exists()


def test_failing_hook_keeps_the_message(repo: Path) -> None:
    write_hook(repo, "pre-commit", "echo 'trailing whitespace in app.py' >&2\nexit 1\n")
    (repo / "app.py").write_text("x = 1\n")
    git(repo, "add", "app.py")
    head = git(repo, "rev-parse", "HEAD")
    r = Repo(repo)
    result = r.commit("fix: a carefully written message")
    assert not result.ok and result.sha is None
    assert "trailing whitespace" in result.output
    assert result.message_file and result.message_file.read_text() == "fix: a carefully written message\n"
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "diff", "--cached", "--name-only").strip() == "app.py"  # still staged
    # --no-verify only when asked
    assert r.commit("fix: a carefully written message", no_verify=True).ok


def test_commit_with_nothing_staged_says_so(repo: Path) -> None:
    with pytest.raises(RepoError) as err:
        Repo(repo).commit("msg")
    assert "Nothing is staged" in str(err.value)


def test_recent_subjects_and_first_commit(tmp_path: Path) -> None:
    path = make_repo(tmp_path / "r", {"a": "1\n"}, commit=False)
    r = Repo(path)
    assert r.recent_subjects() == []
    r.stage()
    assert r.commit("chore: first").ok
    assert r.recent_subjects() == ["chore: first"]


def test_worktree_git_dir(repo: Path, tmp_path: Path) -> None:
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(wt))
    r = Repo(wt)
    assert r.root == Path(os.path.realpath(wt))
    assert r.git_dir != r.common_dir
    (r.git_dir / "index.lock").write_text("")
    assert r.busy_reason()
    assert Repo(repo).busy_reason() is None  # the main work tree is not locked


def test_untracked_executable_and_symlink_stage_with_their_modes(repo: Path) -> None:
    (repo / "run.sh").write_text("#!/bin/sh\n")
    (repo / "run.sh").chmod(0o755)
    os.symlink("app.py", repo / "link")
    r = Repo(repo)
    r.stage_hunks(r.diff_worktree())
    modes = {line.split()[3]: line.split()[0] for line in git(repo, "ls-files", "-s").splitlines()}
    assert modes["run.sh"] == "100755" and modes["link"] == "120000"
    assert r.read_blob(":link") == b"app.py"
