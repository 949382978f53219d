"""rope, opened on the throwaway copy so that it only reads source: the renames, moves and extractions.

rope can be made to run code: a ``.ropeproject/config.py`` is executed, ``[tool.rope]`` in pyproject.toml may name
modules to import (``extension_modules``, ``type_hinting_factory``), dynamic object analysis runs modules, and
its file-system commands call git/hg/darcs. None of that happens here: no rope folder, the repository's rope
settings are never read (fixed preferences instead), no extension module is imported, no analysis runs code,
and the plain file-system commands are used. Runs inside the worker (tui/refactor/pyworker.py).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tui.refactor.pyfind import Target

_LOCAL_KINDS = ("local", "parameter")


class _FixedConfig:
    """Stands in for rope's config reader: the defaults, never the repository's pyproject.toml or config.py."""

    def __init__(self, *args: Any) -> None:
        pass

    def parse(self) -> Any:
        from rope.base.prefs import Prefs

        prefs = Prefs()
        prefs.imports.preferred_import_style = "from-global"  # `from pkg.new import name`, as people write it
        return prefs


def source_folders(root: Path) -> list[str]:
    """Folders that hold top-level packages without being one (``src/`` in a src layout): rope finds only the first
    folder with a package on its way down, so a ``tests/__init__.py`` at the root hides ``src/`` from it, and every
    ``from pkg import x`` there is left unsure."""
    found = []
    for child in sorted(root.iterdir()):
        if not child.is_dir() or child.is_symlink() or child.name.startswith(".") or (child / "__init__.py").exists():
            continue
        if any((sub / "__init__.py").is_file() for sub in child.iterdir() if sub.is_dir() and not sub.is_symlink()):
            found.append(child.name)
    return found


def open_project(root: Path, skip: list[str]) -> Any:
    import rope.base.project as rope_project
    from rope.base.fscommands import FileSystemCommands

    rope_project.get_config = _FixedConfig  # the repository's own rope settings are data we do not follow
    ignored = [".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "node_modules", "*.pyc", "__pycache__",
               *skip]
    return rope_project.Project(
        str(root), ropefolder=None, fscommands=FileSystemCommands(), save_objectdb=False, automatic_soa=False,
        perform_doa=False, import_dynload_stdmods=False, extension_modules=[], ignore_syntax_errors=True,
        ignore_bad_imports=True, validate_objectdb=False, save_history=False, python_path=[],
        pull_imports_to_top=False,  # leave the file's imports where its author put them
        python_files=["*.py", "*.pyi"], ignored_resources=ignored, source_folders=source_folders(root),
        type_hinting_factory=
        "rope.base.oi.type_hinting.factory.default_type_hinting_factory")


def offset_of(project: Any, rel: str, line: int, col: int) -> int:
    """rope's character offset of (line, column) in a file of the copy."""
    text = project.get_resource(rel).read()
    lines = text.splitlines(keepends=True)
    return sum(len(x) for x in lines[: line - 1]) + col


def _where(occurrence: Any) -> str:
    try:
        return f"{occurrence.resource.path}:{occurrence.lineno}"
    except Exception:  # noqa: BLE001 - rope's occurrence without a line: name the file
        return str(getattr(getattr(occurrence, "resource", None), "path", "?"))


def rename(project: Any, target: Target, new: str, unsure: list[str]) -> str:
    """Rename ``target`` everywhere rope can tell it is used; places it cannot tell go to ``unsure``. The
    description rope gives the change."""
    from rope.refactor.rename import Rename

    def doubt(occurrence: Any) -> bool:
        unsure.append(f"{_where(occurrence)}: rope could not tell whether this {target.name} is the one renamed; "
                      "left as it is")
        return False

    if target.kind in ("module", "package"):
        resource = project.get_resource(target.path)
        changes = Rename(project, resource, None).get_changes(new)
    else:
        resource = project.get_resource(target.path)
        offset = offset_of(project, target.path, target.line, target.col)
        changes = Rename(project, resource, offset).get_changes(
            new, docs=False, unsure=doubt, in_hierarchy=target.kind in ("method", "attribute"))
    project.do(changes)
    return str(changes.get_description()).split("\n", 1)[0]


def move(project: Any, target: Target, dest: str) -> str:
    """Move a module-level function or class to ``dest`` (created when missing), imports updated by rope."""
    from rope.refactor.move import MoveGlobal

    resource = project.get_resource(target.path)
    offset = offset_of(project, target.path, target.line, target.col)
    destination = project.get_file(dest)
    if not destination.exists():
        destination.create()
    changes = MoveGlobal(project, resource, offset).get_changes(destination)
    project.do(changes)
    return str(changes.get_description()).split("\n", 1)[0]


def module_of(project: Any, rel: str) -> str:
    """The dotted name rope imports ``rel`` by (from its source folders)."""
    from rope.base import libutils

    return str(libutils.modname(project.get_resource(rel)))


def extract(project: Any, rel: str, start: int, end: int, new: str) -> str:
    """Lines ``start``..``end`` of ``rel`` become the function (or method) ``new``, called where they were."""
    from rope.refactor.extract import ExtractMethod

    text = project.get_resource(rel).read()
    lines = text.splitlines(keepends=True)
    if not (1 <= start <= end <= len(lines)):
        raise ValueError(f"{rel} has {len(lines)} lines; {start}-{end} is not a range in it")
    begin = sum(len(x) for x in lines[: start - 1])
    begin += len(lines[start - 1]) - len(lines[start - 1].lstrip())
    finish = sum(len(x) for x in lines[:end]) - len(lines[end - 1]) + len(lines[end - 1].rstrip())
    changes = ExtractMethod(project, project.get_resource(rel), begin, finish).get_changes(new)
    project.do(changes)
    _two_blank_lines(Path(project.address) / rel, new)
    return str(changes.get_description()).split("\n", 1)[0]


def _two_blank_lines(path: Path, new: str) -> None:
    """rope puts one blank line before a new module-level function; PEP 8 (and most repos) have two."""
    text = path.read_text("utf-8")
    fixed = re.sub(rf"(?<=\S\n)\n(?=def {re.escape(new)}\()", "\n\n", text, count=1)
    if fixed != text:
        path.write_text(fixed, "utf-8")
