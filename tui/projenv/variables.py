"""The project's variables in a command's environment: passed-through names, literal values, the activated env.

devagent's environment holds API keys, so only names the developer lists (``project.pass_env``, by default
the non-secret project variables in tui/safety/config_rules.py) pass through. A repo may give literal values, never references,
and only for REPO_SETTABLE names: its config is hostile, and a variable such as BASH_ENV or LD_PRELOAD
would change what an approved command does.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Mapping

from tui.projenv.pyinfo import Interpreter
from tui.safety import hostpath
from tui.safety.config_rules import PASS_DEFAULT, PATH_LISTS, REPO_SETTABLE, repo_env_problem

__all__ = ["PASS_DEFAULT", "REPO_SETTABLE", "command_env", "repo_env_problem"]


def _absolute(value: str, base: Path) -> str:
    """Each relative entry of a path list made absolute against ``base`` (commands run in other directories)."""
    entries = [e for e in value.split(os.pathsep) if e]
    return os.pathsep.join(e if os.path.isabs(e) else os.path.normpath(base / e) for e in entries)


def _without(path: str, drop: str) -> str:
    return os.pathsep.join(p for p in path.split(os.pathsep) if p and os.path.realpath(p) != drop)


def command_env(repo: Path, pass_env: list[str], literal: Mapping[str, str], interp: Interpreter,
                environ: Mapping[str, str] | None = None, started_in: Path | None = None) -> dict[str, str]:
    """What a command's environment gets on top of the sandbox's allow-list (values override it)."""
    environ = os.environ if environ is None else environ
    if started_in is None:
        try:
            started_in = Path(os.getcwd())
        except OSError:  # the directory devagent started in is gone
            started_in = repo
    env: dict[str, str] = {}
    for name in pass_env:
        value = environ.get(name)
        if value is not None:
            env[name] = _absolute(value, started_in) if name in PATH_LISTS else value
    for name, value in literal.items():
        if name in PATH_LISTS:
            env[name] = os.pathsep.join(v for v in (_absolute(value, repo), env.get(name, "")) if v)
        else:
            env[name] = value
    path = hostpath.command_path(environ) or "/usr/local/bin:/usr/bin:/bin"
    if interp.prefix and interp.source != "PATH":  # found on PATH: the environment already is what PATH gives
        if not interp.own and sys.prefix != sys.base_prefix:
            path = _without(path, os.path.realpath(Path(sys.prefix, "bin")))  # devagent's own env is not the project's
        conda = Path(interp.prefix, "conda-meta").is_dir()
        env["CONDA_PREFIX" if conda else "VIRTUAL_ENV"] = interp.prefix
        bin_dir = str(Path(interp.prefix) / "bin")
        path = os.pathsep.join((bin_dir, _without(path, os.path.realpath(bin_dir))))
    if interp.pypackages:
        lib = str(Path(interp.pypackages) / "lib")
        env["PYTHONPATH"] = os.pathsep.join(v for v in (lib, env.get("PYTHONPATH", "")) if v)
        path = os.pathsep.join((str(Path(interp.pypackages) / "bin"), path))
    env["PATH"] = path
    return env
