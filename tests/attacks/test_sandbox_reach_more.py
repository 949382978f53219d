"""More host Unix sockets a sandboxed command must not reach: in /dev/shm, inside the repository's own .git
(a daemon's socket, such as git's fsmonitor daemon), under ~/.docker/run (rootless docker), and through
/var/run (a symlink to /run). Defended: the sandbox's own /dev, and every bound path the kernel lists in
/proc/net/unix masked with /dev/null (tui/sandbox/sockets.py)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from tests.attacks.test_sandbox_reach import _reach, _writable, pytestmark, scratch, server  # noqa: F401
from tests.ollama_server import ScriptedOllama


def test_a_socket_in_dev_shm(tmp_path: Path, server: ScriptedOllama) -> None:  # noqa: F811
    if not _writable("/dev/shm"):
        pytest.skip("/dev/shm is not writable here")
    assert _reach(tmp_path, server, f"/dev/shm/devagent-reach-{uuid.uuid4().hex[:8]}.sock") == []


def test_a_daemon_socket_inside_dot_git(tmp_path: Path, server: ScriptedOllama) -> None:  # noqa: F811
    assert _reach(tmp_path, server, str(tmp_path / "r" / ".git" / "fsmonitor--daemon.ipc")) == []


def test_a_rootless_docker_socket_in_home(tmp_path: Path, server: ScriptedOllama) -> None:  # noqa: F811
    run_dir = Path.home() / f".docker-reach-{uuid.uuid4().hex[:8]}" / "run"
    try:
        assert _reach(tmp_path, server, str(run_dir / "docker.sock"), env={"DOCKER_HOST": f"unix://{run_dir}"}) == []
    finally:
        for path in (run_dir, run_dir.parent):
            if path.is_dir():
                os.rmdir(path)


def test_a_socket_reached_through_var_run(tmp_path: Path, server: ScriptedOllama) -> None:  # noqa: F811
    if not _writable("/run") or os.path.realpath("/var/run") != "/run":
        pytest.skip("/var/run is not a symlink to a writable /run here")
    name = f"devagent-reach-{uuid.uuid4().hex[:8]}.sock"
    assert _reach(tmp_path, server, f"/var/run/{name}") == []
