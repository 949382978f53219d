"""Host Unix sockets must be unreachable from sandboxed commands (a read-only bind does not stop connect()).

Each attack starts a real listening socket on the host where services keep theirs (/run like
docker.sock and D-Bus, $XDG_RUNTIME_DIR, an agent socket anywhere, one inside the repo, one under
$HOME), then has the scripted model connect to it through `devagent run --yes --json`: the host
listener must receive nothing.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path
from typing import Iterator

import pytest

from tests.attacks.harness import Attack, devagent
from tests.attacks.policy_kit import UnixListener, connect_code, hostile_repo, python_call
from tests.ollama_server import Reply, ScriptedOllama
from tui.config import Config
from tui.sandbox.runner import Sandbox, detect

pytestmark = pytest.mark.skipif(not detect(Config()).active, reason="needs a working bubblewrap")


@pytest.fixture
def server() -> Iterator[ScriptedOllama]:
    with ScriptedOllama() as srv:
        yield srv


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A directory outside /tmp (the sandbox's /tmp is private anyway), removed afterwards."""
    path = Path("/var/tmp") / f"devagent-reach-{uuid.uuid4().hex[:8]}"
    path.mkdir()
    yield path
    for child in sorted(path.rglob("*"), reverse=True):
        child.rmdir() if child.is_dir() and not child.is_symlink() else child.unlink()
    path.rmdir()


def _writable(directory: str) -> bool:
    return os.path.isdir(directory) and os.access(directory, os.W_OK)


def _reach(tmp_path: Path, server: ScriptedOllama, address: str, *, env: dict[str, str] | None = None,
           abstract: bool = False) -> list[bytes]:
    """The scripted model connects to ``address`` from a sandboxed run_python; what the host listener got."""
    repo = hostile_repo(tmp_path / "r", {})
    attack = Attack(repo)
    with UnixListener(address, abstract=abstract) as listener:
        server.push(Reply(tool_calls=[python_call(connect_code(address, abstract))]), Reply("done"))
        run = devagent(repo, "run", "--yes", "--json", "connect", url=server.url, env=env)
        received = list(listener.received)
    attack.check(run, allow_rc=(0,))
    return received


def test_a_socket_directly_in_run_like_docker_sock(tmp_path: Path, server: ScriptedOllama) -> None:
    if not _writable("/run"):
        pytest.skip("/run is not writable here")
    path = f"/run/devagent-reach-{uuid.uuid4().hex[:8]}.sock"
    assert _reach(tmp_path, server, path) == []


def test_a_socket_under_run_dbus(tmp_path: Path, server: ScriptedOllama) -> None:
    if not _writable("/run"):
        pytest.skip("/run is not writable here")
    made = not os.path.isdir("/run/dbus")
    path = f"/run/dbus/devagent-reach-{uuid.uuid4().hex[:8]}"
    try:
        assert _reach(tmp_path, server, path) == []
    finally:
        if made:
            os.rmdir("/run/dbus")


def test_a_session_bus_under_run_user(tmp_path: Path, server: ScriptedOllama) -> None:
    if not _writable("/run"):
        pytest.skip("/run is not writable here")
    base = Path("/run/user") / f"9{uuid.uuid4().int % 10**6:06d}"
    made_user = not Path("/run/user").exists()
    try:
        assert _reach(tmp_path, server, str(base / "bus")) == []
    finally:
        if base.exists():
            base.rmdir()
        if made_user:
            Path("/run/user").rmdir()


def test_a_socket_in_xdg_runtime_dir(tmp_path: Path, server: ScriptedOllama, scratch: Path) -> None:
    runtime = scratch / "xdg"
    runtime.mkdir(mode=0o700)
    assert _reach(tmp_path, server, str(runtime / "gnupg" / "S.gpg-agent"), env={"XDG_RUNTIME_DIR": str(runtime)}) == []


def test_an_agent_socket_anywhere(tmp_path: Path, server: ScriptedOllama, scratch: Path) -> None:
    path = str(scratch / "ssh-XXXX" / "agent.1234")
    assert _reach(tmp_path, server, path, env={"SSH_AUTH_SOCK": path}) == []


def test_a_socket_in_home(tmp_path: Path, server: ScriptedOllama) -> None:
    path = str(Path.home() / f".devagent-reach-{uuid.uuid4().hex[:8]}.sock")
    assert _reach(tmp_path, server, path) == []


def test_a_host_socket_inside_the_repo(tmp_path: Path, server: ScriptedOllama) -> None:
    repo_sock = tmp_path / "r" / "dev-server.sock"  # the repo is created by _reach at tmp_path / "r"
    assert _reach(tmp_path, server, str(repo_sock)) == []


def test_a_socket_in_host_tmp_is_already_hidden(tmp_path: Path, server: ScriptedOllama) -> None:
    path = f"/tmp/.X11-unix-devagent-{uuid.uuid4().hex[:8]}/X99"
    assert _reach(tmp_path, server, path) == []


def test_an_abstract_socket_without_network(tmp_path: Path, server: ScriptedOllama) -> None:
    name = f"devagent-reach-{uuid.uuid4().hex[:8]}"
    assert _reach(tmp_path, server, name, abstract=True) == []


def test_an_abstract_socket_is_reachable_once_network_is_approved(repo: Path) -> None:
    """Documented limit (docs/sandbox.md): approving network shares the host's network namespace, and
    abstract Unix sockets live in the network namespace. This test pins that statement down."""
    name = f"devagent-reach-{uuid.uuid4().hex[:8]}"
    sandbox = Sandbox(repo, Config())
    with UnixListener(name, abstract=True) as listener:
        result = asyncio.run(sandbox.run(["python3", "-c", connect_code(name, abstract=True)], network=True))
        off = asyncio.run(sandbox.run(["python3", "-c", connect_code(name, abstract=True)], network=False))
    assert "CONNECTED" in result.output and listener.received
    assert "REFUSED" in off.output
