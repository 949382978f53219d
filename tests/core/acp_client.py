"""A real ACP client from the `agent-client-protocol` package, driving `devagent acp` in a subprocess.

It records every update, answers permission requests from a script (option id and an optional reason,
sent in ``_meta.reason``), serves editor buffers through ``fs/read_text_file``, and keeps the raw
JSON-RPC lines (the transcript).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections import deque
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process, text_block
from acp.schema import (AllowedOutcome, ClientCapabilities, FileSystemCapabilities, Implementation,
                        ReadTextFileResponse, RequestPermissionResponse)


class ScriptedClient:
    def __init__(self, answers: list[tuple[str, str]] | None = None, buffers: dict[str, str] | None = None) -> None:
        self.answers = deque(answers or [])  # exhausted: the request is left unanswered (the client "hangs")
        self.buffers = buffers or {}  # absolute path -> unsaved editor text
        self.updates: list[Any] = []
        self.permissions: list[tuple[Any, list[Any]]] = []
        self.reads: list[str] = []
        self.transcript: list[dict[str, Any]] = []
        self.changed = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)
        self.changed.set()

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any],
                                 **_: Any) -> RequestPermissionResponse:
        self.permissions.append((tool_call, options))
        self.changed.set()
        if not self.answers:
            await asyncio.Event().wait()
        option, reason = self.answers.popleft()
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=option),
                                         field_meta={"reason": reason} if reason else None)

    async def read_text_file(self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
                             **_: Any) -> ReadTextFileResponse:
        self.reads.append(path)
        if path not in self.buffers:
            raise RequestError.resource_not_found(path)
        return ReadTextFileResponse(content=self.buffers[path])

    # -- what the test looks at ---------------------------------------------------------------------
    def of(self, kind: str) -> list[Any]:
        return [u for u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind))

    async def wait_for(self, check: Any, timeout: float = 30.0) -> None:
        async def loop() -> None:
            while not check():
                self.changed.clear()
                await self.changed.wait()
        await asyncio.wait_for(loop(), timeout)

    def record(self, event: Any) -> None:
        self.transcript.append({"direction": event.direction.value, "message": event.message})


@asynccontextmanager
async def acp_agent(repo: Path, url: str, client: ScriptedClient, *args: str,
                    read_files: bool = True) -> AsyncIterator[tuple[Any, Any, str]]:
    """(connection, process, session id) of an initialized `devagent acp` with one new session."""
    stderr = open(repo.parent / f"acp-stderr-{os.getpid()}.log", "ab")
    env = dict(os.environ, OLLAMA_HOST=url)
    try:
        async with spawn_agent_process(client, sys.executable, "-m", "tui", "acp", *args, cwd=repo, env=env,
                                       transport_kwargs={"stderr": stderr},
                                       observers=[client.record]) as (conn, proc):
            caps = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=read_files, write_text_file=False))
            await asyncio.wait_for(conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=caps,
                                                   client_info=Implementation(name="test-client", version="1")), 30)
            session = await asyncio.wait_for(conn.new_session(cwd=str(repo), mcp_servers=[]), 30)
            yield conn, proc, session.session_id
    finally:
        stderr.close()


async def prompt(conn: Any, session_id: str, text: str, timeout: float = 60.0) -> str:
    response = await asyncio.wait_for(conn.prompt(session_id=session_id, prompt=[text_block(text)]), timeout)
    return response.stop_reason


def sent_to_model(server: Any, index: int = -1) -> str:
    return json.dumps(server.requests[index]["messages"])
