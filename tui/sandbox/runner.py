"""The one runner for every command: bubblewrap when it works, else directly (loudly), always with limits.

Every command gets stdin from /dev/null, its own session, an allow-listed
environment, rlimits, a wall-clock and an idle-output limit, capped output
(head + tail) and, on timeout/cancel/kill_all/exit, SIGTERM to the whole
tree, a grace period, then SIGKILL. Under bwrap the command also lives in its
own pid namespace, so killing the namespace's init ends every descendant.
"""

from __future__ import annotations

import asyncio
import atexit
import fcntl
import os
import resource
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tui import projenv
from tui.sandbox import leftovers, memory, procs
from tui.sandbox.pids import PidsBound, PidsGroup, detect_bound
from tui.sandbox.sockets import socket_masks
from tui.sandbox.status import StatusPipe
from tui.config import Config
from tui.protocol.errors import SandboxError
from tui.safety import hostpath
from tui.sandbox.output import OutputBuffer
from tui.sandbox.profile import (
    MARKER_VAR, SANDBOX_HOME, SandboxInfo, bwrap_argv, child_env, detect, git_dirs, secret_masks,
)

__all__ = ["CommandResult", "Sandbox", "SandboxInfo", "detect"]

_F_SETPIPE_SZ = 1031
_PRLIMIT = shutil.which("prlimit", path="/usr/bin:/bin:/usr/sbin:/sbin") or ""


_POLL = 0.05
_PIDS_POLL = 0.05  # how often a run's process count is checked


@dataclass
class CommandResult:
    exit_code: int | None  # None when devagent ended the command (see ``killed``)
    output: str  # head + tail of stdout/stderr, a marker line where bytes were dropped
    dropped_bytes: int
    duration: float
    killed: str  # "" | "timeout" | "idle" | "cancelled" | "killed"


class _Protocol(asyncio.SubprocessProtocol):
    """Feeds output straight into the buffer (no per-chunk tasks) and records EOF and exit."""

    def __init__(self, out: OutputBuffer) -> None:
        self.out = out
        self.eof = asyncio.Event()
        self.exited = asyncio.Event()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self.out.add(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self.eof.set()

    def process_exited(self) -> None:
        self.exited.set()


def _grow_pipe(transport: asyncio.SubprocessTransport) -> None:
    """A 1 MiB pipe means far fewer wake-ups for chatty commands; harmless if refused."""
    pipe = transport.get_pipe_transport(1)
    handle = pipe.get_extra_info("pipe") if pipe is not None else None
    if handle is not None:
        try:
            fcntl.fcntl(handle.fileno(), _F_SETPIPE_SZ, 1 << 20)
        except OSError:
            pass


class _Run:
    """One running command: its transport, its marker, and a way to ask it to stop."""

    def __init__(self, transport: asyncio.SubprocessTransport, proto: _Protocol, marker: str, pidns: bool,
                 group: PidsGroup | None, limit: int) -> None:
        self.transport = transport
        self.proto = proto
        self.pid = transport.get_pid()
        self.marker = f"{MARKER_VAR}={marker}".encode()
        self.pidns = pidns
        self.stop_requested = asyncio.Event()
        self.group = group
        self.limit = limit
        self._init: int | None = None

    def ns_init(self) -> int | None:
        """The sandbox's pid-namespace init (bwrap's child): killing it ends every process in the namespace."""
        if self.pidns and self._init is None:
            kids = procs.children(self.pid)
            self._init = kids[0] if kids else None
        if self._init is not None and procs.parent(self._init) != self.pid:
            return None  # gone (or its pid reused)
        return self._init

    def over_limit(self) -> bool:
        """More processes than ``limits.max_processes``: the cgroup refused a fork, or the watchdog counts too many."""
        if self.group is not None:
            return self.group.refused() > 0
        init = self.ns_init()
        counted = procs.count_in_namespace(init) if init is not None else None
        return (counted if counted is not None else len(self.tree())) > self.limit

    def tree(self) -> set[int]:
        found = procs.descendants(self.pid)
        if not self.pidns:
            found |= procs.marked(self.marker)
        return found

    def kill_now(self) -> None:
        init = self.ns_init()
        if init is not None:
            procs.signal_all({init}, signal.SIGKILL)  # the whole namespace goes with it, at once
        if self.group is not None:
            self.group.kill()
        if not self.proto.exited.is_set():
            procs.kill_now(self.pid, self.marker)
        elif not self.pidns:
            procs.signal_all(procs.marked(self.marker), signal.SIGKILL)


_live: "weakref.WeakSet[_Run]" = weakref.WeakSet()


@atexit.register
def _kill_leftovers() -> None:
    for run in list(_live):
        run.kill_now()


class Sandbox:
    """Runs commands for one repo. ``info`` says which sandbox is active (shown in the status bar)."""

    def __init__(self, repo: Path, config: Config, info: SandboxInfo | None = None,
                 bound: PidsBound | None = None, read_only: tuple[str, ...] = (), view: Path | None = None) -> None:
        """``read_only``: more directories the commands see read-only (a refactoring's scratch copy runs with the
        work tree and a TypeScript install bound read-only; under /tmp they would be hidden by the private /tmp)."""
        self.repo = Path(os.path.realpath(repo))
        # A throwaway copy of the tree that commands see at the repo's path (engine/work/scratch.py); None: the
        # tree itself. The real tree's ignored directories the checks need come in read_only.
        self.view = Path(os.path.realpath(view)) if view is not None else None
        hostpath.distrust(self.repo)
        self.read_only = tuple(os.path.realpath(p) for p in read_only)
        self.config = config
        self.info = info or detect(config)
        self.bound = bound or self._choose_bound()
        self.memory = memory.detect_memory()
        self._runs: set[_Run] = set()
        self._gitdirs: list[str] | None = None
        self._home: str | None = None

    # -- building the command -------------------------------------------------------------------

    def _workdir(self, cwd: Path | None) -> Path:
        if cwd is None:
            return self.repo
        real = Path(os.path.realpath(self.repo / cwd))
        if os.path.commonpath([real, self.repo]) != str(self.repo):
            raise SandboxError(f"working directory {cwd} is outside the repository", "Commands run inside the repo.")
        return real

    def _plain_home(self) -> str:
        if self._home is None:
            self._home = tempfile.mkdtemp(prefix="devagent-home-")
            weakref.finalize(self, shutil.rmtree, self._home, True)
        return self._home

    def build(self, command: str | list[str], *, network: bool = False, cwd: Path | None = None,
              env: dict[str, str] | None = None, marker: str = "") -> tuple[list[str], dict[str, str], Path]:
        """(argv, host environment, host cwd) for one command; public for doctor, tests and the benchmark."""
        argv = ["/bin/sh", "-c", command] if isinstance(command, str) else list(command)
        if not argv:
            raise SandboxError("empty command")
        workdir = self._workdir(cwd)
        if self.info.kind != "bwrap" and self.config.sandbox.mode == "bwrap":
            raise SandboxError(f"sandbox.mode = \"bwrap\" requires bubblewrap, and it does not work here: "
                               f"{self.info.detail}", "Nothing was run. Fix bubblewrap (see `devagent doctor`).")
        project = projenv.for_command(self.repo, self.config, workdir)
        extra = {**project.env, **(env or {})}
        if self.info.kind != "bwrap":
            if self.view is not None:  # without bwrap nothing can show the copy at the repo's path
                raise SandboxError("a throwaway copy of the tree needs bubblewrap", "Nothing was run.")
            return argv, child_env(self.config, self._plain_home(), marker, extra), workdir
        if self._gitdirs is None:
            self._gitdirs = git_dirs(self.repo)
        writable = [os.path.realpath(os.path.expanduser(p)) for p in self.config.sandbox.writable]
        inner_env = child_env(self.config, SANDBOX_HOME, marker, extra)
        bwrap = hostpath.which("bwrap") or "bwrap"
        writable = [w for w in writable if os.path.exists(w)]
        binds = projenv.hidden_roots(projenv.own_environment(), project.interpreter, self.repo,
                                     "" if isinstance(command, str) else argv[0])
        masks = secret_masks(self.config, self.repo)
        ro_dirs = [p for p in self.read_only if os.path.isdir(p)]
        for extra_dir in ro_dirs:  # the developer's masks hold in a work tree bound beside the repo too
            masks += [m for m in secret_masks(self.config, Path(extra_dir)) if m not in masks]
        masks += socket_masks([str(self.repo), *self._gitdirs, *writable, *ro_dirs], bound=binds)
        full = bwrap_argv(bwrap, self.repo, self._gitdirs, network=network, env=inner_env, cwd=workdir,
                          masks=masks, writable=writable, view=self.view, ro_binds=binds,
                          after_repo=[p for p in self.read_only if os.path.isdir(p) or (
                              self.view is not None and os.path.isfile(p))],  # a view's ignored files too
                          tmp_mb=self.config.limits.memory_mb)
        host_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), MARKER_VAR: marker}
        return full + self._nproc(argv), host_env, self.repo

    def _nproc(self, argv: list[str]) -> list[str]:
        """RLIMIT_NPROC set inside the sandbox's own user namespace, where it counts only the command's processes.

        Root ignores it (the pids cgroup or the watchdog bound root); outside a user namespace it would
        count all of your processes, so it is only used under bwrap.
        """
        if os.geteuid() == 0 or not _PRLIMIT:
            return argv
        limit = self.config.limits.max_processes
        return [_PRLIMIT, f"--nproc={limit}:{limit}", "--", *argv]

    def _rlimits(self) -> list[tuple[int, int, str]]:
        limits = self.config.limits
        per_process = [] if self.memory.kind == "cgroup" else [(resource.RLIMIT_AS, limits.memory_mb << 20, "as")]
        return [(resource.RLIMIT_CPU, limits.cpu_seconds, "cpu"),
                (resource.RLIMIT_FSIZE, limits.file_size_mb * 1024 * 1024, "fsize"),
                (resource.RLIMIT_CORE, 0, "core"), *per_process]

    def _with_prlimit(self, argv: list[str]) -> list[str] | None:
        """The `prlimit` program sets the rlimits without a Python preexec_fn (which forces a slow fork)."""
        prlimit = _PRLIMIT
        if not prlimit:
            return None
        opts = []
        for which, value, name in self._rlimits():
            soft, hard = memory.limit_pair(which, value)
            opts.append(f"--{name}={soft}:{hard}")
        return [prlimit, *opts, "--", *argv]

    def _choose_bound(self) -> PidsBound:
        """Unprivileged under bwrap, RLIMIT_NPROC in the user namespace is a kernel bound and costs nothing;
        root ignores it, so root (or no bwrap) needs the pids cgroup, whose per-command join costs ms."""
        if os.geteuid() != 0 and self.info.kind == "bwrap" and _PRLIMIT:
            return PidsBound("rlimit", None, "RLIMIT_NPROC inside each command's user namespace, and a watchdog")
        return detect_bound()

    def _pids_group(self) -> PidsGroup | None:
        """This run's pids cgroup; None means the watchdog bounds it (no cgroup here, or it could not be made)."""
        if self.bound.kind != "cgroup" or self.bound.parent is None:
            return None
        try:
            return PidsGroup(self.bound.parent, self.config.limits.max_processes)
        except OSError:
            return None

    def _preexec(self) -> None:
        for which, value, _name in self._rlimits():
            resource.setrlimit(which, memory.limit_pair(which, value))

    # -- running --------------------------------------------------------------------------------

    async def run(self, command: str | list[str], *, timeout: float | None = None,
                  idle_timeout: float | None = None, network: bool = False,
                  on_output: Callable[[str], None] | None = None, cwd: Path | None = None,
                  env: dict[str, str] | None = None) -> CommandResult:
        """Run one approved command. Cancelling the awaiting task kills the whole tree, then re-raises."""
        limits = self.config.limits
        wall = limits.command_timeout if timeout is None else timeout
        idle = limits.idle_timeout if idle_timeout is None else idle_timeout
        marker = secrets.token_hex(8)
        argv, host_env, workdir = self.build(command, network=network, cwd=cwd, env=env, marker=marker)
        status = StatusPipe() if self.info.kind == "bwrap" else None
        if status is not None:
            argv[1:1] = status.flags()
        group, mem = self._pids_group(), memory.group_for(self.memory, limits.memory_mb)
        for bound in (group, mem):
            argv = bound.wrap(argv) if bound is not None else argv
        limited = self._with_prlimit(argv)
        loop = asyncio.get_running_loop()
        out = OutputBuffer(limits.output_cap, on_output, loop)
        started = time.monotonic()
        try:
            transport, proto = await loop.subprocess_exec(
                lambda: _Protocol(out), *(limited or argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=None if limited else self._preexec,
                env=host_env, cwd=workdir, pass_fds=(status.write_fd,) if status else ())
        except OSError as exc:
            for bound in (group, mem):
                bound.remove() if bound is not None else None
            if status is not None:
                status.close()
            raise SandboxError(f"cannot start {argv[0]}: {exc.strerror or exc}",
                               "Check that the program exists and is executable.") from None
        if status is not None:
            status.spawned()
        _grow_pipe(transport)
        run = _Run(transport, proto, marker, self.info.kind == "bwrap", group, limits.max_processes)
        self._runs.add(run)
        _live.add(run)
        killed = ""
        try:
            killed = await self._pump(run, started + wall, idle)
        except asyncio.CancelledError:
            await asyncio.shield(self._stop(run))
            raise
        finally:
            run.kill_now()
            transport.close()
            self._runs.discard(run)
            _live.discard(run)
            refused = group.refused() if group is not None else 0
            if group is not None:
                group.remove()
            oom = mem.oom_kills() if mem is not None else 0
            if mem is not None:
                mem.remove()
            if status is not None:
                if not killed and transport.get_returncode() not in (None, 0) and not status.command_ran() \
                        and "bwrap: execvp " not in out.text()[-2000:]:  # a program that is not there is not a
                    killed = "sandbox"  # sandbox failure: it keeps its own exit and message ("cannot start X")
                    out.add(b"\n[devagent: the sandbox (bubblewrap) could not be set up, so the command did not "
                            b"run; see bwrap's message above and `devagent doctor`]\n")
                status.close()
            if killed == "processes" or refused:
                what = "stopped" if killed else f"{refused} forks refused"
                out.add(f"\n[devagent: {what}: more than {limits.max_processes} processes at once "
                        "(limits.max_processes)]\n".encode())
            code = transport.get_returncode()
            why = memory.note(limits.memory_mb, self.memory.kind, oom, code not in (None, 0), out.text()[-2000:])
            killed = "memory" if oom and (killed or code in (137, -9)) else killed
            if why:
                out.add(f"\n[devagent: {why}]\n".encode())
            for note in leftovers.sweep(self.view or self.repo):  # the whole tree is gone: nothing can add more now
                out.add(f"\n[devagent: {note}]\n".encode())
            out.close()
        code = None if killed else transport.get_returncode()
        return CommandResult(code, out.text(), out.dropped, time.monotonic() - started, killed)

    async def _pump(self, run: _Run, deadline: float, idle: float) -> str:
        """Wait for EOF and exit, or a limit; returns why devagent ended it ('' if it ended by itself)."""
        proto = run.proto
        waits = {asyncio.ensure_future(e.wait()): name for e, name in
                 ((proto.eof, "eof"), (proto.exited, "exited"), (run.stop_requested, "stop"))}
        exited_at: float | None = None
        reason = ""
        next_check = time.monotonic() + _PIDS_POLL
        try:
            while not (proto.eof.is_set() and proto.exited.is_set()):
                if run.stop_requested.is_set():
                    reason = "killed"
                    break
                now = time.monotonic()
                if proto.exited.is_set() and exited_at is None:
                    exited_at = now
                drain_until = exited_at + min(self.config.limits.grace, 1.0) if exited_at else float("inf")
                idle_until = proto.out.last_data + idle
                if now >= deadline:
                    reason = "timeout"
                    break
                if now >= idle_until:
                    reason = "idle"
                    break
                if now >= drain_until:
                    break  # it exited, but something it started still holds the pipe: end that quietly
                if now >= next_check:
                    if run.over_limit():
                        reason = "processes"
                        run.kill_now()  # a fork bomb gets no grace period
                        break
                    next_check = now + _PIDS_POLL
                pending = [t for t in waits if not t.done()]
                await asyncio.wait(pending, timeout=min(deadline, idle_until, drain_until, next_check) - now,
                                   return_when=asyncio.FIRST_COMPLETED)
            else:
                return ""
            await self._stop(run)
            return reason
        finally:
            for task in waits:
                task.cancel()

    async def _stop(self, run: _Run) -> None:
        """SIGTERM the tree, wait up to the grace period, SIGKILL, then stop reading (never wait on holders)."""
        grace = max(0.0, self.config.limits.grace)
        tree = run.tree()
        running = not run.proto.exited.is_set()
        if running and not run.pidns:
            procs.signal_group(run.pid, signal.SIGTERM)
            # Each process once: a second SIGTERM would run a shell's cleanup trap a second time.
            tree = {pid for pid in tree if procs.group_of(pid) != run.pid}
        # Under bwrap only the inner processes get SIGTERM: the outer bwrap would SIGKILL its namespace at once.
        procs.signal_all(tree, signal.SIGTERM)
        end = time.monotonic() + grace
        while time.monotonic() < end and (not run.proto.exited.is_set() or run.tree()):
            await asyncio.sleep(_POLL)
        run.kill_now()
        for event, wait in ((run.proto.exited, max(grace, 1.0)), (run.proto.eof, min(grace, 0.5))):
            try:
                await asyncio.wait_for(event.wait(), timeout=wait)
            except asyncio.TimeoutError:
                pass

    def kill_all(self) -> None:
        """Stop every running command: SIGTERM now; each run's task adds the grace period and SIGKILL."""
        for run in list(self._runs):
            run.stop_requested.set()
            tree = run.tree()
            procs.signal_all(tree if run.pidns else tree | {run.pid}, signal.SIGTERM)
