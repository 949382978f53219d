"""The Ollama backend: ``ollama.AsyncClient`` with connect, per-chunk and overall deadlines.

``ollama`` (and httpx, pydantic) are imported only when the backend first talks
to the server, so importing this module stays cheap for the TUI's first frame.
Every failure leaves as a ModelError classified by llm/errors.py, carrying the
text streamed so far in ``partial``; the agent decides whether to retry.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator

from tui.protocol.errors import ModelError, UnknownModel
from tui.llm.base import ChatChunk, Deadlines, ModelInfo, ToolCall
from tui.llm.errors import PULL_HINT, classify
from tui.safety.parsing import loads_json

EMBEDDING_FAMILIES = ("bert", "nomic-bert", "clip")


class OllamaBackend:
    """Talks to one Ollama server; ``connect`` picks the model, ``stream_chat`` streams replies."""

    name = "ollama"
    parallel = 1  # Ollama samples one reply per request

    def __init__(self, host: str | None, deadlines: Deadlines, *, temperature: float = 0.2,
                 seed: int | None = None, max_context: int = 8192, context: int = 0) -> None:
        from tui.llm.hosts import normalize_host

        self.host = normalize_host(host)
        self.deadlines = deadlines
        self.temperature = temperature
        self.seed = seed
        self.max_context = max_context
        self.context = context  # explicit num_ctx from config (0 = what the model reports, capped)
        self.info: ModelInfo | None = None
        self.server_version = ""
        self._client: Any = None
        self._warming: asyncio.Task[Any] | None = None

    # -- plumbing --------------------------------------------------------
    def _get_client(self) -> Any:
        if self._client is None:
            import httpx
            import ollama

            timeout = httpx.Timeout(self.deadlines.chunk, connect=self.deadlines.connect)
            self._client = ollama.AsyncClient(host=self.host, timeout=timeout)
        return self._client

    async def _call(self, what: str, seconds: float, coro: Any) -> Any:
        """Await one non-streaming request under a deadline, classifying any failure."""
        try:
            async with asyncio.timeout(seconds):
                return await coro
        except TimeoutError:
            raise ModelError(f"The Ollama server at {self.host} did not answer {what} within {seconds:g} s.",
                             "Is something else listening on that port? Check --host / OLLAMA_HOST.",
                             retryable=True) from None
        except Exception as exc:  # noqa: BLE001 - the one classification table decides
            raise classify(exc, self.host) from None

    @property
    def _short(self) -> float:
        return max(self.deadlines.connect * 2, 1.0)

    # -- Backend protocol --------------------------------------------------
    async def list_models(self) -> list[str]:
        client = self._get_client()
        listing = await self._call("the model list", self._short, client.list())
        return [m.model for m in listing.models if m.model]

    async def connect(self, model: str | None = None) -> ModelInfo:
        client = self._get_client()
        response = await self._call("/api/version", self._short, client._request_raw("GET", "/api/version"))
        try:
            self.server_version = str(response.json().get("version", ""))
        except ValueError:
            self.server_version = ""
        listing = await self._call("the model list", self._short, client.list())
        models = [m for m in listing.models if m.model]
        names = [m.model for m in models]
        if model:
            chosen = next((n for n in names if n in (model, f"{model}:latest")), None)
            if chosen is None:
                raise self._unknown(f"Model {model!r} is not on the Ollama server at {self.host}.", names)
            self.info = await self._show(chosen)
            return self.info
        for entry in models:
            family = (entry.details.family or "") if entry.details else ""
            if "embed" in entry.model or family in EMBEDDING_FAMILIES:
                continue
            info = await self._show(entry.model)
            caps = info.details.get("capabilities") or []
            if caps and "completion" not in caps:
                continue
            self.info = info
            return info
        raise self._unknown(f"The Ollama server at {self.host} has no chat model.", names)

    def _unknown(self, message: str, names: list[str]) -> UnknownModel:
        listed = ", ".join(names) if names else "none"
        return UnknownModel(message, f"Models on the server: {listed}. Pass --model NAME, or {PULL_HINT}.")

    async def _show(self, name: str) -> ModelInfo:
        shown = await self._call(f"/api/show for {name}", max(self.deadlines.chunk, self._short),
                                 self._get_client().show(name))
        caps = list(shown.capabilities or [])
        model_info = dict(shown.modelinfo or {})
        arch = str(model_info.get("general.architecture") or (shown.details.family if shown.details else "") or "")
        reported = model_info.get(f"{arch}.context_length")
        if not isinstance(reported, int):
            reported = next((v for k, v in model_info.items()
                             if k.endswith(".context_length") and isinstance(v, int)), 0)
        length = self.context or min(reported or 4096, self.max_context)
        details = {"capabilities": caps, "reported_context": reported, "architecture": arch,
                   "server_version": self.server_version}
        if shown.details:
            details.update(family=shown.details.family, parameter_size=shown.details.parameter_size,
                           quantization=shown.details.quantization_level)
        return ModelInfo(name=name, context_length=length, supports_tools="tools" in caps, details=details)

    async def stream_chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        format: dict[str, Any] | None = None,  # noqa: A002 - Ollama's own name
        num_ctx: int | None = None,
        options: dict[str, Any] | None = None,
    ) -> AsyncIterator[ChatChunk]:
        task = self._warming
        if task is not None and not task.done() and task is not asyncio.current_task():
            await asyncio.wait({task}, timeout=self.deadlines.total)  # see warm(); neither raises nor cancels it
        info = self.info or await self.connect(None)
        opts: dict[str, Any] = {"temperature": self.temperature, "num_ctx": num_ctx or info.context_length}
        if self.seed is not None:
            opts["seed"] = self.seed
        opts.update({k: v for k, v in (options or {}).items() if k != "n"})
        request: dict[str, Any] = {"model": info.name, "messages": messages, "stream": True, "options": opts}
        if tools and info.supports_tools:
            request["tools"] = tools
        if format is not None:
            request["format"] = format
        loop = asyncio.get_running_loop()
        end = loop.time() + self.deadlines.total
        streamed: list[str] = []
        stream: Any = None
        calls = 0
        try:
            try:
                stream = await self._get_client().chat(**request)
            except Exception as exc:  # noqa: BLE001
                raise classify(exc, self.host) from None
            while True:
                part = await self._next(stream, end, streamed, info)
                if part is None:
                    return
                chunk = self._chunk(part, calls)
                calls += len(chunk.tool_calls)
                streamed.append(chunk.text)
                yield chunk
                if chunk.done:
                    return
        finally:
            if stream is not None:
                await stream.aclose()

    async def warm(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, *,
                   num_ctx: int | None = None) -> dict[str, Any]:
        """Have the server process ``messages`` into its prompt cache (one token is generated).

        ``num_ctx`` must be the one the requests will use (another size reloads the model, cache and all).
        A request sent meanwhile waits for this one instead of racing it into a second slot."""
        self._warming = asyncio.current_task()
        info = self.info or await self.connect(None)
        opts: dict[str, Any] = {"temperature": self.temperature, "num_ctx": num_ctx or info.context_length,
                                "num_predict": 1}
        request: dict[str, Any] = {"model": info.name, "messages": messages, "stream": False, "options": opts}
        if tools and info.supports_tools:
            request["tools"] = tools
        reply = await self._call("the warm-up request", self.deadlines.total, self._get_client().chat(**request))
        return {"prompt_eval_count": reply.prompt_eval_count, "prompt_eval_duration": reply.prompt_eval_duration}

    async def _next(self, stream: Any, end: float, streamed: list[str], info: ModelInfo) -> Any:
        """The next streamed record, or None at the end; deadlines and errors become ModelError."""
        loop = asyncio.get_running_loop()
        remaining = end - loop.time()
        wait = min(self.deadlines.chunk, remaining)
        try:
            if remaining <= 0:
                raise TimeoutError
            async with asyncio.timeout(wait):
                return await anext(stream)
        except StopAsyncIteration:
            return None
        except TimeoutError:
            if wait >= self.deadlines.chunk:
                err = ModelError(f"The model at {self.host} sent nothing for {self.deadlines.chunk:g} s.",
                                 "Partial output was kept; devagent retries a few times. "
                                 "Raise model.chunk_timeout for slow machines.", retryable=True)
            else:
                err = ModelError(f"The reply took longer than the {self.deadlines.total:g} s limit.",
                                 "Partial output was kept. Raise model.total_timeout to allow longer replies.")
        except Exception as exc:  # noqa: BLE001
            err = classify(exc, self.host)
            if isinstance(err, UnknownModel):
                err = await self._enrich(err, info)
        err.partial = "".join(streamed)
        raise err

    async def _enrich(self, err: UnknownModel, info: ModelInfo) -> UnknownModel:
        try:
            names = await self.list_models()
        except ModelError:
            return err
        return self._unknown(f"Model {info.name!r} is no longer on the Ollama server at {self.host}.", names)

    @staticmethod
    def _chunk(part: Any, seen: int) -> ChatChunk:
        message = part.message
        calls: list[ToolCall] = []
        for index, call in enumerate(message.tool_calls or ()):
            arguments: Any = call.function.arguments
            if isinstance(arguments, str):
                try:
                    arguments = loads_json(arguments, "the model's tool call")
                except ValueError:
                    arguments = {"_raw": arguments}
            calls.append(ToolCall(name=call.function.name, arguments=dict(arguments or {}),
                                  id=f"call_{seen + index}", source="native"))
        return ChatChunk(text=message.content or "", tool_calls=tuple(calls), done=bool(part.done),
                         prompt_tokens=part.prompt_eval_count, completion_tokens=part.eval_count)

    async def close(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()
