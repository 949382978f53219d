"""Running a project's own test suite (and snippets of its code) the way its developers do, and reading the counts."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchreal.fixtures import Fixtures
    from benchreal.spec import Project

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# The checks run code the model wrote: the rest of the system read-only, no network, only the work dir writable.
BWRAP = ("--die-with-parent", "--new-session", "--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop",
         "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp")


def confined(fixtures: Fixtures, argv: list[str]) -> list[str]:
    """``argv`` under bubblewrap when it is installed (else as it is: the docs say the checks then run unconfined)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return argv
    return [bwrap, *BWRAP, "--bind", str(fixtures.work), str(fixtures.work), "--", *argv]


@dataclass
class Counts:
    """A suite run as the harness saw it: tests (or tape assertions) passed / failed / errored, and the tail."""

    passed: int
    failed: int
    errors: int
    rc: int
    tail: str

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errors


def parse_counts(parser: str, text: str) -> tuple[int, int, int]:
    def num(pattern: str) -> int:
        found = re.findall(pattern, text, re.M)
        return int(found[-1]) if found else 0

    if parser == "pytest":
        return num(r"(\d+) passed"), num(r"(\d+) failed"), num(r"(\d+) errors?\b")
    if parser == "unittest":
        ran = num(r"Ran (\d+) tests?")
        failed, errors = num(r"failures=(\d+)"), num(r"errors=(\d+)")
        return ran - failed - errors, failed, errors
    if parser == "jest":  # "Tests:       2 failed, 230 passed, 232 total"; a test file that does not load is an error
        return (num(r"^Tests:.*?(\d+) passed"), num(r"^Tests:.*?(\d+) failed"),
                len(re.findall(r"Test suite failed to run", text)))
    if parser == "mocha":  # "139 passing (50ms)", "2 failing"
        return num(r"^\s*(\d+) passing"), num(r"^\s*(\d+) failing"), 0
    return num(r"^# pass\s+(\d+)"), num(r"^# fail\s+(\d+)"), 0 if re.search(r"^# (ok|fail)", text, re.M) else 1


def suite_argv(fixtures: Fixtures, project: Project, repo: Path) -> list[str]:
    """The suite's words with "{python}", "{bin}" and "{repo}" filled in from the project's environment."""
    venv = fixtures.venv_dir(project)
    return [w.replace("{python}", str(venv / "bin" / "python")).replace("{bin}", str(venv / "bin"))
            .replace("{repo}", str(repo)) for w in project.suite.argv]


def run_suite(fixtures: Fixtures, project: Project, repo: Path) -> Counts:
    try:
        out = subprocess.run(confined(fixtures, suite_argv(fixtures, project, repo)), cwd=repo, capture_output=True,
                             text=True, timeout=300, env=fixtures.check_env(project, repo), stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return Counts(0, 0, 1, -1, "the suite timed out")
    text = ANSI.sub("", out.stdout + "\n" + out.stderr)
    passed, failed, errors = parse_counts(project.suite.parser, text)
    return Counts(passed, failed, errors, out.returncode, text.strip()[-400:])


def run_code(fixtures: Fixtures, project: Project, repo: Path, code: str) -> tuple[bool, str]:
    """A snippet in the project's interpreter (Python, or node for a JS project): (exit 0, last error line)."""
    argv = ["node", "-e", code] if project.env.layout == "node" else [str(fixtures.python(project)), "-c", code]
    try:
        out = subprocess.run(confined(fixtures, argv), cwd=repo, capture_output=True, text=True, timeout=120,
                             env=fixtures.check_env(project, repo), stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return False, "timed out after 120 s"
    lines = (out.stderr or out.stdout).strip().splitlines()
    return out.returncode == 0, (lines[-1] if lines else "")[:200]
