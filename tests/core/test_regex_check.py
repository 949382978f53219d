"""Which search patterns `git grep -E` may run on the host (tui/safety/regex_check.py), checked against real git:
everything accepted finishes quickly on a line that makes the refused ones run for minutes."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import make_repo
from tui.safety.regex_check import pattern_problem

ACCEPTED = ["def add", r"\.venv", r"foo\(.*\)", r"[a-z_]+\s*=", r"^class [A-Z]\w+", r"a{1,255}", r"([a-z]+ ){11}x",
            r"(ab|cd){1,200}x", r"foo{bar}", r"[\1]", r"\\1", r"x{2}y{3}", "a)b", "(((", r"[]a]{2}"]
REFUSED = [r"(a*)\1", r"(.*)(.*)\2\1x", r"(a{1,32767})", r"a{30000}b", r"((a{1,100}){1,100}){1,100}",
           r"(.{0,1000}){0,1000}x", r"x{1,1000}{1,1000}", r"[ab]{1,20000}$", "(" * 60 + "a" + ")" * 60]


@pytest.mark.parametrize("pattern", ACCEPTED)
def test_plain_patterns_are_accepted_and_run_fast(pattern: str, tmp_path: Path) -> None:
    assert pattern_problem(pattern) == ""
    repo = make_repo(tmp_path / "r", {"data.txt": ("a" * 60 + "\n") * 20})
    started = time.monotonic()
    subprocess.run(["git", "grep", "-n", "-I", "-i", "-E", "-e", pattern, "--", "."], cwd=repo, capture_output=True,
                   timeout=20, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"})
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("pattern", REFUSED)
def test_pathological_patterns_are_refused_with_a_reason(pattern: str) -> None:
    assert pattern_problem(pattern) != ""
