"""The project's Python: one choice, used by run_tests, run_python, `devagent test`, the TUI and doctor.

In order: ``project.python`` from the config; an activated VIRTUAL_ENV (or conda env) that is not
devagent's own; the repo's .venv/venv, from the suite's directory up to the repo root; the environments
poetry, pdm, hatch, pipenv and conda keep for the project; an activated environment that is devagent's
own (the developer chose it); python3 on PATH (a pyenv shim resolved to its version). devagent's own
interpreter is used only when it is one of those. Nothing is run to find out.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Mapping

from tui.projenv import managers
from tui.projenv.files import head, is_exe
from tui.projenv.pyinfo import Interpreter, env_root, has_pytest, is_own, is_venv, python_in

if TYPE_CHECKING:
    from tui.config import Config

_PYENV_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
NOTHING = "no VIRTUAL_ENV, no .venv or venv, no poetry/pdm/hatch/pipenv/conda environment, no python3 on PATH"


def _home(environ: Mapping[str, str]) -> str:
    return environ.get("HOME") or os.path.expanduser("~")


def _make(python: str, source: str, why: str, environ: Mapping[str, str], *, trusted: bool = True,
          pypackages: str = "", notes: list[str] | None = None) -> Interpreter:
    prefix = env_root(python)
    extra = [str(Path(pypackages) / "lib")] if pypackages else []
    is_env = is_venv(prefix) or (prefix / "conda-meta").is_dir()
    return Interpreter(python, str(prefix) if is_env else "", source, why,
                       has_pytest(python, prefix, _home(environ), extra), is_own(prefix), trusted, pypackages,
                       tuple(notes or ()))


def _dirs_up(cwd: Path, repo: Path) -> Iterator[Path]:
    """``cwd`` and its parents up to the repo root (only ``repo`` when cwd is outside it)."""
    here = cwd if cwd == repo or cwd.is_relative_to(repo) else repo
    while True:
        yield here
        if here == repo or here.parent == here:
            return
        here = here.parent


def unshim(python: str, environ: Mapping[str, str], cwd: Path) -> str:
    """A pyenv shim (python3, pytest...) resolved to the version it would run (PYENV_VERSION, .python-version,
    the global version file); anything else unchanged."""
    root = Path(environ.get("PYENV_ROOT") or Path(_home(environ)) / ".pyenv")
    if Path(python).parent != root / "shims":
        return python
    names = [environ.get("PYENV_VERSION", "")]
    names += [head(d / ".python-version", 4096) for d in (cwd, *cwd.parents)]
    names.append(head(root / "version", 4096))
    for text in names:
        for name in text.replace(":", " ").split():
            if name == "system":
                path = os.pathsep.join(p for p in environ.get("PATH", "").split(os.pathsep) if Path(p) != root / "shims")
                return shutil.which(Path(python).name, path=path) or python
            if _PYENV_VERSION.match(name) and ".." not in name:
                candidate = root / "versions" / name / "bin" / Path(python).name
                if is_exe(candidate):
                    return str(candidate)
        if text.strip():
            break  # the first file that names versions decides, as in pyenv
    return python


def _configured(setting: str, repo: Path, environ: Mapping[str, str]) -> Interpreter:
    raw = os.path.expanduser(setting)
    if "/" not in raw:
        path = shutil.which(raw, path=environ.get("PATH", "")) or ""
    else:
        path = raw if os.path.isabs(raw) else str(repo / raw)
    if path and os.path.isdir(path):
        path = python_in(Path(path))
    if not path or not is_exe(path):
        return Interpreter("", source="config", why=f"project.python = {setting!r} is not an executable or an env")
    return _make(path, "config", "project.python in the config", environ, trusted=os.path.isabs(raw))


def _activated(environ: Mapping[str, str], notes: list[str]) -> tuple[Interpreter | None, Interpreter | None]:
    """(an activated env that is not devagent's own, one that is)."""
    own = None
    for var, why in (("VIRTUAL_ENV", "activated VIRTUAL_ENV"), ("CONDA_PREFIX", "activated conda env")):
        value = environ.get(var, "")
        if not value.startswith("/") or (var == "CONDA_PREFIX" and environ.get("CONDA_DEFAULT_ENV") == "base"):
            continue  # conda's base env is every shell's default, not a choice for this project: PATH covers it
        python = python_in(Path(value))
        if not python:
            notes.append(f"{var}={value} has no bin/python")
            continue
        found = _make(python, var, why, environ, notes=notes)
        if not found.own:
            return found, None
        own = own or found
    return None, own


def _best(found: list[Interpreter]) -> Interpreter | None:
    """The first candidate with pytest, else the first one."""
    return next((f for f in found if f.has_pytest), found[0] if found else None)


def _managed(cwd: Path, repo: Path, environ: Mapping[str, str], notes: list[str]) -> Interpreter | None:
    for d in _dirs_up(cwd, repo):
        found = []
        for cand in managers.candidates(d, environ):
            path = str(cand.path)
            if not cand.path.is_absolute():
                path = shutil.which(path, path=environ.get("PATH", "")) or ""
            python = python_in(Path(path)) if path and os.path.isdir(path) else path
            if python and is_exe(python):
                found.append(_make(python, cand.source, cand.why, environ, trusted=cand.trusted,
                                   pypackages=cand.pypackages, notes=notes))
            else:
                notes.append(f"{cand.why}: no usable python at {cand.path}")
        if found:
            return _best(found)
    return None


def _repo_venv(cwd: Path, repo: Path, environ: Mapping[str, str], notes: list[str]) -> Interpreter | None:
    for d in _dirs_up(cwd, repo):
        for name in (".venv", "venv"):
            env = d / name
            if not env.is_dir():
                continue
            python = python_in(env)
            rel = os.path.relpath(env, repo)
            if python:
                return _make(python, ".venv", f"the repo's {rel}", environ, trusted=False, notes=notes)
            notes.append(f"{rel} has no working bin/python (a broken link?)")
    return None


def _on_path(cwd: Path, environ: Mapping[str, str], notes: list[str]) -> Interpreter | None:
    for name in ("python3", "python"):
        found = shutil.which(name, path=environ.get("PATH", ""))
        if found:
            python = unshim(found, environ, cwd)
            why = f"{name} on PATH" + (" via pyenv" if python != found else "")
            return _make(python, "PATH", why, environ, notes=notes)
    return None


def pytest_on_path(cwd: Path, environ: Mapping[str, str] | None = None) -> str:
    """A ``pytest`` command on PATH (pipx or the system's), for when python3 on PATH has none; '' if absent."""
    environ = os.environ if environ is None else environ
    found = shutil.which("pytest", path=environ.get("PATH", ""))
    return unshim(found, environ, Path(os.path.realpath(cwd))) if found else ""


def find_python(repo: Path, config: "Config | None" = None, cwd: Path | None = None,
                environ: Mapping[str, str] | None = None) -> Interpreter:
    """The project's interpreter for commands run in ``cwd`` (a suite's directory; default the repo root)."""
    environ = os.environ if environ is None else environ
    repo = Path(os.path.realpath(repo))
    cwd = Path(os.path.realpath(cwd)) if cwd is not None else repo
    setting = getattr(getattr(config, "project", None), "python", "") if config is not None else ""
    if setting:
        return _configured(setting, repo, environ)
    notes: list[str] = []
    active, own_active = _activated(environ, notes)
    found = active or _repo_venv(cwd, repo, environ, notes) or _managed(cwd, repo, environ, notes) \
        or own_active or _on_path(cwd, environ, notes)
    return found or Interpreter("", why=NOTHING, notes=tuple(notes))
