"""The prompt-cache warm-up: sent when a session connects, in the background, harmless when the prompt wins.

Real sessions against the scripted Ollama server (the real ``ollama`` client) and the scripted
OpenAI-compatible server (the embedded backend's path).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from tests.core.agent_helpers import ScriptedApprover, fast_config
from tests.core.test_openai_backend import OpenAIServer, Script
from tests.ollama_server import Reply, ScriptedOllama
from tui.protocol.events import Event
from tui.engine.session import Session


async def _open(repo: Path, **options: str) -> tuple[Session, list[Event]]:
    events: list[Event] = []
    session = await Session.open(repo, fast_config(repo), approver=ScriptedApprover(), emit=events.append, **options)
    return session, events


async def _settled(session: Session, limit: float = 10.0) -> None:
    task = session._warm_task
    assert task is not None, "no warm-up was started"
    await asyncio.wait_for(asyncio.shield(task), limit)


async def test_connect_warms_the_system_prompt_and_the_turn_reuses_it(repo: Path,
                                                                      ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply("Hello."))
    session, _ = await _open(repo, host=ollama_server.url)
    try:
        await session.connect()
        await _settled(session)
        assert session.warmup["ok"] and session.warmup["messages"] == 1
        [warm] = ollama_server.warmups
        assert [m["role"] for m in warm["messages"]] == ["system"]
        assert warm["options"]["num_predict"] == 1
        await session.run_turn("say hello")
    finally:
        await session.close()
    first = ollama_server.requests[0]
    assert first["messages"][0] == warm["messages"][0]  # the same bytes: the cache serves them
    assert first["options"]["num_ctx"] == warm["options"]["num_ctx"]  # another size would reload the model
    assert first.get("tools") == warm.get("tools")


async def test_a_prompt_that_arrives_first_cancels_the_warm_up(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply("Hi."))
    session, _ = await _open(repo, host=ollama_server.url)
    try:
        done = await session.run_turn("hi")  # connects and sends at once, as `devagent run` does
        assert done.reason == "complete"
    finally:
        await session.close()
    assert ollama_server.warmups == [] and len(ollama_server.requests) == 1


async def test_a_request_sent_during_the_warm_up_waits_for_it(repo: Path) -> None:
    server = OpenAIServer()
    try:
        server.replies = [Script(["."], delay=30), Script(["answer"])]  # the warm-up is held until released
        session, _ = await _open(repo, backend="openai", host=server.url)
        await session.connect()
        deadline = time.monotonic() + 5
        while len(server.requests) < 1 and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert server.requests[0]["max_tokens"] == 1
        assert [m["role"] for m in server.requests[0]["messages"]] == ["system"]
        turn = asyncio.ensure_future(session.run_turn("Summarise README.md."))
        await asyncio.sleep(0.5)
        assert len(server.requests) == 1 and not turn.done()  # not racing the warm-up into a second slot
        server.release.set()
        done = await asyncio.wait_for(turn, 15)
        assert done.reason == "complete" and "answer" in done.text
        assert server.requests[1]["messages"][0] == server.requests[0]["messages"][0]
        await session.close()
    finally:
        server.stop()


async def test_closing_cancels_a_warm_up_in_flight(repo: Path) -> None:
    server = OpenAIServer()
    try:
        server.replies = [Script(fault="stall")]
        session, _ = await _open(repo, backend="openai", host=server.url)
        await session.connect()
        while not server.requests:
            await asyncio.sleep(0.02)
        task = session._warm_task
        started = time.monotonic()
        await asyncio.wait_for(session.close(), 5)
        assert time.monotonic() - started < 3 and task is not None and task.cancelled()
    finally:
        server.stop()


async def test_a_failed_warm_up_is_harmless(repo: Path) -> None:
    server = OpenAIServer()
    try:
        server.replies = [Script(fault="http500"), Script(["fine"])]
        session, _ = await _open(repo, backend="openai", host=server.url)
        await session.connect()
        await _settled(session)
        assert session.warmup["ok"] is False and "500" in session.warmup["error"]
        done = await session.run_turn("still there?")
        assert done.reason == "complete" and "fine" in done.text
        await session.close()
    finally:
        server.stop()


async def test_a_request_the_server_finds_too_long_is_fitted_again_not_the_end_of_the_turn(repo: Path) -> None:
    """Seen on the tune half: code and JSON-escaped text ran to fewer characters a token than the estimate,
    llama.cpp refused a 4,250-token request into 4,096 and the turn ended with that error."""
    from tui.protocol.errors import ContextOverflow

    server = OpenAIServer()
    try:
        server.replies = [Script(["warm"]), Script(fault="http400ctx_counts"), Script(["It adds two numbers."])]
        session, events = await _open(repo, backend="openai", host=server.url)
        try:
            await session.connect()
            await _settled(session)  # the warm-up takes the first reply, whenever it starts
            done = await session.run_turn("what does app.py do?")
        finally:
            await session.close()
    finally:
        server.stop()
    assert done.reason == "complete" and done.text == "It adds two numbers."
    notes = [e.text for e in events if e.type == "detail"]  # devagent's own bookkeeping, off the conversation
    assert any("the request was longer than estimated (4250 tokens" in n for n in notes)
    assert not [e for e in events if e.type == "error"], "recovered: no error shown"
    err = ContextOverflow("x", sent=4250, size=4096)
    assert (err.sent, err.size, err.retryable) == (4250, 4096, False)
