"""The environments project tools keep outside the project, found where each tool puts them.

poetry, hatch and pipenv name an environment after the project and a hash of its path; pdm records the
interpreter in ``.pdm-python`` (or keeps packages in ``__pypackages__``); conda envs are named in
environment.yml. None of these tools is run: a repo is hostile, and asking the tool would execute it.
Every name taken from the repo must be a plain name before it becomes part of a path.
"""

from __future__ import annotations

import base64
import glob
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from tui.projenv.files import head, safe_name, table, toml


@dataclass(frozen=True)
class Found:
    """A candidate: an environment root (or a python executable), the tool, and who chose the location."""

    path: Path
    source: str  # poetry | pdm | hatch | pipenv | conda
    why: str
    trusted: bool = True  # False when the path was read from a repo file
    pypackages: str = ""


def _home(environ: Mapping[str, str]) -> Path:
    return Path(environ.get("HOME") or os.path.expanduser("~"))


def _xdg(environ: Mapping[str, str], var: str, default: str) -> Path:
    value = environ.get(var, "")
    return Path(value) if value.startswith("/") else _home(environ) / default


def _b64_8(digest: bytes) -> str:
    return base64.urlsafe_b64encode(digest).decode()[:8]


def poetry_env_name(name: str, project: Path) -> str:
    """poetry's ``{name}-{hash}`` (EnvManager.generate_env_name): sha256 of the project's real path."""
    sanitized = re.sub(r'[ $`!*@"\\\r\n\t]', "_", name.lower())[:42]
    return f"{sanitized}-{_b64_8(hashlib.sha256(os.path.realpath(project).encode()).digest())}"


def _poetry_dirs(environ: Mapping[str, str]) -> list[Path]:
    cache = Path(environ["POETRY_CACHE_DIR"]) if environ.get("POETRY_CACHE_DIR", "").startswith("/") else \
        _xdg(environ, "XDG_CACHE_HOME", ".cache") / "pypoetry"
    if environ.get("POETRY_VIRTUALENVS_PATH", "").startswith("/"):
        return [Path(environ["POETRY_VIRTUALENVS_PATH"])]
    config_dir = Path(environ["POETRY_CONFIG_DIR"]) if environ.get("POETRY_CONFIG_DIR", "").startswith("/") else \
        _xdg(environ, "XDG_CONFIG_HOME", ".config") / "pypoetry"
    configured = table(toml(config_dir / "config.toml"), "virtualenvs").get("path")
    if isinstance(configured, str) and configured:
        return [Path(os.path.expanduser(configured.replace("{cache-dir}", str(cache))))]
    return [cache / "virtualenvs"]


def _poetry(project: Path, data: dict[str, Any], environ: Mapping[str, str]) -> Iterator[Found]:
    poetry = table(data, "tool", "poetry")
    if not poetry and not (project / "poetry.lock").is_file():
        return
    name = safe_name(poetry.get("name") or table(data, "project").get("name"))
    if not name:
        return
    for env_name in dict.fromkeys((poetry_env_name(_normalized(name), project), poetry_env_name(name, project))):
        for base in _poetry_dirs(environ):  # poetry 2 names it after the normalized name, older ones the raw one
            for env in sorted(glob.glob(str(base / f"{glob.escape(env_name)}-py*")), reverse=True):
                yield Found(Path(env), "poetry", f"poetry's environment {Path(env).name}")


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _hatch(project: Path, data: dict[str, Any], environ: Mapping[str, str]) -> Iterator[Found]:
    if not table(data, "tool", "hatch") and not (project / "hatch.toml").is_file():
        return
    name = safe_name(table(data, "project").get("name"))
    if not name:
        return
    data_dir = Path(environ["HATCH_DATA_DIR"]) if environ.get("HATCH_DATA_DIR", "").startswith("/") else \
        _xdg(environ, "XDG_DATA_HOME", ".local/share") / "hatch"
    virtual = data_dir / "env" / "virtual"
    checksum = _b64_8(hashlib.sha256(str(project).encode()).digest())
    seen: set[str] = set()
    for project_name in dict.fromkeys((name, _normalized(name))):
        for storage in (virtual / project_name / checksum, virtual / f"{project_name}-{checksum}"):
            envs = sorted(glob.glob(str(storage / "*")))
            # the default environment first, then hatch-test's, then the rest
            envs.sort(key=lambda e: (Path(e).name != project_name, not Path(e).name.startswith("hatch-test")))
            for env in envs:
                if env not in seen:
                    seen.add(env)
                    yield Found(Path(env), "hatch", f"hatch's environment {Path(env).name}")


def _pipenv(project: Path, environ: Mapping[str, str]) -> Iterator[Found]:
    pipfile = project / "Pipfile"
    if not pipfile.is_file():
        return
    workon = Path(environ["WORKON_HOME"]) if environ.get("WORKON_HOME", "").startswith("/") else \
        _xdg(environ, "XDG_DATA_HOME", ".local/share") / "virtualenvs"
    digest = _b64_8(hashlib.sha256(str(pipfile).encode()).digest()[:6])
    for pattern in (r'[ &$`!*@"()\[\]\\\r\n\t]', r'[ $`!*@"\\\r\n\t]'):  # pipenv's sanitizer, new and old
        name = re.sub(pattern, "_", project.name)[:42]
        for env in sorted(glob.glob(str(workon / f"{glob.escape(name)}-{glob.escape(digest)}*"))):
            yield Found(Path(env), "pipenv", f"pipenv's environment {Path(env).name}")


def _pdm(project: Path, data: dict[str, Any]) -> Iterator[Found]:
    recorded = head(project / ".pdm-python", 4096).strip().splitlines()
    python = recorded[0].strip() if recorded else ""
    uses_pdm = bool(python) or bool(table(data, "tool", "pdm")) or (project / "pdm.lock").is_file()
    if not uses_pdm:
        return
    packages = sorted(glob.glob(str(project / "__pypackages__" / "3.*")), reverse=True)
    if packages and (Path(packages[0]) / "lib").is_dir():
        version = Path(packages[0]).name
        interpreter = python if python.startswith("/") else ""
        yield Found(Path(interpreter or f"python{version}"), "pdm", f"pdm's __pypackages__/{version}", False,
                    packages[0])
    if python.startswith("/"):
        yield Found(Path(python), "pdm", "pdm's interpreter (.pdm-python)", False)


def _conda_env_dirs(environ: Mapping[str, str]) -> list[Path]:
    dirs = [Path(p) for p in environ.get("CONDA_ENVS_PATH", "").split(":") if p.startswith("/")]
    for var in ("CONDA_EXE", "MAMBA_EXE"):
        if environ.get(var, "").startswith("/"):
            dirs.append(Path(environ[var]).parent.parent / "envs")
    if environ.get("MAMBA_ROOT_PREFIX", "").startswith("/"):
        dirs.append(Path(environ["MAMBA_ROOT_PREFIX"]) / "envs")
    home = _home(environ)
    dirs += [home / d / "envs" for d in ("miniconda3", "anaconda3", "miniforge3", "mambaforge", "micromamba")]
    return dirs + [home / ".conda" / "envs", Path("/opt/conda/envs")]


def _conda(project: Path, environ: Mapping[str, str]) -> Iterator[Found]:
    for file in ("environment.yml", "environment.yaml"):
        m = re.search(r"^name:\s*['\"]?([^'\"\s#]+)", head(project / file, 64 * 1024), re.M)
        name = safe_name(m.group(1)) if m else ""
        if not name:
            continue
        for envs in _conda_env_dirs(environ):
            if (envs / name / "conda-meta").is_dir():
                yield Found(envs / name, "conda", f"conda env {name!r} from {file}")
        return


def candidates(project: Path, environ: Mapping[str, str]) -> Iterator[Found]:
    """Every tool-managed environment of the project rooted at ``project``, in the order they are tried."""
    data = toml(project / "pyproject.toml")
    yield from _poetry(project, data, environ)
    yield from _pdm(project, data)
    yield from _hatch(project, data, environ)
    yield from _pipenv(project, environ)
    yield from _conda(project, environ)
