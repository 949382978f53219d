"""OllamaBackend against the scripted server, through the real ``ollama`` client."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys

import pytest

from tests.ollama_server import Reply, ScriptedOllama
from tui.config import Config
from tui.protocol.errors import ModelError, ServerUnreachable, UnknownModel
from tui.llm.base import ChatChunk, Deadlines
from tui.llm.factory import make_backend
from tui.llm.hosts import normalize_host, resolve_host
from tui.llm.ollama import OllamaBackend

TOOLS = [{"type": "function", "function": {"name": "read_file", "description": "Read a file.",
                                           "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                                                          "required": ["path"]}}}]
USER = [{"role": "user", "content": "what does this repo do?"}]


def backend_for(server: ScriptedOllama, **deadlines: float) -> OllamaBackend:
    return OllamaBackend(server.url, Deadlines(**{"connect": 2.0, "chunk": 10.0, "total": 60.0, **deadlines}))


async def collect(backend: OllamaBackend, **kwargs: object) -> list[ChatChunk]:
    out: list[ChatChunk] = []
    async with contextlib.aclosing(backend.stream_chat(USER, **kwargs)) as stream:  # type: ignore[arg-type]
        async for chunk in stream:
            out.append(chunk)
    return out


async def test_connect_picks_first_chat_model_and_reads_capabilities() -> None:
    models = [{"name": "nomic-embed-text:latest"},
              {"name": "qwen2.5-coder:1.5b", "context_length": 32768},
              {"name": "llama3.2:latest", "capabilities": ["completion"], "family": "llama"}]
    with ScriptedOllama(models=models) as server:
        backend = backend_for(server)
        try:
            info = await backend.connect()
            assert info.name == "qwen2.5-coder:1.5b"
            assert info.supports_tools
            assert info.context_length == 8192  # capped by max_context
            assert info.details["reported_context"] == 32768
            assert await backend.list_models() == [m["name"] for m in models]
            named = await backend.connect("llama3.2")  # ":latest" is implied, as in ollama's CLI
            assert named.name == "llama3.2:latest" and not named.supports_tools
        finally:
            await backend.close()
    assert server.paths[:3] == ["GET /api/version", "GET /api/tags", "POST /api/show"]


async def test_unknown_model_lists_the_servers_models(ollama_server: ScriptedOllama) -> None:
    backend = backend_for(ollama_server)
    with pytest.raises(UnknownModel) as caught:
        await backend.connect("llama99")
    assert "llama99" in caught.value.message
    assert "qwen2.5-coder:1.5b" in caught.value.hint
    await backend.close()


async def test_text_streams_in_order_with_token_counts(ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(chunks=["The ", "repo ", "adds ", "numbers."], prompt_eval_count=42, eval_count=4))
    backend = backend_for(ollama_server)
    chunks = await collect(backend)
    await backend.close()
    assert [c.text for c in chunks if c.text] == ["The ", "repo ", "adds ", "numbers."]
    assert chunks[-1].done and chunks[-1].prompt_tokens == 42 and chunks[-1].completion_tokens == 4
    request = ollama_server.requests[0]
    assert request["options"]["num_ctx"] == 4096 and request["options"]["temperature"] == 0.2
    assert request["messages"] == USER


async def test_native_tool_call_chunk_and_tools_sent(ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply("Reading it.", tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}]))
    backend = backend_for(ollama_server)
    chunks = await collect(backend, tools=TOOLS, num_ctx=2048, options={"seed": 7})
    await backend.close()
    calls = [call for chunk in chunks for call in chunk.tool_calls]
    assert [(c.name, c.arguments, c.source) for c in calls] == [("read_file", {"path": "app.py"}, "native")]
    request = ollama_server.requests[0]
    assert request["tools"][0]["function"]["name"] == "read_file"
    assert request["options"]["num_ctx"] == 2048 and request["options"]["seed"] == 7


async def test_tools_withheld_without_capability_and_format_passed() -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string"}}}
    with ScriptedOllama(models=[{"name": "tiny:latest", "capabilities": ["completion"]}]) as server:
        server.push(Reply('{"name": "read_file"}'))
        backend = backend_for(server)
        chunks = await collect(backend, tools=TOOLS, format=schema)
        await backend.close()
    assert "".join(c.text for c in chunks) == '{"name": "read_file"}'
    assert not server.requests[0].get("tools")
    assert server.requests[0]["format"] == schema


async def test_refused_connection_names_host_and_how_to_start() -> None:
    server = ScriptedOllama()
    server.start()
    server.set_down(True)
    backend = backend_for(server)
    try:
        with pytest.raises(ServerUnreachable) as caught:
            await backend.connect()
        err = caught.value
        assert server.url in err.message and err.retryable
        assert "ollama serve" in err.hint and "ollama pull" in err.hint
        server.set_down(False)  # back on the same port: the same backend recovers
        assert (await backend.connect()).name == "qwen2.5-coder:1.5b"
        server.set_down(True)
        with pytest.raises(ServerUnreachable):
            await collect(backend)
    finally:
        await backend.close()
        server.stop()


async def test_http_500_is_retryable(ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply("never", fault="http500"), Reply("second try works"))
    backend = backend_for(ollama_server)
    with pytest.raises(ModelError) as caught:
        await collect(backend)
    assert caught.value.retryable and "500" in caught.value.message
    assert "".join(c.text for c in await collect(backend)) == "second try works"
    await backend.close()


async def test_reset_mid_stream_keeps_partial_text(ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(chunks=["one ", "two ", "three"], fault="reset", fault_after=2))
    backend = backend_for(ollama_server)
    seen: list[str] = []
    with pytest.raises(ModelError) as caught:
        async for chunk in backend.stream_chat(USER):
            seen.append(chunk.text)
    await backend.close()
    assert seen == ["one ", "two "]
    assert caught.value.retryable and caught.value.partial == "one two "
    assert "dropped" in caught.value.message


async def test_stall_hits_the_chunk_deadline(ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(chunks=["partial "], fault="stall", fault_after=1, stall=60))
    backend = backend_for(ollama_server, chunk=0.5)
    with pytest.raises(ModelError) as caught:
        async with asyncio.timeout(20):  # hang guard only
            await collect(backend)
    await backend.close()
    assert caught.value.retryable and caught.value.partial == "partial "
    assert "sent nothing for 0.5 s" in caught.value.message


async def test_stall_before_first_chunk_counts_too(ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply("late", fault="stall", fault_after=0, stall=60))
    backend = backend_for(ollama_server, chunk=0.5)
    with pytest.raises(ModelError) as caught:
        async with asyncio.timeout(20):
            await collect(backend)
    await backend.close()
    assert caught.value.retryable and caught.value.partial == ""


async def test_overall_deadline_is_not_retried(ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(chunks=["a "] * 50, delay=0.05))
    backend = backend_for(ollama_server, chunk=5.0, total=0.5)
    with pytest.raises(ModelError) as caught:
        async with asyncio.timeout(20):
            await collect(backend)
    await backend.close()
    assert not caught.value.retryable and caught.value.partial.startswith("a ")
    assert "total_timeout" in caught.value.hint


async def test_model_removed_mid_session_lists_models(ollama_server: ScriptedOllama) -> None:
    backend = backend_for(ollama_server)
    await backend.connect()
    ollama_server.push(Reply(fault="http404"))
    with pytest.raises(UnknownModel) as caught:
        await collect(backend)
    await backend.close()
    assert "qwen2.5-coder:1.5b" in caught.value.hint and not caught.value.retryable


async def test_cancel_mid_stream_stops_at_once_and_closes_the_response(ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(chunks=["first ", "second "], fault="stall", fault_after=1, stall=60),
                       Reply("after cancel"))
    backend = backend_for(ollama_server)
    got_first = asyncio.Event()
    seen: list[str] = []

    async def consume() -> None:
        async for chunk in backend.stream_chat(USER):
            seen.append(chunk.text)
            got_first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_first.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)
    assert seen == ["first "]
    pool = backend._client._client._transport._pool
    assert not [c for c in pool.connections if not c.is_idle() and not c.is_closed()]
    # the backend still works after a cancelled reply
    assert "".join(c.text for c in await collect(backend)) == "after cancel"
    await backend.close()


def test_host_resolution_order(monkeypatch: pytest.MonkeyPatch) -> None:
    config = Config()
    assert resolve_host(None, config) == "http://127.0.0.1:11434"
    monkeypatch.setenv("OLLAMA_HOST", "0.0.0.0:11500")
    assert resolve_host(None, config) == "http://127.0.0.1:11500"
    config.model.host = "gpu-box"
    assert resolve_host(None, config) == "http://gpu-box:11434"
    assert resolve_host("https://example.com/ollama/", config) == "https://example.com:443/ollama"
    assert normalize_host("localhost") == "http://localhost:11434"
    assert normalize_host(":9999") == "http://127.0.0.1:9999"
    assert normalize_host("[::1]:8080") == "http://[::1]:8080"


def test_make_backend_uses_config() -> None:
    config = Config()
    config.model.chunk_timeout = 7.0
    config.model.max_context = 2048
    backend = make_backend(config, host="127.0.0.1:1234")
    assert isinstance(backend, OllamaBackend)
    assert backend.host == "http://127.0.0.1:1234" and backend.deadlines.chunk == 7.0
    assert backend.max_context == 2048


def test_importing_the_backend_does_not_import_ollama() -> None:
    code = "import sys, tui.llm.ollama, tui.llm.factory, tui.llm.parse; print('ollama' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _response_error(status: int, text: str) -> Exception:
    import ollama

    return ollama.ResponseError(text, status)


@pytest.mark.parametrize(("exc", "kind", "retryable"), [
    (ConnectionRefusedError(111, "Connection refused"), ServerUnreachable, True),
    (ConnectionResetError(104, "Connection reset by peer"), ModelError, True),
    (TimeoutError(), ModelError, True),
    (_response_error(500, '{"error": "runner crashed"}'), ModelError, True),
    (_response_error(503, "busy"), ModelError, True),
    (_response_error(-1, "error mid-stream"), ModelError, True),
    (_response_error(404, '{"error": "model \'x\' not found"}'), UnknownModel, False),
    (_response_error(400, '{"error": "invalid format"}'), ModelError, False),
    (ValueError("odd"), ModelError, False),
])
def test_classify_table(exc: Exception, kind: type, retryable: bool) -> None:
    from tui.llm.errors import classify

    err = classify(exc, "http://127.0.0.1:11434")
    assert type(err) is kind and err.retryable is retryable
    assert "Traceback" not in str(err)


def test_classify_httpx_transport_errors() -> None:
    import httpx

    from tui.llm.errors import classify

    host = "http://gpu-box:11434"
    unresolved = classify(httpx.ConnectError("[Errno -2] Name or service not known"), host)
    assert isinstance(unresolved, ServerUnreachable) and "could not be resolved" in unresolved.message
    assert isinstance(classify(httpx.ConnectTimeout("slow"), host), ServerUnreachable)
    for exc in (httpx.RemoteProtocolError("incomplete chunked read"), httpx.ReadError("reset"),
                httpx.ReadTimeout("stall")):
        err = classify(exc, host)
        assert type(err) is ModelError and err.retryable
