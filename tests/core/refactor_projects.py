"""Three real Python projects for the refactoring tests: pinned PyPI sdists (sha256-checked, cached in the bench
cache, ~/.cache/devagent/bench, by scripts/benchreal/sources.py), each a git repository with its own test suite.

Not the benchmark's projects: toolz (functional utilities, a package with its tests inside it and a
``from .itertoolz import *`` package), isodate (a src/ layout, tests beside it, a generated version.py the tree
ignores) and boltons (many modules importing one helper inside ``try: ... except ImportError``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from benchreal.sources import BenchError, extract, fetch  # noqa: E402
from benchreal.spec import Source  # noqa: E402


@dataclass(frozen=True)
class Project:
    source: Source
    tests: tuple[str, ...]  # what pytest runs
    pythonpath: str  # where the package is imported from
    deselect: tuple[str, ...] = ()  # upstream tests that fail here before any change (say why)


PROJECTS = {
    "toolz": Project(Source("pypi", "toolz", "1.0.0",
                            "2c86e3d9a04798ac556793bced838816296a2f085017664e4995cb40a1047a02", "toolz-1.0.0"),
                     ("toolz/tests",), "."),
    "isodate": Project(Source("pypi", "isodate", "0.7.2",
                              "4cd1aa0f43ca76f4a6c6c0292a85f40b35ec2e43e315b59f06e6d32171a953e6", "isodate-0.7.2"),
                       ("tests",), "src"),
    "boltons": Project(Source("pypi", "boltons", "24.1.0",
                              "4a49b7d57ee055b83a458c8682a2a6f199d263a8aa517098bda9bab813554b87", "boltons-24.1.0"),
                       ("tests",), ".",
                       # counts the files of the directory it runs in: a pytest temp dir has others
                       ("tests/test_fileutils.py::test_iter_find_files",)),
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def build(name: str, where: Path) -> Path:
    """The project's sources as a fresh git repository at ``where`` (skips the test when they cannot be had)."""
    project = PROJECTS[name]
    try:
        archive = fetch(project.source)
    except (BenchError, OSError, subprocess.SubprocessError) as err:
        pytest.skip(f"{name} {project.source.version} could not be fetched: {err}")
    extract(project.source, archive, where)
    for junk in ("*.egg-info", "PKG-INFO"):
        for path in where.glob(junk):
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    git(where, "init", "-q", "-b", "main")
    git(where, "add", "-A")
    git(where, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm", "upstream")
    return where


def run_suite(name: str, repo: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    """The project's own tests, as its developers run them (not sandboxed: pinned, known upstream code)."""
    project = PROJECTS[name]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(repo / project.pythonpath), "PYTHONDONTWRITEBYTECODE": "1",
           "HOME": str(repo)}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p",
                           "no:randomly", *project.tests, *[f"--deselect={t}" for t in project.deselect]], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=timeout)
