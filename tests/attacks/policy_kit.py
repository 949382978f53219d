"""Helpers for the config, sandbox-reach, deny and invisible-character attacks (the harness stays generic).

A ``Sink`` is an HTTP server that records every request (headers included): where a hostile config
points devagent, nothing may arrive. A ``UnixListener`` is a real listening socket on the host:
a sandboxed command that reaches it is an escape. ``run_measured`` runs devagent like the harness
does and also returns the peak RSS of the devagent process.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import tempfile
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

from tests.attacks.harness import SECRET, Run, devagent
from tests.conftest import git, make_repo
from tests.ollama_server import Reply, ScriptedOllama


def hostile_repo(path: Path, files: dict[str, str]) -> Path:
    """A committed repo as a clone would arrive: README, app.py and the attacker's files."""
    return make_repo(path, {"README.md": "# demo\n", "app.py": "def add(a, b):\n    return a + b\n", **files})


def of_type(run: Run, kind: str) -> list[dict[str, Any]]:
    return [e for e in run.events() if e.get("type") == kind]


def proposals(run: Run) -> list[dict[str, Any]]:
    return [e["proposal"] for e in of_type(run, "proposal")]


def started(run: Run) -> list[str]:
    """Commands that actually started (approved and run)."""
    return [e.get("command", "") for e in of_type(run, "command_started")]


def run_call(command: str) -> dict[str, Any]:
    return {"name": "run_command", "arguments": {"command": command}}


def python_call(code: str) -> dict[str, Any]:
    return {"name": "run_python", "arguments": {"code": code}}


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Sink:
    """Records every HTTP request; answers 404. ``seen`` must stay empty where nothing may be sent."""

    seen: list[Seen] = field(default_factory=list)
    url: str = ""

    def __enter__(self) -> "Sink":
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
                pass

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                sink.seen.append(Seen(self.command, self.path, dict(self.headers), body))
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = do_HEAD = do_PUT = _any  # noqa: N815 - stdlib naming

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def leaked(self) -> bool:
        """Whether the secret reached this server in a header or a body."""
        return any(SECRET in " ".join(s.headers.values()) or SECRET.encode() in s.body for s in self.seen)


class UnixListener:
    """A listening Unix socket on the host; ``received`` holds what sandboxed clients sent."""

    def __init__(self, path: str, abstract: bool = False) -> None:
        self.path = path
        self.address = "\0" + path if abstract else path
        self.received: list[bytes] = []
        self._stop = threading.Event()

    def __enter__(self) -> "UnixListener":
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if not self.address.startswith("\0"):
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            if os.path.lexists(self.path):
                os.unlink(self.path)
        self._sock.bind(self.address)
        self._sock.listen(8)
        self._sock.settimeout(0.1)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        return self

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    self.received.append(conn.recv(4096) or b"(connected)")
                except OSError:
                    self.received.append(b"(connected)")

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(2)
        self._sock.close()
        if not self.address.startswith("\0"):
            try:
                os.unlink(self.path)
            except OSError:
                pass


def connect_code(address: str, abstract: bool = False) -> str:
    """Python that connects to a Unix socket and sends the word 'pwned'; prints what happened."""
    target = repr(("\0" if abstract else "") + address)
    return ("import socket\ns = socket.socket(socket.AF_UNIX)\n"
            f"try:\n    s.connect({target}); s.sendall(b'pwned'); print('CONNECTED')\n"
            "except OSError as e:\n    print('REFUSED', e)\n")


def run_measured(cwd: Path, *args: str, url: str = "", timeout: float = 60,
                 env: dict[str, str] | None = None) -> tuple[Run, int]:
    """Like harness.devagent, plus the devagent process's peak RSS in KiB (from wait4).

    The peak is taken by a small launcher that forks devagent and waits for it: a process forked straight from
    pytest starts with pytest's own resident set in its high-water mark (Linux keeps it across exec), which late
    in the whole suite was larger than devagent ever gets."""
    full = {**os.environ, "DEVAGENT_API_KEY": SECRET, **(env or {})}
    if url:
        full["OLLAMA_HOST"] = url
    peak_file = Path(tempfile.mkdtemp()) / "peak"
    launcher = ("import os, sys\npid = os.fork()\nif pid == 0:\n    os.execv(sys.executable, [sys.executable, '-m', 'tui', "
                "*sys.argv[2:]])\n_, status, usage = os.wait4(pid, 0)\nopen(sys.argv[1], 'w').write(str(usage.ru_maxrss))\n"
                "sys.exit(os.waitstatus_to_exitcode(status) % 256)")
    proc = subprocess.Popen([sys.executable, "-c", launcher, str(peak_file), *args], cwd=cwd, env=full,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    chunks: dict[str, bytes] = {}

    def drain(name: str, stream: Any) -> None:
        chunks[name] = stream.read()

    readers = [threading.Thread(target=drain, args=(n, s), daemon=True)
               for n, s in (("out", proc.stdout), ("err", proc.stderr))]
    for reader in readers:
        reader.start()
    timer = threading.Timer(timeout, lambda: os.killpg(proc.pid, signal.SIGKILL))
    timer.start()
    try:
        _pid, status, usage = os.wait4(proc.pid, 0)
    finally:
        hung = not timer.is_alive()
        timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    for reader in readers:
        reader.join(5)
    out, err = (chunks.get(k, b"").decode("utf-8", "replace") for k in ("out", "err"))
    try:
        peak = int(peak_file.read_text())
    except (OSError, ValueError):
        peak = usage.ru_maxrss  # killed before the launcher could write it: the whole process's peak
    return Run(None if hung else proc.returncode, out, err, hung), peak


def stage(repo: Path, name: str, text: str) -> None:
    (repo / name).write_text(text)
    git(repo, "add", name)


@contextlib.contextmanager
def pids_net(limit: int = 1500) -> Iterator[list[str] | None]:
    """A safety net for tests that start real fork bombs: a test-owned pids cgroup the whole test process
    tree joins (argv prefix), so the machine survives even if devagent's own bound failed. None where
    no such cgroup can be made (then tests use a gentle bomb)."""
    from tui.sandbox.pids import PidsGroup, detect_bound

    bound = detect_bound()
    if bound.kind != "cgroup" or bound.parent is None:
        yield None
        return
    group = PidsGroup(bound.parent, limit)
    try:
        yield group.wrap([])
    finally:
        group.remove()


def run_many(repo: Path, commands: list[str], *, timeout: float = 180) -> Run:
    """One `devagent run --yes --json` in which the scripted model proposes each command in turn, one step each
    (--yes approves what asks, so one session can carry many attacks; the decisions say which ones asked)."""
    user = repo.parent / f"{repo.name}-many-steps.toml"
    user.write_text(f"[model]\nmax_steps = {len(commands) + 5}\npipelines = \"off\"\n")
    with ScriptedOllama() as server:
        server.push(*[Reply(tool_calls=[run_call(c)]) for c in commands], Reply("done"))
        return devagent(repo, "run", "--yes", "--json", "go", url=server.url, timeout=timeout,
                        env={"DEVAGENT_CONFIG": str(user)})
