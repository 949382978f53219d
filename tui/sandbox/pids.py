"""How many processes one command may have (``limits.max_processes``): a pids cgroup, else a watchdog.

RLIMIT_NPROC does not bound root (the kernel skips the check for uid 0, also inside bwrap's user
namespace), so a fork bomb under a devagent run as root would take the machine. Where devagent may
create a pids cgroup (v2 with the controller delegated, or a writable v1 pids hierarchy) each
command gets its own, with ``pids.max`` set: forks past the limit fail in the kernel, and devagent
ends the command as soon as the cgroup reports a refused fork. Elsewhere a watchdog counts the
command's process tree on every poll and kills it past the limit (the pid namespace makes that one
kill). Threads count as tasks in a cgroup.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

_JOIN = 'echo $$ > "$0" && exec "$@"'  # the shell joins the cgroup, then becomes the command


@dataclass(frozen=True)
class PidsBound:
    kind: str  # "cgroup" | "watchdog"
    parent: Path | None = None  # where per-command cgroups are made
    detail: str = ""


def _own_cgroup(version: str, controller: str = "pids") -> str:
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return ""
    for line in lines:
        ident, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if version == "v2" and ident == "0" and controllers == "":
            return path
        if version == "v1" and controller in controllers.split(","):
            return path
    return ""


def _mounts() -> list[tuple[str, str, str]]:
    """(mount point, fs type, super options) of every cgroup mount."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) > 4 and len(tail) > 2 and tail[0] in ("cgroup", "cgroup2"):
            found.append((fields[4], tail[0], tail[2]))
    return found


def usable(parent: Path, limit_files: tuple[str, ...] = ("pids.max",), value: str = "16") -> bool:
    """Make (and remove) a probe cgroup with a limit (in the first of ``limit_files`` it has) that a shell
    joins: the only honest test of permission."""
    probe = parent / f"devagent-probe-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    try:
        probe.mkdir()
    except OSError:
        return False
    try:
        limit = next((probe / name for name in limit_files if (probe / name).exists()), None)
        if limit is None:
            return False
        limit.write_text(value)
        joined = subprocess.run(["/bin/sh", "-c", _JOIN, str(probe / "cgroup.procs"), "true"],
                                stdin=subprocess.DEVNULL, capture_output=True, timeout=10)
        return joined.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        try:
            probe.rmdir()
        except OSError:
            pass


def candidates(controller: str = "pids") -> list[tuple[Path, str]]:
    """Where per-command cgroups with ``controller`` could be made: (parent, "cgroup v1"/"cgroup v2")."""
    found: list[tuple[Path, str]] = []
    for point, fstype, options in _mounts():
        if fstype == "cgroup2":
            own = Path(point) / _own_cgroup("v2").lstrip("/")
            try:
                if controller in (own / "cgroup.subtree_control").read_text().split():
                    found.append((own, "cgroup v2"))
            except OSError:
                pass
        elif controller in options.split(","):
            found.append((Path(point) / _own_cgroup("v1", controller).lstrip("/"), "cgroup v1"))
    return found


_detected: list[PidsBound] = []


def detect_bound() -> PidsBound:
    """The strongest process bound available here (cached per process); stale empty cgroups are removed."""
    if _detected:
        return _detected[0]
    bound = PidsBound("watchdog", None, "a watchdog counts each command's processes and kills it past the limit "
                      "(no pids cgroup devagent may create here)")
    for parent, what in candidates():
        if usable(parent):
            _remove_stale(parent)
            bound = PidsBound("cgroup", parent, f"a pids cgroup per command ({what}, under {parent})")
            break
    _detected.append(bound)
    return bound


def _remove_stale(parent: Path) -> None:
    for child in parent.glob("devagent-run-*"):
        try:
            child.rmdir()  # only succeeds when it is empty: left behind by a devagent that was killed
        except OSError:
            pass


class PidsGroup:
    """One command's pids cgroup: join it before exec, see refused forks, kill everything in it, remove it."""

    def __init__(self, parent: Path, limit: int) -> None:
        sweep()
        self.path = parent / f"devagent-run-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.path.mkdir()
        (self.path / "pids.max").write_text(str(max(1, limit)))

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` started inside the cgroup (a shell writes its pid, then execs: no window before it)."""
        return ["/bin/sh", "-c", _JOIN, str(self.path / "cgroup.procs"), *argv]

    def refused(self) -> int:
        """How many forks the limit has refused so far."""
        try:
            for line in (self.path / "pids.events").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "max":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def pids(self) -> list[int]:
        try:
            return [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def kill(self) -> None:
        """SIGKILL every process in the cgroup (cgroup.kill where the kernel has it), until it is empty."""
        try:
            (self.path / "cgroup.kill").write_text("1")
        except OSError:
            pass
        for _ in range(50):  # processes may fork while being killed: pass again until it is empty
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass

    def remove(self) -> None:
        """Kill what is left and remove the cgroup; one still draining (zombies not yet reaped) is removed
        later, by the next command or at exit, so this never sleeps on the event loop."""
        self.kill()
        _draining.append(self.path)
        sweep()


_draining: list[Path] = []


def sweep() -> None:
    """Remove the per-command cgroups that have emptied since their command ended."""
    for path in list(_draining):
        try:
            path.rmdir()
        except FileNotFoundError:
            pass
        except OSError:
            continue  # still has tasks exiting: next time
        _draining.remove(path)


@atexit.register
def _sweep_at_exit() -> None:
    end = time.monotonic() + 1.0
    while _draining and time.monotonic() < end:
        sweep()
        time.sleep(0.02)
