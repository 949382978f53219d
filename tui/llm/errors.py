"""The one table that turns model-server failures into ModelError, retryable or not.

Retrying is safe when the server never answered or dropped the reply part way
(refused, reset, 5xx, stall); it is pointless for a bad request or an unknown
model. Exception classes are matched by name so this module imports neither
httpx nor ollama (both are slow to import).
"""

from __future__ import annotations

import json

from tui.protocol.errors import ModelError, ServerUnreachable, UnknownModel

PULL_HINT = "pull a model with `ollama pull qwen2.5-coder:1.5b`"


def unreachable_hint(host: str) -> str:
    return (f"Start Ollama with `ollama serve` (install it from https://ollama.com/download), then {PULL_HINT}. "
            f"If it runs elsewhere, pass --host or set OLLAMA_HOST (now trying {host}).")


def _names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def _server_text(exc: BaseException) -> str:
    text = str(getattr(exc, "error", "") or exc)
    try:
        data = json.loads(text)
    except ValueError:
        return text.strip()
    return str(data.get("error", text)) if isinstance(data, dict) else text.strip()


def classify(exc: BaseException, host: str) -> ModelError:
    """Map any exception raised while talking to the server to a ModelError with ``retryable`` set."""
    if isinstance(exc, ModelError):
        return exc
    names = _names(exc)
    if names & {"ConnectError", "ConnectionRefusedError", "ConnectTimeout"} or type(exc) is ConnectionError:
        detail = str(exc).lower()
        if "ConnectTimeout" in names:
            what = "it did not answer in time"
        elif "name or service not known" in detail or "nodename" in detail or "resolution" in detail:
            what = "its host name could not be resolved"
        else:
            what = "nothing answered there (connection refused)"
        return ServerUnreachable(f"Cannot reach the Ollama server at {host}: {what}.",
                                 unreachable_hint(host), retryable=True)
    if names & {"UnsupportedProtocol", "InvalidURL", "LocalProtocolError"}:
        return ServerUnreachable(f"The model server address {host!r} is not usable ({exc}).",
                                 "Use a URL like http://127.0.0.1:11434 in --host, OLLAMA_HOST or model.host.")
    if names & {"ReadTimeout", "WriteTimeout", "PoolTimeout", "TimeoutError", "TimeoutException"}:
        return ModelError(f"The model server at {host} stopped sending (timed out).",
                          "The model may be loading or overloaded; devagent retries a few times.", retryable=True)
    if names & {"RemoteProtocolError", "ReadError", "WriteError", "ConnectionResetError", "BrokenPipeError",
                "ConnectionAbortedError", "IncompleteRead"}:
        return ModelError(f"The connection to the model server at {host} dropped in the middle of the reply.",
                          "Partial output was kept; devagent retries a few times.", retryable=True)
    if "ResponseError" in names:
        return _response_error(exc, host)
    if names & {"JSONDecodeError", "ValidationError"}:
        return ModelError(f"The server at {host} sent something that is not Ollama's API ({exc}).",
                          "Check that --host / OLLAMA_HOST points at an Ollama server.")
    if names & {"HTTPError", "TransportError", "OSError"}:
        return ModelError(f"Talking to the model server at {host} failed: {exc}", retryable=True)
    return ModelError(f"Unexpected error from the model client: {type(exc).__name__}: {exc}")


def _response_error(exc: BaseException, host: str) -> ModelError:
    status = _status(exc)
    text = _server_text(exc)
    if status == 404 and "not found" in text.lower():
        return UnknownModel(f"The Ollama server at {host} says: {text}.", f"Pick an installed model or {PULL_HINT}.")
    if status is None or status < 0 or status >= 500 or status == 429:
        where = f"HTTP {status}" if status and status > 0 else "mid-reply"
        return ModelError(f"The model server at {host} failed ({where}): {text}",
                          "Partial output was kept; devagent retries a few times.", retryable=True)
    return ModelError(f"The model server at {host} rejected the request (HTTP {status}): {text}",
                      "This is not retried; the request itself is the problem.")
