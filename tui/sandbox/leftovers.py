"""What a command may not leave in the work tree: files git opens by name that would hang or break it.

git opens ``.gitignore`` and ``.gitattributes`` in every directory it walks, ``.gitmodules`` and ``.mailmap``
at the top, and waits forever for a writer when one of them is a FIFO (each of devagent's host-side git
calls then ran into its time limit: minutes per step, a checkpoint skipped, a crash). ``.gitmodules`` is
also read through a symlink (to ``/proc/self/fd/1``: git reads its own output pipe, forever), and any
symlink named ``.gitmodules`` makes ``git add`` refuse the whole tree, so every checkpoint failed.

A nested repository's git dir is read too (its HEAD, refs and config, to find the commit git records for it):
a FIFO there, or a symlink to one or to ``/proc/self/fd/1``, hung ``git status`` and ``git add -A`` the same way.

After every command (both sandbox modes) :func:`sweep` removes such entries: a FIFO or a symlink holds no
data, and a cloned repository cannot contain either (git stores no FIFOs, no nested ``.git`` and refuses a
symlinked ``.gitmodules``), so only a command can have made them. A nested repository's work tree is not
walked: git never looks inside it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

OPENED_BY_GIT = frozenset({".gitignore", ".gitattributes", ".gitmodules", ".mailmap"})


def _offending(entry: os.DirEntry[str], in_git_dir: bool) -> str:
    """Why git would hang or fail on this entry ('' when it is fine)."""
    if not in_git_dir and entry.name not in OPENED_BY_GIT:
        return ""
    try:
        mode = entry.stat(follow_symlinks=False).st_mode
    except OSError:
        return ""
    if stat.S_ISLNK(mode):
        if entry.name == ".gitmodules" and not in_git_dir:
            return "a symlink (git reads it through the link, and refuses to add any tree holding one)"
        try:
            target = os.stat(entry.path).st_mode  # looks, never opens
        except OSError:
            return ""  # dangling: git's open fails at once
        plain = in_git_dir and not (stat.S_ISREG(target) or stat.S_ISDIR(target))
        return "a symlink to a pipe, socket or device (git would read it forever)" if plain else ""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return ""
    return "a FIFO or other special file (git would wait on it forever)"


def _git_dir_of(here: str, dotgit: os.DirEntry[str], repo: str) -> str | None:
    """The git dir of the nested repository at ``here`` when it lies in the work tree (a ``.git`` directory, or
    where a ``.git`` file points); None otherwise (outside the work tree no command could have written it)."""
    if dotgit.is_dir(follow_symlinks=False):
        return dotgit.path
    if not dotgit.is_file(follow_symlinks=False):
        return None
    try:
        fd = os.open(dotgit.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            text = os.read(fd, 4096).decode("utf-8", "replace")
        finally:
            os.close(fd)
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = os.path.realpath(os.path.join(here, text[len("gitdir:"):].strip()))
    return target if target.startswith(repo.rstrip("/") + "/") and os.path.isdir(target) else None


def _remove(path: str, repo: str, why: str, notes: list[str]) -> None:
    rel = os.path.relpath(path, repo)
    try:
        os.unlink(path)
        notes.append(f"removed {rel}: {why}")
    except OSError as exc:
        notes.append(f"could not remove {rel} ({exc.strerror}): {why}")


def sweep(repo: Path) -> list[str]:
    """Remove what would hang or break devagent's git in ``repo``; one line per entry removed.

    In the work tree: special files named as git's own files, and symlinked ``.gitmodules``. In a nested
    repository's git dir (which git reads to find its HEAD: status, ``add -A``, ``ls-files``): every FIFO,
    socket or device, and every symlink to one (``HEAD -> /proc/self/fd/1``); objects and logs are not read.
    """
    root = str(repo)
    notes: list[str] = []
    stack = [(root, False)]
    while stack:
        here, in_git_dir = stack.pop()
        try:
            with os.scandir(here) as it:
                entries = list(it)
        except OSError:
            continue
        if not in_git_dir and here != root:
            dotgit = next((e for e in entries if e.name == ".git"), None)
            if dotgit is not None:  # a nested repository: git reads its git dir, never its work tree
                git_dir = _git_dir_of(here, dotgit, root)
                if git_dir is not None:
                    stack.append((git_dir, True))
                continue
        for entry in entries:
            if entry.name == ".git" and not in_git_dir:
                continue  # the repository's own .git: read-only to commands
            why = _offending(entry, in_git_dir)
            if why:
                _remove(entry.path, root, why, notes)
            elif entry.is_dir(follow_symlinks=False) and not (in_git_dir and entry.name in ("objects", "logs")):
                stack.append((entry.path, in_git_dir))
            elif in_git_dir and entry.name == "objects" and os.path.isdir(os.path.join(entry.path, "info")):
                stack.append((os.path.join(entry.path, "info"), True))  # alternates are read there
    return notes
