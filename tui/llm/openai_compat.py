"""A Backend for any OpenAI-compatible chat server (llama.cpp's server, xllamacpp, LM Studio, vLLM).

Speaks ``/v1/models`` and streaming ``/v1/chat/completions`` over httpx, translates the
Ollama-shaped messages the agent keeps into OpenAI's shape, assembles native tool-call
deltas, and enforces connect / per-chunk / total deadlines itself so a stalled server
can never hang a turn.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from typing import Any, AsyncIterator

import httpx

from tui.protocol.errors import ContextOverflow, ModelError, ServerUnreachable, UnknownModel
from tui.llm.base import ChatChunk, Deadlines, ModelInfo, ToolCall
from tui.safety.parsing import loads_json

START_HINT = (
    "Start an OpenAI-compatible server (for example `llama-server -m MODEL.gguf --port 8080`) and pass "
    "--host http://127.0.0.1:8080, or run a model inside devagent with --model-file PATH.gguf."
)


DEFAULT_HOST = "http://127.0.0.1:8080"  # llama.cpp server's default


def _base_url(host: str | None) -> str:
    """Accept ``http://h:p``, ``h:p`` or ``http://h:p/v1``; return the server root without ``/v1``."""
    url = (host or DEFAULT_HOST).strip().rstrip("/")
    if "://" not in url:
        url = "http://" + url
    return url[: -len("/v1")] if url.endswith("/v1") else url


def _error_text(response: httpx.Response) -> str:
    """The server's own error message, when it sent one."""
    try:
        body = response.json()
    except (ValueError, UnicodeDecodeError):
        return response.text[:300].strip()
    err = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(err, dict):
        return str(err.get("message") or err)[:300]
    return str(err)[:300]


def _status_error(status: int, text: str, host: str) -> ModelError:
    """HTTP status -> error. 5xx and 429 are worth retrying; other 4xx are not."""
    detail = f" ({text})" if text else ""
    if status == 404:
        return UnknownModel(f"{host} answered 404{detail}.", "Check the model name with `devagent models`.")
    if status == 400 and "context" in text.lower():
        counts = re.search(r"\((\d+) tokens\).*?\((\d+) tokens\)", text)  # llama.cpp: request (N) ... size (M)
        return ContextOverflow(
            f"The request does not fit in the model's context{detail}.",
            "Start a new session, or raise model.context if the model allows it.",
            *((int(counts.group(1)), int(counts.group(2))) if counts else ()),
        )
    retry = status >= 500 or status == 429
    return ModelError(f"The model server at {host} answered HTTP {status}{detail}.", retryable=retry)


def classify(exc: BaseException, host: str) -> ModelError:
    """Transport failures -> ModelError, retryable per llm/errors.py's shared table, worded for this backend."""
    if isinstance(exc, ModelError):
        return exc
    try:
        from tui.llm.errors import classify as shared
    except ImportError:  # the shared table is not there: the same decisions, in short
        retry = isinstance(exc, (httpx.TransportError, OSError, asyncio.TimeoutError))
        err = ModelError(f"Talking to the model server at {host} failed: {exc}", retryable=retry)
        if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout, ConnectionRefusedError)):
            err = ServerUnreachable(f"No model server is answering at {host}.", START_HINT, retryable=True)
        return err
    err = shared(exc, host)
    message = err.message.replace("the Ollama server", "the model server").replace(
        "not Ollama's API", "not an OpenAI-compatible API")
    if isinstance(err, ServerUnreachable):
        return ServerUnreachable(message, START_HINT, retryable=err.retryable)
    hint = err.hint if "Ollama" not in err.hint else START_HINT
    return type(err)(message, hint, retryable=err.retryable)


def to_openai_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Ollama-shaped history -> OpenAI shape: tool-call arguments as JSON strings, tool results with ids."""
    out: list[dict[str, Any]] = []
    pending: list[tuple[str, str]] = []  # (tool name, call id) not yet answered
    counter = 0
    for msg in messages:
        role = msg.get("role", "user")
        content = msg.get("content") or ""
        if role == "assistant" and msg.get("tool_calls"):
            calls = []
            for call in msg["tool_calls"]:
                fn = call.get("function", call)
                counter += 1
                call_id = call.get("id") or f"call_{counter}"
                args = fn.get("arguments", {})
                calls.append({
                    "id": call_id, "type": "function",
                    "function": {"name": fn.get("name", ""),
                                 "arguments": args if isinstance(args, str) else json.dumps(args)},
                })
                pending.append((fn.get("name", ""), call_id))
            out.append({"role": "assistant", "content": content, "tool_calls": calls})
        elif role == "tool":
            name = msg.get("tool_name") or msg.get("name") or ""
            call_id = msg.get("tool_call_id") or ""
            if not call_id:
                match = next((p for p in pending if p[0] == name), pending[0] if pending else None)
                if match is not None:
                    pending.remove(match)
                    call_id = match[1]
            if call_id:
                out.append({"role": "tool", "tool_call_id": call_id, "content": content})
            else:  # a call the model wrote as text: no id exists, so report it as a user message
                label = f"Result of {name}" if name else "Tool result"
                out.append({"role": "user", "content": f"{label}:\n{content}"})
        else:
            out.append({"role": role, "content": content})
    return out


def to_openai_tools(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    if not tools:
        return None
    return [t if t.get("type") == "function" else {"type": "function", "function": t} for t in tools]


def _options(options: dict[str, Any] | None) -> dict[str, Any]:
    """Ollama option names -> OpenAI / llama.cpp request fields."""
    mapped: dict[str, Any] = {}
    for key, value in (options or {}).items():
        if key == "num_predict":
            mapped["max_tokens"] = value
        elif key in ("temperature", "seed", "top_p", "top_k", "stop", "min_p", "repeat_penalty"):
            mapped[key] = value
    return mapped


class _ToolCallAssembler:
    """Collects streamed tool-call deltas (by index) into whole ToolCalls."""

    def __init__(self) -> None:
        self.parts: dict[int, dict[str, str]] = {}

    def add(self, deltas: list[dict[str, Any]]) -> None:
        for delta in deltas:
            slot = self.parts.setdefault(int(delta.get("index", len(self.parts))), {"id": "", "name": "", "args": ""})
            slot["id"] = delta.get("id") or slot["id"]
            fn = delta.get("function") or {}
            slot["name"] += fn.get("name") or ""
            args = fn.get("arguments")
            slot["args"] += args if isinstance(args, str) else (json.dumps(args) if args else "")

    def finish(self) -> tuple[tuple[ToolCall, ...], str]:
        """Whole calls, plus text for calls whose arguments were not valid JSON (the agent's text parser sees them)."""
        calls: list[ToolCall] = []
        leftovers: list[str] = []
        for _, slot in sorted(self.parts.items()):
            try:
                args = loads_json(slot["args"], "the model's tool call") if slot["args"].strip() else {}
            except ValueError:
                args = None
            if isinstance(args, dict):
                calls.append(ToolCall(slot["name"], args, id=slot["id"], source="native"))
            else:
                leftovers.append(f'{{"name": "{slot["name"]}", "arguments": {slot["args"]}}}')
        self.parts.clear()
        return tuple(calls), "\n".join(leftovers)


def _reading(report: dict[str, Any]) -> ChatChunk:
    """llama.cpp's prompt_progress ({total, cache, processed}: processed counts the cached tokens) as a chunk."""
    cached = int(report.get("cache") or 0)
    total = max(0, int(report.get("total") or 0) - cached)
    return ChatChunk(reading=(min(total, max(0, int(report.get("processed") or 0) - cached)), total))


class OpenAICompatBackend:
    """Backend over an OpenAI-compatible HTTP server."""

    name = "openai"
    parallel = 1  # a generic server may ignore "n"; the embedded llama.cpp server raises this
    n_field = "n"  # the request field for several completions (llama.cpp: n_cmpl)
    lark_grammars = False  # the server takes an llguidance grammar (embedded llama.cpp): strings may hold \' too
    home_slot: int | None = None  # llama.cpp with several slots: one-completion requests all go to this one

    def __init__(self, host: str | None, deadlines: Deadlines, *, temperature: float = 0.2, seed: int | None = None,
                 max_context: int = 8192, api_key: str | None = None) -> None:
        self.host = _base_url(host)
        self.deadlines = deadlines
        self.temperature = temperature
        self.seed = seed
        self.max_context = max_context
        self.model: str | None = None
        self.last_timings: dict[str, Any] = {}  # llama.cpp's per-reply speed figures, for benchmarks
        self.prompt_progress = False  # the server is llama.cpp's: ask it to report reading the prompt
        self.reading: tuple[int, int] | None = None  # the latest report (a reply waiting for the warm-up shows it)
        key = api_key or os.environ.get("DEVAGENT_API_KEY") or os.environ.get("OPENAI_API_KEY") or ""
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client: httpx.AsyncClient | None = None
        self._warming: asyncio.Task[Any] | None = None

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            d = self.deadlines
            timeout = httpx.Timeout(connect=d.connect, read=d.chunk, write=d.chunk, pool=d.connect)
            self._client = httpx.AsyncClient(base_url=self.host, timeout=timeout, headers=self._headers, trust_env=False)
        return self._client

    async def _models_raw(self) -> list[dict[str, Any]]:
        try:
            response = await self._http().get("/v1/models")
        except (httpx.HTTPError, OSError) as exc:
            raise classify(exc, self.host) from None
        if response.status_code != 200:
            raise _status_error(response.status_code, _error_text(response), self.host)
        try:
            data = response.json().get("data", [])
        except (ValueError, AttributeError):
            raise ModelError(f"{self.host}/v1/models did not answer with JSON: is this an OpenAI-compatible server?") from None
        return [m for m in data if isinstance(m, dict) and m.get("id")]

    async def list_models(self) -> list[str]:
        return [m["id"] for m in await self._models_raw()]

    async def connect(self, model: str | None = None) -> ModelInfo:
        models = await self._models_raw()
        if not models:
            raise UnknownModel(f"The server at {self.host} lists no models.", "Load a model in the server first.")
        if model is None:
            chosen = models[0]
        else:
            chosen = next((m for m in models if model in (m["id"], *m.get("aliases", []))), None)
            if chosen is None:
                names = ", ".join(m["id"] for m in models)
                raise UnknownModel(f"The server at {self.host} has no model {model!r}.", f"It has: {names}")
        self.model = chosen["id"]
        self.prompt_progress = self.prompt_progress or chosen.get("owned_by") == "llamacpp"
        meta = chosen.get("meta") or {}
        n_ctx = meta.get("n_ctx") or chosen.get("max_model_len") or chosen.get("context_length") or self.max_context
        return ModelInfo(name=self.model, context_length=min(int(n_ctx), self.max_context), supports_tools=True,
                         details={"backend": self.name, "host": self.host, **meta})

    def _request(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                 format: dict[str, Any] | str | None, options: dict[str, Any] | None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "messages": to_openai_messages(messages), "stream": True,
            "stream_options": {"include_usage": True}, "temperature": self.temperature,
        }
        if self.model:
            body["model"] = self.model
        if self.seed is not None:
            body["seed"] = self.seed
        if self.prompt_progress:
            body["return_progress"] = True  # llama.cpp: a prompt_progress record after each batch it reads
        openai_tools = to_openai_tools(tools)
        if openai_tools:
            body["tools"] = openai_tools
        if format == "json":
            body["response_format"] = {"type": "json_object"}
        elif isinstance(format, dict):
            from tui.llm.lark_json import lark_grammar

            grammar = lark_grammar(format) if self.lark_grammars else None
            if grammar is not None:
                body["grammar"] = grammar
            else:
                body["response_format"] = {"type": "json_schema", "json_schema": {"name": "reply", "schema": format}}
        body.update(_options(options))
        n = int((options or {}).get("n") or 1)
        if n > 1:
            body[self.n_field] = min(n, self.parallel)
        elif self.home_slot is not None:  # the conversation stays in one slot's cache: left to itself, the server
            body["id_slot"] = self.home_slot  # would take an empty slot when a removed step shortened the prefix
        return body

    async def warm(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, *,
                   num_ctx: int | None = None) -> dict[str, Any]:
        """Have the server process ``messages`` into its prompt cache (one token is generated); its timings.

        A request sent meanwhile waits for this one instead of racing it (llama.cpp serves one at a time,
        and a second slot would process the same prefix again)."""
        self._warming = asyncio.current_task()
        body = self._request(messages, tools, None, {"num_predict": 1})
        async for _ in self._stream(body, time.monotonic(), []):
            pass
        return dict(self.last_timings)

    async def _after_warmup(self) -> AsyncIterator[ChatChunk]:
        """Until the warm-up ends (neither raising nor cancelling it): what it has read, as it moves."""
        task = self._warming
        end = time.monotonic() + self.deadlines.total
        shown = None
        while task is not None and not task.done() and task is not asyncio.current_task() \
                and time.monotonic() < end:
            if self.reading is not None and self.reading != shown:
                shown = self.reading
                yield ChatChunk(reading=shown)
            await asyncio.wait({task}, timeout=0.25)

    async def stream_chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, *,
                          format: dict[str, Any] | None = None, num_ctx: int | None = None,
                          options: dict[str, Any] | None = None) -> AsyncIterator[ChatChunk]:
        """Stream one reply; the server's context size is fixed at load time, so ``num_ctx`` is not sent."""
        async for waiting in self._after_warmup():
            yield waiting
        body = self._request(messages, tools, format, options)
        started = time.monotonic()
        partial: list[str] = []
        try:
            async for chunk in self._stream(body, started, partial):
                yield chunk
        except ModelError as err:
            err.partial = "".join(partial)  # type: ignore[attr-defined]
            raise

    async def _stream(self, body: dict[str, Any], started: float, partial: list[str]) -> AsyncIterator[ChatChunk]:
        d = self.deadlines
        assembler = _ToolCallAssembler()
        usage: dict[str, Any] = {}
        self.reading = None
        try:
            async with self._http().stream("POST", "/v1/chat/completions", json=body) as response:
                if response.status_code != 200:
                    await response.aread()
                    raise _status_error(response.status_code, _error_text(response), self.host)
                lines = response.aiter_lines()
                while True:
                    remaining = d.total - (time.monotonic() - started)
                    if remaining <= 0:
                        raise ModelError(f"The reply took longer than {d.total:.0f} s; stopped it.",
                                         "Raise model.total_timeout or ask for something smaller.")
                    try:
                        async with asyncio.timeout(min(d.chunk, remaining)):  # unlike wait_for, never eats a cancel
                            line = await anext(lines)
                    except StopAsyncIteration:
                        break
                    except TimeoutError:
                        if d.total - (time.monotonic() - started) <= 0:
                            continue  # reported as the total deadline above
                        raise ModelError(f"The model server at {self.host} sent nothing for {d.chunk:.0f} s.",
                                         retryable=True) from None
                    if not line.startswith("data:"):
                        continue
                    payload = line[5:].strip()
                    if payload == "[DONE]":
                        break
                    event = loads_json(payload, "the server's event")
                    if event.get("error"):
                        err = event["error"]
                        text = err.get("message", str(err)) if isinstance(err, dict) else str(err)
                        raise ModelError(f"The model server reported an error: {text}")
                    reading = event.get("prompt_progress")
                    if isinstance(reading, dict) and reading.get("total"):
                        chunk = _reading(reading)
                        self.reading = chunk.reading
                        yield chunk
                        continue
                    usage = event.get("usage") or usage
                    self.last_timings = event.get("timings") or self.last_timings
                    for choice in event.get("choices") or []:
                        delta = choice.get("delta") or {}
                        index = int(choice.get("index") or 0)
                        if delta.get("tool_calls") and not index:
                            assembler.add(delta["tool_calls"])
                        if delta.get("content"):
                            partial.append(delta["content"]) if not index else None
                            yield ChatChunk(text=delta["content"], index=index)
        except (httpx.HTTPError, OSError, json.JSONDecodeError) as exc:
            raise classify(exc, self.host) from None
        calls, leftover = assembler.finish()
        if leftover:
            partial.append(leftover)
            yield ChatChunk(text=leftover)
        yield ChatChunk(tool_calls=calls, done=True, prompt_tokens=usage.get("prompt_tokens"),
                        completion_tokens=usage.get("completion_tokens"))

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
