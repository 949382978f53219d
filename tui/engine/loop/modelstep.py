"""One model step: the reply streamed from the backend (with retries, cuts and the context fit), and the tool
calls read from it.

The loop (agent.py) decides what to do with a reply; this module only gets it. Nothing here runs a tool.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

from tui.engine import context
from tui.engine.context import instructions
from tui.engine.loop.repeatwatch import RepeatWatch
from tui.engine.loop.replywait import ReplyProgress
from tui.engine.loop.turnmsg import short as _short
from tui.llm.base import ToolCall
from tui.protocol.errors import ContextOverflow, ModelError
from tui.protocol.events import ContextUsage, Detail, ErrorEvent, Retrying, ServerStatus, TextDelta
from tui.safety.parsing import compile_check, loads_json
from tui.tools.base import ToolSpec

ANSWER = "answer"  # pseudo-tool offered in constrained mode so the model can finish
EDIT_TOOLS = ("edit_file", "edit_symbol", "write_file", "scaffold")  # run_python may answer a question by running code
REFITS = 2  # a request the server finds too long is fitted again this many times, each with a smaller estimate


def constrained_schema(tools: dict[str, ToolSpec], answer: bool = True) -> dict[str, Any]:
    """JSON schema for Ollama's ``format``: a tool name from the list (and the answer pseudo-call, unless
    ``answer`` is False) and an arguments object."""
    return {
        "type": "object",
        "properties": {
            "name": {"type": "string", "enum": [*tools, *([ANSWER] if answer else [])]},
            "arguments": {"type": "object"},
        },
        "required": ["name", "arguments"],
    }


async def _close(stream: Any) -> None:
    close = getattr(stream, "aclose", None)
    if close is not None:
        try:
            await close()
        except Exception:  # noqa: BLE001 - closing a stream we abandon must not fail the turn
            pass


def calls_from(tools: dict[str, ToolSpec], text: str, native: list[ToolCall], constrained: bool
               ) -> tuple[list[ToolCall], list[str], str]:
    """(calls, errors for the model, the text without the calls that were read from it)."""
    if native:
        return native, [], text
    from tui.llm.parse import extract_tool_calls

    names = set(tools) | ({ANSWER} if constrained else set())
    parsed = extract_tool_calls(text, names)
    calls = [ToolCall(c.name, c.arguments, c.id, "constrained" if constrained else c.source) for c in parsed.calls]
    errors = list(parsed.errors)
    bare = text.strip().strip("`").removeprefix("json").strip()
    if not calls and not errors and bare.startswith("{") and bare.endswith("}"):
        answer = json_answer(bare)
        if answer is not None:  # the done question's {"done": true, "answer": ...} shape, reused as the answer
            return [], [], answer
        # A lone JSON object is never an answer: a small model half-remembering the call format.
        errors.append(f"{_short(bare, 120)} is not a tool call. To answer, reply in plain text")
        return [], errors, ""  # nothing in it for the developer to read (the details keep it)
    shown = parsed.text if calls else parsed.prose if errors else text  # a broken call is not prose either
    imitated = _IMITATED.search(shown) if calls else None
    return calls, errors, shown[:imitated.start()].rstrip() if imitated else shown


# devagent's own result header in the model's text after its call: the model imitating the call's outcome (a
# whole "Result of edit_symbol(...):" and a diff, shown in the app as if the change had been made before the
# developer had approved it; seen in the browser screenshot of `devagent serve`). Never shown.
_IMITATED = re.compile(r"(?m)^[ \t]*Result of [a-z_]+\(")


def json_answer(text: str) -> str | None:
    """The answer in a lone ``{"done": true, "answer": "..."}`` (or ``{"answer": "..."}``) reply: after being asked
    the done question in that shape, a 1.5B model answers in it later too (dev set: told three times that it was
    "not a tool call", it went on editing and broke the file). None for anything else, and for done false."""
    try:
        value = loads_json(text, "the model's answer")
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("answer"), str) or not value["answer"].strip() \
            or set(value) - {"done", "answer"} or value.get("done", True) is not True:
        return None
    return value["answer"].strip()


async def complete(agent: Any, *, offer_tools: bool, constrained: bool, fmt: dict[str, Any] | None = None,
                   cut: re.Pattern[str] | None = None, deadline: float | None = None,
                   on_text: Any = None) -> tuple[str, list[ToolCall]]:
    """One model reply for ``agent`` (the loop: its messages, tools, backend, config, emit), streamed.
    ``cut``: stop reading as soon as the reply's start matches it; ``deadline`` (monotonic): stop reading then
    (one reply can otherwise take minutes on a CPU)."""
    emit = agent.emit
    schemas = [t.schema() for t in agent.tools.values()] if offer_tools and agent.native_tools else None
    reserve = min(1024, agent.limit // 4)
    if constrained and fmt is None:
        fmt = constrained_schema(agent.tools)
    for refit in range(REFITS + 1):
        scale = agent.token_scale  # real tokens per estimated token, learnt from the server's overflow errors
        messages, used, trimmed = agent.fitter.fit(agent.messages, int(agent.limit / scale), int(reserve / scale),
                                                   schemas)
        emit(ContextUsage(used=int(used * scale), limit=agent.limit, trimmed=trimmed,
                          parts=instructions.usage(messages)))
        if trimmed:
            emit(Detail(f"trimmed {trimmed} old messages/tool outputs to fit the {agent.limit}-token context"))
        try:
            return await _warm(agent, _reply(agent, messages, schemas, fmt, constrained, cut, deadline,
                                             int(used * scale), on_text))
        except ContextOverflow as err:
            if refit == REFITS:
                emit(ErrorEvent(err.message, err.hint, False, source="model"))
                raise
            # Code and JSON-escaped text run to fewer characters a token than the estimate assumes.
            seen = (err.sent / max(1, used * scale)) if err.sent else 1.0
            agent.token_scale = scale * max(1.15, seen * 1.05)
            emit(Detail(f"the request was longer than estimated ({err.sent or '?'} tokens for a {agent.limit}-token "
                        "context); fitting it again", "retry"))
    raise AssertionError("unreachable")


async def _warm(agent: Any, reply: Any) -> Any:
    """Await ``reply`` at the agent's one-request temperature (``agent.heat``, set when the model sent the same
    reply again), then go back to the configured one."""
    heat, backend = getattr(agent, "heat", None), agent.backend
    if heat is None or not hasattr(backend, "temperature"):
        return await reply
    agent.heat, cold = None, backend.temperature
    backend.temperature = heat
    try:
        return await reply
    finally:
        backend.temperature = cold


async def _reply(agent: Any, messages: list[dict[str, Any]], schemas: list[dict[str, Any]] | None,
                 fmt: dict[str, Any] | None, constrained: bool, cut: re.Pattern[str] | None,
                 deadline: float | None, estimate: int = 0, on_text: Any = None) -> tuple[str, list[ToolCall]]:
    """The streamed reply to ``messages``, retried with backoff on the failures worth retrying; its waits shown
    (reading the prompt of about ``estimate`` tokens, then writing: replywait.py). ``on_text``: a constrained
    reply's text as it streams (its answer part is shown as it comes)."""
    cfg = agent.config.model
    emit = agent.emit
    agent.looped = False
    host = getattr(agent.backend, "host", "")
    for attempt in range(cfg.retries + 1):
        parts: list[str] = []
        calls: list[ToolCall] = []
        try:
            stream = agent.backend.stream_chat(context.wire(messages), schemas, format=fmt,
                                               num_ctx=agent.limit)  # one size: a new num_ctx reloads the model
            watch = RepeatWatch()
            with ReplyProgress(emit, estimate) as waits:
                async for chunk in stream:
                    waits.chunk(chunk)
                    if chunk.text:
                        parts.append(chunk.text)
                        if not constrained:
                            emit(TextDelta(chunk.text))
                        elif on_text is not None:
                            on_text(chunk.text)
                    calls.extend(chunk.tool_calls)
                    if cut is not None and chunk.text and cut.search("".join(parts)[:400]):
                        await _close(stream)
                        break
                    if chunk.text and watch.looping(chunk.text):
                        agent.looped = True
                        await _close(stream)
                        emit(Detail("the model wrote the same text over and over; its reply was cut there", "retry"))
                        break
                    if deadline is not None and time.monotonic() > deadline:
                        await _close(stream)
                        emit(Detail("the model's reply ran past the time for this request; it was cut there", "retry"))
                        break
        except ContextOverflow:
            raise  # complete() fits the request again
        except ModelError as err:
            partial = "".join(parts)
            emit(ErrorEvent(err.message, err.hint, err.retryable, source="model"))
            if not err.retryable or attempt == cfg.retries:
                if partial:
                    agent._append({"role": "assistant", "content": partial + "\n[reply interrupted]"})
                raise
            delay = 0.5 * (2 ** attempt)
            emit(ServerStatus("reconnecting", host, agent.info.name, err.message))
            emit(Retrying(attempt=attempt + 1, delay=delay, reason=err.message))
            await asyncio.sleep(delay)
            continue
        if attempt:
            emit(ServerStatus("connected", host, agent.info.name))
        return "".join(parts), calls
    raise AssertionError("unreachable")


_CUT_RUN = re.compile(r'\{\s*"name"\s*:\s*"run_python"\s*,\s*"arguments"\s*:\s*\{\s*"code"\s*:\s*"((?:[^"\\]|\\.)*)')


def salvage_looped_run(text: str) -> str | None:
    """A run_python call whose code looped (``print(c.first_key())`` forty times) and was cut mid-string: the
    call with its code up to the last whole line and each run of repeated lines kept once, as complete JSON.
    Seen on the dev set: the run devagent asked for, to try a new method, was lost to the cut twice. None when
    the text is not such a call."""
    found = _CUT_RUN.search(text)
    if not found:
        return None
    raw = found.group(1)
    cut = raw.rfind("\\n")
    if cut <= 0:
        return None
    try:
        code = loads_json(f'"{raw[:cut]}"')
    except ValueError:
        return None
    kept: list[str] = []
    for line in code.split("\n"):
        if line.strip() and kept and line == kept[-1]:
            continue
        kept.append(line)
    code = "\n".join(kept).rstrip() + "\n"
    try:
        compile_check(code, "<run_python>")
    except (SyntaxError, ValueError):
        return None
    return json.dumps({"name": "run_python", "arguments": {"code": code}})
