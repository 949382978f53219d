"""What `devagent undo` says before it restores, and what `devagent checkpoints` lists, in real repos (issue 31.7).

Undo restores only the working tree. When the change it reverses was committed since the checkpoint, the commit
stays and the working tree then undoes it: the developer is told before approving, with the commit. The
checkpoint list says what changed after each checkpoint and what restoring it changes now ("0 file(s)
changed: -" was printed for checkpoints that differed, since it counted what changed before them).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.conftest import git
from tests.core.test_commit import devagent
from tui.git import checkpoints as cps
from tui.git.repo import Repo


def commit(repo: Path, message: str, *paths: str) -> str:
    git(repo, "add", *paths)
    git(repo, "commit", "-qm", message)
    return git(repo, "rev-parse", "--short", "HEAD").strip()


def test_undo_names_the_commit_that_holds_what_it_reverses(repo: Path) -> None:
    cps.create(repo, "before edit_file app.py", "s1")
    (repo / "app.py").write_text("def add(a, b):\n    return a - b\n")
    (repo / "README.md").write_text("# demo\nmore\n")
    (repo / "notes.txt").write_text("not committed\n")
    sha = commit(repo, "feat: subtract", "app.py", "README.md")
    (repo / "README.md").write_text("# demo\nmore\nand uncommitted\n")  # committed, then changed again
    out = devagent(repo, "undo", "--yes")
    assert out.returncode == 0, out.stderr
    report = out.stdout[out.stdout.index("Already committed"):out.stdout.index("Restoring changes")]
    assert "2 of the 3 files this undo changes back" in report
    assert f"app.py: in {sha} feat: subtract" in report
    assert f"README.md: partly, in {sha} feat: subtract" in report
    assert "notes.txt" not in report
    assert "Restored s1/1" in out.stdout
    assert git(repo, "rev-parse", "--short", "HEAD").strip() == sha  # the commit stays
    assert "return a + b" in (repo / "app.py").read_text()
    assert " M app.py" in git(repo, "status", "--porcelain")  # the working tree now undoes the commit


def test_a_file_now_as_committed_is_reported_whichever_checkpoint(repo: Path) -> None:
    """Undo, undo of the undo, then undo again: the last one deletes a file that is committed (before that
    checkpoint was taken), so the working tree will no longer match HEAD: said, with the commit."""
    cps.create(repo, "before run_command", "s1")
    (repo / ".gitignore").write_text("*.log\n")
    sha = commit(repo, "chore: ignore logs", ".gitignore")
    assert f".gitignore: in {sha} chore: ignore logs" in devagent(repo, "undo", "--yes").stdout
    redo = devagent(repo, "undo", "--yes")
    assert redo.returncode == 0 and "Already committed" not in redo.stdout  # it makes the tree match HEAD again
    again = devagent(repo, "undo", "--yes")
    assert "Already committed: the file this undo changes back" in again.stdout, again.stdout
    assert f".gitignore: in {sha} chore: ignore logs" in again.stdout and not (repo / ".gitignore").exists()


def test_nothing_committed_says_nothing_and_the_prompt_comes_after_the_report(repo: Path) -> None:
    cps.create(repo, "before edit", "s1")
    (repo / "app.py").write_text("changed\n")
    out = devagent(repo, "undo", stdin="n\n")  # no terminal: refused before anything is written
    assert out.returncode == 3 and "Already committed" not in out.stdout
    assert "Restoring changes 1 file in the working tree" in out.stdout  # one file, not "1 file(s)"


def test_a_commit_before_the_checkpoint_is_not_reported(repo: Path) -> None:
    (repo / "app.py").write_text("def add(a, b):\n    return b + a\n")
    commit(repo, "style: swap", "app.py")
    cps.create(repo, "before edit", "s1")
    (repo / "app.py").write_text("later\n")
    out = devagent(repo, "undo", "--yes")
    assert out.returncode == 0 and "Already committed" not in out.stdout, out.stdout


def listing(repo: Path) -> list[str]:
    out = devagent(repo, "checkpoints")
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_checkpoints_are_listed_by_what_they_covered(repo: Path) -> None:
    cps.create(repo, "before run_command: true", "s1")  # the command changed nothing
    cps.create(repo, "before edit_file app.py", "s1")
    (repo / "app.py").write_text("edited\n")
    cps.create(repo, "before write_file new.txt", "s1")
    (repo / "new.txt").write_text("new\n")
    (repo / "README.md").write_text("changed too\n")
    lines = listing(repo)
    assert not any("file(s)" in line or "changed: -" in line for line in lines), lines
    text = "\n".join(lines)
    assert "before write_file new.txt\n     then 2 files (README.md, new.txt) changed (up to now); restoring it " \
           "changes 2 files (README.md, new.txt)" in text
    assert "before edit_file app.py\n     then 1 file (app.py) changed; restoring it changes 3 files " \
           "(README.md, app.py, new.txt)" in text
    assert "before run_command: true\n     then no file changed; restoring it changes 3 files" in text


def test_the_working_tree_equal_to_a_checkpoint_and_json(repo: Path) -> None:
    cps.create(repo, "before edit", "s1")
    (repo / "app.py").write_text("edited\n")
    cps.restore(repo, cps.resolve(repo, None))
    text = "\n".join(listing(repo))
    assert "before edit\n     then 1 file (app.py) changed; the working tree equals it" in text
    assert "before undo to s1/1 (before edit)\n     then 1 file (app.py) changed (up to now); restoring it " \
           "changes 1 file (app.py)" in text
    data = json.loads(devagent(repo, "checkpoints", "--json").stdout)
    assert [(c["name"], c["changed_after"], c["restoring_changes"]) for c in data] == [
        ("s1/2", ["app.py"], ["app.py"]), ("s1/1", ["app.py"], [])]


def test_a_file_saved_by_an_undo_is_no_change_while_it_is_the_same(repo: Path) -> None:
    """The checkpoint an undo takes holds a file no checkpoint covered (it was ignored); once the working tree is
    back to that state, the file is there with the same bytes: restoring that checkpoint changes nothing."""
    (repo / "notes.txt").write_text("draft\n")
    cps.create(repo, "before ignoring", "s1")
    (repo / ".gitignore").write_text("notes.txt\n")
    (repo / "notes.txt").write_text("later\n")
    first = devagent(repo, "undo", "--yes")
    assert "Saved first: notes.txt (1 file no checkpoint holds" in first.stdout and "keeps it" in first.stdout
    again = devagent(repo, "undo", "--yes")  # the undo of the undo
    assert again.returncode == 0 and (repo / "notes.txt").read_text() == "later\n", again.stdout + again.stderr
    text = "\n".join(listing(repo))
    assert "before undo to s1/1 (before ignoring)\n     then 2 files (.gitignore, notes.txt) changed; the working " \
           "tree equals it\n     also holds what an undo replaced, saved first: notes.txt" in text, text
    third = devagent(repo, "undo", "--yes")  # the newest that really differs: the one before the undo of the undo
    assert "Checkpoint s1/3" in third.stdout and (repo / "notes.txt").read_text() == "draft\n", third.stdout


def test_a_session_filter_still_counts_up_to_the_next_checkpoint(repo: Path) -> None:
    cps.create(repo, "mine", "s1")
    (repo / "app.py").write_text("edited\n")
    cps.create(repo, "theirs", "s2")
    (repo / "README.md").write_text("x\n")
    out = devagent(repo, "checkpoints", "--session", "s1")
    assert "mine\n     then 1 file (app.py) changed; restoring it changes 2 files" in out.stdout, out.stdout
    assert "theirs" not in out.stdout


def test_a_file_changed_in_the_same_second_as_the_last_checkpoint(repo: Path) -> None:
    """devagent's own index is a stat cache. git compares whole seconds here, so an edit of the same size in the
    second a checkpoint was taken (the usual case: the edit a checkpoint is taken for) looks unchanged by its stat;
    git re-reads such a file only while the index file is not newer than it. The cache's copy keeps its mtime."""
    r = Repo(repo)
    cps.snapshot_tree(r)  # the cache exists
    for _ in range(20):  # until the three steps fall in one second
        second = int(time.time())
        (repo / "app.py").write_text("def add(a, b):\n    return a + b\n")
        first = cps.snapshot_tree(r)
        (repo / "app.py").write_text("def add(a, b):\n    return a - b\n")
        if int(time.time()) == second:
            break
    else:
        pytest.skip("the clock crossed a second boundary every time")
    time.sleep(1.05)  # the next checkpoint comes a second later or more
    assert cps.snapshot_tree(r) != first


def test_checkpoints_hold_the_bytes_on_disk_whatever_the_attributes(repo: Path) -> None:
    (repo / ".gitattributes").write_text("* text eol=crlf\n*.u16 working-tree-encoding=UTF-16\n*.c ident\n")
    files = {"a.txt": b"lf\nand crlf\r\n", "b.u16": "x\n".encode("utf-16"), "c.c": b"/* $Id: abc $ */\n"}
    for name, data in files.items():
        (repo / name).write_bytes(data)
    git(repo, "add", "-A")  # the developer's index holds git's normalised blobs
    git(repo, "config", "core.autocrlf", "true")
    cp = cps.create(repo, "before", "s1")
    for name in files:
        (repo / name).write_bytes(b"x\n")
    cps.restore(repo, cp)
    assert {name: (repo / name).read_bytes() for name in files} == files
