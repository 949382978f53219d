"""Where devagent looks programs up on the host: never in a directory an approved command can write.

A developer who activated the project's own virtualenv (``REPO/.venv/bin`` first on PATH), or whose PATH has a
relative entry (``.``, ``node_modules/.bin``, an empty one: the current directory, which is the repo), would
otherwise have devagent start, on the host, the ``git``, ``bwrap``, ``pgrep`` (GitPython's timeout kill) or
``git-lfs`` that a sandboxed command wrote there. So devagent's own PATH (``os.environ``, which every host
process it starts inherits) drops relative entries and every entry inside a work tree devagent works on;
commands get the PATH as the developer set it (:func:`command_path`): they run in the sandbox, where the work
tree is theirs anyway.
"""

from __future__ import annotations

import os
import shutil
from typing import Mapping

_trees: set[str] = set()  # work trees devagent works on (real paths)
_original: str | None = None  # PATH as the developer set it
_applied: str | None = None  # the PATH this module last put into os.environ


def work_tree(path: str | os.PathLike[str]) -> str | None:
    """The nearest directory at or above ``path`` that holds a ``.git`` (the work tree); None outside one."""
    here = os.path.realpath(path)
    while True:
        if os.path.lexists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _inside(entry: str, tree: str) -> bool:
    return entry == tree or entry.startswith(tree.rstrip("/") + "/")


def trusted(entry: str) -> bool:
    """An absolute PATH entry outside every work tree devagent works on."""
    if not entry or not os.path.isabs(entry):
        return False
    real, plain = os.path.realpath(entry), os.path.normpath(entry)
    return not any(_inside(real, tree) or _inside(plain, tree) for tree in _trees)


def host_path(path: str) -> str:
    """``path`` with the entries a command could have written left out."""
    return os.pathsep.join(dict.fromkeys(e for e in path.split(os.pathsep) if trusted(e)))


def _sync() -> None:
    """Take a PATH someone else set since (a test, the developer's code) as the original, then apply."""
    global _original, _applied
    now = os.environ.get("PATH")
    if now is not None and now != _applied:
        _original = now
    if _original is not None:
        _applied = host_path(_original)
        os.environ["PATH"] = _applied


def distrust(*paths: str | os.PathLike[str]) -> None:
    """The work trees holding ``paths`` are written by commands: devagent's PATH leaves them (and relative
    entries) out from now on. Cheap when nothing is new (called for every host git call)."""
    new = False
    for path in paths:
        tree = work_tree(path)
        if tree and tree != "/" and tree not in _trees:
            _trees.add(tree)
            new = True
    if new or os.environ.get("PATH") != _applied:
        _sync()


def command_path(environ: Mapping[str, str] | None = None) -> str:
    """The PATH a command gets: the developer's own (with the entries devagent's host PATH leaves out)."""
    if environ is not None and environ is not os.environ:
        return environ.get("PATH", "")
    _sync()
    return _original if _original is not None else os.environ.get("PATH", "")


def which(name: str) -> str | None:
    """``name`` found on devagent's host PATH (never in a work tree, never relative)."""
    distrust()
    return shutil.which(name, path=os.environ.get("PATH", os.defpath))
