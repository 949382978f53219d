"""A throwaway copy of the work tree that a refactoring engine changes, and what it changed.

An engine never writes the developer's tree: the tracked and untracked (not ignored) files are copied here,
read the way every host-side read of the repo is (regular files only, nothing followed out of the tree through a
symlink, bounded), the engine works on the copy, and ``changes()`` compares the copy with what was copied.
Symlinks and files too large to copy are left out and named, so an operation can say what it did not see.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from pathlib import Path

from tui.protocol.errors import DevagentError, PathRefused
from tui.refactor.base import FileChange, RefactorError
from tui.safety.paths import read_bounded

MAX_FILE = 4_000_000  # a larger file is left out of the copy (and named)
MAX_TOTAL = 300_000_000  # bytes: a larger tree is not copied
MAX_FILES = 60_000
TEXT_KEPT = 2_000_000  # originals up to this size are kept in memory to diff against (others: hashed)


def _listing(repo: Path) -> list[str]:
    """Tracked and untracked files, and the ignored files (not directories: no .venv, build/ or caches) that sit
    among them, such as a generated ``version.py`` the code imports."""
    from tui.git.facade import GitRepo

    found: list[str] = []
    for args in (("-c", "-o", "--exclude-standard"), ("-o", "-i", "--exclude-standard", "--directory")):
        out = GitRepo(repo, timeout=60).run("ls-files", "-z", *args)
        if out.returncode != 0:
            raise RefactorError("git ls-files failed: " + out.stderr.decode("utf-8", "replace").strip()[:200])
        found += [p for p in out.stdout.decode("utf-8", "surrogateescape").split("\0")
                  if p and not p.endswith(("/", ".pyc", ".pyo"))]
    return list(dict.fromkeys(found))


class Scratch:
    """``Scratch.create(repo)`` copies the tree; ``root`` is the copy; ``changes()`` what differs now."""

    def __init__(self, repo: Path) -> None:
        self.repo = Path(os.path.realpath(repo))
        self.root = Path(tempfile.mkdtemp(prefix="devagent-refactor-"))
        self.files: list[str] = []  # copied, repo-relative
        self.left_out: list[tuple[str, str]] = []  # (path, why)
        self._kept: dict[str, bytes] = {}
        self._digest: dict[str, str] = {}

    @classmethod
    def create(cls, repo: Path) -> "Scratch":
        scratch = cls(repo)
        try:
            scratch._copy()
        except BaseException:
            scratch.close()
            raise
        return scratch

    def _copy(self) -> None:
        listed = _listing(self.repo)
        if len(listed) > MAX_FILES:
            raise RefactorError(f"the work tree has {len(listed)} files; refactoring works on trees under {MAX_FILES}",
                                "Narrow the repository (a sub-project) or use your editor's refactoring.")
        total = 0
        for rel in listed:
            if rel.startswith(".git/") or "/.git/" in rel:
                continue
            try:
                st = os.lstat(self.repo / rel)
            except OSError:
                continue  # deleted in the tree: not in the copy either
            if stat.S_ISLNK(st.st_mode):
                self.left_out.append((rel, "a symlink (not followed)"))
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            if st.st_size > MAX_FILE:
                self.left_out.append((rel, f"too large ({st.st_size} bytes)"))
                continue
            total += st.st_size
            if total > MAX_TOTAL:
                raise RefactorError(f"the work tree is over {MAX_TOTAL // 1_000_000} MB; it is not copied for a "
                                    "refactoring", "Use your editor's refactoring for a tree this size.")
            try:
                data, _ = read_bounded(self.repo, rel, MAX_FILE)
            except (OSError, PathRefused, DevagentError):
                self.left_out.append((rel, "could not be read safely"))
                continue
            dest = self.root / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
            os.chmod(dest, 0o755 if st.st_mode & 0o111 else 0o644)
            self.files.append(rel)
            if len(data) <= TEXT_KEPT:
                self._kept[rel] = data
            else:
                self._digest[rel] = hashlib.sha256(data).hexdigest()

    def original(self, rel: str) -> bytes | None:
        """The bytes the tree had when it was copied (None: not copied)."""
        if rel in self._kept:
            return self._kept[rel]
        if rel in self._digest:
            data, _ = read_bounded(self.repo, rel, MAX_FILE)
            return data
        return None

    def read(self, rel: str) -> bytes | None:
        try:
            return (self.root / rel).read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def _now(self) -> set[str]:
        found = set()
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = [d for d in dirnames if d not in ("__pycache__", ".ropeproject")]
            for name in filenames:
                if name.endswith((".pyc", ".pyo")):
                    continue
                path = Path(dirpath, name)
                if path.is_symlink() or not path.is_file():
                    continue
                found.add(path.relative_to(self.root).as_posix())
        return found

    def changes(self) -> list[FileChange]:
        """Every file whose bytes differ from the copied ones: changed, created (before None), deleted (after
        None), in path order."""
        result: list[FileChange] = []
        for rel in sorted(set(self.files) | self._now()):
            after = self.read(rel)
            if rel in self._kept:
                before: bytes | None = self._kept[rel]
                if before == after:
                    continue
            elif rel in self._digest:
                if after is not None and hashlib.sha256(after).hexdigest() == self._digest[rel]:
                    continue
                before = self.original(rel)
            else:
                before = None
            if before is None and after is None:
                continue
            result.append(FileChange(rel, before, after))
        return result

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> "Scratch":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
