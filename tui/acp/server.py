"""The ACP agent: sessions of our store behind ``session/new`` / ``session/load`` / ``session/prompt``.

Each ACP session is one engine Session (its own repo, config, policy, sandbox and store record); a
prompt runs as a task that ``session/cancel`` cancels (the model request and any running command stop
at once). Errors a developer can act on come back as text in the conversation, never as a traceback.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (AgentCapabilities, Implementation, InitializeResponse, LoadSessionResponse,
                        NewSessionResponse, PromptCapabilities, PromptResponse)

from tui import __version__
from tui.acp.permissions import AcpApprover
from tui.acp.updates import UpdateStream
from tui.protocol.errors import DevagentError
from tui.protocol.events import ErrorEvent, Notice

log = logging.getLogger("devagent.acp")

STOP_REASONS = {"complete": "end_turn", "error": "end_turn", "limit": "max_turn_requests", "stopped": "cancelled",
                "cancelled": "cancelled"}
READ_TIMEOUT = 10.0  # seconds the client gets to answer fs/read_text_file before the disk is read instead


@dataclass
class Live:
    """One open session and what runs in it."""

    session: Any
    stream: UpdateStream
    task: asyncio.Task[str] | None = None


def prompt_text(blocks: list[Any]) -> tuple[str, list[str]]:
    """The prompt as text (embedded files inlined, links named) and notes on what was left out."""
    parts: list[str] = []
    notes: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource_link":
            parts.append(f"(file: {block.uri})")
        elif kind == "resource" and hasattr(block.resource, "text"):
            parts.append(f"{block.resource.uri}:\n```\n{block.resource.text}\n```")
        else:
            notes.append(f"a {kind or 'content'} block was left out (devagent's models read text only)")
    return "\n\n".join(p for p in parts if p), notes


class DevagentAcpAgent:
    """The Agent side of ACP (the methods acp's router calls)."""

    def __init__(self, model_options: dict[str, Any]) -> None:
        self.model_options = model_options
        self.client: Any = None
        self.read_from_client = False
        self.sessions: dict[str, Live] = {}

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None,
                         **_: Any) -> InitializeResponse:
        fs = getattr(client_capabilities, "fs", None)
        self.read_from_client = bool(getattr(fs, "read_text_file", False))
        log.info("client %s, protocol %s, fs/read_text_file: %s", getattr(client_info, "name", "?"),
                 protocol_version, self.read_from_client)
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(load_session=True,
                                                 prompt_capabilities=PromptCapabilities(embedded_context=True)),
            agent_info=Implementation(name="devagent", title="devagent", version=__version__), auth_methods=[])

    async def new_session(self, cwd: str, mcp_servers: Any = None, **_: Any) -> NewSessionResponse:
        live = await self._open(cwd, None)
        return NewSessionResponse(session_id=live.session.session_id)

    async def load_session(self, cwd: str, session_id: str, mcp_servers: Any = None, **_: Any) -> LoadSessionResponse:
        if session_id in self.sessions:
            raise RequestError.invalid_params({"details": f"session {session_id} is already open"})
        live = await self._open(cwd, session_id)
        live.stream.replay(live.session.store.events(live.session.session_id))
        await live.stream.flush()
        return LoadSessionResponse()

    async def _open(self, cwd: str, resume: str | None) -> Live:
        from tui.git.repo import find_repo
        from tui.config import load_config
        from tui.engine.session import Session

        try:
            repo = await asyncio.to_thread(find_repo, Path(cwd))
            config = await asyncio.to_thread(load_config, repo)
        except DevagentError as err:
            raise RequestError.invalid_params({"details": f"{err.message} {err.hint}".strip()}) from None
        holder: dict[str, str] = {}
        stream = UpdateStream(lambda update: self.client.session_update(session_id=holder["id"], update=update),
                              str(repo))
        approver = AcpApprover(
            lambda _call, update, options: self.client.request_permission(session_id=holder["id"], tool_call=update,
                                                                          options=options),
            stream.flush, stream.acp_id)
        pending: list[Any] = []

        def emit(event: Any) -> None:  # events before the session id is known wait for it
            (stream if "id" in holder else pending.append)(event)

        try:
            session = await Session.open(repo, config, approver=approver, emit=emit, resume=resume,
                                         **self.model_options)
        except DevagentError as err:
            await stream.close()
            raise RequestError.invalid_params({"details": f"{err.message} {err.hint}".strip()}) from None
        holder["id"] = session.session_id
        for event in pending:
            stream(event)
        approver.repo = repo
        if self.read_from_client:
            session.ctx.read_text = self._reader(session.session_id)
        live = self.sessions[session.session_id] = Live(session, stream)
        log.info("session %s in %s%s", session.session_id, repo, " (resumed)" if resume else "")
        return live

    def _reader(self, session_id: str) -> Any:
        async def read(path: Path) -> str | None:
            """The editor's buffer of a repo file (already resolved inside the repo); None: read the disk."""
            try:
                response = await asyncio.wait_for(
                    self.client.read_text_file(session_id=session_id, path=str(path)), READ_TIMEOUT)
            except (asyncio.TimeoutError, ConnectionError, RequestError, ValueError) as exc:
                log.info("fs/read_text_file %s failed (%s); reading the disk", path, exc)
                return None
            return response.content if isinstance(response.content, str) else None
        return read

    def _live(self, session_id: str) -> Live:
        live = self.sessions.get(session_id)
        if live is None:
            raise RequestError.invalid_params({"details": f"no open session {session_id!r}: session/new or "
                                                          "session/load first"})
        return live

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        live = self._live(session_id)
        if live.task is not None and not live.task.done():
            raise RequestError.invalid_request({"details": "a prompt is already running in this session; "
                                                           "session/cancel it first"})
        text, notes = prompt_text(prompt)
        for note in notes:
            live.stream(Notice(note, "warning"))
        if not text.strip():
            await live.stream.flush()
            raise RequestError.invalid_params({"details": "the prompt has no text"})
        task = live.task = asyncio.get_running_loop().create_task(self._turn(live, text))
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError:
            task.cancel()
            raise
        reason = "cancelled" if task.cancelled() else task.result()
        live.stream.end_message()
        await live.stream.flush()
        return PromptResponse(stop_reason=reason)  # type: ignore[arg-type]

    async def _turn(self, live: Live, text: str) -> str:
        try:
            done = await live.session.run_turn(text)
        except DevagentError as err:  # no model server, unknown model, ...: the developer reads why
            live.session.emit(ErrorEvent(err.message, err.hint, getattr(err, "retryable", False), source="model"))
            return "end_turn"
        return STOP_REASONS.get(done.reason, "end_turn")

    async def cancel(self, session_id: str, **_: Any) -> None:
        live = self.sessions.get(session_id)
        if live is not None and live.task is not None and not live.task.done():
            log.info("cancel %s", session_id)
            live.task.cancel()

    def stop_turns(self) -> None:
        """The input has ended: every running turn stops (its prompt answers "cancelled")."""
        for live in self.sessions.values():
            if live.task is not None and not live.task.done():
                live.task.cancel()

    async def shutdown(self) -> None:
        """The client has gone: stop every turn (nothing half-applied), kill commands, close the sessions."""
        tasks = [live.task for live in self.sessions.values() if live.task and not live.task.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=10)
        for live in list(self.sessions.values()):
            await live.stream.close()
            try:
                await live.session.close()
            except Exception as exc:  # noqa: BLE001 - closing must not raise on the way out
                log.warning("closing session %s: %s", live.session.session_id, exc)
        self.sessions.clear()
