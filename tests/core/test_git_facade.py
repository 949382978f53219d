"""The git façade on GitPython behaves as the subprocess calls it replaced: the same bytes, the same errors,
the same deadlines, and GitPython's own processes get the hardened settings too. Real git, real repos."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from tui.git.facade import GitRepo
from tui.git.repo import Repo
from tui.protocol.errors import RepoError


def test_output_and_stderr_are_gits_bytes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "app.py").write_bytes(b"caf\xe9\r\nno newline")
    out = GitRepo(repo).run("diff")
    assert out.returncode == 0 and b"+caf\xe9\r\n" in out.stdout and b"\\ No newline at end of file\n" in out.stdout
    bad = GitRepo(repo).run("rev-parse", "--verify", "nope")
    assert bad.returncode != 0 and bad.stderr.endswith(b"\n") and isinstance(bad.stderr, bytes)


def test_stdin_input_reaches_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    sha = GitRepo(repo).git("hash-object", "-w", "--stdin", input=b"hello\n").strip().decode()
    assert sha == "ce013625030ba8dba906f756967f9e9ca394464a"
    assert Repo(repo).read_blobs([sha]) == {sha: b"hello\n"}


def test_a_hung_call_times_out_and_its_children_are_killed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    git(repo, "config", "filter.slow.clean", "sleep 37.5; cat")  # the developer's own driver: it runs
    (repo / ".gitattributes").write_text("*.txt filter=slow\n")
    (repo / "a.txt").write_text("a\n")
    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        GitRepo(repo, timeout=2).run("add", "a.txt")
    (repo / ".git" / "index.lock").unlink(missing_ok=True)  # the killed git leaves its lock
    with pytest.raises(RepoError, match="did not finish within 2s"):
        GitRepo(repo, timeout=2).run_git("add", "a.txt")
    assert time.monotonic() - start < 25
    left = subprocess.run(["pgrep", "-f", "sleep 37.5"], capture_output=True, text=True).stdout
    assert left.strip() == ""


def test_a_missing_directory_is_an_error_not_the_current_one(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(make_repo(tmp_path / "repo"))
    with pytest.raises(OSError):
        GitRepo(tmp_path / "gone").run("status")


def test_the_locale_is_the_developers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GitPython sets LC_ALL=C; the façade gives git the developer's own (or none)."""
    repo = make_repo(tmp_path / "repo")
    probe = tmp_path / "env.txt"
    git(repo, "config", "filter.probe.clean", f"env > {probe}; cat")
    (repo / ".gitattributes").write_text("*.txt filter=probe\n")
    (repo / "a.txt").write_text("a\n")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    GitRepo(repo).run("add", "a.txt")
    seen = dict(line.split("=", 1) for line in probe.read_text().splitlines() if "=" in line)
    assert seen.get("LC_ALL", "") == "" and seen["LANG"] == "C.UTF-8"


def test_gitpythons_own_processes_get_the_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "repo")
    ran = tmp_path / "ran"
    git(repo, "config", "core.fsmonitor", f"touch {ran}; false")
    monkeypatch.setenv("GIT_SSH_COMMAND", f"touch {ran}")
    (repo / "app.py").write_text("changed\n")
    gp = GitRepo(repo).gitpython
    assert "app.py" in gp.git.status("--porcelain")
    assert gp.head.commit.tree["app.py"].data_stream.read().startswith(b"def add")  # the object database
    assert gp.is_dirty()
    assert not ran.exists()
    assert gp.git.environment()["GIT_SSH_COMMAND"] == "false"
    assert os.path.realpath(gp.working_tree_dir or "") == os.path.realpath(repo)
