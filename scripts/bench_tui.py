#!/usr/bin/env python3
"""Benchmark the TUI against a bare Textual app measured in the same run.

  * first frame: a fresh process builds the real app (as `devagent` does, config and session factory
    included) and prints a marker on its first painted frame; the baseline is a bare App with one
    Static. Interleaved runs, median. Also records whether ollama / git / unidiff were imported
    before that frame (they must not be).
  * streaming: 2,000 tokens fed at 200 tokens/s into the agent pane (headless, animations off);
    each token's time from being sent to the frame that paints it (p95), event-loop lag p95 (a 10 ms
    ticker), the time from the last token to everything painted, and CPU use over the stream.
    Baselines, run alternately with it: a bare Textual app that shows the same tokens the plainest way
    (written to a Log as they come), a bare app given the same messages that shows none of them (the
    baseline issue 31 was filed against), and the least painting app (each token changes one Static
    line): its ratio to the app showing nothing is the floor for any app that paints every token.
  * idle memory: RSS of each app after it painted and idled for a second (fresh processes).

    python scripts/bench_tui.py [--quick] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_common import GIT_ENV, rss_mib, scenario, table, write_json  # noqa: E402

# The child prints FRAME <rss MiB> <heavy modules> when the app hands its first frame to the terminal driver (the
# same hook in both apps: what a person sees first), idles if asked, then exits.
CHILD = r"""
import os, sys, time
kind, repo, idle = sys.argv[1], sys.argv[2], float(sys.argv[3])
sys.path.insert(0, {root!r})
from textual.app import App
from textual.widgets import Static

def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0

class FirstFrame:
    _painted = False

    def _display(self, screen, update):
        super()._display(screen, update)
        if update is not None and not self._batch_count and not self._painted:  # what a terminal is sent
            self._painted = True
            heavy = ",".join(m for m in ("ollama", "git", "unidiff") if m in sys.modules) or "-"
            print("FRAME", round(rss(), 1), heavy, flush=True)
            self.set_timer(idle or 0.01, lambda: (print("IDLE", round(rss(), 1), flush=True), self.exit()))

if kind == "bare":
    class Bare(FirstFrame, App):
        def compose(self):
            yield Static("hello")
    Bare().run(headless=True)
else:
    from pathlib import Path
    from tui.app.launch import open_session
    from tui.config import load_config
    from tui.app.app import DevagentApp
    repo = Path(repo)
    class Timed(FirstFrame, DevagentApp):
        pass
    Timed(repo, load_config(repo), session_factory=open_session,
          session_options={{"host": "http://127.0.0.1:9"}}).run(headless=True)
"""


def make_repo(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    for args in (["init", "-q", "-b", "main"], ["config", "commit.gpgsign", "false"]):
        subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, check=True)
    (repo / "app.py").write_text("def add(a, b):\n    return a + b\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, env=GIT_ENV, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "init"], cwd=repo, env=GIT_ENV, check=True)
    (repo / "app.py").write_text("def add(a, b):\n    return a + b + 0\n")
    return repo


def child_env(tmp: Path) -> dict[str, str]:
    env = {**GIT_ENV, "TEXTUAL_ANIMATIONS": "none", "DEVAGENT_CONFIG": str(tmp / "none.toml"),
           "XDG_STATE_HOME": str(tmp / "state"), "XDG_CONFIG_HOME": str(tmp / "config")}
    env.pop("OLLAMA_HOST", None)
    # Installed code has bytecode (pip writes it, and Python does on first import); a PYTHONDONTWRITEBYTECODE
    # left in the environment would make every timed child recompile devagent's modules (not textual's).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_child(kind: str, repo: Path, tmp: Path, idle: float = 0.0) -> dict[str, Any]:
    """Wall time from spawn to the first-frame marker, RSS then and after ``idle`` seconds."""
    code = CHILD.format(root=str(ROOT))
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code, kind, str(repo), str(idle)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True, env=child_env(tmp))
    assert proc.stdout is not None
    result: dict[str, Any] = {}
    try:
        for line in proc.stdout:
            parts = line.split()
            if parts and parts[0] == "FRAME":
                result.update(frame=time.perf_counter() - start, rss=float(parts[1]), heavy=parts[2])
            elif parts and parts[0] == "IDLE":
                result["idle_rss"] = float(parts[1])
                break
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if "frame" not in result:
        raise RuntimeError(f"{kind} app never painted a frame")
    return result


def first_frame(repo: Path, tmp: Path, runs: int) -> list[dict[str, Any]]:
    run_child("devagent", repo, tmp)  # warm the disk cache and .pyc files
    run_child("bare", repo, tmp)
    dev, base, heavy = [], [], set()
    for _ in range(runs):
        d = run_child("devagent", repo, tmp)
        b = run_child("bare", repo, tmp)
        dev.append(d["frame"])
        base.append(b["frame"])
        heavy.add(d["heavy"])
    note = "heavy modules before the first frame: " + ", ".join(sorted(heavy))
    return [scenario("tui_first_frame", f"First frame: devagent vs bare app (median of {runs})", dev, base,
                     baseline_name="bare Textual App with one Static", target="ratio <= 1.2 (issue 31)",
                     target_ok=lambda row: row["ratio"] <= 1.2, notes=note,
                     extra={"heavy_before_first_frame": sorted(heavy)})]


def idle_memory(repo: Path, tmp: Path, runs: int) -> list[dict[str, Any]]:
    dev = [run_child("devagent", repo, tmp, idle=1.0)["idle_rss"] for _ in range(runs)]
    base = [run_child("bare", repo, tmp, idle=1.0)["idle_rss"] for _ in range(runs)]
    return [scenario("tui_idle_rss", "Idle memory (RSS after 1 s)", dev, base, unit="MiB",
                     baseline_name="bare Textual App with one Static")]


async def _stream(app: Any, feed: Any, tokens: int, rate: float, size: tuple[int, int],
                  shown: Any = None) -> dict[str, float]:
    """Feed ``tokens`` at ``rate`` per second with ``feed(i)``; measure loop lag, paint latency, backlog and CPU.

    Paint latency: each token's send time to the first frame the compositor hands to the driver after
    ``shown(app)`` (how many tokens the app has handed to its widgets) counts it. The backlog is the time
    from the last token's send to the moment the app has painted everything (not a fixed settle).
    """
    lags: list[float] = []
    sent_at: list[float] = []
    paint: list[float] = []
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.2)
        stop = False
        if shown is not None:
            display = app._display

            def timed_display(screen: Any, update: Any) -> None:
                display(screen, update)
                if update is None:
                    return
                now = time.perf_counter()
                count = min(shown(app), len(sent_at))
                while len(paint) < count:
                    paint.append(now - sent_at[len(paint)])

            app._display = timed_display

        async def ticker() -> None:
            loop = asyncio.get_running_loop()
            while not stop:
                expected = loop.time() + 0.01
                await asyncio.sleep(0.01)
                lags.append(max(0.0, loop.time() - expected))

        tick = asyncio.create_task(ticker())
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        start = time.perf_counter()
        for i in range(tokens):
            target = start + i / rate
            delay = target - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            sent_at.append(time.perf_counter())
            feed(i)
        sent = sent_at[-1]
        end = await app_drained(app, pilot, shown, tokens)
        if shown is not None:  # shown tokens that changed nothing on screen are painted once the app says so
            while len(paint) < min(shown(app), len(sent_at)):
                paint.append(end - sent_at[len(paint)])
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        stop = True
        await tick
        await pilot.pause(0.05)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    lags.sort()
    paint.sort()
    return {"lag_p95": lags[int(len(lags) * 0.95)] if lags else 0.0,
            "paint_p95": paint[int(len(paint) * 0.95)] if len(paint) == tokens else float("inf"),
            "backlog": end - sent, "cpu": cpu / (end - start)}


async def app_drained(app: Any, pilot: Any, shown: Any = None, tokens: int = 0) -> float:
    """When the app has painted every token it received (inf after 30 s): the agent pane says so itself; an app
    that shows tokens otherwise has handed them all to its widgets and painted a frame since."""
    pane = getattr(app, "agent_pane", None)
    deadline = time.perf_counter() + 30
    # The last token's message may not be handled yet: until it is, "nothing unpainted" says nothing.
    while pane is not None and (pane.tokens_received < tokens or pane.streaming):
        if time.perf_counter() > deadline:
            return float("inf")
        await asyncio.sleep(0.002)
    if pane is None and shown is not None:
        while shown(app) < tokens:
            if time.perf_counter() > deadline:
                return float("inf")
            await asyncio.sleep(0.002)
        await pilot.pause()  # a refresh cycle: the frame that paints the last tokens
    return time.perf_counter()


def model_like_tokens() -> list[str]:
    """Tokens shaped like a coder model's answer: prose paragraphs, inline code, a list, a code block."""
    prose = ("I read `app.py` and the tests . The function adds two numbers but does not check the types , "
             "so a string and an int raise a **TypeError** deep inside . Here is the change I propose :").split()
    tokens = [w + " " for w in prose] + ["\n\n"]
    tokens += ["- ", "keep ", "the ", "signature\n", "- ", "add ", "a ", "test\n\n"]
    tokens += ["```python\n", "def ", "add(a, ", "b):\n", "    return ", "a + ", "b\n", "```\n\n"]
    return tokens


class _Baselines:
    """The two bare Textual apps the stream is compared with, built on first use (Textual imported late)."""

    def __init__(self) -> None:
        from textual.app import App, ComposeResult
        from textual.widgets import Log, Static

        from tui.app.messages import EngineEvent

        class Shown(App[None]):
            """The same tokens shown the plainest way Textual offers: each written to a Log as it comes, painted
            at Textual's own frame rate. The baseline of the CPU target (issue 31)."""

            written = 0

            def compose(self) -> ComposeResult:
                yield Log()

            def on_engine_event(self, message: EngineEvent) -> None:
                self.query_one(Log).write(message.event.text)
                self.written += 1

        class Least(App[None]):
            """The least painting Textual offers: each token changes one line (a Static showing the last 80
            characters). What any app that paints every token within a frame costs at the least."""

            written = 0
            tail = ""

            def compose(self) -> ComposeResult:
                yield Static("hello")

            def on_engine_event(self, message: EngineEvent) -> None:
                self.tail = (self.tail + message.event.text).replace("\n", " ")[-80:]
                self.query_one(Static).update(self.tail)
                self.written += 1

        class Idle(App[None]):
            """Receives the same messages and shows none of them: what an app costs that paints nothing."""

            def compose(self) -> ComposeResult:
                yield Static("hello")

        self.shown, self.least, self.idle = Shown, Least, Idle


def streaming(repo: Path, tokens: int, rate: float, runs: int) -> list[dict[str, Any]]:
    from tui.app.app import DevagentApp
    from tui.app.messages import EngineEvent
    from tui.protocol.events import TextDelta

    words = model_like_tokens()
    apps = _Baselines()

    def fed(app: Any) -> Any:
        return lambda i: app.post_message(EngineEvent(TextDelta(words[i % len(words)])))

    keys = ("lag", "paint", "backlog", "cpu", "log_lag", "log_paint", "log_cpu", "idle_lag", "idle_cpu", "least_cpu")
    got: dict[str, list[float]] = {k: [] for k in keys}
    for _ in range(runs):  # the three apps alternately, so background load hits each alike
        app = DevagentApp(repo, git_refresh=False)
        app.agent_pane = None  # type: ignore[attr-defined]

        def feed_dev(i: int, app: Any = app) -> None:
            if app.agent_pane is None:
                from tui.app.widgets.agent_pane import AgentPane

                app.agent_pane = app.query_one(AgentPane)
            app.post_message(EngineEvent(TextDelta(words[i % len(words)])))

        result = asyncio.run(_stream(app, feed_dev, tokens, rate, (160, 48),
                                     shown=lambda app: app.agent_pane.tokens_shown if app.agent_pane else 0))
        for key, value in (("lag", "lag_p95"), ("paint", "paint_p95"), ("backlog", "backlog"), ("cpu", "cpu")):
            got[key].append(result[value])
        shown = apps.shown()
        result = asyncio.run(_stream(shown, fed(shown), tokens, rate, (160, 48), shown=lambda app: app.written))
        got["log_lag"].append(result["lag_p95"])
        got["log_paint"].append(result["paint_p95"])
        got["log_cpu"].append(result["cpu"])
        idle = apps.idle()
        result = asyncio.run(_stream(idle, fed(idle), tokens, rate, (160, 48)))
        got["idle_lag"].append(result["lag_p95"])
        got["idle_cpu"].append(result["cpu"])
        least = apps.least()
        result = asyncio.run(_stream(least, fed(least), tokens, rate, (160, 48), shown=lambda app: app.written))
        got["least_cpu"].append(result["cpu"])
    shown_name = "bare Textual app showing the same tokens in a Log"
    idle_name = "bare Textual app given the same messages, showing none"
    return [
        scenario("tui_stream_paint_p95", f"Streaming {tokens} tok at {rate:.0f}/s: token sent to painted, p95",
                 got["paint"], got["log_paint"], baseline_name=shown_name, target="p95 <= 33 ms (issue 31)",
                 target_ok=lambda row: row["devagent"]["median"] <= 0.033),
        scenario("tui_stream_lag_p95", f"Streaming {tokens} tok at {rate:.0f}/s: loop lag p95", got["lag"],
                 got["log_lag"], baseline_name=shown_name),
        scenario("tui_stream_backlog", "Streaming: last token sent to painted", got["backlog"], None,
                 target="<= 1 frame (33 ms)", target_ok=lambda row: row["devagent"]["median"] <= 0.034),
        scenario("tui_stream_cpu", "Streaming: CPU (fraction of a core)", got["cpu"], got["log_cpu"], unit="",
                 baseline_name=shown_name, target="ratio <= 2 (issue 31)", target_ok=lambda row: row["ratio"] <= 2),
        scenario("tui_stream_cpu_idle", "Streaming: CPU vs an app showing nothing", got["cpu"], got["idle_cpu"],
                 unit="", baseline_name=idle_name, target="ratio <= 2 (issue 31 as filed)",
                 target_ok=lambda row: row["ratio"] <= 2,
                 notes="the baseline receives the tokens but paints none of them; see the floor row"),
        scenario("tui_stream_cpu_floor", "Streaming: CPU of the least painting app vs one showing nothing",
                 got["least_cpu"], got["idle_cpu"], unit="", baseline_name=idle_name,
                 notes="a bare app that paints each token in one Static line: the least any Textual app that "
                       "paints every token within a frame costs; its ratio bounds the row above"),
        scenario("tui_stream_lag_idle", "Streaming: loop lag vs an app showing nothing", got["lag"],
                 got["idle_lag"], baseline_name=idle_name, notes="for scale, no target"),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="few runs and 400 tokens (CI smoke)")
    parser.add_argument("--json", type=Path, help="write the result rows here")
    args = parser.parse_args(argv)
    runs = 11  # first frames: the median of at least 11 starts, quick or not (issue 31)
    tokens = 400 if args.quick else 2000
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        repo = make_repo(tmp)
        os.environ.update({k: v for k, v in child_env(tmp).items() if k.startswith(("DEVAGENT", "XDG"))})
        results += first_frame(repo, tmp, runs)
        results += streaming(repo, tokens, 200.0, 1 if args.quick else 3)
        results += idle_memory(repo, tmp, 2 if args.quick else 5)
    print(table(results))
    print(f"(this process peak RSS {rss_mib():.0f} MiB; medians of interleaved runs)")
    if args.json:
        write_json(args.json, results, quick=args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
