"""The plain front end: prints events (text or JSON lines) and takes decisions on stdin.

Text mode asks y/n/e/q for every proposal. JSON mode (docs/protocol.md) writes one
event per line and reads decisions as JSON lines; a malformed line is an error event,
not a crash; a closed stdin stops the turn and applies nothing further.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Callable, TextIO

from tui.protocol.proposals import Decision, Proposal
from tui.safety.literal import literal_warnings
from tui.safety.literal import visible as _literal
from tui.protocol.events import (Checkpointed, CommandFinished, CommandOutput, Detail, ErrorEvent, Event, Notice,
                                 Progress, ProposalCreated, Retrying, TextDelta, TextDone, ToolCallFinished,
                                 ToolCallStarted, TurnDone)
from tui.protocol.waits import Waits
from tui.protocol.waits import text as wait_text
from tui.engine.loop.prose import ProseStream

PROTOCOL_VERSION = 1


class StdinLines:
    """Reads stdin lines on a daemon thread (never blocks the loop, never blocks exit)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        self._stream = stream or sys.stdin
        threading.Thread(target=self._pump, name="devagent-stdin", daemon=True).start()

    def _pump(self) -> None:
        while True:
            try:
                line = self._stream.readline()
            except (OSError, ValueError):
                line = ""
            self._loop.call_soon_threadsafe(self.queue.put_nowait, line if line else None)
            if not line:
                return

    async def readline(self) -> str | None:
        return await self.queue.get()


WAIT_LINES_EVERY = 10.0  # seconds between two lines of one wait when stderr is not a terminal


class TextPrinter:
    """Human-readable output: model prose streamed (the tool calls written into it shown once, as their
    ``→ tool(...)`` lines), results, and notes on stderr (a keyed note rewrites its line on a terminal).
    devagent's details (what it told the model, retries, replies as written, checkpoint refs) go to stderr only
    when ``verbose``; a connection message always does.

    A wait (Progress: loading, reading the prompt, writing, running the tests) is one line on stderr: on a
    terminal it is redrawn every second in place and erased before anything else is printed; elsewhere it is
    printed when its stage begins (writing: once it has taken 2 s, the time streamed prose needs no line for)
    and then every ``WAIT_LINES_EVERY`` seconds. Never in the middle of a line of the model's prose."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None, verbose: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.out, self.err, self.verbose = out or sys.stdout, err or sys.stderr, verbose
        self._at_line_start = True
        self._prose = ProseStream()
        self._last_key = ""  # the key of the note on the last line of stderr, while nothing came after it
        self.clock = clock
        self.waits = Waits(clock)
        self._wait_open = False  # the wait's line is the last thing on the terminal, with no newline
        self._wait_said: tuple[str, float] = ("", 0.0)  # (stage, time) of the last wait line (not a terminal)
        self._tick: asyncio.TimerHandle | None = None

    def _write(self, text: str, stream: TextIO | None = None) -> None:
        stream = stream or self.out
        stream.write(text)
        stream.flush()
        if stream is self.out and text:
            self._at_line_start = text.endswith("\n")

    def _line(self, text: str, stream: TextIO | None = None) -> None:
        if not self._at_line_start:
            self._write("\n")
        self._write(text + "\n", stream)

    def _note(self, text: str, key: str) -> None:
        """A note on stderr. On a terminal a keyed note stays open on its line, and the next note with the
        same key rewrites it (progress); anything else closes it first. Elsewhere each note is a line."""
        if key and key == self._last_key:
            self.err.write("\r\x1b[K" + text)
            self.err.flush()
            return
        self._close_note()
        if key and self.err.isatty():
            if not self._at_line_start:
                self._write("\n")
            self.err.write(text)
            self.err.flush()
            self._last_key = key
        else:
            self._line(text, self.err)

    def _close_note(self) -> None:
        if self._last_key:
            self.err.write("\n")
            self.err.flush()
            self._last_key = ""

    def _show_wait(self) -> None:
        """The current wait on stderr (see the class doc); nothing while the prose is mid-line."""
        current = self.waits.current
        terminal = self.err.isatty()
        if current is None or not (self._at_line_start or (terminal and not self.out.isatty())):
            return
        self._close_note()
        if terminal:
            self.err.write("\r\x1b[K" + self.waits.line("ctrl+c cancels"))
            self.err.flush()
            self._wait_open = True
            if self._tick is None:
                try:
                    self._tick = asyncio.get_running_loop().call_later(1.0, self._redraw)
                except RuntimeError:  # no loop (a synchronous caller): drawn at the next event instead
                    pass
            return
        now = self.clock()
        begins = current.stage != self._wait_said[0] and (current.stage != "writing" or self.waits.elapsed >= 2)
        if begins or (current.stage == self._wait_said[0] and now - self._wait_said[1] >= WAIT_LINES_EVERY):
            self._wait_said = (current.stage, now)
            self._line("… " + wait_text(current, self.waits.elapsed), self.err)

    def _redraw(self) -> None:
        self._tick = None
        if self._wait_open:
            self._show_wait()

    def _erase_wait(self) -> None:
        if self._wait_open:
            self.err.write("\r\x1b[K")
            self.err.flush()
            self._wait_open = False

    def __call__(self, event: Event) -> None:
        if isinstance(event, Progress):
            self.waits.feed(event)
            self._show_wait()
            return
        self._erase_wait()
        self._print(event)
        self.waits.feed(event)
        self._show_wait()

    def _print(self, event: Event) -> None:
        if self._last_key and not (isinstance(event, Notice) and event.key == self._last_key):
            self._close_note()
        if isinstance(event, TextDelta):
            self._write(_literal(self._prose.push(event.text)))
        elif isinstance(event, TextDone):
            self._write(_literal(self._prose.finish(event.shown or "")))
            if not self._at_line_start:
                self._write("\n")
        elif isinstance(event, ToolCallStarted):
            args = ", ".join(f"{k}={json.dumps(v)[:80]}" for k, v in event.arguments.items())
            self._line(f"→ {event.name}({_literal(args)})")
        elif isinstance(event, ToolCallFinished):
            self._line(f"  {'✓' if event.ok else '✗'} {_literal(event.summary)}")
        elif isinstance(event, ProposalCreated):
            proposal = event.proposal
            if proposal.policy == "allow":
                self._line(f"  auto-approved ({proposal.rule}): {_literal(proposal.command or proposal.summary)}")
            elif proposal.policy == "deny":
                self._line(f"  denied ({proposal.rule}): {_literal(proposal.command or proposal.summary)}")
        elif isinstance(event, CommandOutput):
            self._write(_literal(event.text))
        elif isinstance(event, CommandFinished):
            how = f"killed ({event.killed})" if event.killed else f"exit {event.exit_code}"
            self._line(f"  [{how}, {event.duration:.1f}s]")
        elif isinstance(event, ErrorEvent):
            self._write(_literal(self._prose.abandon()))  # the message broke off: show what was held back
            self._line(f"error: {event.message}" + (f"\n  {event.hint}" if event.hint else ""), self.err)
        elif isinstance(event, Notice):
            self._note(f"note: {event.message}", event.key)
        elif isinstance(event, Detail) and (self.verbose or event.kind == "connection"):
            self._line(("note: " if event.kind == "connection" else f"detail ({event.kind}): ") +
                       _literal(event.text), self.err)
        elif isinstance(event, Checkpointed) and self.verbose:
            self._line(f"detail (checkpoint): {event.ref} ({_literal(event.label)})", self.err)
        elif isinstance(event, Retrying):
            self._line(f"note: retrying in {event.delay:.1f}s (attempt {event.attempt}): {event.reason}", self.err)
        elif isinstance(event, TurnDone):
            self._write(_literal(self._prose.abandon()))
            if event.reason not in ("complete",):
                self._line(f"[turn {event.reason}]", self.err)


class JsonPrinter:
    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout

    def __call__(self, event: Event) -> None:
        data = event.to_dict()
        if isinstance(event, TextDone):
            data["warnings"] = literal_warnings(event.text)  # the text stays exact; this says what hides in it
        self.out.write(json.dumps(data, default=str) + "\n")
        self.out.flush()


def show_proposal(proposal: Proposal, out: TextIO) -> None:
    out.write(f"\n── proposal {proposal.id}: {proposal.kind} ── risk: {proposal.risk} ── rule: {proposal.rule} "
              f"── sandbox: {proposal.sandbox}\n")
    if proposal.kind in ("command", "python"):
        out.write(_literal(proposal.code if proposal.kind == "python" else (proposal.command or ""),
                           proposal.kind == "command") + "\n")
    if proposal.diff:
        out.write(_literal(proposal.diff))
        if not proposal.diff.endswith("\n"):
            out.write("\n")
    if proposal.message:
        out.write(_literal(proposal.message) + "\n")
    for warning in proposal.warnings:
        out.write(f"!! {_literal(warning)}\n")
    out.flush()


def _edit_in_editor(text: str) -> str | None:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor or not sys.stdin.isatty():
        return None
    with tempfile.NamedTemporaryFile("w+", suffix=".sh", delete=False) as fh:
        fh.write(text)
        path = fh.name
    try:
        subprocess.run([*shlex.split(editor), path], check=False)
        with open(path) as fh:
            return fh.read().strip()
    finally:
        os.unlink(path)


class TextApprover:
    """Asks on the terminal: y approve, n reject (+reason), e edit, q stop."""

    def __init__(self, lines: StdinLines, out: TextIO | None = None) -> None:
        self.lines, self.out = lines, out or sys.stdout

    async def _ask(self, prompt: str) -> str | None:
        self.out.write(prompt)
        self.out.flush()
        line = await self.lines.readline()
        if line is not None and not sys.stdin.isatty():
            self.out.write(line.strip() + "\n")  # echo piped answers so the transcript reads right
            self.out.flush()
        return None if line is None else line.strip()

    async def decide(self, proposal: Proposal) -> Decision:
        show_proposal(proposal, self.out)
        while True:
            answer = await self._ask("Approve? [y]es / [n]o / [e]dit / [q]uit: ")
            if answer is None or answer.lower() in ("q", "quit"):
                return Decision("stop", reason="stopped by the developer")
            choice = answer[:1].lower()
            if choice == "y":
                return Decision("approve")
            if choice == "n":
                reason = await self._ask("Reason for the model (optional): ")
                return Decision("reject", reason=reason or "")
            if choice == "e":
                decision = await self._edit(proposal)
                if decision:
                    return decision

    async def _edit(self, proposal: Proposal) -> Decision | None:
        if proposal.kind == "command":
            edited = await asyncio.to_thread(_edit_in_editor, proposal.command or "")
            if edited is None:
                edited = await self._ask("Edited command (empty keeps it): ")
            if edited:
                return Decision("edit", command=edited)
            return None
        if proposal.diff:
            from tui.git.diffs import DiffIndex

            total = len(DiffIndex.from_text(proposal.diff).hunks)
            keep = await self._ask(f"Hunks to keep, 1-{total} (e.g. 1,3; empty keeps all): ")
            if not keep:
                return Decision("approve")
            try:
                chosen = tuple(sorted({int(x) - 1 for x in keep.replace(" ", "").split(",") if x}))
            except ValueError:
                self.out.write("give hunk numbers separated by commas\n")
                return None
            return Decision("approve", hunks=tuple(i for i in chosen if 0 <= i < total))
        if proposal.kind == "commit":
            message = await self._ask("Commit message: ")
            return Decision("edit", message=message) if message else None
        self.out.write("nothing to edit in this proposal\n")
        return None


class JsonApprover:
    """Decisions arrive as JSON lines: {"id": ..., "decision": "approve"|"reject"|"edit", ...}."""

    def __init__(self, lines: StdinLines, emit: Any) -> None:
        self.lines, self.emit = lines, emit
        self.pending: dict[str, asyncio.Future[Decision]] = {}
        self.early: dict[str, Decision] = {}
        self.closed = False
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin reading decisions (after the session event, so it comes first)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        while True:
            line = await self.lines.readline()
            if line is None:
                self.closed = True
                for fut in self.pending.values():
                    if not fut.done():
                        fut.set_result(Decision("stop", reason="the client disconnected"))
                return
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                if not isinstance(data, dict) or "id" not in data or "decision" not in data:
                    raise ValueError('expected {"id": ..., "decision": "approve"|"reject"|"edit"|"stop"}')
                action = data["decision"]
                if action not in ("approve", "reject", "edit", "stop"):
                    raise ValueError(f"unknown decision {action!r}")
                hunks = data.get("hunks")
                decision = Decision(
                    action, reason=str(data.get("reason") or ""), command=data.get("command"),
                    message=data.get("message"), hunks=tuple(int(h) for h in hunks) if hunks is not None else None,
                    network=bool(data.get("network", False)), timeout=data.get("timeout"),
                    remember=bool(data.get("remember", False)), by="client")
            except (ValueError, TypeError) as exc:
                self.emit(ErrorEvent(f"ignored a malformed decision line: {exc}", source="protocol"))
                continue
            ident = str(data["id"])
            fut = self.pending.get(ident)
            if fut is not None and not fut.done():
                fut.set_result(decision)
            else:
                self.early[ident] = decision

    async def decide(self, proposal: Proposal) -> Decision:
        self.start()
        if proposal.id in self.early:
            return self.early.pop(proposal.id)
        if self.closed:
            return Decision("stop", reason="the client disconnected")
        fut: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self.pending[proposal.id] = fut
        try:
            return await fut
        finally:
            self.pending.pop(proposal.id, None)


__all__ = ["PROTOCOL_VERSION", "TextPrinter", "JsonPrinter", "TextApprover", "JsonApprover", "StdinLines"]
