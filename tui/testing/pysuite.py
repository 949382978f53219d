"""A directory's Python suite, in the project's own interpreter: pytest, or unittest when that interpreter has
no pytest and every test file is a unittest TestCase module (pytest is the better reporter when present).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from tui.projenv import find_python
from tui.projenv.interpreter import pytest_on_path
from tui.projenv.files import head
from tui.testing.model import Suite

if TYPE_CHECKING:
    from tui.config import Config

TEST_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test)\.py$")
USES_PYTEST = re.compile(r"^\s*(?:import pytest|from pytest\b|from _pytest\b|@pytest\.)", re.M)
USES_UNITTEST = re.compile(r"\bunittest\b|\bTestCase\b")
MAX_FILES = 40
CONFIGURED = ("pytest.ini", "pyproject.toml [tool.pytest", "setup.cfg [tool:pytest]", "tox.ini [pytest]")


def _test_files(files_in_dir: list[str]) -> list[str]:
    return [f for f in files_in_dir if TEST_FILE.search(f) and (f.startswith(("tests/", "test/")) or "/" not in f)]


def unittest_only(d: Path, files_in_dir: list[str]) -> bool:
    """Every test file mentions unittest/TestCase and none imports pytest (read bounded, never blocking)."""
    tests = _test_files(files_in_dir)[:MAX_FILES]
    if not tests:
        return False
    texts = [head(d / f, 64 * 1024) for f in tests]
    return all(USES_UNITTEST.search(t) and not USES_PYTEST.search(t) for t in texts)


def unittest_argv(python: str, d: Path, files_in_dir: list[str]) -> tuple[list[str], str]:
    """``python -m unittest discover`` with the start dir, top dir and file pattern the tests need."""
    tests = _test_files(files_in_dir)
    start = next((top for top in ("tests", "test") if any(f.startswith(top + "/") for f in tests)), ".")
    argv = [python, "-m", "unittest", "discover", "-v", "-s", start]
    if start != "." and (d / start / "__init__.py").is_file():
        argv += ["-t", "."]  # a tests package: modules import as tests.test_x
    if tests and all(Path(f).name.endswith("_test.py") for f in tests):
        argv += ["-p", "*_test.py"]
    return argv, start


def python_suite(d: Path, repo: Path, prefix: str, source: str, files_in_dir: list[str],
                 config: "Config | None") -> Suite:
    interp = find_python(repo, config, d)
    line = interp.line(repo)
    python = interp.shown(d)
    missing = "" if interp.found else interp.why
    configured = source.startswith(CONFIGURED)
    if not configured and interp.has_pytest is not True and unittest_only(d, files_in_dir):
        argv, start = unittest_argv(python, d, files_in_dir)
        why = "no pytest in the environment" if interp.has_pytest is False else "unittest TestCases"
        return Suite(prefix + "unittest", "unittest", d, argv, f"{source}, {why}", interpreter=line, start=start,
                     missing=missing)
    runner = pytest_on_path(d) if interp.source == "PATH" and interp.has_pytest is False else ""
    if runner:  # no project environment at all, and its python3 has no pytest: what `pytest` in a shell runs
        return Suite(prefix + "pytest", "pytest", d, [runner], f"{source}, pytest on PATH", interpreter=(
            f"{line}; it has no pytest, so {runner} (pytest on PATH) runs the tests"))
    return Suite(prefix + "pytest", "pytest", d, [python, "-m", "pytest"], source, interpreter=line, missing=missing)
