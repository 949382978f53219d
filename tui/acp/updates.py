"""Engine events as ACP ``session/update`` notifications, sent in order by one pump per session.

The engine's emit is synchronous; updates queue here and one task sends them, merging consecutive text
chunks and consecutive output refreshes of one tool call, so a token stream or a chatty command never
floods the client. An editor cannot take text back, so the model's text goes through the same
``ProseStream`` as the plain headless output: a tool call the model writes into its text (JSON, a fence)
is shown once, as its tool call, never as the agent's message. Clients render text as Markdown, so every
text is escaped to show literally there (``__init__.py`` stays ``__init__.py``; tui/safety/mdtext.py).
devagent's own notes (``Detail``, ``Notice``) are thoughts, never the agent's message.
``flush()`` waits until everything queued is sent (before a permission request or the prompt's answer,
which must follow the updates they belong to).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any, Awaitable, Callable

from acp.helpers import (start_tool_call, update_agent_message_text, update_agent_thought_text, update_tool_call,
                         update_user_message_text)
from acp.schema import ToolCallLocation

from tui.acp.permissions import fenced, text_content
from tui.engine.loop.prose import ProseStream
from tui.safety.mdtext import MarkdownEscaper, code_span, escape_markdown
from tui.protocol.events import (CommandFinished, CommandOutput, CommandStarted, Detail, ErrorEvent, Event, Notice,
                                 Progress, ProposalCreated, Retrying, TextDelta, TextDone, ToolCallFinished,
                                 ToolCallStarted, TurnDone, TurnStarted)
from tui.protocol.waits import text as wait_text

log = logging.getLogger("devagent.acp")

WAIT_EVERY = 10.0  # seconds between two thoughts about one wait that does not move
OUTPUT_TAIL = 8000  # characters of command output shown in the tool call (the tail: where errors are)
KINDS = {"read_file": "read", "outline": "read", "list_files": "search", "search": "search", "git_status": "read",
         "git_diff": "read", "git_log": "read", "edit_file": "edit", "write_file": "edit", "edit_symbol": "edit",
         "scaffold": "edit", "refactor": "edit", "run_command": "execute", "run_python": "execute",
         "run_tests": "execute"}
Send = Callable[[Any], Awaitable[None]]


def title_of(name: str, arguments: dict[str, Any]) -> str:
    main = arguments.get("path") or arguments.get("command") or arguments.get("pattern") or \
        arguments.get("selection") or arguments.get("name") or ""
    if not isinstance(main, str):
        main = json.dumps(main)
    main = " ".join(main.split())
    main = f"{main[:100]}{'…' if len(main) > 100 else ''}"
    return f"{name} {code_span(main)}" if main else name  # clients render titles as Markdown


def locations(repo: str, arguments: dict[str, Any]) -> list[ToolCallLocation] | None:
    path = arguments.get("path")
    if not isinstance(path, str) or not path or "\0" in path:
        return None
    return [ToolCallLocation(path=path if path.startswith("/") else f"{repo.rstrip('/')}/{path}")]


class _Output:
    """What one running command has shown so far."""

    def __init__(self, command: str, lang: str = "sh") -> None:
        self.command, self.lang, self.text, self.status = command, lang, "", ""

    def content(self) -> list[Any]:
        shown = self.text[-OUTPUT_TAIL:]
        cut = "[… earlier output not shown]\n" if len(self.text) > OUTPUT_TAIL else ""
        parts = [fenced(self.command, self.lang)]
        if shown or self.status:
            parts.append(fenced(cut + shown + (f"\n{self.status}" if self.status else "")))
        return [text_content("\n\n".join(parts))]


class UpdateStream:
    """Maps events of one session to updates and sends them in order."""

    def __init__(self, send: Send, repo: str) -> None:
        self.send, self.repo = send, repo
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.calls: dict[str, str] = {}  # proposal id -> tool call id
        self.ids: dict[str, str] = {}  # the engine's call id -> its ACP id (engine ids repeat: call_0 each reply)
        self._count = 0
        self.outputs: dict[str, _Output] = {}  # tool call id -> output so far
        self.broken = False
        self.prose = ProseStream()  # the model's text as it may be shown (tool calls written into it held back)
        self.markdown = MarkdownEscaper()  # ... escaped, so that the client's Markdown shows it as written
        self._said = False  # the current model message has shown text
        self._gap = False  # a message with text ended: the next one starts after a blank line
        self._newlines = 0  # newlines at the end of the text sent so far
        self._clock = time.monotonic
        self._waited: tuple[str, float, int] = ("", 0.0, -1)  # the last wait sent: stage, when, count
        self._task = asyncio.get_running_loop().create_task(self._pump())

    # -- mapping (synchronous: called from the engine's emit) ------------------------------------
    def __call__(self, event: Event) -> None:
        for update in self.map(event):
            self.queue.put_nowait(update)

    def map(self, event: Event) -> list[Any]:
        if isinstance(event, TextDelta):
            return self._say(self.markdown.push(self.prose.push(event.text)))
        if isinstance(event, TextDone):
            return self._say(self.markdown.push(self.prose.finish(event.shown or "")) + self.markdown.finish(),
                             end=True)
        if isinstance(event, TurnDone):
            return self._say(self.markdown.push(self.prose.abandon()) + self.markdown.finish(), end=True, turn=True)
        if isinstance(event, TurnStarted):  # a new agent message (after a replay, too)
            self._gap, self._waited = False, ("", 0.0, -1)
            return []
        if isinstance(event, ToolCallStarted):
            return [start_tool_call(self.new_id(event.call_id), title_of(event.name, event.arguments),
                                    kind=KINDS.get(event.name, "other"), status="pending",
                                    locations=locations(self.repo, event.arguments), raw_input=event.arguments)]
        if isinstance(event, ProposalCreated):
            return self._proposal(event.proposal)
        if isinstance(event, (CommandStarted, CommandOutput, CommandFinished)):
            return self._command(event)
        if isinstance(event, ToolCallFinished):
            return [self._finished(event)]
        if isinstance(event, ErrorEvent):  # the message broke off: what was held back, then why
            hint = f" {event.hint}" if event.hint else ""
            held = self.markdown.push(self.prose.abandon()) + self.markdown.finish()
            return self._say(held + escape_markdown(f"\n\n[devagent: {event.message}{hint}]\n"), end=True)
        if isinstance(event, Progress):
            return self._wait(event)
        if isinstance(event, (Notice, Retrying, Detail)):
            text = event.message if isinstance(event, Notice) else event.text if isinstance(event, Detail) else \
                f"retrying in {event.delay:.1f}s: {event.reason}"
            log.info("%s: %s", event.type, text)
            return [update_agent_thought_text(escape_markdown(f"devagent: {text}") + "\n")]
        log.debug("event %s", event.type)
        return []

    def _wait(self, event: Progress) -> list[Any]:
        """A wait as a thought: when it begins, when the server's count of the prompt moves, and every
        WAIT_EVERY seconds of the same wait (the engine repeats the latest while nothing moves). Never while the
        model's text is showing: a thought between two chunks of the answer would split it."""
        now = self._clock()
        last_stage, last_at, last_done = self._waited
        if event.stage == "writing" and self._said:
            return []
        moved = event.stage != last_stage or (event.stage == "reading" and event.done != last_done)
        if not moved and now - last_at < WAIT_EVERY:
            return []
        self._waited = (event.stage, now, event.done)
        return [update_agent_thought_text(f"devagent: {wait_text(event, event.elapsed, 'cancel stops it')}\n")]

    def _say(self, text: str, end: bool = False, turn: bool = False) -> list[Any]:
        """Text of the model's current message; the messages of one turn are one agent message to the client,
        so each after the first starts on a new paragraph."""
        out: list[Any] = []
        if text:
            if self._gap:
                text = text.lstrip("\n")
                text, self._gap = "\n" * max(0, 2 - self._newlines) + text, False
            self._said = True
            self._newlines = len(text) - len(text.rstrip("\n")) if text.strip("\n") else self._newlines + len(text)
            out.append(update_agent_message_text(text))
        if end:
            self._gap, self._said = (self._gap or self._said) and not turn, False
        return out

    def end_message(self) -> None:
        """The turn ended without a TextDone or TurnDone (a cancel): send what was held back, literally."""
        for update in self._say(self.prose.abandon(), end=True, turn=True):
            self.queue.put_nowait(update)

    def new_id(self, call_id: str) -> str:
        self._count += 1
        self.ids[call_id] = f"{call_id or 'call'}-{self._count}"
        return self.ids[call_id]

    def acp_id(self, call_id: str) -> str:
        """The ACP id of the engine's latest call with this id (calls in one session run one at a time)."""
        return self.ids.get(call_id) or self.new_id(call_id)

    def _proposal(self, proposal: Any) -> list[Any]:
        call_id = self.calls[proposal.id] = self.acp_id(proposal.call_id)
        if proposal.kind in ("command", "python"):
            shown = proposal.code if proposal.kind == "python" else proposal.command
            self.outputs[call_id] = _Output(shown or proposal.summary, "python" if proposal.kind == "python" else "sh")
        verdict = {"allow": f"auto-approved ({proposal.rule})", "deny": f"denied ({proposal.rule})"}.get(
            proposal.policy, "")
        if not verdict:
            return []  # the permission request shows it
        body = fenced(proposal.diff, "diff") if proposal.diff else fenced(proposal.command or proposal.summary, "sh")
        return [update_tool_call(call_id, content=[text_content(f"{body}\n\n{escape_markdown(verdict)}")])]

    def _command(self, event: CommandStarted | CommandOutput | CommandFinished) -> list[Any]:
        call_id = self.calls.get(event.id, "")
        output = self.outputs.get(call_id)
        if output is None:
            return []
        if isinstance(event, CommandStarted):
            return [update_tool_call(call_id, status="in_progress", content=output.content())]
        if isinstance(event, CommandOutput):
            output.text = (output.text + event.text)[-4 * OUTPUT_TAIL:]
        else:
            how = f"killed ({event.killed})" if event.killed else f"exit {event.exit_code}"
            output.status = f"[{how}, {event.duration:.1f}s]"
        return [update_tool_call(call_id, content=output.content())]

    def _finished(self, event: ToolCallFinished) -> Any:
        status = "completed" if event.ok else "failed"
        raw = {"ok": event.ok, "summary": event.summary}
        call_id = self.acp_id(event.call_id)
        output = self.outputs.pop(call_id, None)
        summary = escape_markdown(event.summary)
        if output is not None:
            content = output.content() + [text_content(summary)]
        elif event.diff:
            content = [text_content(f"{fenced(event.diff, 'diff')}\n\n{summary}")]
        else:
            body = event.output[:4000] if event.output else ""
            content = [text_content(f"{summary}\n\n{fenced(body)}" if body else summary)]
        return update_tool_call(call_id, status=status, content=content, raw_output=raw)

    # -- replay (session/load) ---------------------------------------------------------------------
    def replay(self, events: list[dict[str, Any]]) -> None:
        """The stored conversation as updates: prompts, whole answers, tool calls and their results."""
        for data in events:
            kind = data.get("type")
            if kind == "turn_started":
                self._gap = False
                self.queue.put_nowait(update_user_message_text(str(data.get("prompt", ""))))
            elif kind == "text_done":
                shown = str(data.get("shown", data.get("text")) or "")  # the prose, without the calls in it
                for update in self._say(escape_markdown(shown.strip()), end=True):
                    self.queue.put_nowait(update)
            elif kind == "tool_call":
                args = data.get("arguments") if isinstance(data.get("arguments"), dict) else {}
                name = str(data.get("name", ""))
                self.queue.put_nowait(start_tool_call(self.new_id(str(data.get("call_id", ""))), title_of(name, args),
                                                      kind=KINDS.get(name, "other"), status="pending",
                                                      raw_input=args))
            elif kind == "tool_result":
                self.queue.put_nowait(self._finished(ToolCallFinished(
                    str(data.get("call_id", "")), str(data.get("name", "")), bool(data.get("ok")),
                    str(data.get("summary", "")), str(data.get("output", "")), str(data.get("diff", "")))))

    # -- sending -----------------------------------------------------------------------------------
    async def flush(self) -> None:
        await self.queue.join()

    async def close(self) -> None:
        self._task.cancel()
        try:
            await self._task
        except asyncio.CancelledError:
            pass

    async def _pump(self) -> None:
        while True:
            batch = [await self.queue.get()]
            while not self.queue.empty():
                batch.append(self.queue.get_nowait())
            try:
                for update in _merge(batch):
                    if not self.broken:
                        await self.send(update)
            except ConnectionError as exc:
                self.broken = True  # the client has gone: keep draining so flush() never waits forever
                log.warning("could not send an update: %s", exc)
            finally:
                for _ in batch:
                    self.queue.task_done()


def _merge(batch: list[Any]) -> list[Any]:
    """Join consecutive message chunks; keep only the last content refresh of consecutive tool updates."""
    out: list[Any] = []
    for update in batch:
        prev = out[-1] if out else None
        kind = getattr(update, "session_update", "")
        if prev is not None and kind == getattr(prev, "session_update", None):
            if kind in ("agent_message_chunk", "agent_thought_chunk"):
                out[-1] = type(prev)(session_update=kind, content=type(prev.content)(
                    type="text", text=prev.content.text + update.content.text))
                continue
            if kind == "tool_call_update" and prev.tool_call_id == update.tool_call_id and \
                    prev.status == update.status and update.content is not None and prev.raw_output is None:
                out[-1] = update
                continue
        out.append(update)
    return out
