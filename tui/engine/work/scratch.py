"""A throwaway copy of the work tree, seen by sandboxed commands at the repository's own path.

Candidates are tried here, never in the developer's tree: each is written into the copy, checked (syntax,
static check, the targeted tests, the suite) by commands that run under bubblewrap with the copy bound
where the repository is, so an editable install, a path in a config file or a test's ``__file__`` all
resolve to the copy. Ignored directories the checks need (``node_modules``, ``.venv``, build output) are
bound read-only from the real tree. Copying reads every file the way every host-side read of the repo
does: regular files only, nothing followed out of the tree, bounded.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any

from tui.protocol.errors import DevagentError
from tui.safety.paths import PathRefused, read_bounded

MAX_FILE = 4_000_000  # a larger tracked file is left out of the copy (checks rarely read one)
MAX_TOTAL = 300_000_000  # a copy larger than this is not made: the checks are skipped, said plainly
MAX_FILES = 60_000


class ScratchError(DevagentError):
    """No throwaway copy could be made (too large, git failed); candidates are then not tried, only shown."""


def _listing(repo: Path, *args: str) -> list[str]:
    from tui.git.facade import GitRepo

    out = GitRepo(repo, timeout=30).run("ls-files", "-z", *args)
    if out.returncode != 0:
        raise ScratchError(f"git ls-files failed: {out.stderr.decode('utf-8', 'replace').strip()[:200]}")
    return [p for p in out.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


class Scratch:
    """One copy per turn: ``write`` a candidate's files, ``run`` checks, ``reset`` back to the tree's bytes."""

    def __init__(self, repo: Path) -> None:
        self.repo = Path(os.path.realpath(repo))
        self.root: Path | None = None
        self.ignored: list[str] = []  # top-level ignored entries bound read-only from the real tree
        self.original: dict[str, bytes | None] = {}  # files a candidate touched, as the tree has them
        self.left_out: list[str] = []

    async def create(self) -> "Scratch":
        await asyncio.to_thread(self._copy)
        return self

    def _copy(self) -> None:
        files = _listing(self.repo, "-c", "-o", "--exclude-standard")
        if len(files) > MAX_FILES:
            raise ScratchError(f"the work tree has {len(files)} files; candidates are tried only in trees under "
                               f"{MAX_FILES}")
        from tui.sandbox.view import ignored_dirs

        self.ignored = ignored_dirs(self.repo)
        root = Path(tempfile.mkdtemp(prefix="devagent-scratch-"))
        self.root = root
        total = 0
        for rel in dict.fromkeys(files):
            src = self.repo / rel
            try:
                st = os.lstat(src)
            except OSError:
                continue  # deleted in the tree: not in the copy either
            dest = root / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            if stat.S_ISLNK(st.st_mode):
                os.symlink(os.readlink(src), dest)  # recreated as it is; it resolves inside the sandbox's view
                continue
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE:
                self.left_out.append(rel)
                continue
            total += st.st_size
            if total > MAX_TOTAL:
                self.close()
                raise ScratchError(f"the work tree is over {MAX_TOTAL // 1_000_000} MB; candidates are not tried "
                                   "in a copy of it")
            try:
                data, _ = read_bounded(self.repo, rel, MAX_FILE)
            except (OSError, PathRefused):
                self.left_out.append(rel)
                continue
            dest.write_bytes(data)
            os.chmod(dest, 0o755 if st.st_mode & 0o111 else 0o644)

    def path(self, rel: str) -> Path:
        assert self.root is not None
        target = (self.root / rel).resolve()
        if os.path.commonpath([target, self.root.resolve()]) != str(self.root.resolve()):
            raise ScratchError(f"{rel} is outside the work tree")
        return target

    def read(self, rel: str) -> bytes | None:
        try:
            return self.path(rel).read_bytes()
        except (FileNotFoundError, IsADirectoryError):
            return None

    def write(self, changes: dict[str, bytes | None]) -> None:
        """Put a candidate's files into the copy (None deletes); ``reset`` undoes it."""
        for rel, data in changes.items():
            target = self.path(rel)
            if rel not in self.original:
                self.original[rel] = self.read(rel)
            if data is None:
                target.unlink(missing_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)

    def restore(self, files: dict[str, bytes | None]) -> None:
        """Put these files back as given (after a script changed the copy on its own)."""
        for rel, data in files.items():
            target = self.path(rel)
            if data is None:
                target.unlink(missing_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)

    def reset(self) -> None:
        for rel, data in self.original.items():
            target = self.path(rel)
            if data is None:
                target.unlink(missing_ok=True)
            else:
                target.write_bytes(data)
        self.original.clear()

    def sandbox(self, config: Any, info: Any = None) -> Any:
        """A Sandbox whose commands see this copy at the repository's path (None: no bwrap here)."""
        from tui.sandbox.view import view_sandbox

        assert self.root is not None
        box: Any = view_sandbox(self.repo, self.root, config, info)
        return box if box.info.kind == "bwrap" else None

    def close(self) -> None:
        root, self.root = self.root, None
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)

    def __del__(self) -> None:
        self.close()
