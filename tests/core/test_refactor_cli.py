"""`devagent refactor` as the developer runs it: headless with --yes, and with the text approver (y / n / q) on
stdin; its exit codes; the tree changed only by what was approved, after a checkpoint."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from tests.core.test_refactor import LIB


def devagent(repo: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tui", "refactor", *args], cwd=repo, input=stdin, text=True,
                          capture_output=True, timeout=300, env=dict(os.environ))


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "lib", LIB)


def test_yes_applies_both_parts_after_checkpoints_and_says_what_was_checked(lib: Path) -> None:
    out = devagent(lib, "rename", "slugify", "make_slug", "--yes")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "def make_slug(" in (lib / "pkg/text.py").read_text()
    assert "from pkg import make_slug" in (lib / "tests/test_text.py").read_text()
    assert "`make_slug(text)`" in (lib / "README.md").read_text()  # the optional part, approved by --yes too
    assert "check tests: ok" in out.stdout and "before 1 passed" in out.stdout, out.stdout
    assert "[rope " in out.stdout and "parse ok, pyflakes ok, tests ok" in out.stdout
    assert "checkpoint refs/devagent/" in out.stderr
    assert git(lib, "for-each-ref", "refs/devagent/").count("\n") >= 2


def test_text_approver_yes_then_no_keeps_the_prose_as_it_was(lib: Path) -> None:
    out = devagent(lib, "rename", "slugify", "make_slug", "--no-tests", stdin="y\nn\n\n")
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("Approve? [y]es / [n]o / [e]dit / [q]uit") == 2
    assert "the optional part was left out" in out.stdout
    assert "def make_slug(" in (lib / "pkg/text.py").read_text()
    assert (lib / "README.md").read_text() == LIB["README.md"]


def test_declined_changes_nothing_and_q_stops(lib: Path) -> None:
    out = devagent(lib, "move", "clean", "--to", "pkg/cleaning.py", "--no-tests", stdin="n\n\n")
    assert out.returncode == 1 and "declined; nothing written" in out.stdout
    assert git(lib, "status", "--porcelain") == ""
    out = devagent(lib, "signature", "slugify", "--add", "lower=True", "--no-tests", stdin="q\n")
    assert out.returncode == 130
    assert git(lib, "status", "--porcelain") == ""


def test_hunks_can_be_chosen_with_e(lib: Path) -> None:
    out = devagent(lib, "signature", "slugify", "--add", "lower=True", "--no-tests", "--no-mentions",
                   stdin="e\n1\n")
    assert out.returncode == 0, out.stdout + out.stderr
    assert 'lower=True' in (lib / "pkg/text.py").read_text()
    assert "lower" not in (lib / "pkg/text.pyi").read_text()  # its hunk was left out


def test_what_cannot_be_done_exactly_exits_2_with_the_reason(lib: Path, tmp_path: Path) -> None:
    out = devagent(lib, "rename", "nothere", "x", "--yes")
    assert out.returncode == 2 and "no definition of nothere" in out.stderr and "Traceback" not in out.stderr
    two = make_repo(tmp_path / "two", {"a/__init__.py": "", "a/u.py": "def f():\n    pass\n", "b/__init__.py": "",
                                       "b/u.py": "def f():\n    pass\n"})
    out = devagent(two, "rename", "f", "g", "--yes")
    assert out.returncode == 2 and "ambiguous" in out.stderr and "--in PATH" in out.stderr
    out = devagent(two, "rename", "f", "g", "--yes", "--in", "b", "--no-tests")
    assert out.returncode == 0 and "def g()" in (two / "b/u.py").read_text()
    assert "def f()" in (two / "a/u.py").read_text()
    (lib / "data.json").write_text('{"a": 1,}\n')
    out = devagent(lib, "repair", "data.json", "--yes")
    if importlib.util.find_spec("tui.refactor.repair") is None:
        assert out.returncode == 2 and "not available yet" in out.stderr
    else:  # the data-file engine, through the same command and proposal
        assert out.returncode == 0 and (lib / "data.json").read_text() == '{"a": 1}\n', out.stdout + out.stderr


def test_extract_from_the_command_line(lib: Path) -> None:
    out = devagent(lib, "extract", "pkg/text.py", "8", "8", "stripped", "--yes", "--no-tests")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "def stripped(s):" in (lib / "pkg/text.py").read_text()
    assert "refactor" in devagent(lib, "--help").stdout
