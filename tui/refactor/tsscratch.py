"""The scratch copy a TypeScript/JavaScript refactoring runs and is checked in.

The project's tracked and untracked-but-not-ignored files are copied (read as data through tui.safety.paths: a
symlink out of the tree, a FIFO or a device is skipped and listed), never the developer's masked paths; each
``node_modules`` directory becomes a symlink to the real one, which the sandbox binds read-only. The copy lives in a
private temporary directory and is removed by ``close``.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tui.git.facade import GitRepo
from tui.protocol.errors import PathRefused
from tui.refactor.base import RefactorError
from tui.safety.paths import read_bounded
from tui.testing.detect import list_files

SOURCE_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
MAX_FILES = 20_000
MAX_FILE_BYTES = 8_000_000
MAX_TOTAL_BYTES = 300_000_000
NODE_MODULES_DEPTH = 3


@dataclass
class Scratch:
    repo: Path  # the real work tree (never written)
    top: Path  # the sandbox's writable root
    work: Path  # top/"work": the copy
    files: list[str] = field(default_factory=list)  # every file copied, repo-relative
    skipped: list[str] = field(default_factory=list)  # "path: why" for files left out
    node_modules: list[Path] = field(default_factory=list)  # real node_modules directories linked in

    @property
    def sources(self) -> list[str]:
        return [f for f in self.files if f.endswith(SOURCE_SUFFIXES) and not f.endswith(".min.js")]

    def write(self, rel: str, data: bytes | None) -> None:
        target = self.work / rel
        if data is None:
            target.unlink(missing_ok=True)
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)

    def close(self) -> None:
        shutil.rmtree(self.top, ignore_errors=True)


def _masked(rel: str, masks: list[str]) -> bool:
    return any(fnmatch.fnmatch(rel, m) or rel == m.rstrip("/") or rel.startswith(m.rstrip("/") + "/") for m in masks)


def _node_modules(repo: Path) -> list[str]:
    """node_modules directories (real directories, not symlinks) up to a few levels down, repo-relative."""
    found: list[str] = []

    def walk(rel: str, depth: int) -> None:
        try:
            entries = list(os.scandir(repo / rel if rel else repo))
        except OSError:
            return
        for entry in entries:
            if entry.name == ".git" or entry.is_symlink() or not entry.is_dir(follow_symlinks=False):
                continue
            sub = f"{rel}/{entry.name}" if rel else entry.name
            if entry.name == "node_modules":
                found.append(sub)
            elif depth < NODE_MODULES_DEPTH and not entry.name.startswith("."):
                walk(sub, depth + 1)

    walk("", 0)
    return found


def make(repo: Path, masks: list[str] | None = None) -> Scratch:
    """Copy the work tree's files into a new scratch directory (RefactorError when it is too large to copy)."""
    repo = Path(os.path.realpath(repo))
    names = [f for f in list_files(repo) if "node_modules/" not in f and not f.startswith("node_modules")]
    if len(names) > MAX_FILES:
        raise RefactorError(f"the work tree has {len(names)} files; the refactoring engine copies at most {MAX_FILES}",
                            "Run it in the package's own directory (a smaller git work tree).")
    top = Path(tempfile.mkdtemp(prefix="devagent-refactor-"))
    scratch = Scratch(repo, top, top / "work")
    scratch.work.mkdir()
    total = 0
    try:
        for rel in names:
            if masks and _masked(rel, masks):
                continue
            try:
                data, size = read_bounded(repo, rel, MAX_FILE_BYTES + 1)
            except FileNotFoundError:
                continue
            except (OSError, PathRefused) as exc:
                scratch.skipped.append(f"{rel}: not copied ({getattr(exc, 'message', None) or exc})")
                continue
            if size > MAX_FILE_BYTES:
                scratch.skipped.append(f"{rel}: not copied ({size} bytes, over {MAX_FILE_BYTES})")
                continue
            total += size
            if total > MAX_TOTAL_BYTES:
                raise RefactorError(f"the work tree's files pass {MAX_TOTAL_BYTES // 1_000_000} MB; too large to copy",
                                    "Run it in the package's own directory.")
            scratch.write(rel, data)
            mode = os.stat(repo / rel, follow_symlinks=False).st_mode
            if mode & stat.S_IXUSR:
                os.chmod(scratch.work / rel, 0o755)
            scratch.files.append(rel)
        for rel in _node_modules(repo):
            link = scratch.work / rel
            link.parent.mkdir(parents=True, exist_ok=True)
            real = Path(os.path.realpath(repo / rel))
            os.symlink(real, link)
            scratch.node_modules.append(real)
        GitRepo(scratch.work, timeout=30).run("init", "-q")  # test detection lists files with git
    except BaseException:
        scratch.close()
        raise
    return scratch
