"""Every git process devagent starts on the host: its argv prefix and environment, with repo-controlled
execution turned off.

git runs programs named by configuration and attributes: ``core.fsmonitor``, hooks, filter drivers
(``.gitattributes`` picks them), external diff and textconv drivers, pagers, editors, credential and ssh
helpers, signing programs, and all of that again in a nested repository it recurses into (an uninitialised
submodule's directory may hold one a command made, with its own writable config). devagent runs git outside
the sandbox, so no call may start any of them. The exceptions are the developer's own: their approved commit
runs their hooks and signing by design, and a filter driver their own config defines (Git LFS) runs where git
needs it for correct diffs and staging (never for checkpoints). This module is the single place that builds
git calls; a test scans ``tui/`` for any other.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:
    import git as gitpython_module

# Settings passed with -c (command-line scope: above every config file, and inherited by any child git).
_NEUTRAL: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("core.editor", "false"),
    ("sequence.editor", "false"),
    ("core.askPass", ""),
    ("credential.helper", ""),  # an empty value resets the list of helpers
    ("core.sshCommand", "false"),
    ("protocol.allow", "never"),  # no transport at all: devagent's own git never talks to a remote
    ("submodule.recurse", "false"),
    ("diff.ignoreSubmodules", "dirty"),  # never run `git status` inside a submodule (its config would apply)
    ("status.submoduleSummary", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("core.quotePath", "false"),
    ("color.ui", "false"),
)
_NO_HOOKS_OR_SIGNING: tuple[tuple[str, str], ...] = (
    ("core.hooksPath", os.devnull),  # reference-transaction, post-index-change... never run for devagent's calls
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("log.showSignature", "false"),
    ("gpg.program", "false"),
    ("gpg.ssh.program", "false"),
    ("gpg.x509.program", "false"),
)
# The developer's own commit: their hooks and signing run as they configured them (and see what they would
# see in a terminal), so only what cannot matter to a hook is changed.
_OWN_HOOKS: tuple[tuple[str, str], ...] = (("core.fsmonitor", "false"), ("core.pager", "cat"), ("core.editor", "false"))
# Subcommands that could run an external diff or textconv driver: both are switched off on the command line
# (an empty diff.external would be run as a program, so it cannot be blanked through config).
_DIFF_LIKE = {"diff", "log", "show"}
_DIFF_OFF = ["--no-ext-diff", "--no-textconv"]
# Environment variables that name programs git would run, or a pager.
_ENV_PROGRAMS = ("GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_PROXY_COMMAND", "GIT_ASKPASS",
                 "SSH_ASKPASS", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR")
_FILTER_KEYS = (".clean", ".smudge", ".process")


def _pairs(settings: tuple[tuple[str, str], ...]) -> list[str]:
    out: list[str] = []
    for key, value in settings:
        out += ["-c", f"{key}={value}"]
    return out


def _blank(names: list[str]) -> tuple[tuple[str, str], ...]:
    blanks = tuple((f"filter.{name}{suffix}", "") for name in names for suffix in _FILTER_KEYS)
    return blanks + tuple((f"filter.{name}.required", "false") for name in names)


class _Drivers:
    """Filter drivers the config git sees from ``cwd`` defines, as -c settings that blank them; re-read when a
    config file (or a file it includes) changes.

    Attributes (repo content) choose which files go through which driver, and a clean or smudge filter runs
    on ``git add``, ``git apply`` and status refreshes. A driver defined in a config file inside the work tree
    (an include pointing there, a repository that is also $HOME) is the repository's: always blanked. One
    from your own config (Git LFS, say) keeps diffs and staging right and runs, except where devagent needs
    the bytes on disk exactly (``raw``: checkpoints, so that undo gives back what was there).
    """

    def __init__(self) -> None:
        self._cache: dict[str, tuple[list[str], tuple[object, ...], tuple[list[str], list[str]]]] = {}

    def settings(self, cwd: Path | str, *, raw: bool = False) -> tuple[tuple[str, str], ...]:
        key = os.path.realpath(cwd)
        hit = self._cache.get(key)
        if hit is None or hit[1] != _signature(hit[0], key):
            found = _read_drivers(key)
            if found is None:  # git could not list its config: nothing to cache (the call itself will fail too)
                return ()
            every, repos, files = found
            hit = (files, _signature(files, key), (every, repos))
            self._cache[key] = hit
        every, repos = hit[2]
        return _blank(every if raw else repos)


def _config_files() -> list[str]:
    home = Path.home()
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(home / ".config")
    return [os.environ.get("GIT_CONFIG_GLOBAL", ""), os.environ.get("GIT_CONFIG_SYSTEM", ""), "/etc/gitconfig",
            str(home / ".gitconfig"), os.path.join(xdg, "git", "config")]


def _signature(files: list[str], cwd: str) -> tuple[object, ...]:
    sig: list[object] = [os.environ.get("GIT_CONFIG_PARAMETERS", ""), os.environ.get("GIT_CONFIG_COUNT", "")]
    for name in [*_config_files(), *files]:
        if not name:
            continue
        path = name if os.path.isabs(name) else os.path.join(cwd, name)
        try:
            st = os.stat(path)
            sig.append((path, st.st_ino, st.st_size, st.st_mtime_ns))
        except OSError:
            sig.append((path, None))
    return tuple(sig)


def _in_work_tree(origin: str, cwd: str) -> bool:
    """A config file git read lies in the work tree at ``cwd`` (outside its .git): commands could write it."""
    if not origin.startswith("file:"):
        return False  # the command line and the environment are the developer's
    path = os.path.realpath(os.path.join(cwd, origin[5:]))
    if os.path.commonpath([path, cwd]) != cwd:
        return False
    return os.path.relpath(path, cwd).split(os.sep)[0].lower() != ".git"


def _read_drivers(cwd: str) -> tuple[list[str], list[str], list[str]] | None:
    """(every filter driver, those defined in the work tree, the config files read) for ``cwd``; None if git
    could not list its config."""
    argv = ["git", *_pairs(_NEUTRAL + _NO_HOOKS_OR_SIGNING), "config", "--list", "--show-origin", "-z"]
    try:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, timeout=30, stdin=subprocess.DEVNULL,
                              env=environment())
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    out = proc.stdout.decode("utf-8", "surrogateescape")
    every: list[str] = []
    repos: list[str] = []
    files: list[str] = []
    fields = out.split("\0")
    for origin, entry in zip(fields[0::2], fields[1::2]):
        key, _, value = entry.partition("\n")
        if origin.startswith("file:") and origin[5:] not in files:
            files.append(origin[5:])
        lower = key.lower()
        if lower.startswith("filter.") and lower.endswith(_FILTER_KEYS):
            name = key[len("filter."):key.rindex(".")]
            every += [name] if name not in every else []
            repos += [name] if _in_work_tree(origin, cwd) and name not in repos else []
        elif lower == "include.path" or (lower.startswith("includeif.") and lower.endswith(".path")):
            base = os.path.dirname(origin[5:]) if origin.startswith("file:") else cwd
            files.append(os.path.join(base, os.path.expanduser(value)))
    return every, repos, files


_DRIVERS = _Drivers()


def argv(cwd: Path | str, *args: str, hooks: bool = False, raw: bool = False) -> list[str]:
    """``git`` and its safe prefix, then ``args`` (which may start with the caller's own ``-c`` pairs).

    ``hooks``: the developer's approved commit (their hooks and signing run as configured, with their own
    environment), and looking up where those hooks live. ``raw``: no filter driver at all, not even the
    developer's (a checkpoint stores the bytes on disk).
    """
    if hooks:
        return ["git", "--no-pager", *_pairs(_OWN_HOOKS), *args]
    args_list = list(args)
    i = 0
    while i < len(args_list) - 1 and args_list[i] == "-c":
        i += 2
    if i < len(args_list) and args_list[i].startswith("-"):
        raise ValueError(f"git global option {args_list[i]!r}: only -c pairs may come before the subcommand")
    if i < len(args_list) and args_list[i] in _DIFF_LIKE:
        args_list[i + 1:i + 1] = _DIFF_OFF
    drivers = _DRIVERS.settings(cwd, raw=raw)
    return ["git", "--no-pager", *_pairs(_NEUTRAL + _NO_HOOKS_OR_SIGNING), *_pairs(drivers), *args_list]


def environment(extra: Mapping[str, str] | None = None, *, hooks: bool = False) -> dict[str, str]:
    """os.environ without the variables that name programs for git to run; never a prompt or a pager."""
    env = {k: v for k, v in os.environ.items() if hooks or k not in _ENV_PROGRAMS}
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat"})
    env.update(extra or {})
    return env


def run(cwd: Path | str, *args: str, input: bytes | None = None, env: Mapping[str, str] | None = None,
        timeout: float = 120.0, hooks: bool = False, raw: bool = False,
        merge_stderr: bool = False) -> subprocess.CompletedProcess[bytes]:
    """Run git in ``cwd``; raises subprocess.TimeoutExpired and OSError like subprocess.run."""
    return subprocess.run(argv(cwd, *args, hooks=hooks, raw=raw), cwd=cwd, input=input, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE, timeout=timeout,
                          env=environment(env, hooks=hooks), stdin=None if input is not None else subprocess.DEVNULL)


def run_capped(cwd: Path | str, *args: str, limit: int, env: Mapping[str, str] | None = None,
               timeout: float = 120.0) -> tuple[int, bytes, bool]:
    """(code, stdout, cut): at most ``limit`` bytes of git's output, git killed once it passes that.

    For output whose size the repository decides (a diff of whatever a command wrote), so devagent never
    holds more than it will show. subprocess.TimeoutExpired past ``timeout``.
    """
    import selectors
    import time

    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    total = 0
    with subprocess.Popen(argv(cwd, *args), cwd=cwd, env=environment(env), stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as proc:
        assert proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            while total <= limit:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    proc.kill()
                    raise subprocess.TimeoutExpired(proc.args, timeout)
                chunk = os.read(proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
        cut = total > limit
        if cut:
            proc.kill()
        code = proc.wait()
    data = b"".join(chunks)
    return (0 if cut else code), data[:limit], cut


def run_text(cwd: Path | str, *args: str, env: Mapping[str, str] | None = None,
             timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    """:func:`run` with stdout and stderr decoded (UTF-8; undecodable bytes kept as surrogates in stdout)."""
    out = run(cwd, *args, env=env, timeout=timeout)
    return subprocess.CompletedProcess(out.args, out.returncode, out.stdout.decode("utf-8", "surrogateescape"),
                                       out.stderr.decode("utf-8", "replace"))


async def run_async(cwd: Path | str, *args: str, input: bytes | None = None, env: Mapping[str, str] | None = None,
                    timeout: float | None = None, merge_stderr: bool = False) -> tuple[int, bytes, bytes]:
    """Run git without blocking the event loop; cancelling (or the timeout) kills it. (code, stdout, stderr)."""
    import asyncio

    proc = await asyncio.create_subprocess_exec(
        *argv(cwd, *args), cwd=cwd, env=environment(env),
        stdin=asyncio.subprocess.PIPE if input is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT if merge_stderr else asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(proc.communicate(input), timeout)
    except (asyncio.TimeoutError, asyncio.CancelledError):
        proc.kill()
        await proc.wait()
        raise
    return proc.returncode or 0, out, err or b""


def editor(cwd: Path | str) -> str:
    """The developer's editor as git would pick it (``git var GIT_EDITOR``), for their own message edit."""
    prefix = [a for pair in _NEUTRAL if pair[0] != "core.editor" for a in ("-c", f"{pair[0]}={pair[1]}")]
    try:
        out = subprocess.run(["git", *prefix, "var", "GIT_EDITOR"], cwd=cwd, capture_output=True, timeout=10,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout.decode("utf-8", "replace").strip() if out.returncode == 0 else ""


def gitpython(root: Path) -> "gitpython_module.Repo":
    """A GitPython Repo whose git processes get the same settings (as GIT_CONFIG_COUNT environment entries)."""
    import git

    repo = git.Repo(root)
    settings = _NEUTRAL + _NO_HOOKS_OR_SIGNING + _DRIVERS.settings(root)
    env = environment()
    start = int(env.get("GIT_CONFIG_COUNT", "0") or 0)
    for n, (key, value) in enumerate(settings, start):
        env[f"GIT_CONFIG_KEY_{n}"], env[f"GIT_CONFIG_VALUE_{n}"] = key, value
    env["GIT_CONFIG_COUNT"] = str(start + len(settings))
    repo.git.update_environment(**{k: v for k, v in env.items() if k.startswith(("GIT_", "SSH_ASKPASS"))})
    return repo
