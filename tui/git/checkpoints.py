"""Checkpoints: the whole working tree saved as a commit under ``refs/devagent/checkpoints/<session>/<n>``.

Written through a temporary index (``GIT_INDEX_FILE``), so HEAD, branches and
the developer's index are never touched. Covered: tracked and untracked files
that are not ignored. NOT covered, and named in each checkpoint: nested
repositories (a submodule keeps the commit the index records; git never looks
inside one, where its own config could run programs), tracked paths that are
now neither a file nor a symlink (a FIFO, a socket); and, as always, ignored
files (build output, ``.env`` when ignored, ``node_modules``...) and empty
directories. Restoring first checkpoints the current state, so an undo can be
undone; it writes only the working tree, never the index, and never through a
symlinked directory.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from tui.safety import paths
from tui.git.diffs import to_text
from tui.protocol.errors import DevagentError, RepoError
from tui.git.facade import GIT_CONFIG
from tui.git.repo import Repo

REF_ROOT = "refs/devagent/checkpoints"
_IDENTITY = {
    "GIT_AUTHOR_NAME": "devagent", "GIT_AUTHOR_EMAIL": "devagent@localhost",
    "GIT_COMMITTER_NAME": "devagent", "GIT_COMMITTER_EMAIL": "devagent@localhost",
}
_MAX_LISTED = 200  # files named in a checkpoint's message
_MAX_SKIPPED = 50  # unusual files left out of one checkpoint before devagent gives up on it
DIFF_LIMIT = 4_000_000  # bytes of a checkpoint diff read (shown, and sent to the model): git is stopped there
_NOT_ADDABLE = re.compile(r"^error: (.+): can only add regular files, symbolic links or git-directories$", re.M)


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
    return snapshot(r)[0]


def nested_repos(r: Repo) -> list[str]:
    """Submodules (gitlinks in the index) and untracked repositories inside the work tree, as ``path/``."""
    out = to_text(r.git("ls-files", "-z", "--stage", "--others", "--exclude-standard"))
    found = []
    for entry in out.split("\0"):
        if entry.startswith("160000 ") and "\t" in entry:
            found.append(entry.split("\t", 1)[1] + "/")
        elif entry.endswith("/") and "\t" not in entry:  # git lists an untracked repository as one "dir/"
            found.append(entry)
    return found


def snapshot(r: Repo) -> tuple[str, list[str]]:
    """(tree, what it does not cover): nested repositories and tracked paths git cannot add any more."""
    tmp = r.devagent_dir() / f"index-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    real_index = r.git_dir / "index"
    nested = nested_repos(r)
    skipped = [f"{path} (a nested repository: not looked into)" for path in nested]
    excluded = [path.rstrip("/") for path in nested]
    try:
        if real_index.exists():
            shutil.copyfile(real_index, tmp)  # read-only use: only saves re-hashing unchanged files
        env = {"GIT_INDEX_FILE": str(tmp), "LC_ALL": "C"}
        while True:
            spec = "".join(f"{p}\0" for p in [".", *(f":(exclude,literal){x}" for x in excluded)])
            proc = r.run_git("add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul", input=spec.encode(
                "utf-8", "surrogateescape"), env=env, raw=True)  # the bytes on disk: what undo writes back
            if proc.returncode == 0:
                break
            unusual = _NOT_ADDABLE.findall(to_text(proc.stderr))
            if not unusual or len(excluded) - len(nested) >= _MAX_SKIPPED or set(unusual) <= set(excluded):
                raise RepoError(f"git add -A failed: {to_text(proc.stderr).strip()}")
            for path in unusual:  # the index copy keeps what git last stored for it
                excluded.append(path)
                skipped.append(f"{path} (not a regular file or symlink: kept as last recorded)")
        return to_text(r.git("write-tree", env=env, raw=True)).strip(), skipped  # racy entries are re-read
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
    skipped: list[str] = []
    for line in lines[1:]:
        if line.startswith("  "):
            files.append(line[2:])
        elif line.startswith("Not-Covered: "):
            skipped.append(line[len("Not-Covered: "):])
        elif ": " in line:
            key, value = line.split(": ", 1)
            meta[key] = value
    label = lines[0].removeprefix("devagent checkpoint: ") if lines else ""
    parts = ref.rsplit("/", 2)
    number = int(parts[-1]) if parts[-1].isdigit() else 0
    return Checkpoint(ref=ref, sha=sha, label=meta.get("Label", label), created=float(meta.get("Created", "0")),
                      session_id=meta.get("Session", parts[-2] if len(parts) > 1 else ""), files=files, number=number,
                      not_covered=skipped)


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
    tree, skipped = snapshot(r)
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
            return Checkpoint(ref, sha, label, created, session, files[:_MAX_LISTED], n, tree, skipped)
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


def changes_since(repo: Path | Repo, cp: Checkpoint) -> ShownDiff:
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
    blocked = sorted({link for path in deletes + [w[0] for w in writes]
                      if (link := paths.blocked_by_link(r.root, path)) is not None})
    if blocked:
        raise RepoError(f"Refusing to restore {cp.short}: {', '.join(blocked[:5])} is now a symlink or a file, and "
                        "restoring would write through it (ignored paths are not covered by checkpoints).",
                        f"Move {blocked[0]} out of the way yourself, then run undo again.")
    try:
        for path in deletes:
            paths.remove_file(r.root, path)
        blobs = r.read_blobs([sha for _, _, sha in writes])
        for path, mode, sha in writes:
            paths.restore_file(r.root, path, blobs[sha] or b"", mode)
    except (DevagentError, OSError) as err:
        why = err.message if isinstance(err, DevagentError) else f"{err.strerror}: {err.filename}"
        raise RepoError(f"Restoring {cp.short} stopped part way: {why}",
                        f"Checkpoint {before.short} holds the state from just before; `devagent undo {before.short}` "
                        "puts it back.") from None
    return before


def prune(repo: Path | Repo, keep: int, session_id: str | None = None) -> int:
    """Delete all but the newest ``keep`` checkpoints, never one of ``session_id``; returns how many went."""
    r = _repo(repo)
    cps = list_checkpoints(r)
    session = _safe_session(session_id) if session_id else None
    doomed = [c for c in cps[max(keep, 0):] if c.session_id != session]
    if doomed:
        r.git("update-ref", "--stdin", input="".join(f"delete {c.ref} {c.sha}\n" for c in doomed).encode())
    return len(doomed)
