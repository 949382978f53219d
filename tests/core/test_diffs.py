"""file_diff / DiffIndex / select_hunks against real `git apply` in real repos."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import git, make_repo
from tui.git.diffs import DiffIndex, describe_hunks, file_diff, select_hunks, to_bytes


def apply(repo: Path, patch: str, *extra: str) -> None:
    proc = subprocess.run(["git", "apply", *extra, "-"], cwd=repo, input=to_bytes(patch), capture_output=True)
    assert proc.returncode == 0, proc.stderr.decode() + "\n" + patch


def commit_bytes(repo: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (repo / name).write_bytes(data)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")


CASES = {
    "modified": (b"a\nb\nc\n", b"a\nB\nc\n"),
    "no newline old": (b"a\nb", b"a\nb\n"),
    "no newline new": (b"a\nb\n", b"a\nc"),
    "no newline both": (b"a\nb", b"a\nc"),
    "crlf": (b"one\r\ntwo\r\nthree\r\n", b"one\r\n2\r\nthree\r\n"),
    "mixed endings": (b"one\r\ntwo\nthree\r", b"one\r\ntwo\r\nthree\r\n"),
    "binary": (b"\x00\x01\x02PNG" * 50, b"\x00\x01\x03PNG" * 60),
    "text to binary": (b"text\n", b"\x00bin"),
    "latin-1": ("caf\xe9\n".encode("latin-1"), "caf\xe8\n".encode("latin-1")),
    "new": (None, b"hello\nworld\n"),
    "new empty": (None, b""),
    "new binary": (None, b"\x00\xff" * 100),
    "deleted": (b"bye\n", None),
    "deleted no newline": (b"bye", None),
    "deleted empty": (b"", None),
}


@pytest.mark.parametrize("name", list(CASES))
def test_file_diff_round_trips_through_git_apply(tmp_path: Path, name: str) -> None:
    old, new = CASES[name]
    repo = make_repo(tmp_path / "r", {"keep.txt": "x\n"})
    path = "dir with space/f.dat"
    (repo / "dir with space").mkdir()
    if old is not None:
        commit_bytes(repo, {path: old})
    diff = file_diff(path, old, new)
    assert diff.startswith(f"diff --git a/{path} b/{path}\n")
    apply(repo, diff, "--check")
    apply(repo, diff)
    target = repo / path
    if new is None:
        assert not target.exists()
    else:
        assert target.read_bytes() == new
    # and the same diff staged through the index
    git(repo, "checkout", "-q", "--", ".") if old is not None else target.unlink()
    apply(repo, diff, "--cached")
    shown = subprocess.run(["git", "show", f":{path}"], cwd=repo, capture_output=True)
    assert (shown.stdout if shown.returncode == 0 else None) == new


def test_no_change_is_empty() -> None:
    assert file_diff("a", b"x", b"x") == ""


def test_index_finds_files_and_hunks() -> None:
    old = b"".join(f"line {i}\n".encode() for i in range(40))
    new = old.replace(b"line 2\n", b"two\n").replace(b"line 30\n", b"thirty\nmore\n")
    diff = file_diff("a.txt", old, new) + file_diff("img.bin", None, b"\x00\x01") + file_diff("gone", b"x\n", None)
    idx = DiffIndex.from_text(diff)
    assert [f.path for f in idx.files] == ["a.txt", "img.bin", "gone"]
    assert [f.status for f in idx.files] == ["modified", "added", "deleted"]
    assert idx.files[1].binary
    assert len(idx.hunks) == 4
    assert (idx.hunks[0].added, idx.hunks[0].removed) == (1, 1)
    assert (idx.hunks[1].added, idx.hunks[1].removed) == (2, 1)
    assert idx.hunks[2].whole_file and idx.hunks[2].file == "img.bin"
    lines = diff.split("\n")
    assert lines[idx.hunks[1].start].startswith("@@ ")
    assert "img.bin: the whole binary change" in describe_hunks(diff, {2})
    assert "+thirty" in describe_hunks(diff, {1})


def test_accept_two_of_three_hunks_in_worktree(tmp_path: Path) -> None:
    base = "".join(f"l{i}\n" for i in range(60))
    repo = make_repo(tmp_path / "r", {"f.txt": base})
    new = base.replace("l1\n", "one\nextra\n").replace("l30\n", "thirty\n").replace("l55\n", "")
    diff = file_diff("f.txt", base.encode(), new.encode())
    assert len(DiffIndex.from_text(diff).hunks) == 3
    apply(repo, select_hunks(diff, {0, 2}))
    expected = base.replace("l1\n", "one\nextra\n").replace("l55\n", "")
    assert (repo / "f.txt").read_text() == expected
    # only the middle one, whose +start must be shifted back by the rejected first hunk
    git(repo, "checkout", "--", "f.txt")
    patch = select_hunks(diff, {1})
    assert "@@ -28,7 +28,7 @@" in patch  # +start recomputed: 29 in the full diff, 28 without hunk 0
    apply(repo, patch)
    assert (repo / "f.txt").read_text() == base.replace("l30\n", "thirty\n")


def test_select_none_and_all(tmp_path: Path) -> None:
    diff = file_diff("a", b"1\n", b"2\n") + file_diff("b", None, b"new\n")
    assert select_hunks(diff, None) == diff
    assert select_hunks(diff, {0, 1}) == diff
    assert select_hunks(diff, set()) == ""
    only_new = select_hunks(diff, {1})
    assert DiffIndex.from_text(only_new).files[0].path == "b"


def test_rename_round_trip(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"old name.txt": "".join(f"{i}\n" for i in range(20))})
    git(repo, "mv", "old name.txt", "new name.txt")
    (repo / "new name.txt").write_text("".join(f"{i}\n" for i in range(20)).replace("3\n", "three\n"))
    git(repo, "add", "-A")
    diff = subprocess.run(["git", "diff", "--cached", "-M", "--binary"], cwd=repo, capture_output=True).stdout.decode()
    idx = DiffIndex.from_text(diff)
    assert idx.files[0].status == "renamed"
    assert (idx.files[0].old_path, idx.files[0].new_path) == ("old name.txt", "new name.txt")
    git(repo, "reset", "-q", "--hard")
    apply(repo, select_hunks(diff, {0}), "--index")
    assert (repo / "new name.txt").read_text().startswith("0\n1\n2\nthree\n")
    assert not (repo / "old name.txt").exists()


def test_quoted_paths() -> None:
    diff = file_diff('we"ird\tname', None, b"x\n")
    idx = DiffIndex.from_text(diff)
    assert idx.files[0].path == 'we"ird\tname'


def test_index_is_fast_enough_for_huge_diffs() -> None:
    hunk = "@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n"
    text = "".join(f"diff --git a/f{i} b/f{i}\n--- a/f{i}\n+++ b/f{i}\n" + hunk * 20 for i in range(2000))
    started = time.perf_counter()
    idx = DiffIndex.from_text(text)
    elapsed = time.perf_counter() - started
    assert len(idx.hunks) == 40000 and len(idx.files) == 2000
    assert elapsed < 30  # hang guard only; measured well under a second on 220k lines


lines_st = st.lists(st.sampled_from(["a", "b", "c", "d", "", "x y", "é", "tab\t"]), min_size=0, max_size=30)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(old=lines_st, new=lines_st, crlf=st.booleans(), final_nl=st.booleans(), data=st.data())
def test_property_random_hunks_apply(tmp_path_factory: pytest.TempPathFactory, old: list[str], new: list[str],
                                     crlf: bool, final_nl: bool, data: st.DataObject) -> None:
    eol = "\r\n" if crlf else "\n"
    old_b = (eol.join(old) + eol).encode()
    new_b = (eol.join(new) + (eol if final_nl else "")).encode()
    diff = file_diff("f.txt", old_b, new_b)
    if not diff:
        return
    repo = tmp_path_factory.mktemp("prop")
    git(repo, "init", "-q")
    (repo / "f.txt").write_bytes(old_b)
    n = len(DiffIndex.from_text(diff).hunks)
    chosen = data.draw(st.sets(st.integers(0, n - 1)))
    patch = select_hunks(diff, chosen)
    if chosen == set(range(n)):
        apply(repo, patch)
        assert (repo / "f.txt").read_bytes() == new_b
    elif patch:
        apply(repo, patch)
        # the unchosen hunks still apply on top and reach the full new content
        apply(repo, select_hunks(diff, set(range(n)) - chosen))
        assert (repo / "f.txt").read_bytes() == new_b
