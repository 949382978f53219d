"""What an interpreter is, told from its files alone: its environment root, version, site-packages, pytest.

Nothing here runs Python: a repo's ``.venv/bin/python`` may be any program, and it only ever runs
inside the sandbox.
"""

from __future__ import annotations

import glob
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tui.projenv.files import is_exe, key_values

_VERSION = re.compile(r"python(\d+\.\d+)")


@dataclass(frozen=True)
class Interpreter:
    """The chosen interpreter and why; ``python`` is '' when none was found (``why`` says what was looked at)."""

    python: str
    prefix: str = ""  # the environment's root (venv, conda env); '' for a bare interpreter
    source: str = "none"  # config | VIRTUAL_ENV | CONDA_PREFIX | .venv | poetry | pdm | hatch | pipenv | conda | PATH
    why: str = ""  # "the repo's .venv", "activated VIRTUAL_ENV", ...
    has_pytest: bool | None = None  # None: cannot tell from the files
    own: bool = False  # devagent's own environment
    trusted: bool = True  # False when the location came from the repo's files (a .venv, .pdm-python)
    pypackages: str = ""  # a PEP 582 ``__pypackages__/X.Y`` dir (pdm) whose lib goes on PYTHONPATH
    notes: tuple[str, ...] = field(default=())  # candidates passed over, and why (for doctor)

    @property
    def found(self) -> bool:
        return bool(self.python)

    def shown(self, base: Path) -> str:
        """The path as a command shows it: relative to ``base`` when it lives there."""
        if not self.python:
            return "python3"
        try:
            return os.path.relpath(self.python, base) if Path(self.python).is_relative_to(base) else self.python
        except ValueError:
            return self.python

    def line(self, repo: Path) -> str:
        """One short line for the model, `devagent test` and doctor."""
        if not self.python:
            return f"python: none found ({self.why})"
        own = ", devagent's own environment" if self.own and "devagent" not in self.why else ""
        if self.own and self.source in ("PATH", "VIRTUAL_ENV"):
            own = (", devagent's own environment, because the project has none of its own: python3 -m venv .venv "
                   "and the project's test tools installed there make one")
        return f"python: {self.shown(repo)} ({self.why}{own})"


def env_root(python: str) -> Path:
    """The environment a python executable belongs to: its venv/conda dir, else its installation prefix."""
    here = Path(python).parent.parent
    if (here / "pyvenv.cfg").is_file() or (here / "conda-meta").is_dir():
        return here
    return Path(os.path.realpath(python)).parent.parent


def is_venv(prefix: Path) -> bool:
    return (prefix / "pyvenv.cfg").is_file()


def python_in(prefix: Path) -> str:
    for name in ("python3", "python"):
        candidate = prefix / "bin" / name
        if is_exe(candidate):
            return str(candidate)
    return ""


def is_own(prefix: Path | str) -> bool:
    return os.path.realpath(prefix) == os.path.realpath(sys.prefix)


def version_of(python: str, prefix: Path) -> str:
    """'3.11' from pyvenv.cfg, the executable's real name, or the lib/pythonX.Y dir; '' when unknown."""
    cfg = key_values(prefix / "pyvenv.cfg")
    for key in ("version_info", "version"):
        m = re.match(r"(\d+\.\d+)", cfg.get(key, ""))
        if m:
            return m.group(1)
    m = _VERSION.search(os.path.basename(os.path.realpath(python)))
    if m:
        return m.group(1)
    libs = sorted(glob.glob(str(prefix / "lib" / "python3.*")))
    m = _VERSION.search(libs[-1]) if libs else None
    return m.group(1) if m else ""


def base_prefix(prefix: Path) -> Path | None:
    """The installation a venv was made from (pyvenv.cfg ``home`` is its bin directory)."""
    home = key_values(prefix / "pyvenv.cfg").get("home", "")
    return Path(home).parent if home.startswith("/") else None


def site_dirs(python: str, prefix: Path, home: str, depth: int = 0) -> list[Path]:
    """Where this interpreter imports installed packages from (without running it). ``depth`` bounds the walk
    through venvs made from venvs (a repo's pyvenv.cfg may point anywhere, in a loop too)."""
    version = version_of(python, prefix)
    pattern = f"python{version}" if version else "python3*"
    dirs = [Path(p) for lib in ("lib", "lib64") for p in glob.glob(str(prefix / lib / pattern / "site-packages"))]
    if is_venv(prefix):
        cfg = key_values(prefix / "pyvenv.cfg")
        base = base_prefix(prefix)
        if cfg.get("include-system-site-packages", "").lower() == "true" and base is not None and base != prefix \
                and depth < 3:
            dirs += site_dirs(python, base, home, depth + 1)
        return dirs
    if str(prefix) in ("/usr", "/usr/local"):
        dirs += [Path("/usr/lib/python3/dist-packages"), Path(f"/usr/local/lib/{pattern}/dist-packages")]
        dirs = [Path(p) for d in dirs for p in glob.glob(str(d))]
    if home and version:
        dirs.append(Path(home) / ".local" / "lib" / f"python{version}" / "site-packages")
    return [d for d in dirs if d.is_dir()]


def has_pytest(python: str, prefix: Path, home: str, extra: list[str] | None = None) -> bool | None:
    """True/False when the site dirs say so; None when none could be found (then we cannot tell)."""
    dirs = site_dirs(python, prefix, home) + [Path(p) for p in extra or [] if p]
    if not dirs:
        return None
    return any((d / "pytest" / "__init__.py").is_file() or (d / "pytest.py").is_file() for d in dirs)
