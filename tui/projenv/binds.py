"""Interpreters and toolchains the sandbox would hide, bound back read-only.

The sandbox mounts a private, empty /tmp: a virtualenv made under /tmp, the Python it links to, or a node
unpacked there would vanish and the command fail with "execvp ...: No such file or directory". Each such
root is bound read-only. Never /tmp itself, only directories the developer owns, and only locations the
repository cannot choose: what devagent's own environment names (PATH, VIRTUAL_ENV, NODE_PATH...) and an
interpreter found through it, never a path read from the repo's files (its config's project.env, a .venv and
its links or pyvenv.cfg, .pdm-python, __pypackages__) and never a path that passes through the work tree (a
symlink there may lead anywhere: the repo would choose). Secret and socket masks are mounted after these
binds, so they still win.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import Mapping

from tui.projenv.pyinfo import Interpreter, base_prefix, env_root

HIDDEN_ROOTS: tuple[str, ...] = ("/tmp",)  # what the sandbox replaces with an empty tmpfs
TOOLCHAIN_VARS: tuple[str, ...] = (
    "VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_ROOT", "NVM_DIR", "NVM_BIN", "NODE_PATH", "PYTHONPATH", "CARGO_HOME",
    "RUSTUP_HOME", "GOPATH", "GOROOT", "JAVA_HOME", "GEM_HOME", "PNPM_HOME", "DENO_DIR", "BUN_INSTALL",
)


def _hidden(real: str) -> bool:
    return any(real != root and real.startswith(root + "/") for root in HIDDEN_ROOTS)


def _python_install(root: str) -> bool:
    """A virtualenv or a Python installation: bin/python* and pyvenv.cfg or lib/python3.X/os.py."""
    if not glob.glob(os.path.join(glob.escape(root), "bin", "python*")):
        return False
    return os.path.isfile(os.path.join(root, "pyvenv.cfg")) or bool(
        glob.glob(os.path.join(glob.escape(root), "lib", "python3*", "os.py")))


def _bin_root(entry: str) -> str:
    """A PATH-like entry's toolchain root: the parent of a ``bin`` directory, else the entry itself."""
    return os.path.dirname(entry) if os.path.basename(entry.rstrip("/")) == "bin" else entry


class _Roots:
    def __init__(self, repo: Path) -> None:
        self.repo = os.path.realpath(repo)
        self.found: list[str] = []

    def add(self, path: str, *, python: bool = False) -> None:
        """``path`` when it is hidden and safe to show; ``python``: it must be a Python installation."""
        if not path or not os.path.isabs(path) or self.inside(os.path.normpath(path)):
            return  # a path through the work tree: where it leads is the repository's choice
        for candidate in dict.fromkeys((os.path.normpath(path), os.path.realpath(path))):
            if not _hidden(candidate) or not os.path.isdir(candidate):
                continue
            if self.inside(candidate):
                continue
            try:
                if os.stat(candidate).st_uid != os.getuid():
                    continue
            except OSError:
                continue
            if python and not _python_install(candidate):
                continue
            self.found.append(candidate)

    def inside(self, path: str) -> bool:
        return path == self.repo or path.startswith(self.repo + "/")

    def result(self) -> list[str]:
        """Outermost roots only, in a stable order (a bind inside another one adds nothing)."""
        ordered = sorted(set(self.found), key=lambda p: (p.count("/"), p))
        kept: list[str] = []
        for path in ordered:
            if not any(path.startswith(k + "/") for k in kept):
                kept.append(path)
        return kept


def own_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The locations devagent's own environment names (what ``hidden_roots`` may bind)."""
    environ = os.environ if environ is None else environ
    return {name: environ[name] for name in ("PATH", *TOOLCHAIN_VARS) if name in environ}


def hidden_roots(env: Mapping[str, str], interp: Interpreter, repo: Path, program: str = "") -> list[str]:
    """Directories to bind read-only so the developer's interpreter and toolchains exist inside the sandbox.

    ``env``: devagent's own environment (the developer's PATH and toolchain variables), never values the
    repository's config gave. ``interp`` counts only when the developer chose it (``trusted``: their config,
    an activated environment, a tool's own store, PATH), not when the repo's files named it. ``program``: the
    command's own executable (a runner devagent chose, e.g. a pipx-installed pytest), bound only when it
    belongs to a Python installation (a command line is no reason to show a directory).
    """
    roots = _Roots(repo)
    if program and os.path.isabs(program):
        roots.add(str(Path(os.path.realpath(program)).parent.parent), python=True)
    if interp.python and interp.trusted and not roots.inside(os.path.normpath(interp.python)):
        roots.add(str(env_root(interp.python)))
        roots.add(str(Path(os.path.realpath(interp.python)).parent.parent), python=True)
        if interp.prefix and not roots.inside(os.path.realpath(interp.prefix)):
            base = base_prefix(Path(interp.prefix))  # its pyvenv.cfg is the developer's, not the repo's
            roots.add(str(base) if base else "", python=True)
    for entry in env.get("PATH", "").split(os.pathsep):
        roots.add(_bin_root(entry))
    for name in TOOLCHAIN_VARS:
        for entry in env.get(name, "").split(os.pathsep):
            roots.add(_bin_root(entry))
    return roots.result()
