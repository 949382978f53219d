"""Git access for devagent: status, diffs, apply/stage/unstage, commit, and the "is it safe to write" check.

The git CLI does the heavy lifting (status ``--porcelain=v2 -z``, diff, apply,
log are many times faster than GitPython's pure-Python paths), through the
façade :class:`tui.git.facade.GitRepo` this class extends (GitPython's ``Git``
wrapper, hardened); GitPython's ``Repo`` is :attr:`GitRepo.gitpython` for
object-level work. Every write first calls :meth:`Repo.ensure_writable`, which refuses while ``index.lock`` is held
or a merge, rebase, cherry-pick, revert or bisect is in progress.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from tui.git.diffs import select_hunks, to_bytes, to_text
from tui.protocol.errors import NotARepoError, PatchError, PathRefused, RepoBusyError, RepoError
from tui.git.facade import GIT_CONFIG, GitRepo
from tui.safety.paths import read_bounded

DIFF_FLAGS = ["--binary", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/",
              "--no-relative"]

# (path in the git dir, what is going on, how to finish it)
_BUSY: list[tuple[str, str, str]] = [
    ("index.lock", "another git process is using this repository (index.lock exists)",
     "Wait for it to finish. If no git process is running, a crashed one left the lock behind: "
     "remove {path} yourself, then try again."),
    ("rebase-merge", "a rebase is in progress",
     "Finish it with `git rebase --continue` or stop it with `git rebase --abort`, then try again."),
    ("rebase-apply", "a rebase or `git am` is in progress",
     "Finish it with `git rebase --continue` (or `git am --continue`), or abort it, then try again."),
    ("MERGE_HEAD", "a merge is in progress",
     "Resolve the conflicts and `git commit`, or stop it with `git merge --abort`, then try again."),
    ("CHERRY_PICK_HEAD", "a cherry-pick is in progress",
     "Finish it with `git cherry-pick --continue` or stop it with `git cherry-pick --abort`, then try again."),
    ("REVERT_HEAD", "a revert is in progress",
     "Finish it with `git revert --continue` or stop it with `git revert --abort`, then try again."),
    ("BISECT_LOG", "a bisect is in progress",
     "End it with `git bisect reset`, then try again."),
]


@dataclass(frozen=True)
class FileStatus:
    path: str
    index: str  # X of porcelain XY ("." = unchanged)
    worktree: str  # Y
    orig_path: str | None = None  # for renames and copies


@dataclass
class RepoStatus:
    branch: str | None  # None when HEAD is detached
    head: str | None  # None before the first commit
    upstream: str | None = None
    ahead: int = 0
    behind: int = 0
    staged: list[FileStatus] = field(default_factory=list)
    unstaged: list[FileStatus] = field(default_factory=list)
    untracked: list[str] = field(default_factory=list)
    unmerged: list[str] = field(default_factory=list)
    busy: str | None = None

    @property
    def clean(self) -> bool:
        return not (self.staged or self.unstaged or self.untracked or self.unmerged)


@dataclass
class CommitResult:
    ok: bool
    sha: str | None
    output: str  # what git and the hooks printed
    message_file: Path | None = None  # where the message was kept when the commit failed


class Repo(GitRepo):
    """One work tree. Cheap to create; all git calls are short subprocesses with a hang guard."""

    def __init__(self, root: Path, *, timeout: float = 120.0) -> None:
        super().__init__(root, timeout=timeout)
        proc = self.run("rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir")
        if proc.returncode != 0:
            raise NotARepoError(f"{root} is not inside a git work tree.",
                                "Run devagent inside a git work tree (or create one with `git init`).")
        top, git_dir, common = to_text(proc.stdout).splitlines()[:3]
        self.root = Path(os.path.realpath(top))
        self.git_dir = Path(git_dir)
        self.common_dir = (Path(root) / common).resolve() if not os.path.isabs(common) else Path(common)

    def devagent_dir(self) -> Path:
        path = self.git_dir / "devagent"
        path.mkdir(parents=True, exist_ok=True)
        return path

    # -- safety ---------------------------------------------------------------------------------------------------

    def busy_reason(self) -> str | None:
        """Why writing now would be unsafe (a lock or an operation in progress), or None."""
        busy = self._busy()
        return busy[0] if busy else None

    def _busy(self) -> tuple[str, str] | None:
        for name, what, hint in _BUSY:
            path = self.git_dir / name
            if path.exists():
                return f"{self.root.name}: {what}.", hint.format(path=path)
        return None

    def ensure_writable(self) -> None:
        busy = self._busy()
        if busy:
            raise RepoBusyError(f"devagent will not write: {busy[0]}", busy[1])

    # -- reading --------------------------------------------------------------------------------------------------

    def head(self) -> str | None:
        proc = self.run_git("rev-parse", "--verify", "-q", "HEAD^{commit}")
        if proc.returncode != 0:
            return None
        return to_text(proc.stdout).strip() or None

    def status(self) -> RepoStatus:
        raw = to_text(self.git("status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all",
                               env={"GIT_OPTIONAL_LOCKS": "0"}))  # never rewrite the developer's index
        return parse_status(raw, self.busy_reason())

    def diff_worktree(self, paths: Sequence[str] | None = None, *, untracked: bool = True) -> str:
        """Index -> working tree, as a git diff; untracked files appear as new files when ``untracked``."""
        text = to_text(self.git("diff", *DIFF_FLAGS, "--", *(paths or [])))
        if untracked:
            extra = self.git("ls-files", "-z", "--others", "--exclude-standard", "--", *(paths or []))
            for name in filter(None, to_text(extra).split("\0")):
                # --no-index against /dev/null keeps the file's mode (executable bit, symlink) in the diff
                proc = self.run_git("diff", "--no-index", *DIFF_FLAGS, "--", os.devnull, name)
                text += to_text(proc.stdout)
        return text

    def diff_staged(self, paths: Sequence[str] | None = None) -> str:
        """HEAD (or the empty tree before the first commit) -> index, with renames detected."""
        return to_text(self.git("diff", "--cached", "-M", *DIFF_FLAGS, "--", *(paths or [])))

    def diff_staged_bounded(self, limit: int, big: int) -> tuple[str, bool]:
        """The staged diff for reading, never for applying: files over ``big`` bytes as binary (git does not read
        their content), at most ``limit`` bytes of it, cut at a file boundary (then the flag is true)."""
        flags = [f for f in DIFF_FLAGS if f != "--binary"]  # a binary patch would hold the whole file
        try:
            code, out, cut = self.run_capped(*GIT_CONFIG, "-c", f"core.bigFileThreshold={big}", "diff", "--cached",
                                             "-M", *flags, limit=limit, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            raise RepoError(f"git diff --cached did not finish within {self.timeout:.0f}s.") from None
        if code != 0:
            raise RepoError("git diff --cached failed.")
        text = to_text(out)
        if cut:
            end = text.rfind("\ndiff --git ")
            text = text[:end + 1] if end >= 0 else ""
        return text, cut

    def read_worktree(self, path: str, limit: int = 16_000_000) -> bytes | None:
        """The file's bytes (a symlink's target text) as git would store them; None when absent or unreadable.

        Never follows a symlink out of the work tree or into a git dir, never blocks on a FIFO.
        """
        target = self.root / path
        if target.is_symlink():
            return os.fsencode(os.readlink(target))
        try:
            return read_bounded(self.root, path, limit)[0]
        except (OSError, PathRefused):
            return None

    def read_blob(self, spec: str) -> bytes | None:
        """``git show SPEC`` bytes (e.g. ``HEAD:a.py`` or ``:a.py`` for the index), None when absent."""
        proc = self.run_git("cat-file", "blob", spec)
        return proc.stdout if proc.returncode == 0 else None

    def blob_sizes(self, specs: list[str]) -> dict[str, int | None]:
        """Object sizes for many specs (``:path``, ``HEAD:path``, shas) in one ``git cat-file --batch-check``."""
        if not specs:
            return {}
        out = self.git("cat-file", "--batch-check=%(objectsize)", input="".join(f"{s}\n" for s in specs).encode())
        sizes: dict[str, int | None] = {}
        for spec, line in zip(specs, to_text(out).splitlines()):
            sizes[spec] = int(line) if line.isdigit() else None  # "<spec> missing" otherwise
        return sizes

    def read_blobs(self, specs: list[str]) -> dict[str, bytes | None]:
        """Many blobs through one ``git cat-file --batch`` (None for a spec that does not exist)."""
        unique = list(dict.fromkeys(specs))
        if not unique:
            return {}
        out = self.git("cat-file", "--batch", input="".join(f"{s}\n" for s in unique).encode())
        pos, blobs = 0, {}
        for spec in unique:
            eol = out.index(b"\n", pos)
            header = out[pos:eol].split()
            if len(header) < 3 or header[-1] == b"missing" or not header[2].isdigit():
                blobs[spec], pos = None, eol + 1
                continue
            size = int(header[2])
            blobs[spec] = out[eol + 1:eol + 1 + size]
            pos = eol + 1 + size + 1
        return blobs

    def recent_subjects(self, n: int = 10) -> list[str]:
        if self.head() is None:
            return []
        return [s for s in to_text(self.git("log", f"-n{n}", "--format=%s")).splitlines() if s]

    # -- writing --------------------------------------------------------------------------------------------------

    def apply(self, patch: str, *, cached: bool = False, reverse: bool = False, check: bool = False) -> None:
        """``git apply`` the patch to the working tree (or the index with ``cached``); PatchError when it does not fit."""
        if not patch.strip():
            return
        if not check:
            self.ensure_writable()
        args = ["apply", "--whitespace=nowarn"]
        if cached:
            args.append("--cached")
        if reverse:
            args.append("-R")
        if check:
            args.append("--check")
        proc = self.run_git(*args, "-", input=to_bytes(patch))
        if proc.returncode != 0:
            where = "the index" if cached else "the working tree"
            raise PatchError(f"The change does not apply to {where}: {to_text(proc.stderr).strip()}",
                             "The files changed since the diff was made; refresh the diff and try again.")

    def stage_hunks(self, diff: str, accepted: set[int] | None = None) -> None:
        """Stage the accepted hunks of a :meth:`diff_worktree` diff (None = all of it)."""
        self.apply(select_hunks(diff, accepted), cached=True)

    def unstage_hunks(self, diff: str, accepted: set[int] | None = None) -> None:
        """Unstage the accepted hunks of a :meth:`diff_staged` diff (None = all of it)."""
        self.apply(select_hunks(diff, accepted), cached=True, reverse=True)

    def stage(self, paths: Sequence[str] | None = None) -> None:
        """``git add`` the paths (all changes, untracked included, when None)."""
        self.ensure_writable()
        self.git("add", "-A", "--", *(paths or ["."]))

    def unstage(self, paths: Sequence[str] | None = None) -> None:
        self.ensure_writable()
        if self.head() is None:
            self.git("rm", "-r", "--cached", "-q", "--ignore-unmatch", "--", *(paths or ["."]))
        else:
            self.git("reset", "-q", "HEAD", "--", *(paths or ["."]))

    def commit(self, message: str, *, no_verify: bool = False, timeout: float = 600.0,
               env: dict[str, str] | None = None) -> CommitResult:
        """Commit the index with the repo's hooks. A refused commit keeps the message in .git/devagent/COMMIT_MSG."""
        self.ensure_writable()
        if not message.strip():
            raise RepoError("The commit message is empty.", "Write a message (or let devagent propose one).")
        if self.run_git("diff", "--cached", "--quiet").returncode == 0 and self.head() is not None:
            raise RepoError("Nothing is staged, so there is nothing to commit.",
                            "Stage changes first (`git add`, or approve staging in devagent).")
        kept = self.devagent_dir() / "COMMIT_MSG"
        kept.write_bytes(to_bytes(message if message.endswith("\n") else message + "\n"))
        args = ["commit", "-F", str(kept), "--cleanup=whitespace"]  # keep lines like "#123 ..."
        if no_verify:
            args.append("--no-verify")
        try:
            proc = self.run_commit(*args, timeout=timeout, env={"DEVAGENT_COMMIT": "1", **(env or {})})
            output, code = to_text(proc.stdout), proc.returncode
        except subprocess.TimeoutExpired as exc:
            output, code = to_text(exc.output or b"") + f"\n(git commit stopped after {timeout:.0f}s)", 124
        if code != 0:
            return CommitResult(False, None, f"{output.rstrip()}\nYour message is kept in {kept}.", kept)
        kept.unlink(missing_ok=True)
        return CommitResult(True, self.head(), output)


def parse_status(raw: str, busy: str | None = None) -> RepoStatus:
    """``git status --porcelain=v2 -z --branch`` as a RepoStatus: the one parser of it (the TUI's too)."""
    st = RepoStatus(branch=None, head=None, busy=busy)
    items = raw.split("\0")
    i = 0
    while i < len(items):
        item = items[i]
        i += 1
        if not item:
            continue
        if item.startswith("# "):
            _branch_line(st, item[2:])
        elif item[0] in "12":
            parts = item.split(" ", 9 if item[0] == "2" else 8)
            xy, path = parts[1], parts[-1]
            orig = None
            if item[0] == "2":
                orig = items[i]
                i += 1
            fs = FileStatus(path, xy[0], xy[1], orig)
            if xy[0] != ".":
                st.staged.append(fs)
            if xy[1] != ".":
                st.unstaged.append(fs)
        elif item[0] == "u":
            st.unmerged.append(item.split(" ", 10)[-1])
        elif item[0] == "?":
            st.untracked.append(item[2:])
    return st


def _branch_line(st: RepoStatus, line: str) -> None:
    key, _, value = line.partition(" ")
    if key == "branch.oid":
        st.head = None if value == "(initial)" else value
    elif key == "branch.head":
        st.branch = None if value == "(detached)" else value
    elif key == "branch.upstream":
        st.upstream = value
    elif key == "branch.ab":
        ahead, behind = value.split()
        st.ahead, st.behind = int(ahead), abs(int(behind))


def find_repo(start: Path | None = None) -> Path:
    """The work tree root containing ``start`` (default: cwd). Clear errors for no repo and bare repos."""
    start = (start or Path.cwd()).resolve()
    def rev_parse(*args: str) -> subprocess.CompletedProcess[str]:
        try:
            return GitRepo(start, timeout=10).run_text("rev-parse", *args)
        except FileNotFoundError:
            raise RepoError("git is not installed or not on PATH.",
                            "Install git, then run devagent inside a repository.") from None

    bare = rev_parse("--is-bare-repository")
    if bare.returncode != 0:
        raise NotARepoError(
            f"{start} is not inside a git repository.",
            "Run devagent inside a git work tree (or create one with `git init`).",
        )
    if bare.stdout.strip() == "true":
        raise NotARepoError(
            f"{start} is a bare repository: there is no work tree for devagent to work in.",
            "Clone it (`git clone`) or add a worktree (`git worktree add`), and run devagent there.",
        )
    top = rev_parse("--show-toplevel")
    if top.returncode != 0 or not top.stdout.strip():
        raise NotARepoError(f"{start} is inside a git directory, not a work tree.", "Run devagent from the work tree.")
    return Path(os.path.realpath(top.stdout.strip()))


def open_repo(start: Path | None = None) -> Repo:
    """The Repo containing ``start`` (default: cwd), with the clear not-a-repo errors of find_repo."""
    return Repo(find_repo(start))

