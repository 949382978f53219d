"""Pick the model backend from flags, config and the environment (the server address: hosts.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.protocol.errors import ConfigError
from tui.llm.base import Backend, Deadlines
from tui.llm.hosts import resolve_host

if TYPE_CHECKING:
    from tui.config import Config


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

        path = resolve_model_file(model_file or model.model_file, typed_here=bool(model_file))
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
