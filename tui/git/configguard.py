"""Git config the work tree controls: what devagent's own git calls take from it, and what they refuse.

The developer's config may include a file inside the work tree (dotfiles kept in the project, a repository
that is also $HOME), and such a file may include others: an approved command can write all of them. From
those sources devagent's git takes nothing that names a program (tui/git/gitsafe.py) and, here, nothing that
names a file: each path-valued key git-config(1) lists (``core.excludesFile``, ``core.attributesFile``,
``mailmap.file``, ``commit.template``, trace2 targets, ...) gets the developer's own value back on the
command line, or an empty one. A key the developer set themselves keeps its value unless it names a file in
the work tree that is no longer a regular file (a command made it a FIFO). An include cannot be undone on
the command line, so before git reads any config this module walks the includes itself: one that leads to
something other than a regular file (a FIFO, a device, ``/proc/self/fd/1``) would make every git call wait
or read forever, and is refused with a message instead (:class:`UnsafeGitConfig`). Filter drivers defined in
such a file are blanked too (see ``settings``' ``raw``). The result is cached until a config file, an
include, or a file a path key names changes.
"""

from __future__ import annotations

import os
import stat
import subprocess
from dataclasses import dataclass, field
from typing import Callable

from tui.git import gitsafe
from tui.protocol.errors import RepoError

# Keys whose value names a file git reads or writes (git-config(1)), lower-cased. Program-valued keys are
# switched off for every call by gitsafe.NEUTRAL; these only from the work tree's config files.
PATH_KEYS = frozenset({
    "core.excludesfile", "core.attributesfile", "commit.template", "mailmap.file", "blame.ignorerevsfile",
    "diff.orderfile", "init.templatedir", "gpg.ssh.allowedsignersfile", "gpg.ssh.revocationfile",
    "user.signingkey", "fsck.skiplist", "fetch.fsck.skiplist", "receive.fsck.skiplist", "trace2.normaltarget",
    "trace2.perftarget", "trace2.eventtarget", "sendemail.aliasesfile", "sendemail.smtpsslcertpath",
})
_HTTP_PATHS = ("sslcert", "sslkey", "sslcainfo", "sslcapath", "cookiefile", "proxysslcert", "proxysslkey",
               "proxysslcainfo")
_INCLUDE_DEPTH = 10  # git's own limit
_FILTER_KEYS = (".clean", ".smudge", ".process")

Runner = Callable[[list[str]], "tuple[int, bytes]"]


class UnsafeGitConfig(RepoError, OSError):
    """git's config includes something that would block or never end; no git call is made (an OSError too, so
    every caller that treats "git could not run" as a failed call does the same here)."""


def is_path_key(key: str) -> bool:
    lower = key.lower()
    if lower in PATH_KEYS:
        return True
    return lower.startswith("http.") and lower.rsplit(".", 1)[-1] in _HTTP_PATHS


def _is_include(key: str) -> bool:
    lower = key.lower()
    return lower == "include.path" or (lower.startswith("includeif.") and lower.endswith(".path"))


@dataclass
class View:
    """What one scan found: the settings it gives, the files it read (for the cache) and a refusal."""

    files: list[str] = field(default_factory=list)
    every_filter: list[str] = field(default_factory=list)
    tree_filter: list[str] = field(default_factory=list)
    overrides: dict[str, str] = field(default_factory=dict)  # key -> value (path keys from the work tree)
    refusal: str = ""


class _Scan:
    def __init__(self, cwd: str, run: Runner) -> None:
        self.cwd = cwd
        self.run = run
        self.view = View()
        self.trusted_value: dict[str, tuple[str, str]] = {}  # lower key -> (key, value) from the developer
        self.tree_keys: dict[str, str] = {}  # lower key -> key, set from a file the work tree controls

    def in_tree(self, path: str) -> bool:
        """``path`` (or where it leads) lies in the work tree outside its .git: commands could write it."""
        for candidate in dict.fromkeys((os.path.normpath(path), os.path.realpath(path))):
            if os.path.commonpath([candidate, self.cwd]) == self.cwd and candidate != self.cwd and \
                    os.path.relpath(candidate, self.cwd).split(os.sep)[0].lower() != ".git":
                return True
        return False

    def entries(self, *args: str) -> list[tuple[str, str, str]] | None:
        code, out = self.run(["config", *args, "--list", "--show-origin", "--no-includes", "-z"])
        if code != 0:
            return None
        fields = out.decode("utf-8", "surrogateescape").split("\0")
        found = []
        for origin, entry in zip(fields[0::2], fields[1::2]):
            key, _, value = entry.partition("\n")
            found.append((origin, key, value))
        return found

    def walk(self, entries: list[tuple[str, str, str]], inherited: bool, depth: int) -> None:
        """Entries in git's order, an include's entries where it stands; ``inherited``: the chain so far is the
        developer's (every file on it lies outside the work tree)."""
        for origin, key, value in entries:
            where = origin[5:] if origin.startswith("file:") else ""
            trusted = inherited and not (where and self.in_tree(where))
            if _is_include(key):
                self.include(where, value, trusted, depth)
            else:
                self.entry(key, value, trusted)
            if self.view.refusal:
                return

    def include(self, where: str, value: str, trusted: bool, depth: int) -> None:
        target = os.path.expanduser(value)
        if not os.path.isabs(target):
            target = os.path.join(os.path.dirname(where) if where else self.cwd, target)
        self.view.files.append(target)
        try:
            mode = os.stat(target).st_mode
        except OSError:
            return  # git skips an include that is not there
        if not stat.S_ISREG(mode) or target.startswith(("/proc/", "/dev/")):
            self.view.refusal = (f"git's config includes {target}{' (from ' + where + ')' if where else ''}, "
                                 "which is not a regular file: git would wait on it or read it forever")
            return
        if depth >= _INCLUDE_DEPTH:
            return
        found = self.entries("--file", target)
        if found is not None:
            self.walk(found, trusted and not self.in_tree(target), depth + 1)

    def entry(self, key: str, value: str, trusted: bool) -> None:
        lower = key.lower()
        if lower.startswith("filter.") and lower.endswith(_FILTER_KEYS):
            name = key[len("filter."):key.rindex(".")]
            for bucket, wanted in ((self.view.every_filter, True), (self.view.tree_filter, not trusted)):
                if wanted and name not in bucket:
                    bucket.append(name)
        elif is_path_key(key):
            if trusted:
                self.trusted_value[lower] = (key, value)
            else:
                self.tree_keys[lower] = key

    def finish(self) -> View:
        for lower, key in self.tree_keys.items():
            self.view.overrides[key] = self.trusted_value.get(lower, (key, ""))[1]
        for lower, (key, value) in self.trusted_value.items():
            if lower in self.tree_keys or not value or "target" in lower:
                continue
            path = os.path.join(self.cwd, os.path.expanduser(value))
            self.view.files.append(path)
            try:
                regular = stat.S_ISREG(os.stat(path).st_mode)
            except OSError:
                continue
            if not regular and self.in_tree(path):
                self.view.overrides[key] = ""  # the developer's file, turned into a FIFO by a command
        return self.view


def _git_dir(cwd: str) -> tuple[str, str]:
    """(git dir, common dir) of the repository at ``cwd`` from its ``.git`` (a directory, or a ``gitdir:`` file),
    read without git: git itself, started there, reads the config and its includes before anything else."""
    dotgit = os.path.join(cwd, ".git")
    gitdir = dotgit
    if os.path.isfile(dotgit):
        try:
            with open(dotgit, encoding="utf-8", errors="replace") as fh:
                text = fh.read(4096)
        except OSError:
            return "", ""
        if not text.startswith("gitdir:"):
            return "", ""
        gitdir = os.path.join(cwd, text[len("gitdir:"):].strip())
    if not os.path.isdir(gitdir):
        return "", ""
    common = gitdir
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8", errors="replace") as fh:
            common = os.path.join(gitdir, fh.read(4096).strip())
    except OSError:
        pass
    return os.path.realpath(gitdir), os.path.realpath(common)


def base_files(cwd: str) -> list[str]:
    """The config files git reads in ``cwd``, in git's order: system, global (XDG, then ~/.gitconfig), the
    repository's, its worktree's."""
    files: list[str] = []
    if not os.environ.get("GIT_CONFIG_NOSYSTEM"):
        files.append(os.environ.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")
    if "GIT_CONFIG_GLOBAL" in os.environ:
        files.append(os.environ["GIT_CONFIG_GLOBAL"])
    else:
        home = os.path.expanduser("~")
        files += [os.path.join(os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config"), "git", "config"),
                  os.path.join(home, ".gitconfig")]
    gitdir, common = _git_dir(cwd)
    if common:
        files.append(os.path.join(common, "config"))
        files.append(os.path.join(gitdir, "config.worktree"))
    return [f for f in files if f]


def scan(cwd: str, run: Runner) -> View | None:
    """The view of the config git sees from ``cwd``. ``run`` lists one file (``config --file F ...``) with no
    other config read."""
    walker = _Scan(os.path.realpath(cwd), run)
    for path in base_files(walker.cwd):
        walker.view.files.append(path)
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue
        if not stat.S_ISREG(mode) and path != os.devnull:
            walker.view.refusal = f"git's config file {path} is not a regular file: git would wait on it"
            break
        found = walker.entries("--file", path)
        if found is None:
            return None
        walker.walk(found, not walker.in_tree(path), 0)
        if walker.view.refusal:
            break
    return walker.finish()


class Guard:
    """:func:`scan` per directory, cached until any file it read (or a path key names) changes."""

    def __init__(self, run: Runner) -> None:
        self._run = run
        self._cache: dict[str, tuple[tuple[object, ...], View]] = {}

    def view(self, cwd: str) -> View | None:
        key = os.path.realpath(cwd)
        hit = self._cache.get(key)
        if hit is not None and hit[0] == gitsafe.signature(hit[1].files, key):
            return hit[1]
        try:
            found = scan(key, self._run)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if found is not None:
            self._cache[key] = (gitsafe.signature(found.files, key), found)
        return found

    def settings(self, cwd: str, *, raw: bool = False, hooks: bool = False) -> tuple[tuple[str, str], ...]:
        """-c settings for a call in ``cwd``; UnsafeGitConfig when git would block on its config."""
        found = self.view(cwd)
        if found is None:
            return ()  # git could not list its config: the call itself fails the same way
        if found.refusal:
            raise UnsafeGitConfig(f"devagent runs no git here: {found.refusal}.",
                                  "Remove that file or fix the include (a command in the work tree may have "
                                  "made it), then try again.")
        overrides = tuple(found.overrides.items())
        if hooks:
            return overrides
        return gitsafe.blank_filters(found.every_filter if raw else found.tree_filter) + overrides
