"""OpenAICompatBackend against a real HTTP server on 127.0.0.1 that speaks the OpenAI streaming API."""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator

import pytest

from tui.protocol.errors import ModelError, ServerUnreachable, UnknownModel
from tui.llm.base import Deadlines
from tui.llm.openai_compat import OpenAICompatBackend, to_openai_messages


@dataclass
class Script:
    """One reply: text pieces and/or tool-call deltas, optionally ending in a fault."""

    chunks: list[str] = field(default_factory=list)
    tool_deltas: list[dict[str, Any]] = field(default_factory=list)
    fault: str | None = None  # http500 | http400ctx | http400ctx_counts | reset | stall
    fault_after: int = 0
    delay: float = 0.0
    progress: list[dict[str, int]] = field(default_factory=list)  # llama.cpp's prompt_progress records, first


class OpenAIServer:
    """A scripted OpenAI-compatible server: /v1/models and streaming /v1/chat/completions."""

    def __init__(self, models: list[dict[str, Any]] | None = None) -> None:
        self.models = models if models is not None else [{"id": "tiny.gguf", "meta": {"n_ctx": 4096}}]
        self.replies: list[Script] = []
        self.requests: list[dict[str, Any]] = []
        self.release = threading.Event()
        self.disconnected = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path != "/v1/models":
                    self.send_error(404)
                    return
                self._json(200, {"object": "list", "data": outer.models})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                outer.serve(self, outer.replies.pop(0) if outer.replies else Script(["ok"]))

            def _json(self, status: int, obj: Any) -> None:
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def serve(self, h: BaseHTTPRequestHandler, script: Script) -> None:
        if script.fault == "http500":
            h._json(500, {"error": {"message": "model crashed", "code": 500}})  # type: ignore[attr-defined]
            return
        if script.fault == "http400ctx":
            h._json(400, {"error": {"message": "the request exceeds the available context size"}})  # type: ignore[attr-defined]
            return
        if script.fault == "http400ctx_counts":  # llama.cpp's own wording, with its counts
            h._json(400, {"error": {"message": "request (4250 tokens) exceeds the available context size (4096 "  # type: ignore[attr-defined]
                                               "tokens), try increasing it", "type": "exceed_context_size_error"}})
            return
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.end_headers()
        events = [{"choices": [{"index": 0, "delta": {}}], "prompt_progress": p} for p in script.progress]
        events += [{"choices": [{"index": 0, "delta": {"content": c}}]} for c in script.chunks]
        events += [{"choices": [{"index": 0, "delta": {"tool_calls": [d]}}]} for d in script.tool_deltas]
        try:
            for i, event in enumerate(events):
                if script.fault and i == script.fault_after:
                    return self._fault(h, script.fault)
                h.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                h.wfile.flush()
                if script.delay:
                    self.release.wait(script.delay)
            if script.fault:
                return self._fault(h, script.fault)
            done = {"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": len(events)}}
            h.wfile.write(f"data: {json.dumps(done)}\n\ndata: [DONE]\n\n".encode())
        except (BrokenPipeError, ConnectionResetError):
            self.disconnected.set()

    def _fault(self, h: BaseHTTPRequestHandler, fault: str) -> None:
        if fault == "reset":
            h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            h.connection.close()
        elif fault == "stall":
            self.release.wait(30)

    def stop(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    srv = OpenAIServer()
    yield srv
    srv.stop()


def backend(url: str, **deadlines: float) -> OpenAICompatBackend:
    return OpenAICompatBackend(url, Deadlines(**{"connect": 2.0, "chunk": 5.0, "total": 20.0, **deadlines}),
                               temperature=0.0, seed=7, max_context=8192)


async def collect(b: OpenAICompatBackend, messages: list[dict[str, Any]] | None = None, **kw: Any) -> tuple[str, list]:
    text, calls, done = "", [], None
    async for chunk in b.stream_chat(messages or [{"role": "user", "content": "hi"}], **kw):
        text += chunk.text
        calls.extend(chunk.tool_calls)
        done = chunk if chunk.done else done
    assert done is not None, "the stream must end with a done chunk"
    return text, calls


async def test_connect_reads_model_and_context(server: OpenAIServer) -> None:
    b = backend(server.url + "/v1")  # a /v1 suffix is accepted
    info = await b.connect()
    assert (info.name, info.context_length, info.supports_tools) == ("tiny.gguf", 4096, True)
    assert await b.list_models() == ["tiny.gguf"]
    with pytest.raises(UnknownModel) as err:
        await b.connect("other-model")
    assert "tiny.gguf" in str(err.value)
    await b.close()


async def test_streams_text_and_sends_openai_shaped_request(server: OpenAIServer) -> None:
    server.replies.append(Script(["The answer ", "is ", "42."]))
    b = backend(server.url)
    await b.connect()
    history = [
        {"role": "user", "content": "read a.py"},
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "read_file", "arguments": {"path": "a.py"}}}]},
        {"role": "tool", "tool_name": "read_file", "content": "x = 42"},
    ]
    tools = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]
    schema = {"type": "object", "properties": {"name": {"enum": ["read_file"]}}}
    text, calls = await collect(b, history, tools=tools, format=schema, options={"num_predict": 50})
    assert text == "The answer is 42." and calls == []
    sent = server.requests[-1]
    assert sent["stream"] is True and sent["model"] == "tiny.gguf" and sent["seed"] == 7 and sent["max_tokens"] == 50
    assert sent["tools"] == tools
    assert sent["response_format"] == {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}
    call = sent["messages"][1]["tool_calls"][0]
    assert json.loads(call["function"]["arguments"]) == {"path": "a.py"}
    assert sent["messages"][2] == {"role": "tool", "tool_call_id": call["id"], "content": "x = 42"}
    await b.close()


async def test_a_server_that_takes_grammars_gets_one_whose_strings_may_escape_a_quote(server: OpenAIServer) -> None:
    """The embedded llama.cpp takes an llguidance grammar: the reply's JSON with ``\\'`` allowed in strings (a
    model writing JS escapes quotes that way, and under plain JSON its code was cut at the first one). A schema
    of another shape goes as the schema; so does every schema to a server that has not said it takes grammars."""
    from tui.engine.work.ask import _parse

    schema = {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}
    b = backend(server.url)
    b.lark_grammars = True
    await b.connect()
    for fmt in (schema, {"type": "object", "properties": {"a": {"anyOf": [{"type": "string"}]}}, "required": ["a"]}):
        server.replies.append(Script(["{}"]))
        await collect(b, [{"role": "user", "content": "x"}], format=fmt)
    grammar, other = server.requests[-2], server.requests[-1]
    assert "response_format" not in grammar and grammar["grammar"].startswith("%llguidance {}")
    assert "\\\\[\"\\\\\\/bfnrt']" in grammar["grammar"] and '"\\"code\\""' in grammar["grammar"]
    assert "grammar" not in other and other["response_format"]["json_schema"]["schema"]["properties"]["a"]
    await b.close()
    reply = '{"code": "test(\'the string \\\'a\\\'\', function (t) {\\n    t.end();\\n});"}'
    assert _parse(reply) == {"code": "test('the string \\'a\\'', function (t) {\n    t.end();\n});"}


def test_tool_result_without_a_native_call_becomes_a_user_message() -> None:
    out = to_openai_messages([
        {"role": "assistant", "content": '{"name": "read_file", "arguments": {"path": "a.py"}}'},
        {"role": "tool", "tool_name": "read_file", "content": "x = 1"},
    ])
    assert out[1] == {"role": "user", "content": "Result of read_file:\nx = 1"}


async def test_tool_call_deltas_are_assembled(server: OpenAIServer) -> None:
    server.replies.append(Script(tool_deltas=[
        {"index": 0, "id": "c1", "type": "function", "function": {"name": "read_file", "arguments": ""}},
        {"index": 0, "function": {"arguments": '{"pa'}},
        {"index": 0, "function": {"arguments": 'th": "app.py"}'}},
        {"index": 1, "id": "c2", "function": {"name": "run", "arguments": '{"command": "pytest -q"}'}},
        {"index": 2, "id": "c3", "function": {"name": "broken", "arguments": '{"oops'}},
    ]))
    b = backend(server.url)
    text, calls = await collect(b)
    assert [(c.name, c.arguments, c.id, c.source) for c in calls] == [
        ("read_file", {"path": "app.py"}, "c1", "native"),
        ("run", {"command": "pytest -q"}, "c2", "native"),
    ]
    assert '"name": "broken"' in text  # unparseable arguments reach the agent's text parser
    await b.close()


async def test_http_500_is_retryable_and_context_overflow_is_not(server: OpenAIServer) -> None:
    server.replies += [Script(fault="http500"), Script(fault="http400ctx")]
    b = backend(server.url)
    with pytest.raises(ModelError) as err:
        await collect(b)
    assert err.value.retryable and "500" in str(err.value) and "model crashed" in str(err.value)
    with pytest.raises(ModelError) as err:
        await collect(b)
    assert not err.value.retryable and "context" in str(err.value)
    await b.close()


async def test_connection_reset_keeps_partial_output(server: OpenAIServer) -> None:
    server.replies.append(Script(["first ", "second ", "third"], fault="reset", fault_after=2))
    b = backend(server.url)
    seen = ""
    with pytest.raises(ModelError) as err:
        async for chunk in b.stream_chat([{"role": "user", "content": "hi"}]):
            seen += chunk.text
    assert err.value.retryable
    assert seen == "first second " == err.value.partial  # type: ignore[attr-defined]
    await b.close()


async def test_stalled_stream_hits_the_chunk_deadline(server: OpenAIServer) -> None:
    server.replies.append(Script(["hello "], fault="stall", fault_after=1))
    b = backend(server.url, chunk=0.5)
    with pytest.raises(ModelError) as err:
        await asyncio.wait_for(collect(b), timeout=15)
    assert err.value.retryable and "sent nothing" in str(err.value)
    assert err.value.partial == "hello "  # type: ignore[attr-defined]
    await b.close()


async def test_slow_reply_hits_the_total_deadline(server: OpenAIServer) -> None:
    server.replies.append(Script(["a"] * 50, delay=0.2))
    b = backend(server.url, chunk=5.0, total=1.0)
    with pytest.raises(ModelError) as err:
        await asyncio.wait_for(collect(b), timeout=15)
    assert not err.value.retryable and "longer than" in str(err.value)
    await b.close()


async def test_no_server_is_server_unreachable() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens here
    b = backend(f"http://127.0.0.1:{port}")
    with pytest.raises(ServerUnreachable) as err:
        await b.connect()
    assert f"127.0.0.1:{port}" in str(err.value) and "--model-file" in str(err.value)
    await b.close()


async def test_cancelling_the_consumer_closes_the_stream(server: OpenAIServer) -> None:
    server.replies.append(Script(["tick "] * 200, delay=0.05))
    b = backend(server.url)
    got = asyncio.Event()

    async def consume() -> None:
        async for chunk in b.stream_chat([{"role": "user", "content": "count"}]):
            if chunk.text:
                got.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got.wait(), timeout=10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # the server notices the closed connection on its next write
    assert await asyncio.to_thread(server.disconnected.wait, 10)
    await b.close()


async def test_llama_cpp_reports_reading_the_prompt_and_the_reply_says_how_far_it_is(server: OpenAIServer) -> None:
    """llama.cpp's server (owned_by "llamacpp") is asked for its prompt progress; each record becomes a chunk with
    the tokens read of the tokens to read, the cached ones left out (its "processed" counts them)."""
    server.models = [{"id": "tiny.gguf", "owned_by": "llamacpp", "meta": {"n_ctx": 4096}}]
    server.replies.append(Script(["Hi"], progress=[{"total": 1320, "cache": 722, "processed": 722, "time_ms": 0},
                                                   {"total": 1320, "cache": 722, "processed": 1234, "time_ms": 9},
                                                   {"total": 1320, "cache": 722, "processed": 1320, "time_ms": 12}]))
    b = backend(server.url)
    await b.connect()
    chunks = [c async for c in b.stream_chat([{"role": "user", "content": "hi"}])]
    assert [c.reading for c in chunks if c.reading] == [(0, 598), (512, 598), (598, 598)]
    assert "".join(c.text for c in chunks) == "Hi"
    assert server.requests[-1]["return_progress"] is True
    await b.close()


async def test_other_servers_are_not_sent_the_llama_cpp_field(server: OpenAIServer) -> None:
    b = backend(server.url)
    await b.connect()
    assert (await collect(b))[0] == "ok"
    assert "return_progress" not in server.requests[-1]
    await b.close()
