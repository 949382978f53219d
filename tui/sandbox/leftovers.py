"""What a command may not leave in the work tree: files git opens by name that would hang or break it.

git opens ``.gitignore`` and ``.gitattributes`` in every directory it walks, ``.gitmodules`` and ``.mailmap``
at the top, and waits forever for a writer when one of them is a FIFO (each of devagent's host-side git
calls then ran into its time limit: minutes per step, a checkpoint skipped, a crash). ``.gitmodules`` is
also read through a symlink (to ``/proc/self/fd/1``: git reads its own output pipe, forever), and any
symlink named ``.gitmodules`` makes ``git add`` refuse the whole tree, so every checkpoint failed.

After every command (both sandbox modes) :func:`sweep` removes such entries: a FIFO or a symlink holds no
data, and a cloned repository cannot contain either (git stores no FIFOs and refuses a symlinked
``.gitmodules``), so only a command can have made them. Nested repositories and ``.git`` directories are
not walked: git never looks inside them.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

OPENED_BY_GIT = frozenset({".gitignore", ".gitattributes", ".gitmodules", ".mailmap"})


def _offending(entry: os.DirEntry[str]) -> str:
    """Why git would hang or fail on this entry ('' when it is fine)."""
    if entry.name not in OPENED_BY_GIT:
        return ""
    try:
        mode = entry.stat(follow_symlinks=False).st_mode
    except OSError:
        return ""
    if stat.S_ISLNK(mode):
        return "a symlink (git reads it through the link, and refuses to add any tree holding one)" \
            if entry.name == ".gitmodules" else ""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return ""
    return "a FIFO or other special file (git would wait on it forever)"


def sweep(repo: Path) -> list[str]:
    """Remove what would hang or break devagent's git in ``repo``; one line per entry removed."""
    notes: list[str] = []
    stack = [str(repo)]
    while stack:
        here = stack.pop()
        try:
            with os.scandir(here) as it:
                entries = list(it)
        except OSError:
            continue
        if here != str(repo) and any(e.name == ".git" for e in entries):
            continue  # a nested repository: git does not walk it
        for entry in entries:
            if entry.name == ".git":
                continue
            why = _offending(entry)
            if why:
                rel = os.path.relpath(entry.path, repo)
                try:
                    os.unlink(entry.path)
                    notes.append(f"removed {rel}: {why}")
                except OSError as exc:
                    notes.append(f"could not remove {rel} ({exc.strerror}): {why}")
            elif entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
    return notes
