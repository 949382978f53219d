"""A throwaway copy of the work tree that sandboxed commands see at the repository's own path (Sandbox(view=...)):
the real tree's ignored directories the commands need (``node_modules``, ``.venv``, build output) are bound
read-only over the copy, each where it is; caches are left out (an interpreter rebuilds them)."""

from __future__ import annotations

from pathlib import Path

CACHES = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", ".cache", ".devagent-tmp"}
MAX_BINDS = 64


def ignored_dirs(repo: Path) -> list[str]:
    """The repo's ignored directories and files (relative; a generated ``_version.py`` is one), caches and compiled
    files left out, at most MAX_BINDS."""
    from tui.git.facade import GitRepo

    out = GitRepo(repo, timeout=30).run("ls-files", "-z", "-o", "-i", "--exclude-standard", "--directory")
    if out.returncode != 0:
        return []
    found = [p for p in out.stdout.decode("utf-8", "surrogateescape").split("\0") if p]
    return sorted({p.rstrip("/") for p in found if not p.startswith(".git/") and not p.endswith((".pyc", ".pyo"))
                   and p.rstrip("/").rsplit("/", 1)[-1] not in CACHES})[:MAX_BINDS]


def view_sandbox(repo: Path, copy: Path, config: object, info: object = None) -> object:
    """A Sandbox whose commands see ``copy`` at ``repo``'s path, the real tree's ignored directories read-only."""
    from tui.sandbox.runner import Sandbox

    binds = tuple(str(repo / p) for p in ignored_dirs(repo) if not (repo / p).is_symlink() and (
        (repo / p).is_dir() or (repo / p).is_file()))
    return Sandbox(repo, config, info, view=copy, read_only=binds)  # type: ignore[arg-type]
