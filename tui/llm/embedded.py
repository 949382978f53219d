"""Run a GGUF model inside devagent: xllamacpp's llama.cpp server in a child process we own.

The child (``python -I`` running ``tui.llm.embedded._serve``) binds 127.0.0.1 on a free port, prints its
URL and then waits on stdin: when devagent exits (or dies), stdin closes, PDEATHSIG fires,
and the child goes too, so no model process is ever left behind. The parent speaks to it
through OpenAICompatBackend, so everything above the Backend seam is unchanged.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from tui.protocol.errors import ModelError
from tui.llm.base import Deadlines, ModelInfo
from tui.llm.openai_compat import OpenAICompatBackend

INSTALL_HINT = "Install the embedded runtime: pip install -e '.[embedded]'  (or: pip install xllamacpp)"
FETCH_HINT = "Get one with `devagent models pull qwen2.5-coder-1.5b`, or point model.model_file / --model-file at a .gguf file."


@dataclass(frozen=True)
class LoadProgress:
    """One step of starting the embedded model, for a status line or progress bar."""

    stage: str  # starting | loading | ready | stopped | failed
    fraction: float  # 0..1, an estimate
    message: str
    elapsed: float = 0.0


ProgressCallback = Callable[[LoadProgress], None]

_LIVE: "weakref.WeakSet[EmbeddedServer]" = weakref.WeakSet()
_CHILD = ("import json, sys; sys.path[:] = json.loads(sys.argv.pop(1)); "
          "from tui.llm.embedded import _serve; sys.exit(_serve())")


def _stop_all() -> None:
    for server in list(_LIVE):
        server.stop()


atexit.register(_stop_all)


def default_threads() -> int:
    """All the cores this process may use (model.threads = 0)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


PROMPT_BATCH = 512  # tokens of the prompt read between two progress reports (llama.cpp's n_batch)
CACHE_REUSE_CHUNK = 64  # tokens: the shortest run of the cached prompt worth shifting into place (llama.cpp --cache-reuse)


class EmbeddedServer:
    """A llama.cpp HTTP server on 127.0.0.1, owned by this process."""

    def __init__(self, model_file: str | Path, *, threads: int = 0, context: int = 4096, parallel: int = 1,
                 on_progress: ProgressCallback | None = None, python: str | None = None) -> None:
        self.model_file = Path(model_file).expanduser()
        self.threads = threads or default_threads()
        self.context = context
        self.parallel = max(1, parallel)
        self.on_progress = on_progress
        self.python = python or sys.executable
        self.url: str | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self._stderr: collections.deque[str] = collections.deque(maxlen=40)
        self._stdout: collections.deque[str] = collections.deque(maxlen=10)
        self._started = 0.0

    def _report(self, stage: str, fraction: float, message: str) -> None:
        if self.on_progress is not None:
            self.on_progress(LoadProgress(stage, fraction, message, time.monotonic() - self._started))

    def check(self) -> None:
        """The runtime is installed and the file is a GGUF model (raises ModelError naming what is wrong)."""
        if importlib.util.find_spec("xllamacpp") is None:
            raise ModelError("The embedded llama.cpp runtime (xllamacpp) is not installed.", INSTALL_HINT)
        if not self.model_file.is_file():
            raise ModelError(f"Model file {self.model_file} does not exist.", FETCH_HINT)
        with self.model_file.open("rb") as fh:
            if fh.read(4) != b"GGUF":
                raise ModelError(f"{self.model_file} is not a GGUF model file.", FETCH_HINT)

    def _spawn(self) -> None:
        # -I and a neutral cwd: devagent usually runs in the repo, whose tui/ or xllamacpp/ must never be imported.
        # The child gets this process's sys.path instead (so a --user or PYTHONPATH install still works), with
        # devagent's own package directory first and without the working directory (the repo) itself.
        root = str(Path(__file__).resolve().parents[2])
        here = os.path.realpath(os.getcwd())
        paths = [root] + [p for p in sys.path if os.path.isabs(p) and os.path.realpath(p) != here]
        cmd = [self.python, "-I", "-c", _CHILD, json.dumps(paths), "--model", str(self.model_file.absolute()),
               "--threads", str(self.threads), "--context", str(self.context), "--parallel", str(self.parallel),
               "--parent", str(os.getpid())]
        env = dict(os.environ)
        # llama.cpp is built with OpenMP; spinning OpenMP threads starve each other on a busy machine
        # (measured on 2 busy cores: 1.5 tokens/s spinning, 3.9 passive, 2.9 with one thread).
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     start_new_session=True, env=env, close_fds=True, cwd="/")
        _LIVE.add(self)
        for stream, sink in ((self.proc.stdout, self._stdout), (self.proc.stderr, self._stderr)):
            threading.Thread(target=_drain, args=(stream, sink), daemon=True).start()

    async def start(self, timeout: float = 300.0) -> str:
        """Start the child and wait until it answers /health. Returns the base URL."""
        if self.url and self.alive():
            return self.url
        self.check()
        self._started = time.monotonic()
        size_mb = self.model_file.stat().st_size / 1e6
        from tui.llm.modelcache import shown

        self._report("starting", 0.0, f"starting llama.cpp for {shown(self.model_file)} ({size_mb:.0f} MB)")
        self._spawn()
        try:
            self.url = await self._wait_ready(timeout, size_mb)
        except BaseException:
            self.stop()
            raise
        self._report("ready", 1.0, f"{self.model_file.name} ready at {self.url} ({self.threads} threads, "
                                   f"{self.context}-token context)")
        return self.url

    async def _wait_ready(self, timeout: float, size_mb: float) -> str:
        import httpx

        deadline = time.monotonic() + timeout
        url: str | None = None
        last_report = 0.0
        async with httpx.AsyncClient(timeout=2.0, trust_env=False) as client:
            while time.monotonic() < deadline:
                if not self.alive():
                    tail = "\n".join(list(self._stderr)[-8:])
                    self._report("failed", 0.0, "the model process exited")
                    raise ModelError(f"The embedded model process exited while loading {self.model_file.name}.",
                                     f"Its last output:\n{tail}" if tail else FETCH_HINT)
                url = url or _listening_url(self._stdout)
                if url:
                    try:
                        if (await client.get(url + "/health")).status_code == 200:
                            return url
                    except httpx.HTTPError:
                        pass
                now = time.monotonic()
                if now - last_report >= 1.0:
                    last_report = now
                    stage_frac = 0.9 if url else min(0.85, 0.1 + (now - self._started) / max(size_mb / 200, 1.0))
                    self._report("loading", stage_frac, f"loading {self.model_file.name}… {now - self._started:.0f} s")
                await asyncio.sleep(0.1)
        self._report("failed", 0.0, "timed out")
        raise ModelError(f"The embedded model did not become ready within {timeout:.0f} s.",
                         "A smaller model (`devagent models pull qwen2.5-coder-0.5b`) or a smaller model.context loads faster.")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, grace: float = 3.0) -> None:
        """Ask the child to exit (close its stdin), then SIGTERM / SIGKILL its whole process group."""
        proc, self.proc, self.url = self.proc, None, None
        _LIVE.discard(self)
        if proc is None:
            return
        if proc.poll() is None:
            try:
                if proc.stdin:
                    proc.stdin.close()
                proc.wait(timeout=grace)
            except (subprocess.TimeoutExpired, OSError):
                for sig in (signal.SIGTERM, signal.SIGKILL):
                    try:
                        os.killpg(proc.pid, sig)
                        proc.wait(timeout=grace)
                        break
                    except ProcessLookupError:
                        break
                    except subprocess.TimeoutExpired:
                        continue
        else:
            try:  # the leader is gone; make sure nothing it started lingers
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass
        self._report("stopped", 0.0, "embedded model stopped")


def _drain(stream: Any, sink: collections.deque[str]) -> None:
    for raw in iter(stream.readline, b""):
        sink.append(raw.decode("utf-8", "replace").rstrip())


def _listening_url(lines: collections.deque[str]) -> str | None:
    for line in list(lines):
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if isinstance(msg, dict) and msg.get("event") == "listening":
            return str(msg["url"]).rstrip("/")
    return None


class EmbeddedBackend(OpenAICompatBackend):
    """OpenAICompatBackend pointed at an EmbeddedServer it starts on connect() and stops on close()."""

    name = "embedded"

    def __init__(self, model_file: str | Path, config: Any, deadlines: Deadlines,
                 on_progress: ProgressCallback | None = None) -> None:
        model = config.model
        context = min(model.context or model.max_context, model.max_context)
        super().__init__("http://127.0.0.1:0", deadlines, temperature=model.temperature, seed=model.seed,
                         max_context=context)
        self.parallel = max(1, int(getattr(model, "samples", 1) or 1))
        self.n_field = "n_cmpl"  # llama.cpp's name for several completions of one prompt (read once)
        self.lark_grammars = True  # its llguidance takes our grammars: code in strings may escape ' as \' (lark_json)
        self.home_slot = 0 if self.parallel > 1 else None
        self.server = EmbeddedServer(model_file, threads=model.threads, context=context, parallel=self.parallel,
                                     on_progress=on_progress)
        self.prompt_progress = True  # llama.cpp's server

    async def connect(self, model: str | None = None) -> ModelInfo:
        """Starts the model process the first time (the model name is the file; ``model`` is ignored)."""
        if not self.server.alive():
            await super().close()  # a client bound to an old port must not be reused
            self.host = await self.server.start()
        info = await super().connect(None)
        name = self.server.model_file.name
        return ModelInfo(name=name, context_length=info.context_length, supports_tools=True,
                         details={**info.details, "backend": "embedded", "model_file": str(self.server.model_file),
                                  "threads": self.server.threads})

    async def close(self) -> None:
        """Close the HTTP client and stop the model process (connect() starts it again)."""
        await super().close()
        await asyncio.to_thread(self.server.stop)


def _serve(argv: list[str] | None = None) -> int:
    """Child entry point: load the model, serve on 127.0.0.1:free port, exit when the parent goes."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tui.llm.embedded")
    parser.add_argument("--model", required=True)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument("--parallel", type=int, default=1)
    parser.add_argument("--parent", type=int, default=0)
    args = parser.parse_args(argv)
    _die_with_parent(args.parent)

    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    # Several slots sample candidates of one prompt at once (n_cmpl): one unified KV cache holds each slot's
    # whole context (a request never gets more than ``context`` tokens: devagent fits it), so the cache is
    # context x slots; the prompt is read once and its cells shared.
    params.n_parallel = max(1, args.parallel)
    params.kv_unified = True
    params.n_ctx = args.context * params.n_parallel
    params.n_batch = PROMPT_BATCH  # prompt progress is reported per batch (see the note below)
    # Reuse cached chunks after a deletion in the middle of the prompt (KV shifting): when the context
    # fitter drops an older step or devagent forgets a retried reply, the messages after it are not read again.
    params.n_cache_reuse = CACHE_REUSE_CHUNK
    params.cpuparams.n_threads = args.threads or default_threads()
    params.cpuparams_batch.n_threads = args.threads or default_threads()
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.ui = False
    server = xllamacpp.Server(params)
    print(json.dumps({"event": "listening", "url": server.listening_address}), flush=True)
    sys.stdin.buffer.read()  # returns when the parent closes the pipe or dies
    os._exit(0)  # skip llama.cpp's teardown: nothing to flush, and it can be slow


def _die_with_parent(parent: int) -> None:
    """PR_SET_PDEATHSIG(SIGKILL) on Linux; and exit now if the parent is already gone."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass
    if parent and os.getppid() != parent:
        os._exit(0)


if __name__ == "__main__":
    sys.exit(_serve())
