"""Selecting and staging a subset of hunks (unidiff parses them) on the shapes git writes specially: a missing
final newline, CRLF lines, a rename, a binary file, a new and a deleted file. Real git, real repos; the
patches are compared byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from tui.acp.hunks import apply_hunks
from tui.git.diffs import DiffIndex, select_hunks
from tui.git.repo import Repo
from tui.protocol.errors import PatchError

LINES = [f"line {n}\n" for n in range(1, 31)]


def edited(lines: list[str], at: dict[int, str]) -> list[str]:
    return [at.get(n, line) for n, line in enumerate(lines)]


def index_bytes(repo: Path, path: str) -> bytes:
    return Repo(repo).read_blob(f":{path}") or b""


def test_no_newline_at_end_hunk_selected_alone_and_with_others(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.txt": "".join(LINES)})
    (repo / "f.txt").write_text("".join(edited(LINES, {2: "two\n", 15: "fifteen\n"})) + "tail")
    r = Repo(repo)
    diff = r.diff_worktree()
    idx = DiffIndex.from_text(diff)
    assert len(idx.hunks) == 3 and diff.endswith("+tail\n\\ No newline at end of file\n")
    patch = select_hunks(diff, {2})
    assert patch == idx.file_header(0) + idx.hunk_text(2)  # nothing before it was dropped: no renumbering
    r.stage_hunks(diff, {0, 2})
    assert index_bytes(repo, "f.txt") == "".join(edited(LINES, {2: "two\n"})).encode() + b"tail"
    assert apply_hunks("".join(LINES), idx, [0, 2]) == "".join(edited(LINES, {2: "two\n"})) + "tail"


def test_a_skipped_hunk_renumbers_the_next_one_exactly(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.txt": "".join(LINES)})
    lines = edited(LINES, {15: "fifteen\n"})
    lines[2:3] = ["two\n", "two and a half\n", "two and three quarters\n"]
    (repo / "f.txt").write_text("".join(lines))
    diff = Repo(repo).diff_worktree()
    idx = DiffIndex.from_text(diff)
    second = idx.hunks[1]
    patch = select_hunks(diff, {1})
    assert patch == idx.file_header(0) + idx.hunk_text(1).replace(
        f"+{second.new_start},{second.new_len} @@", f"+{second.new_start - 2},{second.new_len} @@", 1)
    Repo(repo).stage_hunks(diff, {1})
    assert index_bytes(repo, "f.txt") == "".join(edited(LINES, {15: "fifteen\n"})).encode()


def test_crlf_lines_stage_with_their_carriage_returns(tmp_path: Path) -> None:
    crlf = [line.replace("\n", "\r\n") for line in LINES]
    repo = make_repo(tmp_path / "r")
    (repo / "w.txt").write_bytes("".join(crlf).encode())
    git(repo, "add", "w.txt")
    git(repo, "commit", "-qm", "crlf")
    (repo / "w.txt").write_bytes("".join(edited(crlf, {1: "one\r\n", 20: "twenty\r\n"})).encode())
    r = Repo(repo)
    diff = r.diff_worktree()
    assert "+one\r\n" in diff
    r.stage_hunks(diff, {1})
    assert index_bytes(repo, "w.txt") == "".join(edited(crlf, {20: "twenty\r\n"})).encode()
    idx = DiffIndex.from_text(diff)
    assert apply_hunks("".join(crlf), idx, [0]) == "".join(edited(crlf, {1: "one\r\n"}))


def test_a_rename_with_two_edits_keeps_its_header_with_one(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.txt": "".join(LINES)})
    git(repo, "mv", "a.txt", "b.txt")
    (repo / "b.txt").write_text("".join(edited(LINES, {1: "one\n", 25: "twenty-five\n"})))
    git(repo, "add", "b.txt")
    r = Repo(repo)
    diff = r.diff_staged()
    idx = DiffIndex.from_text(diff)
    assert idx.files[0].status == "renamed" and len(idx.hunks) == 2
    git(repo, "reset", "-q")
    patch = select_hunks(diff, {1})
    assert patch.startswith(idx.file_header(0)) and "rename from a.txt\nrename to b.txt\n" in patch
    r.apply(patch, cached=True)
    assert index_bytes(repo, "b.txt") == "".join(edited(LINES, {25: "twenty-five\n"})).encode()
    assert Repo(repo).read_blob(":a.txt") is None


def test_binary_new_and_deleted_files_are_whole_hunks_beside_text_hunks(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.txt": "".join(LINES), "gone.txt": "bye\n", "img.bin": "x"})
    (repo / "img.bin").write_bytes(bytes(range(256)) * 4)
    (repo / "gone.txt").unlink()
    (repo / "new.txt").write_text("new\n")
    (repo / "f.txt").write_text("".join(edited(LINES, {1: "one\n", 25: "twenty-five\n"})))
    r = Repo(repo)
    diff = r.diff_worktree()
    idx = DiffIndex.from_text(diff)
    by_path = {f.path: f for f in idx.files}
    assert by_path["img.bin"].binary and by_path["gone.txt"].status == "deleted"
    assert by_path["new.txt"].status == "added"
    whole = [h.index for h in idx.hunks if h.whole_file]
    assert [idx.hunks[i].file for i in whole] == ["img.bin"]
    text_hunks = list(by_path["f.txt"].hunks)
    keep = {*whole, text_hunks[1], *by_path["new.txt"].hunks}
    assert idx.file_hunks(by_path["img.bin"].index) == {}
    assert [h.target_length for h in idx.file_hunks(by_path["new.txt"].index).values()] == [1]
    r.stage_hunks(diff, keep)
    assert index_bytes(repo, "img.bin") == bytes(range(256)) * 4
    assert index_bytes(repo, "new.txt") == b"new\n"
    assert index_bytes(repo, "gone.txt") == b"bye\n"  # its deletion was not accepted
    assert index_bytes(repo, "f.txt") == "".join(edited(LINES, {25: "twenty-five\n"})).encode()
    r.stage_hunks(r.diff_worktree(), None)
    assert r.read_blob(":gone.txt") is None


def test_a_hunk_whose_lines_do_not_match_its_header_is_named_and_still_selected_by_its_header() -> None:
    """unidiff refuses it; selection falls back to the header index, as before (git apply then refuses it)."""
    diff = ("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n-a\n+b\n@@ -9 +9 @@\n-x\n+y\n")
    idx = DiffIndex.from_text(diff)
    with pytest.raises(PatchError, match="malformed"):
        idx.file_hunks(0)
    assert select_hunks(diff, {1}) == "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -9 +8 @@\n-x\n+y\n"
