"""Newline-delimited JSON-RPC over stdio that answers malformed input instead of dropping it.

The SDK's own stdio transport logs a line that is not JSON and reads on; JSON-RPC 2.0 asks for an error
response (parse error -32700, invalid request -32600) and the client deserves one, so this transport
checks every line, answers the bad ones itself and hands only well-formed messages to the connection.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
from typing import IO, Any, Callable

log = logging.getLogger("devagent.acp")

MAX_LINE = 50 * 1024 * 1024  # bytes: larger lines are answered with a parse error and skipped
DRAIN_SECONDS = 5.0  # after the input ends, how long requests already received may take to be answered


def _error(ident: Any, code: int, message: str, detail: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message, "data": {"details": detail}}}


def check(line: bytes) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(message, None) for a well-formed JSON-RPC message; (None, error response) otherwise."""
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        return None, _error(None, -32700, "Parse error", f"not JSON: {exc}")
    if not isinstance(message, dict):
        return None, _error(None, -32600, "Invalid request", "a JSON-RPC message is a JSON object")
    ident = message.get("id")
    usable_id = ident if isinstance(ident, (str, int)) and not isinstance(ident, bool) else None
    if message.get("jsonrpc") != "2.0":
        return None, _error(usable_id, -32600, "Invalid request", '"jsonrpc" must be "2.0"')
    if "id" in message and ident is not None and usable_id is None:
        return None, _error(None, -32600, "Invalid request", '"id" must be a string or a number')
    method = message.get("method")
    if "method" in message and not isinstance(method, str):
        return None, _error(usable_id, -32600, "Invalid request", '"method" must be a string')
    if method is None and "id" not in message:
        return None, _error(None, -32600, "Invalid request", "neither a request, a notification nor a response")
    if method is None and "result" not in message and "error" not in message:
        return None, _error(usable_id, -32600, "Invalid request", "a response needs a result or an error")
    params = message.get("params")
    if method is not None and params is not None and not isinstance(params, (dict, list)):
        return None, _error(usable_id, -32600, "Invalid request", '"params" must be an object or an array')
    return message, None


class StdioTransport:
    """A message transport (acp's Transport protocol) over a byte reader and writer (stdin, the protocol fd)."""

    def __init__(self, reader: IO[bytes], writer: IO[bytes]) -> None:
        self._writer = writer
        self._lock = asyncio.Lock()
        self._closed = False
        self._loop = asyncio.get_running_loop()
        self._lines: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._open: set[Any] = set()  # ids of requests received and not answered yet
        self._answered = asyncio.Event()
        self.on_eof: Callable[[], None] = lambda: None
        threading.Thread(target=self._pump, args=(reader,), name="devagent-acp-stdin", daemon=True).start()

    def _pump(self, reader: IO[bytes]) -> None:
        """Read lines on a thread: works for pipes, files and terminals alike and never blocks the loop."""
        while True:
            try:
                line = reader.readline(MAX_LINE + 1)
            except (OSError, ValueError):
                line = b""
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                while True:  # skip the rest of an oversized line
                    rest = reader.readline(MAX_LINE)
                    if not rest or rest.endswith(b"\n"):
                        break
                line = b"\x00oversized\n"
            self._loop.call_soon_threadsafe(self._lines.put_nowait, line or None)
            if not line:
                return

    def stop(self) -> None:
        """End the input as if the client had closed it (SIGTERM from an editor quitting)."""
        self._lines.put_nowait(None)

    async def receive(self) -> dict[str, Any] | None:
        while True:
            line = await self._lines.get()
            if line is None:
                await self._drain()
                return None
            if not line.strip():
                continue
            message, error = check(line)
            if message is not None:
                if "method" in message and "id" in message:
                    self._open.add(message["id"])
                return message
            log.warning("answered a malformed JSON-RPC line: %s", error["error"]["data"]["details"] if error else "")
            try:
                await self.send(error or {})
            except ConnectionError:
                return None

    async def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8", "surrogatepass")
        async with self._lock:
            if self._closed:
                raise ConnectionError("the client has gone")
            try:
                await asyncio.to_thread(self._write, data)
            except (OSError, ValueError) as exc:
                self._closed = True
                raise ConnectionError(f"the client has gone ({exc})") from None
        if "method" not in message and message.get("id") in self._open:
            self._open.discard(message.get("id"))
            self._answered.set()

    async def _drain(self) -> None:
        """At the end of input, stop what runs and answer the requests already received (within a bound)."""
        self.on_eof()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + DRAIN_SECONDS
        while self._open and not self._closed and loop.time() < deadline:
            self._answered.clear()
            try:
                await asyncio.wait_for(self._answered.wait(), deadline - loop.time())
            except asyncio.TimeoutError:
                break

    def _write(self, data: bytes) -> None:
        self._writer.write(data)
        self._writer.flush()

    async def close(self) -> None:
        self._closed = True


def protocol_streams() -> tuple[IO[bytes], IO[bytes]]:
    """stdin, and a private copy of stdout for the protocol; fd 1 then points at stderr.

    Anything else that prints (a library, a child process inheriting fd 1) lands on stderr and can never
    corrupt the protocol stream.
    """
    import sys

    sys.stdout.flush()
    proto = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    return sys.stdin.buffer, proto
