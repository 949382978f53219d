"""`devagent doctor` names the embedded route: the runtime, a cached model, and the command to get one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.ollama_server import ScriptedOllama
from tui.cli import main

DEFAULT_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


def _doctor(repo: Path, host: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    cwd = Path.cwd()
    os.chdir(repo)
    try:
        code = main(["doctor", "--host", host])
    finally:
        os.chdir(cwd)
    return code, capsys.readouterr().out


def _down() -> str:
    with ScriptedOllama() as srv:
        return srv.url


def test_no_server_and_no_model_names_the_pull_command(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _doctor(repo, _down(), capsys)
    assert code == 1
    assert "FAIL  model" in out and "FAIL  embedded" in out
    assert "llama.cpp runtime (xllamacpp) installed" in out  # the test venv has the [embedded] extra
    assert "fix: devagent models pull qwen2.5-coder-1.5b  (1.12 GB" in out


def test_no_server_but_a_cached_model_is_not_a_problem(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = Path(os.environ["DEVAGENT_MODEL_DIR"])
    cache.mkdir(parents=True, exist_ok=True)
    (cache / DEFAULT_FILE).write_bytes(b"GGUF" + b"\0" * 5000)
    (cache / "other.gguf.part").write_bytes(b"GGUF")  # a partial download is never the model
    code, out = _doctor(repo, _down(), capsys)
    assert "ok    embedded" in out and f"model {DEFAULT_FILE} (5 KB)" in out
    assert "devagent will run the embedded model instead" in out and "FAIL  model" not in out
    assert code == 0 or "FAIL  sandbox" in out  # no other problem is left


def test_with_a_server_the_embedded_route_is_optional(repo: Path, ollama_server: ScriptedOllama,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _doctor(repo, ollama_server.url, capsys)
    assert "ok    model" in out and "--    embedded" in out
    assert "to set it up: devagent models pull qwen2.5-coder-1.5b" in out
    assert "FAIL  embedded" not in out and (code == 0 or "FAIL  sandbox" in out)


def test_review_and_commit_with_no_server_say_what_to_run(repo: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conftest import git

    monkeypatch.setenv("OLLAMA_HOST", _down())
    (repo / "b.py").write_text("x = 1\n")
    git(repo, "add", "b.py")
    monkeypatch.chdir(repo)
    assert main(["review", "--staged"]) == 0
    out = capsys.readouterr().out
    assert "no model review" in out and "devagent models pull qwen2.5-coder-1.5b" in out
    assert main(["commit", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "message from fallback" in out and "devagent models pull qwen2.5-coder-1.5b" in out
    assert "b.py" in git(repo, "show", "--stat", "HEAD")
