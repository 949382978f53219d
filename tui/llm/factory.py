"""Pick the model backend and the server address from flags, config and the environment.

Host order: ``--host`` > ``model.host`` in config > ``$OLLAMA_HOST`` > http://127.0.0.1:11434,
accepting the forms Ollama itself accepts ("0.0.0.0:11434", "localhost", ":11500", URLs).
"""

from __future__ import annotations

import ipaddress
import os
import urllib.parse
from typing import TYPE_CHECKING, Any

from tui.protocol.errors import ConfigError
from tui.llm.base import Backend, Deadlines

if TYPE_CHECKING:
    from tui.config import Config

DEFAULT_HOST = "http://127.0.0.1:11434"
DEFAULT_PORT = 11434
# Bind-all addresses are where a server listens, not where a client can always connect.
_WILDCARDS = {"0.0.0.0": "127.0.0.1", "::": "::1"}


def normalize_host(host: str | None) -> str:
    """Turn any OLLAMA_HOST-style value into ``scheme://host:port[/path]``."""
    raw = (host or "").strip()
    if not raw:
        return DEFAULT_HOST
    scheme, sep, rest = raw.partition("://")
    port = DEFAULT_PORT
    if not sep:
        scheme, rest = "http", raw
    elif scheme == "http":
        port = 80
    elif scheme == "https":
        port = 443
    try:
        split = urllib.parse.urlsplit(f"{scheme}://{rest}")
        name = split.hostname or "127.0.0.1"
        port = split.port or port
    except ValueError as exc:
        raise ConfigError(f"Model server address {raw!r} is not valid ({exc}).",
                          "Use a URL like http://127.0.0.1:11434 in --host, OLLAMA_HOST or model.host.") from None
    name = _WILDCARDS.get(name, name)
    try:
        if isinstance(ipaddress.ip_address(name), ipaddress.IPv6Address):
            name = f"[{name}]"
    except ValueError:
        pass
    path = split.path.strip("/")
    return f"{scheme}://{name}:{port}" + (f"/{path}" if path else "")


def resolve_host(host: str | None, config: "Config | None") -> str:
    """--host, else config model.host, else $OLLAMA_HOST, else the default; normalized."""
    configured = config.model.host if config is not None else ""
    return normalize_host(host or configured or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST)


def deadlines_from(config: "Config") -> Deadlines:
    model = config.model
    return Deadlines(connect=model.connect_timeout, chunk=model.chunk_timeout, total=model.total_timeout,
                     retries=model.retries)


def make_backend(config: "Config", *, backend: str | None = None, host: str | None = None,
                 model_file: str | None = None) -> Backend:
    """Build the configured backend; the non-Ollama ones are imported only when asked for."""
    kind = (backend or config.model.backend or "ollama").lower()
    model = config.model
    common: dict[str, Any] = {"temperature": model.temperature, "seed": model.seed, "max_context": model.max_context}
    if kind == "ollama":
        from tui.llm.ollama import OllamaBackend

        return OllamaBackend(resolve_host(host, config), deadlines_from(config), context=model.context, **common)
    if kind == "openai":
        module = _optional("tui.llm.openai_compat", kind)
        return module.OpenAICompatBackend(host or model.host or None, deadlines_from(config), **common)
    if kind == "embedded":
        module = _optional("tui.llm.embedded", kind)
        from tui.llm.modelcache import model_dir, resolve_model_file

        path = resolve_model_file(model_file or model.model_file)
        if path is None:
            raise ConfigError("The embedded backend needs a GGUF model file, and none is configured or cached.",
                              f"Pass --model-file PATH.gguf, set model.model_file, or put one in {model_dir()} "
                              "(`devagent models pull qwen2.5-coder-1.5b` does).")
        return module.EmbeddedBackend(path, config, deadlines_from(config))
    raise ConfigError(f"Unknown model backend {kind!r}.", "Use one of: ollama, openai, embedded (model.backend).")


def _optional(name: str, kind: str) -> Any:
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ConfigError(f"The {kind} backend is not available here ({exc}).",
                          "Use model.backend = \"ollama\" or install what it needs.") from None
