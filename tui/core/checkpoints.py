"""Checkpoints: the whole working tree saved as a commit under ``refs/devagent/checkpoints/<session>/<n>``.

Written through a temporary index (``GIT_INDEX_FILE``), so HEAD, branches and
the developer's index are never touched. Covered: tracked and untracked files
that are not ignored. NOT covered: ignored files (build output, ``.env`` when
ignored, ``node_modules``...), empty directories, and the contents of nested
repositories. Restoring first checkpoints the current state, so an undo can be
undone, and it writes only the working tree, never the index.
"""

from __future__ import annotations

import os
import re
import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from tui.core.diffs import to_text
from tui.core.errors import RepoError
from tui.core.repo import Repo

REF_ROOT = "refs/devagent/checkpoints"
_IDENTITY = {
    "GIT_AUTHOR_NAME": "devagent", "GIT_AUTHOR_EMAIL": "devagent@localhost",
    "GIT_COMMITTER_NAME": "devagent", "GIT_COMMITTER_EMAIL": "devagent@localhost",
}
_MAX_LISTED = 200  # files named in a checkpoint's message


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

    @property
    def short(self) -> str:
        """How the developer names it on the command line: ``<session>/<n>``."""
        return self.ref[len(REF_ROOT) + 1:]


def _repo(repo: Path | Repo) -> Repo:
    return repo if isinstance(repo, Repo) else Repo(repo)


def _safe_session(session_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", session_id or "nosession").strip(".") or "nosession"


def snapshot_tree(r: Repo) -> str:
    """The working tree (tracked + untracked, not ignored) as a tree object, via a throwaway index."""
    tmp = r.devagent_dir() / f"index-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    real_index = r.git_dir / "index"
    try:
        if real_index.exists():
            shutil.copyfile(real_index, tmp)  # read-only use: only saves re-hashing unchanged files
        env = {"GIT_INDEX_FILE": str(tmp)}
        r.git("add", "-A", "--", ".", env=env)
        return to_text(r.git("write-tree", env=env)).strip()
    finally:
        tmp.unlink(missing_ok=True)
        Path(str(tmp) + ".lock").unlink(missing_ok=True)


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
    for line in lines[1:]:
        if line.startswith("  "):
            files.append(line[2:])
        elif ": " in line:
            key, value = line.split(": ", 1)
            meta[key] = value
    label = lines[0].removeprefix("devagent checkpoint: ") if lines else ""
    parts = ref.rsplit("/", 2)
    number = int(parts[-1]) if parts[-1].isdigit() else 0
    return Checkpoint(ref=ref, sha=sha, label=meta.get("Label", label), created=float(meta.get("Created", "0")),
                      session_id=meta.get("Session", parts[-2] if len(parts) > 1 else ""), files=files, number=number)


def _changed(r: Repo, old_tree: str | None, new_tree: str) -> list[str]:
    if old_tree is None:
        return to_text(r.git("ls-tree", "-r", "-z", "--name-only", new_tree)).split("\0")[:-1]
    out = to_text(r.git("diff-tree", "-r", "-z", "--no-renames", "--name-only", old_tree, new_tree))
    return [p for p in out.split("\0") if p]


def create(repo: Path | Repo, label: str, session_id: str, *, keep: int | None = None) -> Checkpoint:
    """Save the working tree; the developer's index, HEAD and branches stay exactly as they were.

    With ``keep`` (config.checkpoints.keep), older checkpoints of other sessions are pruned afterwards.
    """
    r = _repo(repo)
    tree = snapshot_tree(r)
    previous = list_checkpoints(r)
    head = r.head()
    base_tree = f"{previous[0].sha}^{{tree}}" if previous else (f"{head}^{{tree}}" if head else None)
    files = _changed(r, base_tree, tree)
    created = time.time()
    session = _safe_session(session_id)
    message = [f"devagent checkpoint: {label.splitlines()[0] if label else 'checkpoint'}", "",
               f"Label: {label.replace(chr(10), ' ')}", f"Session: {session}", f"Created: {created:.6f}",
               f"Files-Changed: {len(files)}"]
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
            return Checkpoint(ref, sha, label, created, session, files[:_MAX_LISTED], n, tree)
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
        now = snapshot_tree(_repo(repo))
        return next((cp for cp in cps if cp.tree != now), cps[0])
    for cp in cps:
        if name in (cp.ref, cp.short) or (len(name) >= 7 and cp.sha.startswith(name)):
            return cp
    if name.isdigit() and 1 <= int(name) <= len(cps):
        return cps[int(name) - 1]
    raise RepoError(f"No checkpoint called {name!r}.", "Run `devagent checkpoints` to list them.")


def _tree_diff(r: Repo, old: str, new: str) -> str:
    return to_text(r.git("diff", "--binary", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/",
                         "--dst-prefix=b/", old, new))


def undo_diff(repo: Path | Repo, cp: Checkpoint) -> str:
    """The diff restoring ``cp`` would apply to the working tree as it is now."""
    r = _repo(repo)
    return _tree_diff(r, snapshot_tree(r), f"{cp.sha}^{{tree}}")


def changes_since(repo: Path | Repo, cp: Checkpoint) -> str:
    """What changed in the working tree since ``cp`` (e.g. what an approved command did), as a diff."""
    r = _repo(repo)
    return _tree_diff(r, f"{cp.sha}^{{tree}}", snapshot_tree(r))


def restore(repo: Path | Repo, cp: Checkpoint, *, session_id: str | None = None) -> Checkpoint:
    """Make the working tree equal to ``cp`` (never touching the index); returns the checkpoint taken first."""
    r = _repo(repo)
    r.ensure_writable()
    before = create(r, f"before undo to {cp.short} ({cp.label})", session_id or cp.session_id)
    raw = to_text(r.git("diff-tree", "-r", "-z", "--no-renames", f"{before.sha}^{{tree}}", f"{cp.sha}^{{tree}}"))
    fields = raw.split("\0")
    writes: list[tuple[str, str, str]] = []  # (path, mode, sha)
    deletes: list[str] = []
    for i in range(0, len(fields) - 1, 2):
        meta, path = fields[i], fields[i + 1]
        if not meta.startswith(":"):
            continue
        _, new_mode, _, new_sha, status = meta[1:].split(" ")
        if status == "D" or new_mode.startswith("160") or status == "T":
            deletes.append(path)
        if status != "D" and not new_mode.startswith("160"):
            writes.append((path, new_mode, new_sha))
    for path in deletes:
        _remove(r.root, path)
    blobs = r.read_blobs([sha for _, _, sha in writes])
    for path, mode, sha in writes:
        _write(r.root, path, mode, blobs[sha] or b"")
    return before


def _inside(root: Path, path: str) -> Path:
    target = root / path
    parent = Path(os.path.realpath(target.parent))
    if parent != root and root not in parent.parents:
        raise RepoError(f"Refusing to restore {path}: a directory on its way points outside the repository.",
                        "Remove the symlink, then run undo again.")
    return target


def _remove(root: Path, path: str) -> None:
    target = _inside(root, path)
    if target.is_symlink() or target.is_file():
        target.unlink()
    parent = target.parent
    while parent != root:
        try:
            parent.rmdir()  # only succeeds when empty: ignored files keep their directory
        except OSError:
            break
        parent = parent.parent


def _write(root: Path, path: str, mode: str, data: bytes) -> None:
    target = _inside(root, path)
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.is_dir():
        shutil.rmtree(target)  # a directory where the checkpoint had a file: it held only ignored files
    target.parent.mkdir(parents=True, exist_ok=True)
    if mode == "120000":
        os.symlink(os.fsdecode(data), target)
        return
    tmp = target.parent / f".{target.name}.devagent-{uuid.uuid4().hex[:6]}"
    tmp.write_bytes(data)
    tmp.chmod(0o755 if mode == "100755" else 0o644)
    os.replace(tmp, target)


def prune(repo: Path | Repo, keep: int, session_id: str | None = None) -> int:
    """Delete all but the newest ``keep`` checkpoints, never one of ``session_id``; returns how many went."""
    r = _repo(repo)
    cps = list_checkpoints(r)
    session = _safe_session(session_id) if session_id else None
    doomed = [c for c in cps[max(keep, 0):] if c.session_id != session]
    if doomed:
        r.git("update-ref", "--stdin", input="".join(f"delete {c.ref} {c.sha}\n" for c in doomed).encode())
    return len(doomed)
