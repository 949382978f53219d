"""The scripted Ollama server itself, driven by the real ``ollama`` client (sync and async)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import ollama
import pytest

from tests.ollama_server import Reply, ScriptedOllama

MODEL = "qwen2.5-coder:1.5b"
HI = [{"role": "user", "content": "hi"}]
ROOT = Path(__file__).resolve().parents[2]


def stream_texts(client: ollama.Client, **kwargs: object) -> tuple[list[str], list[ollama.ChatResponse]]:
    parts = list(client.chat(model=MODEL, messages=HI, stream=True, **kwargs))  # type: ignore[call-overload]
    return [p.message.content or "" for p in parts if not p.done], parts


def test_streams_text_tool_calls_and_a_final_record(ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply("Let me read it", tool_calls=[{"name": "read_file", "arguments": {"path": "a.py"}}]))
    texts, parts = stream_texts(ollama.Client(host=ollama_server.url))
    assert "".join(texts) == "Let me read it" and len([t for t in texts if t]) == 4
    calls = [c for p in parts for c in (p.message.tool_calls or [])]
    assert [(c.function.name, dict(c.function.arguments)) for c in calls] == [("read_file", {"path": "a.py"})]
    final = parts[-1]
    assert final.done and final.done_reason == "stop" and final.prompt_eval_count and final.eval_count
    assert ollama_server.requests[0]["messages"] == HI


def test_non_streaming_and_format_requests(ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply('{"name": "git_status", "arguments": {}}'))
    client = ollama.Client(host=ollama_server.url)
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    whole = client.chat(model=MODEL, messages=HI, format=schema)
    assert json.loads(whole.message.content or "") == {"name": "git_status", "arguments": {}}
    assert ollama_server.requests[0]["format"] == schema and ollama_server.requests[0]["stream"] is False


def test_callable_replies_see_the_request_and_the_default_is_used_after(ollama_server: ScriptedOllama) -> None:
    ollama_server.push(lambda body: Reply(f"you said {body['messages'][-1]['content']}"))
    ollama_server.default_reply = Reply("default")
    client = ollama.Client(host=ollama_server.url)
    assert "".join(stream_texts(client)[0]) == "you said hi"
    assert "".join(stream_texts(client)[0]) == "default"
    assert len(ollama_server.requests) == 2


def test_models_show_and_unknown_model(ollama_server: ScriptedOllama) -> None:
    client = ollama.Client(host=ollama_server.url)
    assert [m.model for m in client.list().models] == [MODEL]
    shown = client.show(MODEL)
    assert shown.capabilities == ["completion", "tools"] and shown.modelinfo["qwen2.context_length"] == 4096
    for call in (lambda: client.show("nope"), lambda: client.chat(model="nope", messages=HI)):
        with pytest.raises(ollama.ResponseError) as caught:
            call()
        assert caught.value.status_code == 404 and caught.value.error == "model 'nope' not found"
    assert httpx.get(f"{ollama_server.url}/api/version").json()["version"]


def test_tools_for_a_model_without_the_capability_are_refused() -> None:
    tool = {"type": "function", "function": {"name": "git_status", "parameters": {"type": "object"}}}
    with ScriptedOllama(models=[{"name": "tiny:latest", "capabilities": ["completion"]}]) as server:
        client = ollama.Client(host=server.url)
        with pytest.raises(ollama.ResponseError) as caught:
            client.chat(model="tiny", messages=HI, tools=[tool])
        assert caught.value.status_code == 400 and "does not support tools" in caught.value.error
        assert client.chat(model="tiny", messages=HI).message.content


def test_http_faults_then_normal_service(ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(fault="http500"), Reply(fault="http404"), Reply("fine"))
    client = ollama.Client(host=ollama_server.url)
    for status in (500, 404):
        with pytest.raises(ollama.ResponseError) as caught:
            stream_texts(client)
        assert caught.value.status_code == status
    assert "".join(stream_texts(client)[0]) == "fine"


def test_reset_mid_stream_delivers_the_first_chunks(ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(chunks=["a", "b", "c"], fault="reset", fault_after=2), Reply("next"))
    client = ollama.Client(host=ollama_server.url)
    got: list[str] = []
    with pytest.raises(httpx.TransportError):
        for part in client.chat(model=MODEL, messages=HI, stream=True):
            got.append(part.message.content or "")
    assert got == ["a", "b"]
    assert "".join(stream_texts(client)[0]) == "next"


def test_stall_does_not_block_stop() -> None:
    server = ScriptedOllama()
    server.start()
    server.push(Reply(chunks=["x", "y"], fault="stall", fault_after=1, stall=120))
    got: list[str] = []
    errors: list[BaseException] = []

    def read() -> None:
        try:
            for part in ollama.Client(host=server.url, timeout=60).chat(model=MODEL, messages=HI, stream=True):
                got.append(part.message.content or "")
        except Exception as exc:  # noqa: BLE001 - the stopped server drops the stream
            errors.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    while not got and reader.is_alive():
        reader.join(0.05)
    stopper = threading.Thread(target=server.stop, daemon=True)
    stopper.start()
    stopper.join(30)  # hang guard
    assert not stopper.is_alive(), "stop() blocked on a stalled stream"
    reader.join(30)
    assert got[:1] == ["x"] and errors and not reader.is_alive()


def test_set_down_refuses_then_serves_on_the_same_port(ollama_server: ScriptedOllama) -> None:
    url = ollama_server.url
    port = int(url.rsplit(":", 1)[1])
    client = ollama.Client(host=url)
    client.list()  # a pooled keep-alive connection exists
    ollama_server.set_down(True)
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    with pytest.raises(ConnectionError):
        client.list()
    ollama_server.set_down(False)
    assert ollama_server.url == url
    assert [m.model for m in ollama.Client(host=url).list().models] == [MODEL]


def test_reply_rejects_unknown_faults_and_keys() -> None:
    with pytest.raises(ValueError):
        Reply(fault="explode")
    with pytest.raises(ValueError):
        Reply.from_dict({"txt": "typo"})


def test_cli_serves_a_script(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "scripted hello"}, {"tool_calls": [{"name": "git_status"}]}]))
    proc = subprocess.Popen([sys.executable, "-m", "tests.ollama_server", "--port", "0", "--script", str(script)],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        client = ollama.Client(host=url)
        assert "".join(stream_texts(client)[0]) == "scripted hello"
        parts = stream_texts(client)[1]
        assert [c.function.name for p in parts for c in (p.message.tool_calls or [])] == ["git_status"]
    finally:
        proc.terminate()
        proc.wait(10)
