#!/usr/bin/env python3
"""Fault soak: many agent turns with injected faults, sandboxed nasty processes, and kill -9 of devagent.

1. Turns: the real engine (Session) against the scripted Ollama server, every turn with a random fault
   (reset mid-stream, HTTP 500, a stall longer than the chunk deadline, malformed / unknown / 1 MB tool
   calls, huge replies, repeats). Counts exceptions escaping run_turn (crashes) and turns that never end
   (an asyncio.wait_for guard), and checks through a second, read-only SQLite connection that every event
   of every turn is in the session store.
2. Commands: a corpus of processes that never exit, ignore SIGTERM, double-fork into a new session (also
   with an empty environment), flood output or fork many children, through Sandbox.run with small limits.
   Afterwards no process whose command line carries this run's marker may be alive; RSS start/end.
3. Kill -9: ``python -m tui run --json --yes`` killed mid-turn, right after an edit's decision line, right
   after its checkpoint line, and during ``sleep``: ``--resume`` must continue the same session, the
   working tree must be untouched or exactly the approved change, and a checkpoint must exist whenever
   the change (or the command) started.

    python scripts/soak.py [--turns 1000] [--commands 500] [--minutes N] [--seed N] [--skip-kill]

Prints a summary; exits 1 on any violation.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import GIT_ENV, ROOT, isolate_env, no_nagle, rss_mib, small_repo  # noqa: E402

APP_PY = "def add(a, b):\n    return a + b\n"
EDITED_PY = "def add(a, b):\n    return b + a\n"
TURN_GUARD = 30.0  # seconds: a turn that takes longer "never ends"


@dataclass
class Report:
    violations: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    def fail(self, text: str) -> None:
        self.violations.append(text)
        print(f"VIOLATION: {text}", file=sys.stderr, flush=True)


def make_repo(path: Path) -> Path:
    return small_repo(path, {"app.py": APP_PY, "README.md": "# soak\n", "notes.txt": "notes\n"})


def soak_config(repo: Path) -> Any:
    from tui.config import load_config

    config = load_config(repo)
    config.model.connect_timeout = 1.0
    config.model.chunk_timeout = 0.3
    config.model.total_timeout = 10.0
    config.model.retries = 1
    config.model.max_steps = 6
    config.limits.command_timeout = 2.0
    config.limits.idle_timeout = 1.0
    config.limits.grace = 0.2
    return config


# -- 1. turns with faults -------------------------------------------------------------------------------------


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def fault_menu(rnd: random.Random) -> dict[str, Callable[[], list[Any]]]:
    """Fault name -> the replies for one turn (one per /api/chat request; later requests get a plain answer)."""
    from tests.ollama_server import Reply

    big = "x" * 1_000_000
    return {
        "plain": lambda: [Reply("A plain answer with several words in it.")],
        "read_tool": lambda: [Reply(tool_calls=[call("read_file", path="app.py")]), Reply("It adds.")],
        "reset": lambda: [Reply("partial answer that breaks", fault="reset", fault_after=rnd.randint(0, 3)),
                          Reply("Recovered after a reset.")],
        "reset_twice": lambda: [Reply("a b c", fault="reset", fault_after=1), Reply("d e", fault="reset")],
        "http500": lambda: [Reply(fault="http500"), Reply("Recovered after a 500.")],
        "stall": lambda: [Reply("slow start then", fault="stall", fault_after=rnd.randint(0, 2), stall=0.6),
                          Reply("Recovered after a stall.")],
        "malformed_call": lambda: [Reply('```json\n{"name": "read_file", "arguments": {"path": \n```'),
                                   Reply('{"name": "answer", "arguments": {"text": "fine"}}')],
        "unknown_tool": lambda: [Reply(tool_calls=[call("frobnicate", level=11)]), Reply("Sorry.")],
        "unknown_text_tool": lambda: [Reply('{"name": "launch_rockets", "arguments": {}}'), Reply("ok")],
        "oversized_args": lambda: [Reply(tool_calls=[call("read_file", path=big)]), Reply("That path was odd.")],
        "oversized_write": lambda: [Reply(tool_calls=[call("write_file", path="big.txt", content=big)]),
                                    Reply("Wrote or not.")],
        "oversized_text": lambda: [Reply(chunks=[big[i:i + 65536] for i in range(0, len(big), 65536)])],
        "edit": lambda: [Reply(tool_calls=[call("edit_file", path="notes.txt", old="notes",
                                                new=f"notes {rnd.randint(0, 10**6)}")]), Reply("Edited.")],
        "command": lambda: [Reply(tool_calls=[call("run_command", command="echo soak && ls")]), Reply("Ran.")],
        "repeat": lambda: [Reply(tool_calls=[call("read_file", path="README.md")])] * 4 + [Reply("Done.")],
        "noise": lambda: [Reply("".join(rnd.choice(['{', '}', '"name"', ':', '```', '\n', 'read_file', ' ', '[',
                                                     '\x1b[31m', '\u202e', 'arguments']) for _ in range(200)))],
        "bad_arg_types": lambda: [Reply(tool_calls=[call("read_file", path=["a", 1], start="x")]), Reply("ok")],
        "escape_path": lambda: [Reply(tool_calls=[call("read_file", path="../../etc/passwd")]), Reply("no")],
    }


class RandomApprover:
    """Approves about half of what it is asked, with a reason otherwise (seeded, so runs repeat)."""

    def __init__(self, rnd: random.Random) -> None:
        self.rnd = rnd

    async def decide(self, proposal: Any) -> Any:
        from tui.protocol.proposals import Decision

        if self.rnd.random() < 0.5:
            return Decision("approve")
        return Decision("reject", reason="soak says no")


class TurnScript:
    """The server's reply source: the current turn's replies in order, then a plain answer."""

    def __init__(self) -> None:
        self.replies: list[Any] = []

    def __call__(self, body: dict[str, Any]) -> Any:
        from tests.ollama_server import Reply

        return self.replies.pop(0) if self.replies else Reply("Plain answer.")


class StoreReader:
    """A second, read-only connection: what a crash would leave on disk is what we check."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)

    def events_after(self, session_id: str, seq: int) -> list[tuple[int, str, dict[str, Any]]]:
        rows = self.db.execute("SELECT seq, type, data FROM events WHERE session_id = ? AND seq > ? ORDER BY seq",
                               (session_id, seq)).fetchall()
        return [(s, t, json.loads(d)) for s, t, d in rows]

    def last_seq(self, session_id: str) -> int:
        row = self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE session_id = ?", (session_id,)).fetchone()
        return int(row[0])

    def check(self) -> str:
        return str(self.db.execute("PRAGMA quick_check").fetchone()[0])


class Hung(Exception):
    """A turn outlived the guard; the message is where it was waiting."""


async def guarded(coro: Any) -> Any:
    """Await with the TURN_GUARD; on a hang, record the task's stack before cancelling it."""
    task = asyncio.ensure_future(coro)
    finished, _ = await asyncio.wait({task}, timeout=TURN_GUARD)
    if finished:
        return task.result()
    where = "\n".join(await_chain(task.get_coro()))
    task.cancel()
    await asyncio.wait({task}, timeout=5)
    raise Hung(where)


def await_chain(coro: Any) -> list[str]:
    """file:line of every coroutine in the chain the task is suspended in, outermost first."""
    out = []
    while coro is not None:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "ag_frame", None) or getattr(coro, "gi_frame", None)
        if frame is not None:
            out.append(f"  {frame.f_code.co_filename}:{frame.f_lineno} {frame.f_code.co_name}")
        coro = getattr(coro, "cr_await", None) or getattr(coro, "ag_await", None) or getattr(coro, "gi_yieldfrom", None)
    return out


async def soak_turns(turns: int, seed: int, deadline: float, report: Report, workdir: Path,
                     faults: set[str] | None = None) -> None:
    from tests.ollama_server import ScriptedOllama
    from tui.engine.session import Session

    rnd = random.Random(seed)
    menu = fault_menu(rnd)
    names = sorted(n for n in menu if not faults or n in faults)
    repo = make_repo(workdir / "turns-repo")
    config = soak_config(repo)
    script = TurnScript()
    counts: dict[str, int] = {}
    reasons: dict[str, int] = {}
    crashes = hangs = missing = 0
    session: Any = None
    reader: StoreReader | None = None
    emitted: list[Any] = []
    started = time.monotonic()
    done_turns = 0
    durations: list[float] = []
    with ScriptedOllama() as server:
        server.default_reply = script  # type: ignore[assignment] - a callable reply source
        try:
            for turn in range(turns):
                if time.monotonic() > deadline:
                    break
                if turn % 25 == 0:
                    resume = session.session_id if session is not None and rnd.random() < 0.5 else None
                    if session is not None:
                        await session.close()
                    session = await Session.open(repo, config, approver=RandomApprover(rnd), emit=emitted.append,
                                                 host=server.url, resume=resume)
                    reader = reader or StoreReader(session.store.path)
                assert reader is not None
                fault = rnd.choice(names)
                counts[fault] = counts.get(fault, 0) + 1
                script.replies = menu[fault]()
                emitted.clear()
                before = reader.last_seq(session.session_id)
                turn_started = time.monotonic()
                try:
                    done = await guarded(session.run_turn(f"turn {turn}: {fault}"))
                    reasons[done.reason] = reasons.get(done.reason, 0) + 1
                except Hung as hung:
                    hangs += 1
                    report.fail(f"turn {turn} ({fault}) did not end within {TURN_GUARD:.0f}s; it waited in:\n{hung}")
                except Exception as exc:  # noqa: BLE001 - this is what we count
                    crashes += 1
                    report.fail(f"turn {turn} ({fault}) crashed: {type(exc).__name__}: {exc}\n"
                                + "".join(traceback.format_exception(exc)[-3:]))
                done_turns += 1
                durations.append(time.monotonic() - turn_started)
                stored = [t for _s, t, _d in reader.events_after(session.session_id, before)]
                shown = [e.type for e in emitted if not (e.type == "error" and "could not record" in
                                                         getattr(e, "message", ""))]
                if stored != shown:
                    missing += 1
                    report.fail(f"turn {turn} ({fault}): store has {len(stored)} events, {len(shown)} were emitted")
                if turn % 50 == 49:
                    if reader.check() != "ok":
                        report.fail(f"store integrity check failed after turn {turn}")
                    print(f"  {turn + 1} turns, {crashes} crashes, {hangs} hangs, last turn {durations[-1]:.2f}s",
                          file=sys.stderr, flush=True)
        finally:
            if session is not None:
                await session.close()
    report.facts["turns"] = {"run": done_turns, "crashes": crashes, "hangs": hangs, "unrecorded_turns": missing,
                             "seconds": round(time.monotonic() - started, 1), "faults": counts, "outcomes": reasons,
                             "turn_seconds": _spread(durations)}


def _spread(durations: list[float]) -> dict[str, float]:
    """Turn times overall and for the first and last 50 turns (a growing gap means cost grows with history)."""
    if not durations:
        return {}
    ordered = sorted(durations)
    return {"median": round(statistics.median(durations), 3), "p95": round(ordered[int(len(ordered) * 0.95)], 3),
            "max": round(ordered[-1], 3), "first_50_median": round(statistics.median(durations[:50]), 3),
            "last_50_median": round(statistics.median(durations[-50:]), 3)}


# -- 2. sandboxed process corpus ------------------------------------------------------------------------------

DOUBLE_FORK = ("import os,signal,time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
               "if os.fork()==0:\n    os.setsid()\n    if os.fork()==0:\n        time.sleep(1000)\n    os._exit(0)\n"
               "os.wait()\n")
FORK_MANY = ("import os,time\nfor i in range(40):\n    if os.fork()==0:\n        time.sleep(1000)\n        os._exit(0)\n"
             "time.sleep(1000)\n")
IGNORE_TERM = "import signal,time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(1000)\n"
SILENT_LINGER = "import os,time\nos.close(1)\nos.close(2)\ntime.sleep(1000)\n"
FLOOD = "import sys\nline='y'*1000+'\\n'\nwhile True:\n    sys.stdout.write(line)\n"


def corpus(mark: str) -> list[tuple[str, list[str] | str]]:
    """(name, command) pairs; every process they start carries ``mark`` in its command line."""
    py = "python3"
    return [
        ("echo", f"echo {mark}"),
        ("exit-3", ["sh", "-c", "exit 3", mark]),
        ("never-exits", ["bash", "-c", f"exec -a {mark} sleep 1000"]),
        ("ignores-sigterm", [py, "-c", IGNORE_TERM, mark]),
        ("setsid-double-fork", [py, "-c", DOUBLE_FORK, mark]),
        ("double-fork-empty-env", ["env", "-i", py, "-c", DOUBLE_FORK, mark]),
        ("output-flood", [py, "-c", FLOOD, mark]),
        ("yes-flood", ["yes", mark]),
        ("fork-many", [py, "-c", FORK_MANY, mark]),
        ("closes-output-and-lingers", [py, "-c", SILENT_LINGER, mark]),
        ("background-sleep", ["bash", "-c", f"(exec -a {mark} sleep 1000) & echo started", mark]),
    ]


def marked_pids(mark: str) -> list[int]:
    needle = mark.encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                if needle in fh.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def _cmdline(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    return " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)[:60].replace("\n", "⏎")


async def soak_commands(commands: int, seed: int, deadline: float, report: Report, workdir: Path,
                        mode: str = "auto", parallel: int = 3) -> None:
    from tui.sandbox.runner import Sandbox

    rnd = random.Random(seed + 1)
    repo = make_repo(workdir / f"cmd-repo-{mode}")
    config = soak_config(repo)
    config.sandbox.mode = mode
    config.limits.command_timeout = 0.8
    config.limits.idle_timeout = 0.5
    sandbox = Sandbox(repo, config)
    mark = "devagent-soak-" + secrets.token_hex(6)
    items = corpus(mark)
    kinds: dict[str, dict[str, int]] = {}
    rss: list[float] = []
    started = time.monotonic()
    sem = asyncio.Semaphore(parallel)
    ran = 0
    errors = 0

    async def one(name: str, cmd: list[str] | str) -> None:
        nonlocal ran, errors
        async with sem:
            if time.monotonic() > deadline:
                return
            try:
                result = await asyncio.wait_for(sandbox.run(cmd), 20)
                why = result.killed or f"exit {result.exit_code}"
            except Exception as exc:  # noqa: BLE001 - counted and reported
                errors += 1
                why = f"error {type(exc).__name__}"
                report.fail(f"command {name} raised {type(exc).__name__}: {exc}")
            ran += 1
            kinds.setdefault(name, {})[why] = kinds.setdefault(name, {}).get(why, 0) + 1
            if ran % 50 == 0:
                rss.append(rss_mib())

    rss.append(rss_mib())
    batch = 50
    for start in range(0, commands, batch):
        await asyncio.gather(*(one(*rnd.choice(items)) for _ in range(min(batch, commands - start))))
        await asyncio.sleep(0.3)
        left = marked_pids(mark)
        if left:
            report.fail(f"[{mode}] {len(left)} marked processes left behind after {ran} commands: "
                        + "; ".join(sorted({_cmdline(pid) for pid in left})))
            for pid in left:
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass
        if time.monotonic() > deadline:
            break
    rss.append(rss_mib())
    growth = rss[-1] - rss[min(1, len(rss) - 1)]
    if growth > 64:
        report.fail(f"[{mode}] devagent RSS grew by {growth:.0f} MiB over {ran} commands")
    report.facts[f"commands_{mode}"] = {
        "run": ran, "errors": errors, "sandbox": sandbox.info.kind, "left_behind": len(marked_pids(mark)),
        "rss_start_mib": round(rss[0], 1), "rss_end_mib": round(rss[-1], 1), "rss_max_mib": round(max(rss), 1),
        "seconds": round(time.monotonic() - started, 1), "outcomes": kinds}


# -- 3. kill -9 of devagent -----------------------------------------------------------------------------------


def _git_out(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, capture_output=True, text=True).stdout


def _launch(repo: Path, url: str, prompt: str, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "tui", "run", "--json", "--yes", "--host", url, *extra, prompt],
                            cwd=repo, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _read_until(proc: subprocess.Popen[str], when: Callable[[dict[str, Any]], bool], timeout: float,
                seen: list[dict[str, Any]]) -> bool:
    """Read JSON event lines until ``when`` holds (True) or the process ends / time runs out (False)."""
    import selectors

    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    end = time.monotonic() + timeout
    try:
        while time.monotonic() < end:
            if not sel.select(timeout=max(0.0, end - time.monotonic())):
                continue
            line = proc.stdout.readline()
            if not line:
                return False
            try:
                event = json.loads(line)
            except ValueError:
                continue
            seen.append(event)
            if when(event):
                return True
        return False
    finally:
        sel.close()


def _kill9(proc: subprocess.Popen[str]) -> None:
    proc.kill()
    proc.wait(timeout=10)
    for stream in (proc.stdout, proc.stderr):
        if stream:
            stream.close()


@dataclass
class KillCase:
    name: str
    replies: list[dict[str, Any]]  # Reply dicts for the killed run
    kill_when: Callable[[dict[str, Any]], bool]
    change: str | None  # the approved content of app.py, None when the case approves no edit
    needs_checkpoint: Callable[[list[dict[str, Any]]], bool]  # from the events seen before the kill
    leftover: str = ""  # a command-line marker that must not outlive the kill


def kill_cases() -> list[KillCase]:
    edit = [{"tool_calls": [call("edit_file", path="app.py", old="return a + b", new="return b + a")]},
            {"text": "Swapped."}]
    started = lambda events: any(e.get("type") in ("checkpoint", "command_started") for e in events)  # noqa: E731
    return [
        KillCase("mid-turn", [{"chunks": [f"word{i} " for i in range(40)], "delay": 0.1}],
                 lambda e: e.get("type") == "text", None, lambda _e: False),
        KillCase("after-edit-decision", edit, lambda e: e.get("type") == "decision", EDITED_PY, started),
        KillCase("after-edit-checkpoint", edit, lambda e: e.get("type") == "checkpoint", EDITED_PY, started),
        KillCase("during-command", [{"tool_calls": [call("run_command", command="sleep 31.4159")]}, {"text": "ok"}],
                 lambda e: e.get("type") == "command_started", None, started, leftover="31.4159"),
    ]


def soak_kill(report: Report, workdir: Path, names: set[str] | None = None) -> None:
    from tests.ollama_server import Reply, ScriptedOllama

    results: dict[str, Any] = {}
    for case in kill_cases():
        if names and case.name not in names:
            continue
        repo = make_repo(workdir / f"kill-{case.name}")
        outcome: dict[str, Any] = {}
        with ScriptedOllama() as server:
            server.push(*(Reply.from_dict(r) for r in case.replies))
            proc = _launch(repo, server.url, "please work")
            seen: list[dict[str, Any]] = []
            hit = _read_until(proc, case.kill_when, 60, seen)
            _kill9(proc)
            if not hit:
                report.fail(f"kill -9 {case.name}: the moment to kill never came (saw {[e.get('type') for e in seen]})")
                continue
            sid = next((e.get("session_id") for e in seen if e.get("type") == "session"), None)
            time.sleep(0.3)
            if case.leftover and marked_pids(case.leftover):
                report.fail(f"kill -9 {case.name}: the command outlived devagent")
            app = (repo / "app.py").read_text()
            status = _git_out(repo, "status", "--porcelain").splitlines()
            allowed = {APP_PY} | ({case.change} if case.change else set())
            if app not in allowed or any(line[3:] != "app.py" for line in status):
                report.fail(f"kill -9 {case.name}: working tree is neither untouched nor the approved change: "
                            f"{status}")
            refs = _git_out(repo, "for-each-ref", "refs/devagent").splitlines()
            if case.needs_checkpoint(seen) and not refs:
                report.fail(f"kill -9 {case.name}: the change started but no checkpoint ref exists")
            if app != APP_PY and not refs:
                report.fail(f"kill -9 {case.name}: app.py changed without a checkpoint")
            server.push(Reply("Resumed fine."))
            resumed = _launch(repo, server.url, "continue", "--resume", "latest")
            try:
                out, err = resumed.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                resumed.kill()
                out, err = resumed.communicate()
                report.fail(f"kill -9 {case.name}: the resumed run did not finish")
            events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
            first = next((e for e in events if e.get("type") == "session"), {})
            if first.get("session_id") != sid or not first.get("resumed"):
                report.fail(f"kill -9 {case.name}: --resume gave session {first.get('session_id')} "
                            f"(resumed={first.get('resumed')}), expected {sid}: {err.strip()[-300:]}")
            if resumed.returncode != 0:
                report.fail(f"kill -9 {case.name}: the resumed run exited {resumed.returncode}: {err.strip()[-300:]}")
            outcome = {"killed_after": seen[-1].get("type"), "app_py": "changed" if app != APP_PY else "untouched",
                       "checkpoints": len(refs), "resumed_same_session": first.get("session_id") == sid,
                       "resume_exit": resumed.returncode,
                       "interrupted_notice": any("interrupted" in str(e.get("message", "")) or
                                                 "stopped before finishing" in str(e.get("message", ""))
                                                 for e in events)}
        results[case.name] = outcome
    report.facts["kill9"] = results


# -- main -----------------------------------------------------------------------------------------------------


def run_soak(turns: int, commands: int, minutes: float | None, seed: int, kill: bool | set[str] = True,
             modes: tuple[str, ...] = ("auto",), faults: set[str] | None = None) -> Report:
    """Everything, in one temp dir; returns the report (the short pytest version calls this too)."""
    report = Report()
    no_nagle()
    budget = minutes * 60 if minutes else float("inf")
    with tempfile.TemporaryDirectory(prefix="devagent-soak-") as tmp:
        work = Path(tmp)
        isolate_env(work)
        if turns:
            asyncio.run(soak_turns(turns, seed, time.monotonic() + budget * 0.6, report, work, faults))
        for mode in modes:
            if commands:
                asyncio.run(soak_commands(commands, seed, time.monotonic() + budget * 0.3, report, work, mode))
        if kill:
            soak_kill(report, work, kill if isinstance(kill, set) else None)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--commands", type=int, default=500)
    parser.add_argument("--minutes", type=float, help="time budget: stop starting new turns/commands after it")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--skip-kill", action="store_true", help="leave out the kill -9 scenarios")
    parser.add_argument("--also-unsandboxed", action="store_true",
                        help="run the process corpus a second time with sandbox.mode = none")
    parser.add_argument("--faults", help="comma-separated subset of the fault menu (default: all); "
                        "'-name' entries leave faults out")
    parser.add_argument("--json", type=Path, help="write the summary here")
    args = parser.parse_args()
    modes = ("auto", "none") if args.also_unsandboxed else ("auto",)
    faults = None
    if args.faults:
        every = set(fault_menu(random.Random(0)))
        picked = [f.strip() for f in args.faults.split(",") if f.strip()]
        faults = {f for f in picked if not f.startswith("-")} or every
        faults -= {f[1:] for f in picked if f.startswith("-")}
        if not faults <= every:
            parser.error(f"unknown faults {sorted(faults - every)}; choose from {sorted(every)}")
    report = run_soak(args.turns, args.commands, args.minutes, args.seed, not args.skip_kill, modes, faults)
    print(json.dumps(report.facts, indent=2))
    print(f"\n{len(report.violations)} violation(s)")
    for text in report.violations:
        print(f"  - {text.splitlines()[0]}")
    if args.json:
        args.json.write_text(json.dumps({"facts": report.facts, "violations": report.violations}, indent=2))
    return 1 if report.violations else 0


if __name__ == "__main__":
    raise SystemExit(main())
