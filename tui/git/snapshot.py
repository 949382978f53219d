"""The working tree as a tree object holding the exact bytes on disk, for checkpoints and undo.

``git add`` stores what git's conversions make of a file: ``eol``/``text``, ``ident``, ``working-tree-encoding``
and filters chosen by .gitattributes (which any approved command can write), and ``core.autocrlf``. It also keeps
the blob of a file whose stat looks unchanged from the index it starts from, and the developer's index holds
git's normalised blobs. A checkpoint made that way gives back other bytes, and a planted
``working-tree-encoding`` makes every ``git add`` fail. So a snapshot runs git with a private git directory
(``.git/devagent/snapshot``): its ``info/attributes``, which outranks every .gitattributes, unsets every
converting attribute, ``core.autocrlf`` is off, and its own index (kept between snapshots as the stat cache) only
ever holds raw blobs; the blobs go to the repository's object store. ``update-index`` is given the paths
explicitly: the repository's tracked files and its untracked files that are not ignored (``git ls-files``),
nested repositories left out (git never looks inside one), plus any ``extra`` path restore must save first.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from tui.git.diffs import to_text
from tui.git.repo import Repo
from tui.protocol.errors import RepoError

# Every attribute that makes `git add` store something other than the bytes on disk, unset for every path.
RAW_ATTRIBUTES = "* -text -eol -crlf -working-tree-encoding -filter -ident\n"
_NO_CONVERSION = ["-c", "core.autocrlf=false", "-c", "core.safecrlf=false", "-c", f"core.attributesFile={os.devnull}"]
_UNPROCESSABLE = re.compile(r"^fatal: Unable to process path (.+)$", re.M)
_MAX_SKIPPED = 50  # paths update-index refuses (a race: they changed after devagent looked) before it gives up
NOT_ADDABLE = "not a regular file or symlink: kept as last recorded"


@dataclass
class Listing:
    """What ``git ls-files`` says the working tree has: the paths a checkpoint covers and what it leaves out."""

    files: list[str] = field(default_factory=list)  # tracked (not gitlinks) and untracked-not-ignored
    gitlinks: dict[str, str] = field(default_factory=dict)  # submodule path -> the commit the index records
    index: dict[str, tuple[str, str]] = field(default_factory=dict)  # tracked path -> (mode, sha), stage 0
    nested: list[str] = field(default_factory=list)  # "path/" of submodules and untracked repositories

    def inside_nested(self, path: str) -> str | None:
        """The nested repository ``path`` lies in ("sub/"), or None."""
        return next((n for n in self.nested if path.startswith(n) or path == n.rstrip("/")), None)


def listing(r: Repo) -> Listing:
    out = to_text(r.git("ls-files", "-z", "--stage", "--others", "--exclude-standard", env={"GIT_OPTIONAL_LOCKS": "0"}))
    found = Listing()
    seen: set[str] = set()
    for entry in out.split("\0"):
        if not entry:
            continue
        if "\t" in entry:  # "mode sha stage\tpath": tracked
            meta, path = entry.split("\t", 1)
            mode, sha, stage = (meta.split(" ") + ["", "", ""])[:3]
            if mode == "160000":
                found.gitlinks[path] = sha
                found.nested.append(path + "/")
                continue
            if stage == "0":
                found.index[path] = (mode, sha)
        elif entry.endswith("/"):  # git lists an untracked repository as one "dir/"
            found.nested.append(entry)
            continue
        else:
            path = entry
        if path not in seen:
            seen.add(path)
            found.files.append(path)
    found.files = [p for p in found.files if found.inside_nested(p) is None]
    return found


def _private_dir(r: Repo) -> Path:
    """``.git/devagent/snapshot``: a git directory whose attributes turn every conversion off."""
    folder = r.devagent_dir() / "snapshot"
    attributes = folder / "info" / "attributes"
    if attributes.is_file() and attributes.read_text() == RAW_ATTRIBUTES:
        return folder
    for sub in ("info", "objects", "refs"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / "HEAD").write_text("ref: refs/heads/snapshot\n")
    form = to_text(r.git("rev-parse", "--show-object-format")).strip() or "sha1"
    extension = "\trepositoryformatversion = 1\n[extensions]\n\tobjectFormat = sha256\n" if form == "sha256" else \
        "\trepositoryformatversion = 0\n"
    (folder / "config").write_text("[core]\n\tbare = false\n" + extension)
    attributes.write_text(RAW_ATTRIBUTES)
    return folder


def _kind(root: str, path: str, dirs: dict[str, bool]) -> str:
    """'file' (a regular file or symlink to store), 'gone' (missing, a directory now, or behind a symlink or a
    file: its entry goes) or 'other' (a FIFO, socket or device: kept as last recorded)."""
    parts = path.split("/")
    for i in range(1, len(parts)):
        parent = "/".join(parts[:i])
        if parent not in dirs:
            try:
                dirs[parent] = stat.S_ISDIR(os.lstat(os.path.join(root, parent)).st_mode)
            except OSError:
                dirs[parent] = False
        if not dirs[parent]:
            return "gone"
    try:
        mode = os.lstat(os.path.join(root, path)).st_mode
    except OSError:
        return "gone"
    if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
        return "file"
    return "gone" if stat.S_ISDIR(mode) else "other"


def snapshot(r: Repo, extra: list[str] | tuple[str, ...] = ()) -> tuple[str, list[str]]:
    """(tree, what it does not cover): the working tree's exact bytes. ``extra``: paths to store although the
    listing leaves them out (an ignored file, one inside a nested repository) because undo is about to replace
    them."""
    private = _private_dir(r)
    cache = private / "index"
    try:
        return _snapshot(r, private, cache, list(extra))
    except RepoError:
        cache.unlink(missing_ok=True)  # a cache that names pruned objects: start from nothing, once
        return _snapshot(r, private, cache, list(extra))


def _snapshot(r: Repo, private: Path, cache: Path, extra: list[str]) -> tuple[str, list[str]]:
    found = listing(r)
    skipped = [f"{path} (a nested repository: not looked into)" for path in found.nested]
    root = str(r.root)
    dirs: dict[str, bool] = {}
    kinds = {path: _kind(root, path, dirs) for path in dict.fromkeys(found.files + extra)}
    store = [p for p, k in kinds.items() if k == "file"]
    kept = [p for p, k in kinds.items() if k == "other"]
    tmp = private / f"index-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    env = {"GIT_DIR": str(private), "GIT_WORK_TREE": root, "GIT_INDEX_FILE": str(tmp), "GIT_ATTR_NOSYSTEM": "1",
           "GIT_OBJECT_DIRECTORY": os.environ.get("GIT_OBJECT_DIRECTORY") or str(r.common_dir / "objects"),
           "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}
    try:
        if cache.exists():
            # the stat cache: files that look unchanged are not hashed again. Its mtime goes with it: git treats an
            # entry as possibly changed when it is not older than the index file (racy git), and a file edited in
            # the same second as the last snapshot would otherwise pass as unchanged
            shutil.copy2(cache, tmp)
        wanted = set(store) | set(kept) | set(found.gitlinks)
        cached = [p for p in to_text(r.git("ls-files", "-z", env=env)).split("\0") if p]
        stale = [p for p in cached if p not in wanted]
        if stale:
            r.git("update-index", "--force-remove", "-z", "--stdin", input=_nul(stale), env=env)
        have = set(cached) - set(stale)
        info = [f"160000 {sha}\t{path}" for path, sha in found.gitlinks.items()]
        info += [f"{found.index[p][0]} {found.index[p][1]}\t{p}" for p in kept if p not in have and p in found.index]
        if info:
            r.git("update-index", "--index-info", input=("\n".join(info) + "\n").encode("utf-8", "surrogateescape"),
                  env=env)
        skipped += [f"{path} ({NOT_ADDABLE})" for path in kept]
        for _ in range(_MAX_SKIPPED):
            proc = r.run_git(*_NO_CONVERSION, "update-index", "--add", "--remove", "-z", "--stdin",
                             input=_nul(store), env=env, raw=True)
            if proc.returncode == 0:
                break
            refused = [p for p in _UNPROCESSABLE.findall(to_text(proc.stderr)) if p in store]
            if not refused:
                raise RepoError(f"git update-index failed: {to_text(proc.stderr).strip()}")
            store = [p for p in store if p not in refused]  # changed under devagent's feet: as last recorded
            skipped += [f"{path} ({NOT_ADDABLE})" for path in refused]
        else:
            raise RepoError("Could not record a checkpoint: too many files changed while it was being taken.")
        tree = to_text(r.git("write-tree", env=env)).strip()
        os.replace(tmp, cache)
        return tree, skipped
    finally:
        tmp.unlink(missing_ok=True)
        Path(str(tmp) + ".lock").unlink(missing_ok=True)


def _nul(paths: list[str]) -> bytes:
    return "".join(f"{p}\0" for p in paths).encode("utf-8", "surrogateescape")


def snapshot_tree(r: Repo) -> str:
    """The working tree (tracked + untracked, not ignored) as a tree object."""
    return snapshot(r)[0]


def nested_repos(r: Repo) -> list[str]:
    """Submodules (gitlinks in the index) and untracked repositories inside the work tree, as ``path/``."""
    return listing(r).nested
