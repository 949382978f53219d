"""What restoring a checkpoint would do, worked out before anything is written.

Three questions, for ``devagent undo``, the app's ``u`` and restore itself:

- which files change back (the diff from the working tree now to the checkpoint);
- what on disk would be replaced that no checkpoint holds. Checkpoints leave ignored files and nested
  repositories out, and an approved command can move a file across that line (ignore it, make its directory a
  repository, make a path the checkpoint has as a file a directory of ignored files). Such files are saved in the
  checkpoint restore takes first, so undoing the undo brings them back; what cannot be saved (a nested
  repository's own ``.git``, thousands of ignored files) makes restore refuse;
- which of the changes it reverses are already committed, and in which commit: restore never touches commits,
  so afterwards the working tree differs from them.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from tui.git.diffs import to_text
from tui.git.repo import Repo
from tui.safety import paths

MAX_SAVED = 2_000  # files not covered by any checkpoint that undo would save before replacing them
MAX_SAVED_BYTES = 512 * 1024 * 1024
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


@dataclass
class Changes:
    """Restoring ``new`` over ``old``: what is written and deleted."""

    writes: list[tuple[str, str, str]] = field(default_factory=list)  # (path, mode, blob)
    deletes: list[str] = field(default_factory=list)
    added: set[str] = field(default_factory=set)  # written paths ``old`` does not have

    @property
    def paths(self) -> list[str]:
        return list(dict.fromkeys([p for p, _, _ in self.writes] + self.deletes))


def tree_changes(r: Repo, old: str, new: str) -> Changes:
    raw = to_text(r.git("diff-tree", "-r", "-z", "--no-renames", old, new))
    fields = raw.split("\0")
    out = Changes()
    for i in range(0, len(fields) - 1, 2):
        meta, path = fields[i], fields[i + 1]
        if not meta.startswith(":"):
            continue
        _, new_mode, _, new_sha, status = meta[1:].split(" ")
        if status == "D" or new_mode.startswith("160") or status == "T":
            out.deletes.append(path)
        if status != "D" and not new_mode.startswith("160"):
            out.writes.append((path, new_mode, new_sha))
            if status == "A":
                out.added.add(path)
    return out


@dataclass
class Unheld:
    """What restoring would replace that the current tree does not hold."""

    save: list[str] = field(default_factory=list)  # files to store in the checkpoint taken before restoring
    refuse: list[str] = field(default_factory=list)  # why restoring must not go ahead
    blocked: list[str] = field(default_factory=list)  # a symlink or file on the way to a path it writes


def _under(root: str, rel: str) -> tuple[list[str], str | None]:
    """(files and symlinks under the directory ``rel``, a nested repository found in it or None)."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, rel), followlinks=False):
        here = os.path.relpath(dirpath, root).replace(os.sep, "/")
        if ".git" in dirnames or ".git" in filenames:
            return found, here
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            try:
                mode = os.lstat(os.path.join(dirpath, name)).st_mode
            except OSError:
                continue
            if stat.S_ISREG(mode) or stat.S_ISLNK(mode):  # a FIFO or socket holds nothing to lose
                found.append(f"{here}/{name}")
        if len(found) > MAX_SAVED:
            break
    return found, None


def unheld(r: Repo, changes: Changes) -> Unheld:
    root = str(r.root)
    held = set(changes.deletes)  # in the current tree: the checkpoint restore takes first has them
    out = Unheld()
    for path in changes.paths:
        link = paths.blocked_by_link(r.root, path)
        if link is not None and link not in held:
            out.blocked.append(link)
    for path, _, _ in changes.writes:
        try:
            mode = os.lstat(os.path.join(root, path)).st_mode
        except OSError:
            continue  # nothing there to lose
        if stat.S_ISDIR(mode):
            found, nested = _under(root, path)
            if nested is not None:
                out.refuse.append(f"{nested}/ is a nested repository (checkpoints do not cover it) where "
                                  f"the checkpoint has the file {path}: undo would delete it")
                continue
            out.save += [f for f in found if f not in held]
        elif path in changes.added and (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            out.save.append(path)
    size = sum(_size(root, p) for p in out.save[:MAX_SAVED + 1])
    if len(out.save) > MAX_SAVED or size > MAX_SAVED_BYTES:
        out.refuse.append(f"undo would replace {len(out.save)} files ({size // 1_000_000} MB) that no checkpoint "
                          f"holds (ignored, or in a nested repository), such as {out.save[0]}")
    out.blocked = sorted(set(out.blocked))
    return out


def _size(root: str, rel: str) -> int:
    try:
        return os.lstat(os.path.join(root, rel)).st_size
    except OSError:
        return 0


@dataclass
class Committed:
    path: str
    commits: list[tuple[str, str]]  # (short id, subject), newest first
    whole: bool  # HEAD has the file as it is now: all of the change is committed


def _names(r: Repo, old: str, new: str) -> set[str]:
    return set(to_text(r.git("diff-tree", "-r", "-z", "--no-renames", "--name-only", old, new)).split("\0")) - {""}


def _commits(r: Repo, *revs: str) -> dict[str, list[tuple[str, str]]]:
    """path -> [(short id, subject)] of the commits (newest first, at most 300) that changed it."""
    log = to_text(r.git("log", "-z", "-n", "300", "--no-renames", "--name-only", "--format=%x01%h %s", *revs))
    found: dict[str, list[tuple[str, str]]] = {}
    for record in log.split("\x01")[1:]:  # "\x01<short> <subject>\0\n<file>\0<file>\0..."
        header, _, names = record.partition("\0\n")
        short, _, subject = header.rstrip("\0").partition(" ")
        for name in names.split("\0"):
            if name:
                found.setdefault(name, []).append((short, subject))
    return found


def committed(r: Repo, checkpoint_sha: str, now_tree: str, changes: Changes) -> list[Committed]:
    """Of the files restoring changes back, those whose change is committed: the commits since the checkpoint
    changed them (all of it when the file is now as HEAD has it, else partly), or the file is now exactly as
    HEAD has it and restoring makes it differ (say an undo of an undo, after you committed in between)."""
    head = r.head()
    changed = changes.paths
    if not head or not changed:
        return []
    target = f"{checkpoint_sha}^{{tree}}"
    parent = to_text(r.run_git("rev-parse", "--verify", "-q", f"{checkpoint_sha}^").stdout).strip()
    since = _names(r, parent or EMPTY_TREE, head) & set(changed)
    differs_now, differs_target = _names(r, head, now_tree), _names(r, head, target)
    present = {p for p in changed if p not in changes.added}  # in the working tree now
    whole = {p for p in changed if p not in differs_now and p in differs_target and (p in present or p in since)}
    partly = {p for p in since if p in differs_now and p in differs_target}
    if not whole | partly:
        return []
    recent = _commits(r, f"{parent}..{head}") if parent and since else {}
    older = _commits(r, head) if whole - since else {}
    return [Committed(p, recent.get(p) or older.get(p, [])[:1], p in whole) for p in changed if p in whole | partly]


def describe(found: list[Committed], total: int) -> list[str]:
    """Lines for the developer: which changes are committed, in which commits, and what undo does about it."""
    if not found:
        return []
    which = (f"{len(found)} of the {plural(total, 'file')}" if len(found) < total else
             "the file" if total == 1 else f"all {total} files")
    lines = [f"Already committed: {which} this undo changes back. Undo restores only the working tree: the commits "
             "stay, and afterwards the working tree undoes them (git status shows it)."]
    for c in found[:20]:
        where = ", ".join(f"{short} {subject}" for short, subject in c.commits[:3]) or "an older commit"
        lines.append(f"  {c.path}: {'' if c.whole else 'partly, '}in {where}")
    if len(found) > 20:
        lines.append(f"  ... and {len(found) - 20} more")
    return lines


def saved_note(save: list[str]) -> str:
    """The sentence that tells the developer which files undo saves before it replaces them ('' for none)."""
    if not save:
        return ""
    them = "it" if len(save) == 1 else "them"
    names = ", ".join(save[:5]) + (" ..." if len(save) > 5 else "")
    return (f"Saved first: {names} ({plural(len(save), 'file')} no checkpoint holds, that this undo replaces): the "
            f"checkpoint taken before the undo keeps {them}, so undoing the undo brings {them} back.")


def changed_between(r: Repo, pairs: list[tuple[str, str]]) -> list[list[str]]:
    """The files that differ between each pair of trees, through one ``git diff-tree --stdin``."""
    unique = list(dict.fromkeys(p for p in pairs if p[0] != p[1]))
    if not unique:
        return [[] for _ in pairs]
    out = to_text(r.git("diff-tree", "--stdin", "-r", "-z", "--name-only", "--no-renames",
                        input="".join(f"{a} {b}\n" for a, b in unique).encode()))
    found: dict[tuple[str, str], list[str]] = {}
    pos = 0
    for i, (a, b) in enumerate(unique):  # git prints "A B\n" and the names, in order; nothing for equal trees
        start = out.find(f"{a} {b}\n", pos)
        if start < 0:
            continue
        begin = start + len(a) + len(b) + 2
        later = [out.find(f"{c} {d}\n", begin) for c, d in unique[i + 1:]]
        pos = min([at for at in later if at >= 0], default=len(out))
        found[(a, b)] = [name for name in out[begin:pos].split("\0") if name]
    return [found.get(pair, []) for pair in pairs]


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")
