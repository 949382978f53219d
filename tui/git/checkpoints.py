"""Checkpoints: the whole working tree saved as a commit under ``refs/devagent/checkpoints/<session>/<n>``.

Written through devagent's own index (tui/git/snapshot.py), so HEAD, branches and the developer's index are
never touched, and with git's conversions off, so a checkpoint holds the bytes that were on disk. Covered:
tracked and untracked files that are not ignored. NOT covered, and named in each checkpoint: nested
repositories (a submodule keeps the commit the index records; git never looks inside one, where its own config
could run programs), tracked paths that are now neither a file nor a symlink (a FIFO, a socket); and, as always,
ignored files (build output, ``.env`` when ignored, ``node_modules``...) and empty directories. Restoring first
checkpoints the current state, so an undo can be undone, and that checkpoint also saves whatever restoring would
replace that no checkpoint holds (tui/git/undoplan.py), or restoring refuses; it writes only the working tree,
never the index, and never through a symlinked directory.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from tui.safety import paths
from tui.git.diffs import to_text
from tui.git.snapshot import listing, nested_repos, snapshot, snapshot_tree
from tui.git.undoplan import Committed, Unheld, changed_between, committed, tree_changes, unheld
from tui.protocol.errors import DevagentError, RepoError
from tui.git.facade import GIT_CONFIG
from tui.git.repo import Repo

__all__ = ["Checkpoint", "UndoPreview", "create", "list_checkpoints", "nested_repos", "preview", "prune", "resolve",
           "restore", "snapshot", "snapshot_tree", "undo_diff", "changes_since"]

REF_ROOT = "refs/devagent/checkpoints"
_IDENTITY = {
    "GIT_AUTHOR_NAME": "devagent", "GIT_AUTHOR_EMAIL": "devagent@localhost",
    "GIT_COMMITTER_NAME": "devagent", "GIT_COMMITTER_EMAIL": "devagent@localhost",
}
_MAX_LISTED = 200  # files named in a checkpoint's message
DIFF_LIMIT = 4_000_000  # bytes of a checkpoint diff read (shown, and sent to the model): git is stopped there


@dataclass
class Checkpoint:
    ref: str
    sha: str
    label: str
    created: float
    session_id: str
    files: list[str] = field(default_factory=list)  # changed since the previous checkpoint (or HEAD)
    number: int = 0
    tree: str = ""  # the saved working tree
    not_covered: list[str] = field(default_factory=list)  # "sub/ (a nested repository)"...
    saved: list[str] = field(default_factory=list)  # not covered, but stored because an undo replaced them

    @property
    def short(self) -> str:
        """How the developer names it on the command line: ``<session>/<n>``."""
        return self.ref[len(REF_ROOT) + 1:]


def _repo(repo: Path | Repo) -> Repo:
    return repo if isinstance(repo, Repo) else Repo(repo)


def _safe_session(session_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", session_id or "nosession").strip(".") or "nosession"


def list_checkpoints(repo: Path | Repo, session_id: str | None = None) -> list[Checkpoint]:
    """Newest first; only one session's when ``session_id`` is given."""
    r = _repo(repo)
    prefix = f"{REF_ROOT}/{_safe_session(session_id)}/" if session_id else f"{REF_ROOT}/"
    out = to_text(r.git("for-each-ref", "--format=%(refname)%00%(objectname)%00%(tree)%00%(contents)%00%00", prefix))
    cps: list[Checkpoint] = []
    for record in out.split("\0\0\n"):
        if not record.strip():
            continue
        ref, sha, tree, message = (record.split("\0", 3) + ["", "", ""])[:4]
        cp = _parse(ref.strip(), sha, message)
        cp.tree = tree
        cps.append(cp)
    cps.sort(key=lambda c: (c.created, c.number), reverse=True)
    return cps


def _parse(ref: str, sha: str, message: str) -> Checkpoint:
    lines = message.splitlines()
    meta: dict[str, str] = {}
    files: list[str] = []
    skipped: list[str] = []
    saved: list[str] = []
    for line in lines[1:]:
        if line.startswith("  "):
            files.append(line[2:])
        elif line.startswith("Not-Covered: "):
            skipped.append(line[len("Not-Covered: "):])
        elif line.startswith("Saved: "):
            saved.append(line[len("Saved: "):])
        elif ": " in line:
            key, value = line.split(": ", 1)
            meta[key] = value
    label = lines[0].removeprefix("devagent checkpoint: ") if lines else ""
    parts = ref.rsplit("/", 2)
    number = int(parts[-1]) if parts[-1].isdigit() else 0
    return Checkpoint(ref=ref, sha=sha, label=meta.get("Label", label), created=float(meta.get("Created", "0")),
                      session_id=meta.get("Session", parts[-2] if len(parts) > 1 else ""), files=files, number=number,
                      not_covered=skipped, saved=saved)


def _changed(r: Repo, old_tree: str | None, new_tree: str) -> list[str]:
    if old_tree is None:
        return to_text(r.git("ls-tree", "-r", "-z", "--name-only", new_tree)).split("\0")[:-1]
    out = to_text(r.git("diff-tree", "-r", "-z", "--no-renames", "--name-only", old_tree, new_tree))
    return [p for p in out.split("\0") if p]


def create(repo: Path | Repo, label: str, session_id: str, *, keep: int | None = None,
           save: list[str] | None = None) -> Checkpoint:
    """Save the working tree; the developer's index, HEAD and branches stay exactly as they were.

    With ``keep`` (config.checkpoints.keep), older checkpoints of other sessions are pruned afterwards. ``save``:
    paths the checkpoint stores although it does not cover them (what a restore is about to replace).
    """
    r = _repo(repo)
    tree, skipped = snapshot(r, save or [])
    previous = list_checkpoints(r)
    head = r.head()
    base_tree = f"{previous[0].sha}^{{tree}}" if previous else (f"{head}^{{tree}}" if head else None)
    files = _changed(r, base_tree, tree)
    created = time.time()
    session = _safe_session(session_id)
    message = [f"devagent checkpoint: {label.splitlines()[0] if label else 'checkpoint'}", "",
               f"Label: {label.replace(chr(10), ' ')}", f"Session: {session}", f"Created: {created:.6f}",
               f"Files-Changed: {len(files)}"]
    message += [f"Not-Covered: {p.replace(chr(10), ' ')}" for p in skipped]
    message += [f"Saved: {p.replace(chr(10), ' ')}" for p in (save or [])[:_MAX_LISTED]]
    message += [f"  {p}" for p in files[:_MAX_LISTED]]
    args = ["commit-tree", tree]
    if head:
        args += ["-p", head]
    sha = to_text(r.git(*args, input=("\n".join(message) + "\n").encode("utf-8", "surrogateescape"),
                        env=_IDENTITY)).strip()
    numbers = [c.number for c in list_checkpoints(r, session)]
    for n in range(max(numbers, default=0) + 1, max(numbers, default=0) + 50):
        ref = f"{REF_ROOT}/{session}/{n}"
        if r.run_git("update-ref", ref, sha, "").returncode == 0:  # "" = must not exist yet
            if keep is not None:
                prune(r, keep, session)
            return Checkpoint(ref, sha, label, created, session, files[:_MAX_LISTED], n, tree, skipped,
                              (save or [])[:_MAX_LISTED])
    raise RepoError("Could not record a checkpoint: too many concurrent checkpoints for this session.")


def resolve(repo: Path | Repo, name: str | None) -> Checkpoint:
    """A checkpoint by ``<session>/<n>``, full ref, sha prefix or list position (``1`` = newest).

    None = the newest checkpoint whose files differ from the working tree now, i.e. what undo should restore.
    """
    cps = list_checkpoints(repo)
    if not cps:
        raise RepoError("There are no checkpoints in this repository yet.",
                        "devagent takes one before every approved edit and command.")
    if name is None:  # the newest one that differs from now (skips e.g. a checkpoint taken after a command)
        r = _repo(repo)
        now = snapshot_tree(r)
        return next((cp for cp in cps if cp.tree != now and as_restore_sees(r, cp.tree, now)[0] != cp.tree), cps[0])
    for cp in cps:
        if name in (cp.ref, cp.short) or (len(name) >= 7 and cp.sha.startswith(name)):
            return cp
    if name.isdigit() and 1 <= int(name) <= len(cps):
        return cps[int(name) - 1]
    raise RepoError(f"No checkpoint called {name!r}.", "Run `devagent checkpoints` to list them.")


class ShownDiff(str):
    """A diff for showing (never applied): files over half of DIFF_LIMIT appear as binary, and the text is
    cut at a file boundary once git's output passes DIFF_LIMIT (then ``cut`` is true)."""

    cut: bool = False


def _tree_diff(r: Repo, old: str, new: str) -> ShownDiff:
    try:
        code, out, cut = r.run_capped(*GIT_CONFIG, "-c", f"core.bigFileThreshold={DIFF_LIMIT // 2}", "diff",
                                      "--no-color", "--src-prefix=a/", "--dst-prefix=b/", old, new,
                                      limit=DIFF_LIMIT, timeout=r.timeout)
    except subprocess.TimeoutExpired:
        raise RepoError(f"git diff did not finish within {r.timeout:.0f}s.") from None
    if code != 0:
        raise RepoError(f"git diff of checkpoints {old[:12]}..{new[:12]} failed")
    text = to_text(out)
    if cut:
        end = text.rfind("\ndiff --git ")
        text = text[:end + 1] if end >= 0 else ""
    shown = ShownDiff(text)
    shown.cut = cut
    return shown


def undo_diff(repo: Path | Repo, cp: Checkpoint) -> ShownDiff:
    """The diff restoring ``cp`` would apply to the working tree as it is now."""
    r = _repo(repo)
    return _tree_diff(r, snapshot_tree(r), f"{cp.sha}^{{tree}}")


@dataclass
class UndoPreview:
    """What restoring ``cp`` would do now, for the developer to read before approving it."""

    diff: ShownDiff
    files: list[str]  # the files that change back
    save: list[str]  # not in any checkpoint: saved in the one taken before restoring
    problem: str  # why restoring would refuse ('' when it would go ahead)
    committed: list[Committed]  # changes it reverses that commits since the checkpoint hold


def as_restore_sees(r: Repo, target: str, now: str | None = None) -> tuple[str, Unheld]:
    """(the tree restore compares ``target`` with, its plan): the working tree with the files restore would save
    first, so one that equals the checkpoint's copy (a file ignored since, unchanged) is no change at all."""
    now = now or snapshot_tree(r)
    plan = unheld(r, tree_changes(r, now, target))
    return (snapshot(r, plan.save)[0] if plan.save else now), plan


def restoring_changes(repo: Path | Repo, trees: list[str], now: str | None = None) -> list[list[str]]:
    """For each checkpoint tree, the files restoring it would change now (what ``preview`` says, for many at once):
    a file no checkpoint covers now (ignored since) that equals the checkpoint's copy is no change."""
    r = _repo(repo)
    now = now or snapshot_tree(r)
    differs = changed_between(r, [(now, tree) for tree in trees])
    covered = set(listing(r).files)
    extra = sorted({p for names in differs for p in names
                    if p not in covered and (os.path.islink(r.root / p) or os.path.isfile(r.root / p))})
    if not extra:
        return differs
    full = snapshot(r, extra)[0]
    with_extra = changed_between(r, [(full, tree) for tree in trees])
    return [[p for p in names if p not in extra or p in set(more)] for names, more in zip(differs, with_extra)]


def preview(repo: Path | Repo, cp: Checkpoint) -> UndoPreview:
    r = _repo(repo)
    target = f"{cp.sha}^{{tree}}"
    now, plan = as_restore_sees(r, target)
    changes = tree_changes(r, now, target)
    try:
        _refuse_unless_safe(cp, plan.blocked, plan.refuse)
        problem = ""
    except RepoError as err:
        problem = str(err)
    touched = set(changes.paths)
    return UndoPreview(_tree_diff(r, now, target), changes.paths, [p for p in plan.save if p in touched], problem,
                       committed(r, cp.sha, now, changes))


def changes_since(repo: Path | Repo, cp: Checkpoint) -> ShownDiff:
    """What changed in the working tree since ``cp`` (e.g. what an approved command did), as a diff."""
    r = _repo(repo)
    return _tree_diff(r, f"{cp.sha}^{{tree}}", snapshot_tree(r))


def restore(repo: Path | Repo, cp: Checkpoint, *, session_id: str | None = None) -> Checkpoint:
    """Make the working tree equal to ``cp`` (never touching the index); returns the checkpoint taken first.

    Nothing is overwritten or deleted that no checkpoint holds: what restoring would replace that the current
    state's checkpoint does not cover (an ignored file, one in a nested repository) is saved in it first, and
    what cannot be saved (a nested repository's own .git) makes restore refuse before anything is written.
    """
    r = _repo(repo)
    r.ensure_writable()
    plan = unheld(r, tree_changes(r, snapshot_tree(r), f"{cp.sha}^{{tree}}"))
    _refuse_unless_safe(cp, plan.blocked, plan.refuse)
    before = create(r, f"before undo to {cp.short} ({cp.label})", session_id or cp.session_id, save=plan.save)
    changes = tree_changes(r, before.tree, f"{cp.sha}^{{tree}}")
    again = unheld(r, changes)  # the files saved are in ``before`` now; anything else changed meanwhile
    _refuse_unless_safe(cp, again.blocked, again.refuse + [f"{p} changed while undo ran: it is not saved"
                                                            for p in again.save])
    try:
        for path in changes.deletes:
            paths.remove_file(r.root, path)
        blobs = r.read_blobs([sha for _, _, sha in changes.writes])
        for path, mode, sha in changes.writes:
            paths.restore_file(r.root, path, blobs[sha] or b"", mode)
    except (DevagentError, OSError) as err:
        why = err.message if isinstance(err, DevagentError) else f"{err.strerror}: {err.filename}"
        raise RepoError(f"Restoring {cp.short} stopped part way: {why}",
                        f"Checkpoint {before.short} holds the state from just before; `devagent undo {before.short}` "
                        "puts it back.") from None
    return before


def _refuse_unless_safe(cp: Checkpoint, blocked: list[str], refuse: list[str]) -> None:
    if blocked:
        raise RepoError(f"Refusing to restore {cp.short}: {', '.join(blocked[:5])} is now a symlink or a file, and "
                        "restoring would write through it (ignored paths are not covered by checkpoints).",
                        f"Move {blocked[0]} out of the way yourself, then run undo again.")
    if refuse:
        raise RepoError(f"Refusing to restore {cp.short}: {refuse[0]}" + (f" (and {len(refuse) - 1} more)"
                                                                          if len(refuse) > 1 else "") + ".",
                        "Nothing was changed. Move it out of the way yourself (it is not in any checkpoint), "
                        "then run undo again.")


def prune(repo: Path | Repo, keep: int, session_id: str | None = None) -> int:
    """Delete all but the newest ``keep`` checkpoints, never one of ``session_id``; returns how many went."""
    r = _repo(repo)
    cps = list_checkpoints(r)
    session = _safe_session(session_id) if session_id else None
    doomed = [c for c in cps[max(keep, 0):] if c.session_id != session]
    if doomed:
        r.git("update-ref", "--stdin", input="".join(f"delete {c.ref} {c.sha}\n" for c in doomed).encode())
    return len(doomed)
