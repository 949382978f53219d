"""Real virtualenvs and projects for the project-environment tests (session-scoped: a venv takes a moment).

Venvs are made with ``python -m venv --without-pip`` from the interpreter running the tests (its base, when
that is itself a venv). "Installing" a project into one is done the way an editable install of a src layout
does it: a ``.pth`` file naming ``src`` (pip would need the network for build isolation).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from tests.conftest import make_repo
from tests.core.fixtures_repos import PYTEST_QUIET

LIB = {
    "pyproject.toml": '[project]\nname = "mylib"\nversion = "0.1"\n\n[tool.pytest.ini_options]\n' + PYTEST_QUIET,
    "src/mylib/__init__.py": "def double(x):\n    return x * 3\n",
    "tests/test_lib.py": ("from mylib import double\n\n\ndef test_double():\n    assert double(2) == 4\n\n\n"
                          "def test_zero():\n    assert double(0) == 0\n"),
}
UNITTEST_PROJECT = {
    "calc.py": "def add(a, b):\n    return a - b\n\n\ndef neg(a):\n    return -a\n",
    "tests/test_calc.py": ("import unittest\n\nfrom calc import add, neg\n\n\nclass TestCalc(unittest.TestCase):\n"
                           "    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n\n"
                           "    def test_neg(self):\n        self.assertEqual(neg(2), -2)\n\n"
                           "    @unittest.skip('later')\n    def test_later(self):\n        pass\n"),
}


def make_venv(path: Path, *, system_site: bool = False, python: str = sys.executable) -> Path:
    args = [python, "-m", "venv", "--without-pip", *(["--system-site-packages"] if system_site else []), str(path)]
    subprocess.run(args, check=True, capture_output=True, timeout=120)
    return path


def site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


def imports(venv: Path, module: str) -> bool:
    return subprocess.run([str(venv / "bin" / "python"), "-c", f"import {module}"], capture_output=True).returncode == 0


def give_pytest(venv: Path) -> None:
    """A venv that can run pytest: the system site packages already have it (the usual case), else a .pth
    naming the site dir pytest is installed in for the tests themselves."""
    if not imports(venv, "pytest"):
        import pytest as installed

        (site_packages(venv) / "zz-pytest.pth").write_text(str(Path(installed.__file__).parent.parent) + "\n")


@pytest.fixture(scope="session")
def bare_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv under /tmp with nothing installed: no pytest."""
    venv = make_venv(tmp_path_factory.mktemp("venvs") / "bare")
    assert not imports(venv, "pytest")
    return venv


@pytest.fixture
def project_venv(tmp_path: Path) -> Path:
    """A venv under /tmp, outside the repo, with the system site packages (and so pytest); one per test,
    because tests install their project into it."""
    venv = make_venv(tmp_path / "envs" / "project-venv", system_site=True)
    give_pytest(venv)
    assert imports(venv, "pytest")
    return venv


def lib_repo(path: Path, venv: Path | None = None) -> Path:
    """The src-layout library (one failing test of two), installed into ``venv`` when given."""
    repo = make_repo(path, LIB)
    if venv is not None:
        (site_packages(venv) / "_mylib.pth").write_text(str(repo / "src") + "\n")
    return repo


def pipx_like_env(venv: Path | None, **extra: str) -> dict[str, str]:
    """devagent's environment as with a pipx install: its own interpreter runs it, not on PATH, nothing active;
    ``venv`` is the project's environment, activated (VIRTUAL_ENV and PATH) when given."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "CONDA_PREFIX")}
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
    if venv is not None:
        env["VIRTUAL_ENV"] = str(venv)
        env["PATH"] = f"{venv}/bin:" + env["PATH"]
    env.update(extra)
    return env


@pytest.fixture
def unittest_repo(tmp_path: Path) -> Iterator[Path]:
    """A unittest-only project whose own .venv (git-ignored, no pytest in it) is its environment."""
    repo = make_repo(tmp_path / "calc", {**UNITTEST_PROJECT, ".gitignore": ".venv\n"})
    make_venv(repo / ".venv")
    assert not imports(repo / ".venv", "pytest")
    yield repo
