"""Host Unix sockets hidden from commands: a read-only bind does not stop connect().

docker.sock, the D-Bus buses, ssh/gpg agents, a database's socket: reaching one is reaching a
process outside the sandbox, often as you. Runtime directories that hold little but sockets get an
empty tmpfs over them; every other socket file is covered with /dev/null. Sockets are found where
the kernel lists them (/proc/net/unix: every bound path in devagent's network namespace, wherever it
is) and by a bounded walk of /run (sockets bound from other namespaces, e.g. a mounted docker.sock).
Abstract sockets are not files: the sandbox's own network namespace hides them, until you approve
network for a command.
"""

from __future__ import annotations

import os
import stat

# Directories that exist for sockets and per-user runtime state: hidden whole (an empty tmpfs).
SOCKET_DIRS: tuple[str, ...] = ("/run/user", "/run/dbus", "/run/docker", "/run/containerd", "/run/podman",
                                "/run/libvirt", "/run/secrets", "/run/snapd", "/run/screen", "/run/tmux")
_NOT_HOST = ("/tmp/", "/dev/", "/proc/", "/sys/")  # private or fresh inside the sandbox anyway
_WALK_LIMIT = 5000  # entries looked at under /run per command
_WALK_DEPTH = 5


def _listed_sockets() -> list[str]:
    """Paths of bound Unix sockets from /proc/net/unix (abstract '@' names and unnamed ones skipped)."""
    try:
        with open("/proc/net/unix", "rb") as fh:
            lines = fh.read().decode("utf-8", "surrogateescape").splitlines()[1:]
    except OSError:
        return []
    found = []
    for line in lines:
        fields = line.split(maxsplit=7)
        if len(fields) == 8 and fields[7].startswith("/"):
            found.append(fields[7])
    return found


def _walk(root: str, hidden: list[str]) -> list[str]:
    """Socket files under ``root``, breadth first, bounded in entries and depth; hidden dirs are skipped."""
    found: list[str] = []
    todo, seen = [(root, 0)], 0
    while todo and seen < _WALK_LIMIT:
        path, depth = todo.pop(0)
        try:
            entries = list(os.scandir(path))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError:
                continue
            if stat.S_ISSOCK(mode):
                found.append(entry.path)
            elif stat.S_ISDIR(mode) and depth < _WALK_DEPTH and entry.path not in hidden:
                todo.append((entry.path, depth + 1))
    return found


def _inside(path: str, dirs: list[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in dirs)


def socket_masks(keep: list[str], runtime_dir: str | None = None, bound: list[str] | None = None
                 ) -> list[tuple[str, bool]]:
    """(path, is_dir) to hide: socket directories (tmpfs), then each remaining socket file (/dev/null).

    A directory holding one of ``keep`` (the repo, its git dirs, writable paths) is never covered whole.
    ``bound``: host directories under /tmp bound back into the sandbox (toolchains): their sockets are the
    host's too, listed or not (a socket bound in another network namespace is not in /proc/net/unix).
    """
    bound = bound or []
    runtime = runtime_dir if runtime_dir is not None else os.environ.get("XDG_RUNTIME_DIR", "")
    dirs: list[str] = []
    for candidate in (*SOCKET_DIRS, runtime):
        if candidate and os.path.isabs(candidate) and os.path.isdir(candidate) and not _inside(candidate, _NOT_HOST) \
                and not any(_inside(k, [candidate, os.path.realpath(candidate)]) for k in keep):
            real = os.path.realpath(candidate)
            dirs += [d for d in dict.fromkeys((candidate, real)) if d not in dirs]
    masks: list[tuple[str, bool]] = [(d, True) for d in dirs]
    seen: set[str] = set()
    walked = [p for root in ("/run", os.path.realpath("/var/run"), *bound) for p in _walk(root, dirs)]
    for path in [*_listed_sockets(), *walked]:
        for variant in (path, os.path.realpath(path)):
            private = variant.startswith(_NOT_HOST) and not _inside(variant, keep + bound)  # /tmp: only what is bound
            if variant in seen or _inside(variant, dirs) or private:
                continue
            seen.add(variant)
            try:
                if stat.S_ISSOCK(os.lstat(variant).st_mode):
                    masks.append((variant, False))
            except OSError:
                continue
    return masks


def describe(masks: list[tuple[str, bool]]) -> str:
    """One line for `devagent doctor`: which socket directories and how many socket files are hidden."""
    dirs = [p for p, is_dir in masks if is_dir]
    files = sum(1 for _p, is_dir in masks if not is_dir)
    return f"host sockets hidden: {', '.join(dirs) or 'no socket directories'} (tmpfs), {files} socket files (/dev/null)"
