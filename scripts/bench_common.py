"""Shared benchmark helpers: timing with warm-up and repeats, summaries, result rows, the machine, the table.

Every scenario script (bench_repo.py, bench_engine.py, bench_sandbox.py, ...) can build its results with
:func:`scenario` and write them with :func:`write_json`; ``scripts/bench.py`` merges them. A result row:

    {"name": "repo_status", "title": "...", "unit": "s",
     "devagent": {"median", "min", "max", "repeats", "samples"}, "baseline": {... same, "name": "git status"},
     "ratio": devagent median / baseline median, "overhead": devagent - baseline,
     "target": "ratio <= 1.3", "target_met": bool | None, "notes": str, "skipped": None | "reason"}
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
           "GIT_CONFIG_NOSYSTEM": "1"}


def summarize(samples: list[float], **extra: Any) -> dict[str, Any]:
    """Median, min, max and count of a list of timings (seconds unless the scenario says otherwise)."""
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples),
            "repeats": len(samples), "samples": [round(s, 6) for s in samples], **extra}


def measure(fn: Callable[[], Any], repeats: int, warmup: int = 1) -> list[float]:
    """Wall-clock seconds of ``fn()``, after ``warmup`` untimed calls."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


async def measure_async(fn: Callable[[], Awaitable[Any]], repeats: int, warmup: int = 1) -> list[float]:
    for _ in range(warmup):
        await fn()
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        await fn()
        out.append(time.perf_counter() - start)
    return out


def measure_pair(devagent: Callable[[], Any], baseline: Callable[[], Any], repeats: int,
                 warmup: int = 1) -> tuple[list[float], list[float]]:
    """Interleave the two so background load on a busy box hits both alike."""
    for _ in range(warmup):
        devagent()
        baseline()
    dev, base = [], []
    for _ in range(repeats):
        for fn, into in ((devagent, dev), (baseline, base)):
            start = time.perf_counter()
            fn()
            into.append(time.perf_counter() - start)
    return dev, base


def scenario(name: str, title: str, dev: list[float] | None, base: list[float] | None, *, baseline_name: str = "",
             unit: str = "s", target: str = "", target_ok: Callable[[dict[str, Any]], bool] | None = None,
             notes: str = "", extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """One result row; ``target_ok`` receives the row (with ratio and overhead) and says whether the target holds."""
    row: dict[str, Any] = {"name": name, "title": title, "unit": unit, "target": target, "notes": notes,
                           "skipped": None, "extra": extra or {}}
    row["devagent"] = summarize(dev) if dev else None
    row["baseline"] = summarize(base, name=baseline_name) if base else None
    if dev and base:
        d, b = row["devagent"]["median"], row["baseline"]["median"]
        row["ratio"] = d / b if b else None
        row["overhead"] = d - b
    else:
        row["ratio"] = row["overhead"] = None
    row["target_met"] = target_ok(row) if target_ok and dev else None
    return row


def skipped(name: str, title: str, reason: str) -> dict[str, Any]:
    return {"name": name, "title": title, "skipped": reason, "devagent": None, "baseline": None, "ratio": None,
            "overhead": None, "target": "", "target_met": None, "notes": "", "extra": {}, "unit": "s"}


def run_guarded(name: str, title: str, fn: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Run a scenario function; any exception becomes a "skipped: reason" row instead of ending the suite."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - a broken scenario must not take the suite down
        return [skipped(name, title, f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}")]


def run_async(coro_fn: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(coro_fn())


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram = int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        from importlib.metadata import version

        textual = version("textual")
    except Exception:  # noqa: BLE001
        textual = "not installed"
    git = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    return {"cpu": cpu, "cores": os.cpu_count(), "ram_gib": round(ram / 2**30, 1),
            "python": platform.python_version(), "textual": textual, "git": git,
            "os": f"{platform.system()} {platform.release()}", "load_avg": os.getloadavg()}


def write_json(path: Path, results: list[dict[str, Any]], **meta: Any) -> None:
    path.write_text(json.dumps({"machine": machine(), "scenarios": results, **meta}, indent=2, default=str))


def fmt(value: float | None, unit: str = "s") -> str:
    if value is None:
        return "-"
    if unit == "s":
        if abs(value) < 1:
            return f"{value * 1000:.1f} ms"
        return f"{value:.2f} s"
    if unit == "MiB":
        return f"{value:.1f} MiB"
    return f"{value:.3g} {unit}".strip()


def cells(row: dict[str, Any]) -> dict[str, str]:
    """One result row as display strings: dev, base (medians), ratio, lo, hi, n, mark."""
    unit = row.get("unit", "s")
    dev, base = row.get("devagent") or {}, row.get("baseline") or {}
    return {"dev": fmt(dev.get("median"), unit), "base": fmt(base.get("median"), unit), "base_name": base.get("name", ""),
            "ratio": f"{row['ratio']:.2f}" if row.get("ratio") is not None else "-",
            "lo": fmt(dev.get("min"), unit), "hi": fmt(dev.get("max"), unit), "n": str(dev.get("repeats", "-")),
            "mark": {True: "ok", False: "MISSED", None: ""}[row.get("target_met")]}


def table(results: list[dict[str, Any]]) -> str:
    """The human table: one line per scenario (or its skip reason)."""
    head = f"{'scenario':34} {'devagent':>11} {'baseline':>11} {'ratio':>6} {'devagent min-max':>21} {'n':>3}  target"
    lines = [head, "-" * len(head)]
    for row in results:
        label = row["title"][:34]
        if row.get("skipped"):
            lines.append(f"{label:34} skipped: {row['skipped']}")
            continue
        c = cells(row)
        target = f"{row.get('target', '')} {c['mark']}".strip()
        lines.append(f"{label:34} {c['dev']:>11} {c['base']:>11} {c['ratio']:>6} {c['lo'] + '-' + c['hi']:>21} "
                     f"{c['n']:>3}  {target}")
        if c["base_name"]:
            lines.append(f"{'':34}   baseline: {c['base_name']}")
        if row.get("notes"):
            lines.append(f"{'':34}   {row['notes']}")
    return "\n".join(lines)


def rss_mib(pid: int | None = None) -> float:
    """Resident set size of a process (this one by default), from /proc."""
    status = Path(f"/proc/{pid or os.getpid()}/status").read_text()
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def no_nagle() -> None:
    """Answer "instantly": without TCP_NODELAY the scripted server's small writes meet the client's delayed
    ACK and every request costs about 40 ms of idle waiting (measured: 51 ms vs 10 ms per request)."""
    from tests import ollama_server

    ollama_server._Handler.disable_nagle_algorithm = True


def isolate_env(base: Path, pipelines: bool = False) -> None:
    """Never read the developer's config or write into their state dir; fixed git identity. A scripted model's
    conversation is the general loop's: the pipelines (whose first question is the request's kind) stay off
    unless asked for."""
    config = base / "user-config.toml"
    config.write_text("" if pipelines else '[model]\npipelines = "off"\n')
    os.environ["DEVAGENT_CONFIG"] = str(config)
    os.environ["XDG_STATE_HOME"] = str(base / "state")
    os.environ["XDG_CONFIG_HOME"] = str(base / "config")
    os.environ.pop("OLLAMA_HOST", None)
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        os.environ[key] = GIT_ENV[key]


def small_repo(path: Path, files: dict[str, str]) -> Path:
    """A committed git repo holding ``files``."""
    path.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (path / name).write_text(text)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", *args], cwd=path, env=GIT_ENV, check=True, capture_output=True)
    return path


def markdown(results: list[dict[str, Any]]) -> str:
    """The results as a Markdown table (for docs/benchmarks.md and the README)."""
    lines = ["| Scenario | devagent | Baseline | Ratio | devagent min-max (n) | Target |", "|---|---|---|---|---|---|"]
    for row in results:
        if row.get("skipped"):
            lines.append(f"| {row['title']} | skipped: {row['skipped']} | | | | |")
            continue
        c = cells(row)
        base = f"{c['base']} ({c['base_name']})" if c["base_name"] else c["base"]
        lines.append(f"| {row['title']} | {c['dev']} | {base} | {c['ratio']} | {c['lo']}–{c['hi']} ({c['n']}) | "
                     f"{row.get('target', '')} {c['mark']} |")
    return "\n".join(lines)


@dataclass
class Outcome:
    """What one `devagent run` did: the events, the answer text, the exit code, the time, the raw output."""

    events: list[dict[str, Any]]
    answer: str
    rc: int | None
    seconds: float
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def tool_names(self) -> list[str]:
        return [e.get("name", "") for e in self.events if e.get("type") == "tool_call"]


def write_user_config(path: Path, max_steps: int = 8, **model: Any) -> Path:
    """Deterministic sampling and a bounded number of steps, kept outside the repo; ``model`` adds [model] keys."""
    extra = "".join(f"{key} = {json.dumps(value)}\n" for key, value in model.items())
    path.write_text(
        "[model]\ntemperature = 0.0\nseed = 42\n"
        f"max_steps = {max_steps}\ntotal_timeout = 600.0\nchunk_timeout = 180.0\n{extra}"
    )
    return path


def _killed_output(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """End the whole process group (the agent, its model child, its commands), then collect what it printed."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        try:
            return proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            continue
    return proc.communicate()


def run_agent(repo: Path, prompt: str, model_file: Path | None, *, config: Path, state: Path, timeout: float = 300.0,
              argv: list[str] | None = None, env: dict[str, str] | None = None,
              model_args: list[str] | None = None) -> Outcome:
    """`devagent run --yes --json --model-file ...` as a subprocess; the whole process group dies on timeout.

    ``argv`` is how devagent is started (default: this interpreter with the checkout on PYTHONPATH) and ``env``
    the environment it gets (default: this one), so a benchmark can run it the way a user's shell would;
    ``model_args`` replace ``--model-file`` (e.g. ``--backend ollama --host URL --model NAME``).
    """
    if env is None:
        env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env = {**env, "DEVAGENT_CONFIG": str(config), "XDG_STATE_HOME": str(state)}
    env.pop("OLLAMA_HOST", None)
    model = model_args if model_args is not None else ["--model-file", str(model_file)]
    cmd = [*(argv or [sys.executable, "-m", "tui"]), "run", "--yes", "--json", *model, prompt]
    started = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=repo, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        out, err = _killed_output(proc)
    seconds = time.monotonic() - started
    events = []
    for line in out.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    # The answer is what the turn ended with: text the model streamed along the way (tool calls it wrote as
    # JSON, "let me read the file") is not an answer, and a path inside a call must not pass a "where" check.
    answer = "\n".join(str(e.get("text", "")) for e in events if e.get("type") == "turn_done")
    return Outcome(events, answer, proc.returncode, seconds, out, err, timed_out)
