"""Hooks the work tree controls, watched between the start of a session and the developer's next commit.

`devagent commit` runs the repository's hooks on the host: that is what a commit is. When they live in the
work tree (husky's ``core.hooksPath = .husky``, a ``.git/hooks`` entry that is a symlink into the tree, the
pre-commit framework's or lefthook's config there), a sandboxed command can rewrite one, add one, or change a
helper it sources, and the next commit would run that outside the sandbox. devagent records what these files
held when it first saw them (at the start of a session, or the first commit), in ``.git/devagent``, which
commands cannot write; before a commit runs hooks that differ from that record, the commit shows the
difference and asks. Hooks in ``.git/hooks`` itself are not watched: commands cannot write there.
Not covered: other files a hook runs from the tree (a ``scripts/lint.sh`` that a hook calls by name).
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from tui.git.repo import Repo
from tui.protocol.errors import RepoError
from tui.safety.paths import read_regular, replace_file

RECORD = "hooks-seen.json"
MAX_FILES = 200
MAX_BYTES = 256 * 1024
# Hook managers' configs: what the hooks they install run (a hook that names the manager reads it).
MANAGER_FILES = {"pre-commit": (".pre-commit-config.yaml",), "lefthook": ("lefthook.yml", ".lefthook.yml",
                 "lefthook-local.yml", ".lefthook-local.yml"), "overcommit": (".overcommit.yml",)}


@dataclass(frozen=True)
class Change:
    path: str  # as shown: relative to the work tree when it lies there
    before: str | None  # None: it was not there
    after: str | None  # None: it is gone


def _inside(path: str, root: str) -> bool:
    return path.startswith(root + "/") and os.path.relpath(path, root).split(os.sep)[0] != ".git"


def _text(path: str) -> str | None:
    try:
        return read_regular(Path(path), MAX_BYTES).decode("utf-8", "replace")
    except OSError:
        return None


def watched(repo: Repo) -> dict[str, str]:
    """Every hook input the work tree controls, by its path (relative to the work tree), with its text."""
    root = os.path.realpath(repo.root)
    hooks = os.path.realpath(repo.git_path("hooks"))
    found: dict[str, str] = {}

    def add(path: str) -> None:
        text = _text(path)
        if text is not None and len(found) < MAX_FILES:
            found[os.path.relpath(path, root) if _inside(path, root) else path] = text

    if _inside(hooks, root):
        for here, dirs, files in os.walk(hooks):  # husky: the hooks and the helpers they source (.husky/_/h)
            dirs.sort()
            for name in sorted(files):
                add(os.path.join(here, name))
    elif os.path.isdir(hooks):
        for entry in sorted(os.scandir(hooks), key=lambda e: e.name):
            real = os.path.realpath(entry.path)
            if entry.name.endswith(".sample") or not _inside(real, root):
                continue
            add(real)  # .git/hooks/pre-commit -> ../../scripts/pre-commit.sh
    try:
        texts = [read_regular(Path(hooks, n), MAX_BYTES).decode("utf-8", "replace") for n in os.listdir(hooks)]
    except OSError:
        texts = []
    for manager, names in MANAGER_FILES.items():
        if any(manager in text for text in texts):
            for name in names:
                if os.path.lexists(os.path.join(root, name)):
                    add(os.path.join(root, name))
    return found


def _record(repo: Repo) -> Path:
    return repo.devagent_dir() / RECORD


def _load(repo: Repo) -> dict[str, str] | None:
    try:
        data = json.loads(read_regular(_record(repo), 64 * MAX_BYTES).decode("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and all(isinstance(v, str) for v in data.values()) else None


def accept(repo: Repo, seen: dict[str, str] | None = None) -> None:
    """Record the hooks as they are now (or ``seen``) as the ones the developer knows."""
    replace_file(_record(repo), json.dumps(watched(repo) if seen is None else seen).encode(), 0o600)


def remember(repo: Repo) -> None:
    """At the start of a session: record the hooks unless a record exists (changes since then are asked for)."""
    if _load(repo) is None:
        accept(repo)


def changed(repo: Repo) -> list[Change]:
    """Hook inputs that differ from the record (none when there is no record yet: it is made now)."""
    before = _load(repo)
    now = watched(repo)
    if before is None:
        accept(repo, now)
        return []
    return [Change(p, before.get(p), now.get(p)) for p in sorted(set(before) | set(now)) if before.get(p) != now.get(p)]


def describe(changes: list[Change], limit: int = 120) -> str:
    """The changes as a developer reads them: each file's unified diff (or its whole text when it is new)."""
    lines: list[str] = []
    for change in changes:
        if change.after is None:
            lines.append(f"{change.path}: removed")
            continue
        what = "new" if change.before is None else "changed"
        lines.append(f"{change.path}: {what}")
        diff = difflib.unified_diff((change.before or "").splitlines(), change.after.splitlines(),
                                    f"a/{change.path}", f"b/{change.path}", lineterm="", n=2)
        lines += [f"    {line}" for line in diff]
    if len(lines) > limit:
        lines = lines[:limit] + [f"    [... {len(lines) - limit} more lines]"]
    return "\n".join(lines)


def refusal(changes: list[Change]) -> RepoError:
    names = ", ".join(c.path for c in changes)
    return RepoError(f"These hooks changed since devagent last saw them, and a commit would run them on your machine "
                     f"(a command in the work tree may have changed them): {names}\n{describe(changes)}",
                     "Read them. To run them and commit: `devagent commit` in a terminal and answer y, or "
                     "--accept-hooks; to commit without hooks: --no-verify.")
