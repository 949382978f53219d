"""Where devagent keeps GGUF model files, and which ones are there.

Used to fall back to the embedded backend when no Ollama server is reachable but a
model file is configured or cached (`devagent models pull` and scripts/fetch-test-model fill it).
"""

from __future__ import annotations

import os
from pathlib import Path

# Preferred first when several cached models exist: bigger is better at tool calls.
PREFERRED = (
    "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
)


def model_dir() -> Path:
    """$DEVAGENT_MODEL_DIR, else $XDG_CACHE_HOME/devagent/models (default ~/.cache/devagent/models)."""
    if os.environ.get("DEVAGENT_MODEL_DIR"):
        return Path(os.environ["DEVAGENT_MODEL_DIR"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "devagent" / "models"


def find_cached_models() -> list[Path]:
    """GGUF files in the model cache, preferred models first, then by name. Half-written files are skipped."""
    folder = model_dir()
    try:
        files = [p for p in folder.iterdir() if p.suffix == ".gguf" and p.is_file() and p.stat().st_size > 0]
    except OSError:
        return []
    rank = {name: i for i, name in enumerate(PREFERRED)}
    return sorted(files, key=lambda p: (rank.get(p.name, len(rank)), p.name))


def resolve_model_file(configured: str, *, typed_here: bool = False) -> Path | None:
    """The model file ``configured`` names, else the best cached one (None when there is none).

    A bare name (no ``/``) is a name in the model cache and is looked up there only, never in the current
    directory: devagent runs inside repositories, and a file planted there under a cached model's name would be
    loaded into llama.cpp on this machine. A path is explicit: absolute, ``~/...``, or relative with a ``/``.
    A relative path is relative to the current directory only when the developer just typed it
    (``typed_here``: ``--model-file ./x.gguf``); in a config file it is relative to the model cache.
    """
    if not configured:
        cached = find_cached_models()
        return cached[0] if cached else None
    path = Path(configured).expanduser()
    if path.is_absolute():
        return path
    if typed_here and "/" in configured:
        return Path(os.path.abspath(path))
    return model_dir() / path


def shown(path: Path) -> str:
    """How a model file is named to the developer: its name when it is in the model cache, else its whole path."""
    try:
        if path.resolve().parent == model_dir().resolve():
            return path.name
    except OSError:
        pass
    return str(path)


def runtime_installed() -> bool:
    """Whether the embedded llama.cpp runtime (xllamacpp) can be imported here."""
    from importlib.util import find_spec

    return find_spec("xllamacpp") is not None


def embedded_route_hint(configured: str = "") -> str:
    """What to run to get a working model with no server at all (what is missing, in order)."""
    from tui.llm.catalog import default_model

    steps = []
    if not runtime_installed():
        steps.append("pip install -e '.[embedded]'  (or: pip install xllamacpp)")
    path = resolve_model_file(configured)
    if path is None or not path.is_file():
        model = default_model()
        steps.append(f"devagent models pull {model.name}  ({model.size / 1e9:.2f} GB, checked by sha256)")
    if not steps:
        return ""
    return "Or run a model inside devagent, with no server: " + "; then ".join(steps) + "."


def unreachable_note(exc: BaseException) -> str:
    """For one-line messages about a missing server: ' ' + what to run for a model with no server, or ''."""
    from tui.protocol.errors import ServerUnreachable

    route = embedded_route_hint() if isinstance(exc, ServerUnreachable) else ""
    return f" {route}" if route else ""
