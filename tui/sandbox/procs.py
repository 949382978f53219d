"""Finding and killing a command's whole process tree through /proc.

Process groups are not enough: bwrap's --new-session and a command's own
`setsid` put processes in other groups. We walk parent links from the
process we started, and also look for the per-run marker in each process's
environment (it finds double-forked orphans when there is no pid namespace).
"""

from __future__ import annotations

import os
import signal


def _stat(pid: int) -> tuple[int, str] | None:
    """(ppid, state) of a live process, None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2:].split()
    try:
        return int(fields[1]), fields[0].decode()
    except (IndexError, ValueError):
        return None


def _all_pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def descendants(root: int) -> set[int]:
    """Live (non-zombie) processes below ``root``, found through parent links."""
    children: dict[int, list[int]] = {}
    for pid in _all_pids():
        info = _stat(pid)
        if info and info[1] != "Z":
            children.setdefault(info[0], []).append(pid)
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def marked(marker_entry: bytes) -> set[int]:
    """Live processes whose initial environment contains ``NAME=token``."""
    found: set[int] = set()
    me = os.getpid()
    for pid in _all_pids():
        if pid == me:
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                env = fh.read()
        except OSError:
            continue
        if marker_entry in env.split(b"\0"):
            info = _stat(pid)
            if info and info[1] != "Z":
                found.add(pid)
    return found


def alive(pid: int) -> bool:
    info = _stat(pid)
    return info is not None and info[1] != "Z"


def _started(pid: int) -> tuple[int, int]:
    """(start time in clock ticks, pid): parents sort before the children they started."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
        return int(data[data.rfind(b")") + 2:].split()[19]), pid
    except (OSError, IndexError, ValueError):
        return 0, pid


def signal_all(pids: set[int], sig: int) -> None:
    """Signal parents first: a shell that traps SIGTERM gets it before its child dies and its script runs on."""
    for pid in sorted(pids, key=_started):
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def group_of(pid: int) -> int:
    """The process group of ``pid`` (0 when it is gone)."""
    try:
        return os.getpgid(pid)
    except (ProcessLookupError, PermissionError):
        return 0


def signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def kill_now(root: int, marker_entry: bytes) -> None:
    """SIGKILL everything we can find for one run, synchronously (used at exit)."""
    pids = descendants(root) | marked(marker_entry)
    signal_group(root, signal.SIGKILL)
    signal_all(pids | {root}, signal.SIGKILL)


def children(pid: int) -> list[int]:
    """Direct children of ``pid`` (one read of /proc/PID/task/PID/children; [] when unavailable)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as fh:
            return [int(p) for p in fh.read().split()]
    except (OSError, ValueError):
        return []


def parent(pid: int) -> int | None:
    info = _stat(pid)
    return info[0] if info else None


def count_in_namespace(init: int) -> int | None:
    """Processes in the pid namespace whose init is ``init``: its own /proc, listed from outside (cheap)."""
    try:
        return sum(1 for name in os.listdir(f"/proc/{init}/root/proc") if name.isdigit())
    except OSError:
        return None
