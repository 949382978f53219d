"""The model options of a command line (``--model``, ``--host``, ``--backend``, ``--model-file``), chosen and checked
the one way every front end uses: `devagent run` finds a bad one when it connects, and the app checks them
before it opens (a bad flag ends it with the same error and exit code, instead of an app retrying a host that
was never going to answer).

Checking never loads a model: for the embedded backend it is the file and the runtime; for a server it is one
connect (the server answers and has the model).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.protocol.errors import ServerUnreachable

if TYPE_CHECKING:
    from tui.config import Config


def backend_choice(backend: str | None, host: str | None, model_file: str | None) -> tuple[str | None, Any]:
    """(the backend kind to build, what the developer chose explicitly: None when nothing was). A model file
    alone means: run this GGUF here."""
    if model_file and not backend:
        backend = "embedded"
    return backend, backend or host or model_file


def may_fall_back(config: "Config", choice: Any) -> bool:
    """No Ollama server answers, nothing was chosen explicitly, a model file is configured or cached and the
    runtime is installed: the embedded backend runs it instead."""
    if choice is not None or config.model.backend != "ollama":
        return False
    from importlib.util import find_spec

    from tui.llm.modelcache import resolve_model_file

    path = resolve_model_file(config.model.model_file)
    return path is not None and path.is_file() and find_spec("xllamacpp") is not None


def with_route(err: ServerUnreachable, config: "Config", choice: Any) -> ServerUnreachable:
    """The error's hint, plus what to run for a model with no server when nothing was chosen explicitly."""
    from tui.llm.modelcache import embedded_route_hint

    route = embedded_route_hint(config.model.model_file) if choice is None else ""
    if route and route not in err.hint:
        err.hint = f"{err.hint}\n{route}".strip()
    return err


async def check_model_options(config: "Config", *, model: str | None = None, host: str | None = None,
                              backend: str | None = None, model_file: str | None = None) -> None:
    """Raise what `devagent run` with these options would fail with before its first reply (ConfigError,
    ModelError, ServerUnreachable, UnknownModel); return when they would work. Nothing given: nothing to check."""
    if not any((model, host, backend, model_file)):
        return
    from tui.llm.factory import make_backend

    kind, choice = backend_choice(backend, host, model_file)
    chosen = make_backend(config, backend=kind, host=host, model_file=model_file)
    try:
        server = getattr(chosen, "server", None)
        if server is not None and hasattr(server, "check"):
            server.check()  # the file and the runtime; loading it is the app's first wait, shown as such
            return
        try:
            await chosen.connect(model or config.model.name or None)
        except ServerUnreachable as err:
            if may_fall_back(config, choice):
                return  # the session runs the cached model instead, and says so
            raise with_route(err, config, choice) from None
    finally:
        await chosen.close()
