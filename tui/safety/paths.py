"""Path safety for everything devagent itself reads or writes in the repo (on the host, outside the sandbox).

A path is resolved (realpath + common path) and refused if it leaves the repo, points into a git dir (``.git``
in any case and in any component, so a nested repository's too), crosses a symlink out of the repo (dangling
ones too) or contains NUL. Every open then walks the resolved path from the repo root one component at a time
with O_NOFOLLOW, so a directory swapped for a symlink is never followed. Reads never block and are bounded:
only regular files are opened (non-blocking, so a FIFO cannot hang devagent) and at most the caller's budget
is read. Writes go to a temp file in the same directory, renamed over the target.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from tui.protocol.errors import PathRefused

_HINT = "devagent reads and writes only files inside the repository (never .git, never through a symlink out)."
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_KINDS = {stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a character device",
          stat.S_IFBLK: "a block device", stat.S_IFDIR: "a directory", stat.S_IFLNK: "a symlink"}


def _refuse(path: str, why: str) -> PathRefused:
    return PathRefused(f"refused path {path!r}: {why}", _HINT)


def _in_git_dir(rel: str) -> bool:
    return any(part.lower() == ".git" for part in Path(rel).parts)


def kind_of(mode: int) -> str:
    """'a FIFO (named pipe)', 'a directory'... for a non-regular file's st_mode."""
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


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


def _walk(root: str, parts: tuple[str, ...] | list[str], *, create: bool) -> list[int]:
    """fds of the root and each directory in ``parts``, opened with O_NOFOLLOW (missing ones made if ``create``).

    A component that is a symlink (or not a directory) raises NotADirectoryError/OSError; the caller closes
    every fd returned.
    """
    fds = [os.open(root, _DIR_FLAGS)]
    try:
        for name in parts:
            try:
                fds.append(os.open(name, _DIR_FLAGS, dir_fd=fds[-1]))
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(name, 0o777, dir_fd=fds[-1])
                fds.append(os.open(name, _DIR_FLAGS, dir_fd=fds[-1]))
    except OSError:
        _close(fds)
        raise
    return fds


def _close(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)


def _read_fd(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_bounded(repo: Path, path: str, limit: int) -> tuple[bytes, int]:
    """(at most ``limit`` bytes, the file's size) of a regular file in the repo; never blocks.

    FileNotFoundError when it does not exist; PathRefused for a refused path or anything but a regular file.
    """
    target = resolve_in_repo(repo, path)
    root = os.path.realpath(repo)
    parts = Path(os.path.relpath(target, root)).parts
    try:
        fds = _walk(root, parts[:-1], create=False)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise _refuse(path, f"a directory on its way is a symlink or unusable ({exc.strerror})") from None
    try:
        st = os.stat(parts[-1], dir_fd=fds[-1], follow_symlinks=False)  # look before opening: no device opens
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(path, f"is {kind_of(st.st_mode)}, not a regular file")
        fd = os.open(parts[-1], _READ_FLAGS, dir_fd=fds[-1])
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise _refuse(path, f"is {kind_of(st.st_mode)}, not a regular file")
            return _read_fd(fd, limit), st.st_size
        finally:
            os.close(fd)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise _refuse(path, f"cannot be read ({exc.strerror})") from None
    finally:
        _close(fds)


def read_text_or_none(repo: Path, path: str, limit: int) -> str | None:
    """A repo file's text (UTF-8, errors replaced) through :func:`read_bounded`; None when it is missing, refused
    (a symlink out of the tree, a FIFO, a device) or larger than ``limit``: for aids that simply do without it."""
    try:
        data, size = read_bounded(repo, path, limit)
    except (OSError, PathRefused):
        return None
    return data.decode("utf-8", "replace") if size <= limit else None


def read_regular(path: Path, limit: int, *, follow: bool = True) -> bytes:
    """At most ``limit`` bytes of ``path`` if it is a regular file; never blocks. OSError otherwise.

    For files found by walking the repo (project files: ``follow=False``, a symlink is refused) and for files
    outside it (hooks, a commit message file).
    """
    st = os.stat(path, follow_symlinks=follow)
    if not stat.S_ISREG(st.st_mode):
        raise IsADirectoryError(21, f"{path} is {kind_of(st.st_mode)}, not a regular file")
    fd = os.open(path, _READ_FLAGS if not follow else _READ_FLAGS & ~os.O_NOFOLLOW)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise IsADirectoryError(21, f"{path} is not a regular file")
        return _read_fd(fd, limit)
    finally:
        os.close(fd)


def _write_in(dir_fd: int, name: str, data: bytes, mode: int | None) -> None:
    """Write ``data`` as ``name`` in the directory ``dir_fd``: temp file, fsync, rename over."""
    import secrets  # here: reading a file (the app's config, before its first frame) needs no random names

    tmp = f".{name}.devagent-{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=dir_fd)
        try:
            if mode is not None:
                os.fchmod(fd, mode)
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


def replace_file(path: Path, data: bytes, mode: int) -> None:
    """Write ``path`` (outside a repo-relative walk: a hook, say) through a fresh temp file beside it, renamed
    over it: a planted file or symlink under any name devagent might use is never written through."""
    fd = os.open(path.parent, _DIR_FLAGS & ~os.O_NOFOLLOW)
    try:
        _write_in(fd, path.name, data, mode)
    finally:
        os.close(fd)


def atomic_write(repo: Path, path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` in the repo: no-follow, temp file + rename, existing file mode kept."""
    target = resolve_in_repo(repo, path)
    root = os.path.realpath(repo)
    rel = Path(os.path.relpath(target, root))
    try:
        fds = _walk(root, rel.parts[:-1], create=True)
    except OSError as exc:
        raise _refuse(path, f"a parent directory is a symlink or unusable ({exc.strerror})") from None
    name = rel.parts[-1]
    try:
        try:
            st = os.stat(name, dir_fd=fds[-1], follow_symlinks=False)
        except FileNotFoundError:
            st = None
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise _refuse(path, "is not a regular file")
        _write_in(fds[-1], name, data, stat.S_IMODE(st.st_mode) if st is not None else None)
    finally:
        _close(fds)


def plain_parts(rel: str) -> list[str]:
    """The components of a path as git stores it (``a/b/c``); PathRefused for '', '.', '..', '.git' or NUL."""
    parts = rel.split("/")
    if "\x00" in rel or any(p in ("", ".", "..") or p.lower() == ".git" for p in parts):
        raise _refuse(rel, "not a plain path inside the work tree")
    return parts


def blocked_by_link(repo: Path, rel: str) -> str | None:
    """The first directory on the way to ``rel`` that is a symlink or not a directory, or None.

    What restoring ``rel`` would have to write through (an ignored ``d -> .git`` symlink, say).
    """
    parts = plain_parts(rel)
    current = os.path.realpath(repo)
    for i, name in enumerate(parts[:-1]):
        current = os.path.join(current, name)
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return None
        if not stat.S_ISDIR(st.st_mode):
            return "/".join(parts[:i + 1])
    return None


def restore_file(repo: Path, rel: str, data: bytes, mode: str) -> None:
    """Make ``rel`` exactly a checkpoint's entry (git mode 100644, 100755 or 120000), never following a symlink.

    Whatever is at ``rel`` goes first: a symlink is replaced, not written through; a directory only when nothing
    but directories is left in it (restore deletes the files it holds first), else OSError(ENOTEMPTY).
    """
    parts = plain_parts(rel)
    try:
        fds = _walk(os.path.realpath(repo), parts[:-1], create=True)
    except OSError as exc:
        raise _refuse(rel, f"a directory on its way is a symlink or unusable ({exc.strerror})") from None
    name = parts[-1]
    try:
        try:
            st = os.stat(name, dir_fd=fds[-1], follow_symlinks=False)
        except FileNotFoundError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            _remove_empty_tree(name, fds[-1])
        elif st is not None:
            os.unlink(name, dir_fd=fds[-1])
        if mode == "120000":
            os.symlink(os.fsdecode(data), name, dir_fd=fds[-1])
        else:
            _write_in(fds[-1], name, data, 0o755 if mode == "100755" else 0o644)
    finally:
        _close(fds)


def _remove_empty_tree(name: str, dir_fd: int) -> None:
    """Remove the directory ``name`` and the empty directories in it; anything else in it stops this (ENOTEMPTY)."""
    for _, dirnames, filenames, fd in os.fwalk(name, dir_fd=dir_fd, topdown=False, follow_symlinks=False):
        if filenames:
            raise OSError(errno.ENOTEMPTY, "holds files no checkpoint covers", name)
        for sub in dirnames:
            os.rmdir(sub, dir_fd=fd)  # a symlink to a directory is listed here too: rmdir refuses it
    os.rmdir(name, dir_fd=dir_fd)


def remove_file(repo: Path, rel: str) -> None:
    """Delete the file or symlink ``rel`` (never through a symlinked directory), then its emptied parents."""
    parts = plain_parts(rel)
    try:
        fds = _walk(os.path.realpath(repo), parts[:-1], create=False)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise _refuse(rel, f"a directory on its way is a symlink or unusable ({exc.strerror})") from None
    try:
        try:
            if not stat.S_ISDIR(os.stat(parts[-1], dir_fd=fds[-1], follow_symlinks=False).st_mode):
                os.unlink(parts[-1], dir_fd=fds[-1])
        except FileNotFoundError:
            pass
        for depth in range(len(parts) - 1, 0, -1):  # only empty ones go: ignored files keep their directory
            try:
                os.rmdir(parts[depth - 1], dir_fd=fds[depth - 1])
            except OSError:
                break
    finally:
        _close(fds)
