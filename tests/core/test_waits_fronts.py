"""Every wait is visible without the app too: `devagent run` on a terminal (one stderr line redrawn every second,
erased before the answer), with stderr in a file (a line when a wait begins, then one every 10 s), as JSON lines,
and in an editor over ACP (a thought when a wait begins or moves). The scripted server's first chunk comes late, as
a CPU's does after reading a long prompt."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from tests.core.acp_client import ScriptedClient, acp_agent, prompt
from tests.ollama_server import Reply, ScriptedOllama
from tui.headless import TextPrinter
from tui.protocol import events as ev

ROOT = Path(__file__).resolve().parents[2]


def _env(url: str) -> dict[str, str]:
    return {**os.environ, "OLLAMA_HOST": url, "PYTHONPATH": str(ROOT), "TERM": "xterm"}


def test_on_a_terminal_the_wait_is_one_line_that_counts_the_seconds_then_is_erased(
        repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(text="It adds two numbers.", first_delay=3.5))
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "tui", "run", "what does add do?"], cwd=repo, env=_env(
        ollama_server.url), stdin=subprocess.DEVNULL, stdout=follower, stderr=follower)
    os.close(follower)
    seen = b""
    end = time.monotonic() + 60
    while time.monotonic() < end:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    proc.wait(timeout=10)
    os.close(leader)
    text = seen.decode("utf-8", "replace")
    assert proc.returncode == 0, text
    draws = [part for part in text.split("\r\x1b[K") if "reading the prompt" in part]
    assert draws and all(d.endswith("ctrl+c cancels") for d in draws), draws
    seconds = [d.split(" · ")[1] for d in draws]
    assert {"1 s", "2 s", "3 s"} <= set(seconds), seconds  # redrawn every second without a new event
    answer = text.index("It adds two numbers.")
    assert text.rfind("\r\x1b[K", 0, answer) > text.rfind("reading the prompt", 0, answer), \
        "the wait line is erased before the answer is printed"


def test_elsewhere_a_wait_is_a_line_when_it_begins_and_one_every_ten_seconds() -> None:
    """TextPrinter with stderr in a file (not a terminal): each line names the stage and the seconds; the
    engine's repeats in between print nothing (a log is not flooded)."""
    now = [0.0]
    out, err = io.StringIO(), io.StringIO()
    printer = TextPrinter(out, err, clock=lambda: now[0])
    for at, event in [(0.0, ev.Progress("reading", detail="about 2,073 tokens")),
                      (5.0, ev.Progress("reading", detail="about 2,073 tokens", elapsed=5.0)),
                      (10.0, ev.Progress("reading", detail="about 2,073 tokens", elapsed=10.0)),
                      (12.0, ev.Progress("writing", done=1)), (12.1, ev.TextDelta("The ")),
                      (13.5, ev.Progress("writing", done=30, elapsed=1.5)), (13.6, ev.TextDelta("answer.")),
                      (14.0, ev.TextDone("The answer.")), (14.0, ev.TurnDone(reason="complete"))]:
        now[0] = at
        printer(event)
    assert err.getvalue().splitlines() == ["… reading the prompt (about 2,073 tokens) · 0 s",
                                           "… reading the prompt (about 2,073 tokens) · 10 s"]
    assert out.getvalue() == "The answer.\n", "no wait line inside the streamed answer"


def test_json_lines_carry_each_wait(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(text="It adds.", first_delay=6.0))
    out = subprocess.run([sys.executable, "-m", "tui", "run", "--json", "what does add do?"], cwd=repo,
                         env=_env(ollama_server.url), capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    events = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    waits = [e for e in events if e["type"] == "progress"]
    reading = [e for e in waits if e["stage"] == "reading"]
    assert reading[0]["elapsed"] < 1 and reading[0]["detail"].startswith("about ")
    assert any(e["elapsed"] >= 5 for e in reading), "the engine repeats a wait that does not move"
    first_text = next(i for i, e in enumerate(events) if e["type"] == "text")
    writing = next(i for i, e in enumerate(events) if e.get("stage") == "writing")
    assert events.index(reading[0]) < writing <= first_text, "reading the prompt, then writing the first text"


async def test_an_editor_sees_the_wait_as_a_thought(repo: Path, ollama_server: ScriptedOllama) -> None:
    client = ScriptedClient()
    ollama_server.push(Reply(chunks=["It ", "adds."], first_delay=3.0))
    async with acp_agent(repo, ollama_server.url, client) as (conn, _proc, sid):
        assert await prompt(conn, sid, "what does add do?") == "end_turn"
    thoughts = [u.content.text for u in client.of("agent_thought_chunk")]
    reading = [t for t in thoughts if "reading the prompt (about" in t]
    assert reading and reading[0].endswith("· 0 s · cancel stops it\n"), thoughts
    assert client.text().startswith("It adds.")
