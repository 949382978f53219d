"""How much memory one command may use (``limits.memory_mb``): a memory cgroup, else a per-process rlimit.

Where devagent may create a memory cgroup (a writable v1 ``memory`` hierarchy, or cgroup v2 with the memory
controller enabled below devagent's own cgroup; probed once per process, like the pids cgroup in pids.py), each
command gets one: everything it starts counts together, anonymous memory, shared mappings and the pages of its
private /tmp alike, and the kernel's OOM killer ends a process of that command (never another) at the bound.
devagent reads the cgroup's OOM count afterwards and says so. Elsewhere (an unprivileged devagent whose
systemd does not delegate a memory controller) RLIMIT_AS bounds each process's address space: a bound per
process, not per command, which programs that reserve much address space (node, a JVM) may need raised.
The sandbox's private /tmp is a tmpfs of at most the same size either way (bwrap --size).
"""

from __future__ import annotations

import atexit
import os
import resource
import uuid
from dataclasses import dataclass
from pathlib import Path

from tui.sandbox.pids import candidates, usable

_JOIN = 'echo $$ > "$0" && exec "$@"'
_LIMIT_FILES = ("memory.limit_in_bytes", "memory.max")  # v1, v2
_HINTS = ("MemoryError", "Cannot allocate memory", "out of memory", "std::bad_alloc", "ENOMEM")


def limit_pair(which: int, value: int) -> tuple[int, int]:
    """(soft, hard) no higher than the current hard limit; CPU gets a 5 s hard margin (SIGXCPU, then SIGKILL)."""
    _soft, hard = resource.getrlimit(which)
    soft = value if hard == resource.RLIM_INFINITY else min(value, hard)
    if which == resource.RLIMIT_CPU and hard == resource.RLIM_INFINITY:
        return soft, soft + 5
    return soft, soft


@dataclass(frozen=True)
class MemoryBound:
    kind: str  # "cgroup" | "rlimit"
    parent: Path | None = None
    detail: str = ""


def _limit_file(group: Path) -> Path | None:
    return next((group / name for name in _LIMIT_FILES if (group / name).exists()), None)


_detected: list[MemoryBound] = []


def detect_memory() -> MemoryBound:
    """The memory bound available here (cached per process)."""
    if not _detected:
        bound = MemoryBound("rlimit", None, "RLIMIT_AS on each process (no memory cgroup devagent may create "
                            "here): a bound per process, not per command")
        for parent, what in candidates("memory"):
            if usable(parent, _LIMIT_FILES, str(64 * 1024 * 1024)):
                bound = MemoryBound("cgroup", parent, f"a memory cgroup per command ({what}, under {parent})")
                break
        _detected.append(bound)
    return _detected[0]


class MemoryGroup:
    """One command's memory cgroup: join it before exec, count OOM kills, remove it."""

    def __init__(self, parent: Path, limit_mb: int) -> None:
        sweep()
        self.path = parent / f"devagent-mem-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.path.mkdir()
        limit = str(max(16, limit_mb) * 1024 * 1024)
        limit_file = _limit_file(self.path)
        if limit_file is None:
            self.remove()
            raise OSError("no memory limit file in a new memory cgroup")
        limit_file.write_text(limit)
        for swap, value in (("memory.memsw.limit_in_bytes", limit), ("memory.swap.max", "0")):
            try:
                (self.path / swap).write_text(value)  # swapping past the bound is not a way around it
            except OSError:
                pass

    def wrap(self, argv: list[str]) -> list[str]:
        return ["/bin/sh", "-c", _JOIN, str(self.path / "cgroup.procs"), *argv]

    def oom_kills(self) -> int:
        """How many of the command's processes the kernel ended at the bound."""
        for name in ("memory.events", "memory.oom_control"):
            try:
                for line in (self.path / name).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
            except (OSError, ValueError):
                continue
        return 0

    def remove(self) -> None:
        """Remove the cgroup once empty (a command's last processes may still be exiting: then at exit)."""
        try:
            self.path.rmdir()
        except OSError:
            _left.append(self.path)


def group_for(bound: MemoryBound, limit_mb: int) -> MemoryGroup | None:
    """A run's memory cgroup; None where there is none (then RLIMIT_AS bounds each process)."""
    if bound.kind != "cgroup" or bound.parent is None:
        return None
    try:
        return MemoryGroup(bound.parent, limit_mb)
    except OSError:
        return None


_left: list[Path] = []


@atexit.register
def sweep() -> None:
    """Remove the cgroups whose last processes have exited since their command ended."""
    for path in list(_left):
        try:
            path.rmdir()
            _left.remove(path)
        except FileNotFoundError:
            _left.remove(path)
        except OSError:
            pass


def note(limit_mb: int, kind: str, oom_kills: int, failed: bool, tail: str) -> str:
    """What to tell the developer about the memory bound after a command ('' when it did not matter)."""
    if oom_kills:
        return (f"stopped: more than {limit_mb} MB of memory (limits.memory_mb); the kernel ended "
                f"{oom_kills} of its processes")
    if kind == "rlimit" and failed and any(h in tail for h in _HINTS):
        return f"the command may have hit limits.memory_mb ({limit_mb} MB per process: RLIMIT_AS)"
    return ""
