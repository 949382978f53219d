"""Path safety for devagent's own file edits (which run outside the sandbox).

Every path a tool names is resolved (realpath + common path) and refused if it
leaves the repo, points into .git, crosses a symlink out of the repo (dangling
ones too) or contains NUL. Writes walk the directories with O_NOFOLLOW, write
a temp file in the same directory and rename it over the target, so a
symlink swapped in at the last moment is never written through.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from tui.core.errors import PathRefused

_HINT = "Edits are limited to files inside the repository (never .git)."


def _refuse(path: str, why: str) -> PathRefused:
    return PathRefused(f"refused path {path!r}: {why}", _HINT)


def _in_git_dir(rel: str) -> bool:
    return any(part.lower() == ".git" for part in Path(rel).parts)


def resolve_in_repo(repo: Path, path: str) -> Path:
    """The real absolute path of ``path`` (relative to the repo, or absolute inside it). PathRefused otherwise."""
    if not isinstance(path, str) or not path.strip():
        raise _refuse(str(path), "empty path")
    if "\x00" in path:
        raise _refuse(path.replace("\x00", "\\0"), "contains a NUL byte")
    root = os.path.realpath(repo)
    given = os.path.abspath(repo)
    raw = os.path.expanduser(path) if path.startswith("~") else path
    joined = raw if os.path.isabs(raw) else os.path.join(given, raw)
    lexical = os.path.normpath(joined)
    inside_lexically = any(os.path.commonpath([lexical, base]) == base for base in (root, given))
    if not inside_lexically:
        raise _refuse(path, "outside the repository")
    base = root if os.path.commonpath([lexical, root]) == root else given
    rel_lexical = os.path.relpath(lexical, base)
    if _in_git_dir(rel_lexical):
        raise _refuse(path, "inside .git (devagent never edits git's own files)")
    real = os.path.realpath(lexical)
    if os.path.commonpath([real, root]) != root:
        kind = "a dangling symlink" if os.path.islink(lexical) and not os.path.exists(lexical) else "a symlink"
        raise _refuse(path, f"goes through {kind} that leaves the repository")
    rel = os.path.relpath(real, root)
    if rel == ".":
        raise _refuse(path, "is the repository itself, not a file")
    if _in_git_dir(rel):
        raise _refuse(path, "resolves into .git through a symlink")
    return Path(real)


def _open_parent(root: str, parts: tuple[str, ...]) -> int:
    """An fd for the parent directory, walking from the repo root with O_NOFOLLOW (creating missing dirs)."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(root, flags)
    try:
        for name in parts:
            try:
                nxt = os.open(name, flags, dir_fd=fd)
            except FileNotFoundError:
                os.mkdir(name, 0o777, dir_fd=fd)
                nxt = os.open(name, flags, dir_fd=fd)
            os.close(fd)
            fd = nxt
    except OSError:
        os.close(fd)
        raise
    return fd


def atomic_write(repo: Path, path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` in the repo: no-follow, temp file + rename, existing file mode kept."""
    target = resolve_in_repo(repo, path)
    root = os.path.realpath(repo)
    rel = Path(os.path.relpath(target, root))
    try:
        dir_fd = _open_parent(root, rel.parts[:-1])
    except OSError as exc:
        raise _refuse(path, f"a parent directory is a symlink or unusable ({exc.strerror})") from None
    name = rel.parts[-1]
    tmp = f".{name}.devagent-{secrets.token_hex(4)}.tmp"
    try:
        try:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            st = None
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise _refuse(path, "is not a regular file")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=dir_fd)
        try:
            if st is not None:
                os.fchmod(fd, stat.S_IMODE(st.st_mode))
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        raise
    finally:
        os.close(dir_fd)
