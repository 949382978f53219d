"""`devagent models` and `devagent models pull` against real local HTTP servers."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.download_server import DownloadServer, model_bytes, sha256
from tests.ollama_server import ScriptedOllama
from tui.cli import main
from tui.llm.modelcache import find_cached_models, resolve_model_file


@pytest.fixture
def model_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "models"
    folder.mkdir()
    monkeypatch.setenv("DEVAGENT_MODEL_DIR", str(folder))
    return folder


def test_lists_ollama_models_and_cached_gguf_files(ollama_server: ScriptedOllama, model_cache: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (model_cache / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf").write_bytes(b"GGUF" + b"\0" * 2000)
    (model_cache / "other.gguf").write_bytes(b"GGUF" + b"\0" * 10)
    (model_cache / "half.gguf").write_bytes(b"")  # a failed download is not offered
    assert main(["models", "--host", ollama_server.url]) == 0
    out = capsys.readouterr().out
    assert f"Ollama server at {ollama_server.url}" in out and "qwen2.5-coder:1.5b" in out
    assert "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf" in out and "other.gguf" in out and "half.gguf" not in out
    assert [p.name for p in find_cached_models()] == ["qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", "other.gguf"]
    assert resolve_model_file("other.gguf") == model_cache / "other.gguf"  # a bare name is found in the cache


def test_unreachable_server_is_reported_not_fatal(model_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedOllama() as srv:
        url = srv.url
    assert main(["models", "--host", url]) == 0
    out = capsys.readouterr().out
    assert "not reachable" in out and "available: devagent models pull qwen2.5-coder-1.5b" in out
    assert "(1.12 GB)" in out  # the default model's size, before anything is downloaded


class PullServer:
    """Answers /api/pull with Ollama's NDJSON progress stream (or a 'not found' error)."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if body["model"] != "tiny:1b":
                    data = json.dumps({"error": "pull model manifest: file does not exist"}).encode()
                    self.send_response(500)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                lines = [{"status": "pulling manifest"}]
                lines += [{"status": "pulling abc123", "digest": "sha256:abc", "total": 1000, "completed": c}
                          for c in (0, 400, 1000)]
                lines += [{"status": "verifying sha256 digest"}, {"status": "success"}]
                data = "".join(json.dumps(x) + "\n" for x in lines).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()


@pytest.fixture
def pull_server() -> Iterator[PullServer]:
    srv = PullServer()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


def test_pull_shows_progress(pull_server: PullServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "pull", "tiny:1b", "--host", pull_server.url]) == 0
    out = capsys.readouterr().out
    assert "pulling manifest" in out and "pulling abc123 (1 KB)" in out and "success" in out
    assert "tiny:1b is ready" in out


def test_pull_errors_are_clear(pull_server: PullServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "pull", "nope:1b", "--host", pull_server.url]) != 0
    assert "file does not exist" in capsys.readouterr().err
    with ScriptedOllama() as srv:
        url = srv.url
    assert main(["models", "pull", "tiny:1b", "--host", url]) == 5  # ServerUnreachable
    assert "ollama serve" in capsys.readouterr().err


# -- GGUF pulls for the embedded backend (a real HTTP server on 127.0.0.1) ------------------------------------
def test_models_pull_url_shows_progress_and_lists_the_file(model_cache: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    data = model_bytes(300_000)
    with DownloadServer({"tiny-q4.gguf": data}) as srv:
        assert main(["models", "pull", f"{srv.url}/ok/tiny-q4.gguf", "--sha256", sha256(data)]) == 0
    out = capsys.readouterr().out
    assert "downloading: 100%  300 KB of 300 KB" in out and "sha256 verified" in out
    assert "tiny-q4.gguf is ready (300 KB" in out
    assert (model_cache / "tiny-q4.gguf").read_bytes() == data
    with ScriptedOllama() as srv:
        url = srv.url
    assert main(["models", "--host", url]) == 0
    listing = capsys.readouterr().out
    assert "tiny-q4.gguf" in listing and "300 KB" in listing


def test_models_pull_failure_is_a_message_and_keeps_the_partial_file(model_cache: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    data = model_bytes(300_000)
    with DownloadServer({"tiny-q4.gguf": data}) as srv:
        assert main(["models", "pull", f"{srv.url}/stall/tiny-q4.gguf", "--sha256", sha256(data),
                     "--stall", "0.5"]) == 10
    err = capsys.readouterr().err
    assert "sent nothing for 0.5 s" in err
    assert "run the same command again to resume" in err and "Traceback" not in err
    assert (model_cache / "tiny-q4.gguf.part").exists() and not (model_cache / "tiny-q4.gguf").exists()
    with ScriptedOllama() as srv:
        url = srv.url
    main(["models", "--host", url])
    assert "tiny-q4.gguf" in capsys.readouterr().out.split("partial")[0]


def test_models_pull_wrong_digest_exits_10(model_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = model_bytes(300_000)
    with DownloadServer({"tiny-q4.gguf": data}) as srv:
        assert main(["models", "pull", f"{srv.url}/ok/tiny-q4.gguf", "--sha256", "a" * 64]) == 10
    err = capsys.readouterr().err
    assert "does not match" in err and "NOT installed" in err and "Traceback" not in err
    assert find_cached_models() == []


def test_models_pull_hugging_face_fails_fast_here_or_names_the_alternative(model_cache: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Where the network reaches only package registries, a Hugging Face URL must fail quickly and clearly."""
    import time

    started = time.monotonic()
    code = main(["models", "pull", "http://127.0.0.1:9/Qwen/resolve/main/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"])
    assert code == 10 and time.monotonic() - started < 15
    err = capsys.readouterr().err
    assert "Cannot reach 127.0.0.1:9" in err and "devagent models pull qwen2.5-coder-1.5b" in err
