"""The Backend seam: every model server (Ollama, OpenAI-compatible, embedded llama.cpp) looks like this.

Messages use Ollama's chat shape: ``{"role": "system"|"user"|"assistant"|"tool",
"content": str, "tool_calls"?: [...], "tool_name"?: str}``. Backends translate.
A backend enforces its own connect / per-chunk / overall deadlines and raises
``ModelError`` (with ``retryable`` set from llm/errors.py) carrying what it had
streamed so far in ``partial``; the agent owns the retry loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Protocol


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    id: str = ""
    source: str = "native"  # native | json | fence | shell | constrained


@dataclass(frozen=True)
class ChatChunk:
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    done: bool = False
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    index: int = 0  # which of several sampled completions this piece belongs to (options={"n": k})


@dataclass(frozen=True)
class ModelInfo:
    name: str
    context_length: int = 4096
    supports_tools: bool = False
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Deadlines:
    connect: float = 5.0  # seconds to connect to the server
    chunk: float = 60.0  # longest silence between two streamed chunks (first token included)
    total: float = 600.0  # the whole reply
    retries: int = 2  # further attempts after a retryable failure
    backoff: float = 0.5  # first retry delay; doubles each time


class Backend(Protocol):
    name: str  # "ollama" | "openai" | "embedded"
    host: str
    # Completions one request can sample at once (``options={"n": k}``, chunks tagged with ``index``); a
    # caller wanting more than this asks again. 1 for servers that sample one reply per request.
    parallel: int

    async def connect(self, model: str | None = None) -> ModelInfo:
        """Check the server, resolve the model (first suitable when None), read its capabilities.

        Raises ServerUnreachable (names the host, says how to start a server) or
        UnknownModel (lists what the server has).
        """
        ...

    def stream_chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        *,
        format: dict[str, Any] | None = None,
        num_ctx: int | None = None,
        options: dict[str, Any] | None = None,
    ) -> AsyncIterator[ChatChunk]:
        """Stream one reply. Cancelling the consuming task stops the stream at once."""
        ...

    async def list_models(self) -> list[str]: ...

    async def close(self) -> None: ...
