"""A scripted Ollama server on 127.0.0.1 that the real ``ollama`` client talks to.

Tests push ``Reply`` objects (one per /api/chat request) and can inject the
faults a real server shows: HTTP 500/404, a connection reset mid-stream, a
stall that keeps the socket open, and refused connections (``set_down``).
Run it as a process for end-to-end tests:
``python -m tests.ollama_server --port N --script FILE.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import struct
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

DEFAULT_MODEL = "qwen2.5-coder:1.5b"
FAULTS = (None, "http500", "reset", "stall", "http404")


@dataclass
class Reply:
    """One scripted /api/chat answer (or fault)."""

    text: str = ""  # streamed as several chunks (word-ish pieces)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # [{"name": ..., "arguments": {...}}]
    chunks: list[str] | None = None  # explicit text chunks instead of splitting `text`
    delay: float = 0.0  # seconds between chunks
    first_delay: float = 0.0  # seconds before the first chunk (a CPU reading a long prompt)
    fault: str | None = None  # None | "http500" | "reset" | "stall" | "http404"
    fault_after: int = 0  # chunks sent before reset/stall
    stall: float = 30.0  # seconds of silence for the "stall" fault
    done_reason: str = "stop"
    prompt_eval_count: int | None = None  # default: a rough count of the request
    eval_count: int | None = None  # default: the number of chunks

    def __post_init__(self) -> None:
        if self.fault not in FAULTS:
            raise ValueError(f"unknown fault {self.fault!r}; use one of {FAULTS}")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Reply":
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown Reply keys: {sorted(unknown)}")
        return cls(**data)

    def pieces(self) -> list[str]:
        if self.chunks is not None:
            return list(self.chunks)
        return re.findall(r"\s*\S+|\s+$", self.text)


ReplySource = Reply | Callable[[dict[str, Any]], Reply]


def _model_entry(spec: dict[str, Any]) -> dict[str, Any]:
    """Fill a model spec ({"name", "context_length", "capabilities", "family"}) with defaults."""
    name = spec["name"]
    embedding = "embed" in name
    return {
        "name": name,
        "context_length": spec.get("context_length", 4096),
        "capabilities": list(spec.get("capabilities", ["embedding"] if embedding else ["completion", "tools"])),
        "family": spec.get("family", "nomic-bert" if embedding else "qwen2"),
        "parameter_size": spec.get("parameter_size", "1.5B"),
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: "ScriptedOllama"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Connections dropped on purpose (faults, set_down) are not errors worth a traceback."""


class ScriptedOllama:
    """Context manager: ``with ScriptedOllama() as srv: srv.push(Reply("hi")); ... srv.url``."""

    def __init__(self, models: list[dict[str, Any]] | None = None, replies: list[ReplySource] | None = None,
                 port: int = 0) -> None:
        self.models = [_model_entry(m) for m in (models if models is not None else [{"name": DEFAULT_MODEL}])]
        self.default_reply = Reply("Hello from the scripted model.")
        self.requests: list[dict[str, Any]] = []  # /api/chat bodies, in order
        self.warmups: list[dict[str, Any]] = []  # prompt-cache warm-ups (one token, not streamed): kept apart
        self.paths: list[str] = []  # every "METHOD /path" served, in order
        self._queue: deque[ReplySource] = deque(replies or [])
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._port = port
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._conns: set[socket.socket] = set()
        self.url = ""

    # -- lifecycle -------------------------------------------------------
    def start(self) -> str:
        self._stopping.clear()
        self._bind()
        return self.url

    def stop(self) -> None:
        self._stopping.set()
        self._unbind()

    def set_down(self, down: bool) -> None:
        """True: close the listening socket (and open connections) so connects are refused; False: serve again."""
        if down:
            self._unbind()
        elif self._server is None:
            self._bind()

    def __enter__(self) -> "ScriptedOllama":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _bind(self) -> None:
        server = _Server(("127.0.0.1", self._port), _Handler)
        server.owner = self
        self._port = server.server_address[1]
        self.url = f"http://127.0.0.1:{self._port}"
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="scripted-ollama", daemon=True)
        self._thread.start()

    def _unbind(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        with self._lock:
            conns, self._conns = list(self._conns), set()
        for conn in conns:
            _abort(conn)

    # -- script ----------------------------------------------------------
    def push(self, *replies: ReplySource) -> None:
        with self._lock:
            self._queue.extend(replies)

    def next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            source = self._queue.popleft() if self._queue else self.default_reply
        return source(body) if callable(source) else source

    def find_model(self, name: str) -> dict[str, Any] | None:
        for model in self.models:
            if name in (model["name"], model["name"].removesuffix(":latest")):
                return model
        return None

    def track(self, conn: socket.socket, add: bool) -> None:
        with self._lock:
            (self._conns.add if add else self._conns.discard)(conn)

    def sleep(self, seconds: float) -> bool:
        """Wait, waking early when the server stops; True when stopped."""
        return self._stopping.wait(seconds)


def _abort(conn: socket.socket) -> None:
    """Close with RST (SO_LINGER 0), as a crashed server would."""
    try:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        conn.close()
    except OSError:
        pass


def _now() -> str:
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


class _Abort(Exception):
    """The handler dropped the connection on purpose."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # small streamed chunks go out at once, as from a real server
    server: _Server
    timeout = 60

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    @property
    def owner(self) -> ScriptedOllama:
        return self.server.owner

    def setup(self) -> None:
        super().setup()
        self.owner.track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass
        self.owner.track(self.connection, False)

    # -- plumbing --------------------------------------------------------
    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            data = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            return {}
        return data if isinstance(data, dict) else {}

    def _not_found(self, name: str) -> None:
        self._send_json(404, {"error": f"model '{name}' not found"})

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self.owner.paths.append(f"GET {self.path}")
        if self.path == "/api/version":
            self._send_json(200, {"version": "0.6.3-scripted"})
        elif self.path == "/api/tags":
            self._send_json(200, {"models": [self._tag(m) for m in self.owner.models]})
        elif self.path == "/":
            self._send_json(200, {"status": "Ollama is running"})
        else:
            self._send_json(404, {"error": "not found"})

    def do_HEAD(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:  # noqa: N802
        self.owner.paths.append(f"POST {self.path}")
        body = self._body()
        if self.path == "/api/show":
            name = str(body.get("model") or body.get("name") or "")
            model = self.owner.find_model(name)
            if model is None:
                self._not_found(name)
            else:
                self._send_json(200, self._show(model))
        elif self.path == "/api/chat":
            try:
                self._chat(body)
            except _Abort:
                self.close_connection = True
        else:
            self._send_json(404, {"error": "not found"})

    # -- payloads --------------------------------------------------------
    @staticmethod
    def _details(model: dict[str, Any]) -> dict[str, Any]:
        return {"parent_model": "", "format": "gguf", "family": model["family"], "families": [model["family"]],
                "parameter_size": model["parameter_size"], "quantization_level": "Q4_K_M"}

    def _tag(self, model: dict[str, Any]) -> dict[str, Any]:
        return {"name": model["name"], "model": model["name"], "modified_at": "2025-01-01T00:00:00Z",
                "size": 986_061_892, "digest": "0" * 64, "details": self._details(model)}

    def _show(self, model: dict[str, Any]) -> dict[str, Any]:
        arch = model["family"]
        return {
            "license": "", "modelfile": "", "parameters": "", "template": "{{ .Prompt }}",
            "details": self._details(model),
            "model_info": {"general.architecture": arch, "general.parameter_count": 1_543_714_304,
                           f"{arch}.context_length": model["context_length"]},
            "capabilities": model["capabilities"], "modified_at": "2025-01-01T00:00:00Z",
        }

    def _record(self, model: str, content: str, tool_calls: list[dict[str, Any]] | None = None,
                **extra: Any) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if tool_calls:
            message["tool_calls"] = [{"function": {"name": c["name"], "arguments": c.get("arguments", {})}}
                                     for c in tool_calls]
        return {"model": model, "created_at": _now(), "message": message, **extra}

    @staticmethod
    def _prompt_tokens(body: dict[str, Any]) -> int:
        messages = body.get("messages") or []
        return sum(len(str(m.get("content", ""))) // 4 + 4 for m in messages if isinstance(m, dict))

    def _final(self, model: str, reply: Reply, body: dict[str, Any], count: int, content: str = "",
               tool_calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        return self._record(
            model, content, tool_calls, done=True, done_reason=reply.done_reason,
            total_duration=1_000_000, load_duration=1000, prompt_eval_duration=1000, eval_duration=1000,
            prompt_eval_count=reply.prompt_eval_count if reply.prompt_eval_count is not None
            else self._prompt_tokens(body),
            eval_count=reply.eval_count if reply.eval_count is not None else count,
        )

    def _chat(self, body: dict[str, Any]) -> None:
        name = str(body.get("model") or "")
        model = self.owner.find_model(name)
        if model is None:
            self.owner.requests.append(body)
            self._not_found(name)
            return
        if body.get("tools") and "tools" not in model["capabilities"]:  # as real Ollama
            self.owner.requests.append(body)
            self._send_json(400, {"error": f"registry.ollama.ai/library/{name} does not support tools"})
            return
        if body.get("stream") is False and (body.get("options") or {}).get("num_predict") == 1:
            self.owner.warmups.append(body)  # a warm-up takes no scripted reply: tests script the turns
            self._send_json(200, self._final(name, Reply(""), body, 1))
            return
        reply = self.owner.next_reply(body)
        if reply.fault == "http500":
            self._send_json(500, {"error": "llama runner process has terminated: exit status 2"})
            return
        if reply.fault == "http404":
            self._not_found(name)
            return
        pieces = reply.pieces()
        if body.get("stream") is False:
            self._whole(name, reply, body, pieces)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        records = [self._record(name, p) for p in pieces]
        if reply.tool_calls:
            records.append(self._record(name, "", reply.tool_calls))
        if reply.first_delay and self.owner.sleep(reply.first_delay):
            return  # the server is stopping
        for index, record in enumerate(self._faulted(records, reply)):
            if index and reply.delay:
                self.owner.sleep(reply.delay)
            self._write_chunk(record)
        self._write_chunk(self._final(name, reply, body, len(records)))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _faulted(self, records: list[dict[str, Any]], reply: Reply) -> Iterator[dict[str, Any]]:
        """Yield the records, applying a reset or stall after ``fault_after`` of them."""
        for index, record in enumerate(records):
            if index == reply.fault_after:
                self._fault(reply)
            yield record
        if reply.fault_after >= len(records):
            self._fault(reply)

    def _fault(self, reply: Reply) -> None:
        if reply.fault == "reset":
            _abort(self.connection)
            raise _Abort()
        if reply.fault == "stall":
            if self.owner.sleep(reply.stall):
                _abort(self.connection)
                raise _Abort()

    def _write_chunk(self, record: dict[str, Any]) -> None:
        data = json.dumps(record).encode() + b"\n"
        try:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
        except OSError:
            raise _Abort() from None

    def _whole(self, name: str, reply: Reply, body: dict[str, Any], pieces: list[str]) -> None:
        if reply.fault in ("reset", "stall"):
            self._fault(reply)
        self._send_json(200, self._final(name, reply, body, len(pieces), "".join(pieces), reply.tool_calls))


@pytest.fixture
def ollama_server() -> Iterator[ScriptedOllama]:
    """A started ScriptedOllama with the default model; stopped after the test."""
    server = ScriptedOllama()
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _load_script(path: Path) -> tuple[list[dict[str, Any]] | None, list[Reply], Reply | None]:
    data = json.loads(path.read_text())
    if isinstance(data, list):
        return None, [Reply.from_dict(d) for d in data], None
    default = data.get("default")
    return (data.get("models"), [Reply.from_dict(d) for d in data.get("replies", [])],
            Reply.from_dict(default) if default else None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.ollama_server", description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", type=Path, help="JSON: a list of Reply dicts, or "
                        '{"models": [...], "replies": [...], "default": {...}}')
    args = parser.parse_args(argv)
    models, replies, default = _load_script(args.script) if args.script else (None, [], None)
    server = ScriptedOllama(models=models, replies=list(replies), port=args.port)
    if default is not None:
        server.default_reply = default
    print(server.start(), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
