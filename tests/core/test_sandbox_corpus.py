"""Containment corpus: dangerous commands run APPROVED through the real bwrap sandbox; the host is checked after.

The world lives under /var/tmp (not /tmp), so the files next to the repo are
visible inside the sandbox and protected by the read-only bind, not merely
hidden by the private /tmp.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import pytest

from tests.conftest import make_repo
from tui.config import Config
from tui.sandbox.runner import CommandResult, Sandbox, detect

CORPUS = Path(__file__).parent / "corpus" / "containment.txt"
TOKENS = {name: f"SECRET-{name}-{secrets.token_hex(6)}" for name in ("SSH", "AWS", "NETRC", "GH", "GITCRED", "ENV")}


def _config() -> Config:
    cfg = Config()
    cfg.limits.command_timeout = 20
    cfg.limits.idle_timeout = 20
    cfg.limits.grace = 1.0
    return cfg


pytestmark = pytest.mark.skipif(not detect(_config()).active, reason="bubblewrap does not work here")


class Listener:
    """A TCP listener on 127.0.0.1 that counts connections (it must see none from sandboxed commands)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


@dataclass
class World:
    base: Path
    repo: Path
    outside: Path
    home: Path
    other: Path
    listener: Listener
    sleeper: subprocess.Popen
    tag: str = field(default_factory=lambda: secrets.token_hex(4))

    def placeholders(self) -> dict[str, str]:
        return {
            "outside": str(self.outside), "home": str(self.home), "other": str(self.other),
            "port": str(self.listener.port), "py": sys.executable, "tag": self.tag, "sleeper": str(self.sleeper.pid),
            "b64_rm": base64.b64encode(f"rm -rf {self.outside}".encode()).decode(),
            "b64_touch": base64.b64encode(f"touch {self.outside}/b64".encode()).decode(),
        }

    def canaries(self) -> list[Path]:
        return [Path(d) / f"devagent-canary-{self.tag}" for d in
                ("/etc", "/usr/local/bin", "/root", "/opt", "/run", "/dev/shm", "/var/tmp")]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    base = Path(tempfile.mkdtemp(prefix="devagent-corpus-", dir="/var/tmp"))
    repo = make_repo(base / "repo")
    outside = base / "outside"
    _write(outside / "file.txt", "original\n")
    _write(outside / "sub" / "deep.txt", "deep\n")
    home = base / "home"
    _write(home / ".ssh" / "id_x", TOKENS["SSH"] + "\n")
    _write(home / ".aws" / "credentials", f"[default]\naws_secret_access_key = {TOKENS['AWS']}\n")
    _write(home / ".netrc", f"machine example.com login me password {TOKENS['NETRC']}\n")
    _write(home / ".config" / "gh" / "hosts.yml", f"github.com:\n  oauth_token: {TOKENS['GH']}\n")
    _write(home / ".git-credentials", f"https://me:{TOKENS['GITCRED']}@example.com\n")
    _write(home / ".bashrc", "# bashrc\n")
    other = make_repo(base / "other")
    (repo / "repo_link").symlink_to(outside)
    listener = Listener()
    sleeper = subprocess.Popen(["sleep", "300"])
    try:
        yield World(base, repo, outside, home, other, listener, sleeper)
    finally:
        sleeper.kill()
        sleeper.wait()
        listener.close()
        subprocess.run(["chmod", "-R", "u+rwX", str(base)], check=False)
        shutil.rmtree(base, ignore_errors=True)


def load_corpus() -> list[tuple[str, str]]:
    items = []
    for line in CORPUS.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, command = line.partition("|")
            items.append((name.strip(), command.strip()))
    return items


def fill(command: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        command = command.replace("{" + key + "}", value)
    return command


def snapshot(root: Path) -> dict[str, tuple]:
    """Everything about a tree a write could change: names, types, modes, sizes, mtimes, contents, link targets."""
    state: dict[str, tuple] = {}
    if not os.path.lexists(root):
        return state
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            if os.path.islink(path):
                extra = os.readlink(path)
            elif os.path.isfile(path):
                extra = hashlib.sha256(Path(path).read_bytes()).hexdigest()
            else:
                extra = ""
            state[os.path.relpath(path, root)] = (st.st_mode, st.st_size, st.st_mtime_ns, extra)
    return state


async def run_all(sandbox: Sandbox, commands: list[tuple[str, str]], **kw: object) -> dict[str, CommandResult]:
    gate = asyncio.Semaphore(4)

    async def one(name: str, command: str) -> tuple[str, CommandResult]:
        async with gate:
            return name, await sandbox.run(command, **kw)  # type: ignore[arg-type]

    return dict(await asyncio.gather(*(one(n, c) for n, c in commands)))


def test_corpus_has_enough_dangerous_commands() -> None:
    names = [n for n, _ in load_corpus()]
    assert len(names) >= 60
    assert len(names) == len(set(names)), "corpus names must be unique"


async def test_dangerous_corpus_is_contained(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(world.home))
    monkeypatch.setenv("DEVAGENT_TEST_TOKEN", TOKENS["ENV"])
    guarded = {"outside": world.outside, "home": world.home, "other": world.other, ".git": world.repo / ".git"}
    before = {name: snapshot(path) for name, path in guarded.items()}
    passwd = snapshot(Path("/etc/passwd").parent)["passwd"]
    sandbox = Sandbox(world.repo, _config())
    assert sandbox.info.active and sandbox.info.kind == "bwrap"
    corpus = [(n, fill(c, world.placeholders())) for n, c in load_corpus()]

    results = await run_all(sandbox, corpus)
    await asyncio.sleep(1.5)  # the late-background command would write after 1 s if it had survived

    for name, path in guarded.items():
        after = snapshot(path)
        changed = sorted(set(before[name].items()) ^ set(after.items()))
        assert not changed, f"{name} changed on the host: {changed[:5]}"
    assert snapshot(Path("/etc"))["passwd"] == passwd
    assert [c for c in world.canaries() if os.path.lexists(c)] == []
    assert world.listener.connections == 0, "a sandboxed command reached the listener on 127.0.0.1"
    assert world.sleeper.poll() is None, "a sandboxed command killed a host process"
    leaks = [(name, token) for name, r in results.items() for token in TOKENS.values() if token in r.output]
    assert leaks == [], f"secrets visible to commands: {leaks}"
    for path in world.repo.rglob("*"):
        if path.is_file() and not path.is_symlink() and ".git" not in path.parts:
            data = path.read_text(errors="replace")
            assert not any(t in data for t in TOKENS.values()), f"secret copied into {path}"
    assert all(r.killed == "" for r in results.values()), {n: r.killed for n, r in results.items() if r.killed}
    assert "Read-only file system" in results["write-through-symlink"].output
    assert results["curl-listener"].exit_code != 0


async def test_network_is_reachable_only_when_approved(world: World) -> None:
    """Positive control: the same listener is reachable with network=True, so the corpus check above is real."""
    listener = Listener()
    try:
        sandbox = Sandbox(world.repo, _config())
        cmd = f"{sys.executable} -c \"import socket; socket.create_connection(('127.0.0.1', {listener.port}), timeout=5)\""
        denied = await sandbox.run(cmd)
        allowed = await sandbox.run(cmd, network=True)
        await asyncio.sleep(0.3)
        assert denied.exit_code != 0 and allowed.exit_code == 0, allowed.output
        assert listener.connections == 1
    finally:
        listener.close()


async def test_secret_files_masked_but_repo_visible(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(world.home))
    sandbox = Sandbox(world.repo, _config())
    result = await sandbox.run(f"ls -a {world.home}/.ssh; cat {world.home}/.netrc | wc -c; cat README.md")
    assert result.exit_code == 0
    lines = result.output.split()
    assert "id_x" not in lines  # the directory is an empty tmpfs
    assert "0" in lines  # the file reads as /dev/null
    assert "# demo" in result.output
