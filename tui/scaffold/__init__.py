"""Scaffolding: detect the project kind, learn its conventions, render new files as ONE diff proposal.

Nothing here writes: the result is a dict of new files and their diff; the scaffold tool
proposes it, and only an approval applies it (tui/tools/scaffold.py).
"""

from __future__ import annotations

from pathlib import Path

from tui.protocol.errors import ToolError
from tui.scaffold.detect import Conventions, Project, detect_project
from tui.scaffold.render import KINDS, Scaffold, render, validate

__all__ = ["KINDS", "Conventions", "Project", "Scaffold", "build_scaffold", "detect_project", "render",
           "scaffold_diff", "validate"]


def build_scaffold(repo: Path, kind: str, name: str, directory: str | None = None,
                   file: str | None = None) -> Scaffold:
    """Render and check: every target must be inside the repo and must not exist yet (``file``: render's)."""
    from tui.safety.paths import resolve_in_repo

    validate(kind, name)
    scaffold = render(repo, detect_project(repo), kind, name, directory, file)
    for rel in scaffold.files:
        target = resolve_in_repo(repo, rel)
        if target.exists() or target.is_symlink():
            raise ToolError(f"{rel} already exists; scaffold never overwrites a file",
                            "Pick another name, or edit the existing file instead.")
    return scaffold


def scaffold_diff(scaffold: Scaffold) -> str:
    """One git-style diff creating every file (tests after sources, as rendered)."""
    from tui.git.diffs import file_diff

    return "".join(file_diff(rel, None, content.encode("utf-8")) for rel, content in scaffold.files.items())
