"""The one place devagent starts git on the host: :class:`GitRepo`, on GitPython, with tui/git/gitsafe.py's
settings applied to every call (a test scans ``tui/`` for any other module that starts git).

CLI calls go through GitPython's ``Git`` command wrapper (``git.Git(root).execute``) with the whole hardened
argv and environment; object-level work gets a GitPython ``Repo`` (:attr:`GitRepo.gitpython`), whose own git
processes carry the same settings as ``GIT_CONFIG_COUNT`` entries. The CLI calls do not open that ``Repo``:
opening one reads the repository's config files in Python with no time limit (an ``include.path`` naming a
FIFO hangs it), where git itself runs under a deadline. GitPython is imported at the first call, never at
start-up (``import git`` costs ~0.08 s and runs ``git version``).
"""

from __future__ import annotations

import errno
import os
import subprocess
import tempfile
import time
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from tui.git import configguard, gitsafe
from tui.safety import hostpath
from tui.protocol.errors import RepoError

if TYPE_CHECKING:
    import git as gitpython_module

GIT_CONFIG = ["-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false"]  # diffs parse the same everywhere
_LOCALE = ("LC_ALL", "LANGUAGE")  # GitPython sets both to C; an empty value is the same as an unset one


def _gitpython() -> Any:
    hostpath.distrust()  # GitPython's import runs `git version` (and its timeout kill `pgrep`) from PATH
    for name in gitsafe.TRACE2:  # ... with os.environ: no trace2 target from the config (see gitsafe.environment)
        os.environ.setdefault(name, "0")
    try:
        import git
    except ImportError as exc:  # GitPython's import runs `git version`: git is missing or broken
        raise FileNotFoundError(errno.ENOENT, f"git cannot run ({exc})", "git") from None
    return git


def _execute(cli: "gitpython_module.Git", command: list[str], *, env: Mapping[str, str], input: bytes | None = None,
             timeout: float | None = None) -> tuple[int, bytes, bytes]:
    """(code, stdout, stderr) of ``command`` through GitPython; subprocess.TimeoutExpired past ``timeout``,
    OSError when git or the directory is missing (as subprocess.run raises them)."""
    git = _gitpython()
    cwd = str(cli.working_dir)
    if not os.access(cwd, os.X_OK):  # GitPython would run git in the current directory instead
        raise FileNotFoundError(errno.ENOENT if not os.path.exists(cwd) else errno.EACCES, "cannot enter", cwd)
    # GitPython starts from os.environ: what `env` leaves out is given the value that turns it off
    full = {k: gitsafe.ENV_PROGRAMS.get(k, "") for k in os.environ if k not in env}
    full.update({k: "" for k in _LOCALE}, **env)
    stdin = None
    if input is not None:  # a real file: GitPython hands stdin to Popen as it is
        stdin = tempfile.TemporaryFile()
        stdin.write(input)
        stdin.seek(0)
    start = time.monotonic()
    try:
        code, out, err = cli.execute(command, istream=stdin, with_extended_output=True, with_exceptions=False,
                                     kill_after_timeout=timeout, env=full, stdout_as_string=False,
                                     strip_newline_in_stdout=False)
    except git.GitCommandNotFound as exc:
        raise FileNotFoundError(errno.ENOENT, str(exc), command[0]) from None
    finally:
        if stdin is not None:
            stdin.close()
    if code < 0 and timeout is not None and time.monotonic() - start >= timeout:
        raise subprocess.TimeoutExpired(command, timeout, out, err)
    raw_err = os.fsencode(err) if isinstance(err, str) else err  # GitPython decodes it (surrogateescape)
    return code, out, (raw_err + b"\n") if raw_err else raw_err  # and strips its last newline


def _config_git(args: list[str]) -> tuple[int, bytes]:
    """``git config --file F ...`` for the guard's scan, run in ``/`` with no other config: git reads nothing else
    (started in the repository, git reads its whole config, includes and all, before it lists one file)."""
    command = [hostpath.which("git") or "git", *args]
    env = {**gitsafe.environment(), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_CONFIG_COUNT": "0", "GIT_CONFIG_PARAMETERS": "", "GIT_DIR": os.devnull}
    code, out, _ = _execute(_gitpython().Git("/"), command, env=env, timeout=10)
    return code, out


_GUARD = configguard.Guard(_config_git)


def argv(cwd: Path | str, *args: str, hooks: bool = False, raw: bool = False) -> list[str]:
    """``git`` and its safe prefix, then ``args`` (which may start with the caller's own ``-c`` pairs).

    ``hooks``: the developer's approved commit (their hooks and signing run as configured, with their own
    environment), and looking up where those hooks live. ``raw``: no filter driver at all, not even the
    developer's (a checkpoint stores the bytes on disk).
    """
    git = hostpath.which("git") or "git"  # never a `git` a command wrote into the work tree
    guarded = _GUARD.settings(str(cwd), raw=raw, hooks=hooks)  # UnsafeGitConfig when git would block on its config
    if hooks:
        return [git, "--no-pager", *gitsafe.pairs(gitsafe.OWN_HOOKS + guarded), *args]
    rest = gitsafe.subcommand_args(args)
    return [git, "--no-pager", *gitsafe.pairs(gitsafe.NEUTRAL + gitsafe.NO_HOOKS_OR_SIGNING),
            *gitsafe.pairs(guarded), *rest]


class GitRepo:
    """git in one directory (a work tree, or any directory for ``diff --no-index``): every host-side call.

    :meth:`run` and :meth:`run_text` raise subprocess.TimeoutExpired and OSError like subprocess.run;
    :meth:`git` and :meth:`run_git` add the diff settings every parser here expects and raise RepoError.
    """

    def __init__(self, root: Path | str, *, timeout: float = 120.0) -> None:
        self.root = Path(root)
        self.timeout = timeout
        hostpath.distrust(self.root)  # from now on devagent's PATH leaves this work tree out

    @property
    def cli(self) -> "gitpython_module.Git":
        """GitPython's command wrapper in :attr:`root` (cheap: it starts nothing until a call)."""
        cli = self.__dict__.get("_cli")
        if cli is None or cli.working_dir != str(self.root):
            cli = self.__dict__["_cli"] = _gitpython().Git(str(self.root))
        return cli

    def run(self, *args: str, input: bytes | None = None, env: Mapping[str, str] | None = None,
            timeout: float | None = None, hooks: bool = False, raw: bool = False) -> subprocess.CompletedProcess[bytes]:
        """Run git in :attr:`root` with the hardened argv and environment; the whole result, whatever the code."""
        command = argv(self.root, *args, hooks=hooks, raw=raw)
        code, out, err = _execute(self.cli, command, env=gitsafe.environment(env, hooks=hooks), input=input,
                                  timeout=timeout or self.timeout)
        return subprocess.CompletedProcess(command, code, out, err)

    def run_text(self, *args: str, env: Mapping[str, str] | None = None,
                 timeout: float | None = None) -> subprocess.CompletedProcess[str]:
        """:meth:`run` with stdout and stderr decoded (UTF-8; undecodable bytes kept as surrogates in stdout)."""
        out = self.run(*args, env=env, timeout=timeout)
        return subprocess.CompletedProcess(out.args, out.returncode, out.stdout.decode("utf-8", "surrogateescape"),
                                           out.stderr.decode("utf-8", "replace"))

    def run_git(self, *args: str, input: bytes | None = None, env: Mapping[str, str] | None = None,
                timeout: float | None = None, raw: bool = False) -> subprocess.CompletedProcess[bytes]:
        """:meth:`run` with the diff settings; a hang raises RepoError. ``raw``: no filter driver runs."""
        limit = timeout or self.timeout
        try:
            return self.run(*GIT_CONFIG, *args, input=input, env=env, timeout=limit, raw=raw)
        except subprocess.TimeoutExpired:
            raise RepoError(f"git {args[0]} did not finish within {limit:.0f}s.",
                            "Check for a hung git process or a very large repository.") from None

    def git(self, *args: str, input: bytes | None = None, env: Mapping[str, str] | None = None,
            check: bool = True, timeout: float | None = None, raw: bool = False) -> bytes:
        """git's stdout; RepoError with git's message when it fails and ``check``."""
        proc = self.run_git(*args, input=input, env=env, timeout=timeout, raw=raw)
        if check and proc.returncode != 0:
            raise RepoError(f"git {' '.join(args[:2])} failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
        return proc.stdout

    def git_path(self, name: str) -> Path:
        """``git rev-parse --git-path NAME``: honours worktrees and (for ``hooks``) the developer's core.hooksPath."""
        try:
            proc = self.run("rev-parse", "--git-path", name, hooks=name == "hooks")
        except subprocess.TimeoutExpired:
            raise RepoError(f"git rev-parse --git-path did not finish within {self.timeout:.0f}s.") from None
        if proc.returncode != 0:
            raise RepoError(f"git rev-parse --git-path failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
        out = proc.stdout.decode("utf-8", "surrogateescape").strip()
        return (self.root / out).resolve() if not os.path.isabs(out) else Path(out)

    def editor(self) -> str:
        """The developer's editor as git would pick it (``git var GIT_EDITOR``), for their own message edit."""
        prefix = gitsafe.pairs(tuple(p for p in gitsafe.NEUTRAL if p[0] != "core.editor"))
        try:
            code, out, _ = _execute(self.cli, [hostpath.which("git") or "git", *prefix, "var", "GIT_EDITOR"],
                                    env=dict(os.environ), timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return out.decode("utf-8", "replace").strip() if code == 0 else ""

    @cached_property
    def gitpython(self) -> "gitpython_module.Repo":
        """A GitPython Repo of :attr:`root` for object-level work (off the event loop: opening it reads config);
        its git processes (the object database's ``cat-file`` too) get the same settings as GIT_CONFIG_COUNT
        entries and the same environment."""
        guarded = _GUARD.settings(str(self.root))  # before GitPython reads the config (and its includes) itself
        repo = _gitpython().Repo(self.root, search_parent_directories=False)
        settings = gitsafe.NEUTRAL + gitsafe.NO_HOOKS_OR_SIGNING + guarded
        env = gitsafe.environment()
        env.update(gitsafe.config_environment(settings, env))
        env.update({k: gitsafe.ENV_PROGRAMS[k] for k in gitsafe.ENV_PROGRAMS if k in os.environ})
        repo.git.update_environment(**{k: v for k, v in env.items() if k.startswith(("GIT_", "SSH_ASKPASS"))})
        return repo

    # -- the calls GitPython cannot make; each still gets the same argv and environment -------------------------

    def run_capped(self, *args: str, limit: int, env: Mapping[str, str] | None = None,
                   timeout: float = 120.0) -> tuple[int, bytes, bool]:
        """(code, stdout, cut): at most ``limit`` bytes of git's output, git killed once it passes that.

        For output whose size the repository decides (a diff of whatever a command wrote), so devagent never
        holds more than it will show. subprocess.TimeoutExpired past ``timeout``. A raw Popen: GitPython reads
        a command's output whole before it returns.
        """
        import selectors

        deadline = time.monotonic() + timeout
        chunks: list[bytes] = []
        total = 0
        with subprocess.Popen(argv(self.root, *args), cwd=self.root, env=gitsafe.environment(env),
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as proc:
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

    async def run_async(self, *args: str, input: bytes | None = None, env: Mapping[str, str] | None = None,
                        timeout: float | None = None, merge_stderr: bool = False) -> tuple[int, bytes, bytes]:
        """Run git without blocking the event loop; cancelling (or the timeout) kills it. (code, stdout, stderr).
        An asyncio subprocess: GitPython's calls block their thread."""
        import asyncio

        proc = await asyncio.create_subprocess_exec(
            *argv(self.root, *args), cwd=self.root, env=gitsafe.environment(env),
            stdin=asyncio.subprocess.PIPE if input is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT if merge_stderr else asyncio.subprocess.PIPE)
        try:
            out, err = await asyncio.wait_for(proc.communicate(input), timeout)
        except (asyncio.TimeoutError, asyncio.CancelledError):
            proc.kill()
            await proc.wait()
            raise
        return proc.returncode or 0, out, err or b""

    def run_commit(self, *args: str, env: Mapping[str, str] | None = None,
                   timeout: float = 600.0) -> subprocess.CompletedProcess[bytes]:
        """The developer's own commit: their hooks, signing and environment, hooks' output interleaved with
        git's as in a terminal. A raw subprocess.run: GitPython always reads stderr apart from stdout (and sets
        the locale to C, which the developer's hooks should not see)."""
        return subprocess.run(argv(self.root, *args, hooks=True), cwd=self.root, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout, env=gitsafe.environment(env, hooks=True),
                              stdin=subprocess.DEVNULL)
