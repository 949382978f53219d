"""The loop: model -> tool calls -> approvals -> results, until the model answers.

Everything state-changing is a Proposal that passes the Policy and the Approver before
its tool's ``execute`` runs. Model output is data: nothing it says can approve or skip.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

from tui.core import context
from tui.core.approval import Approver, Decision, Proposal
from tui.core.config import Config
from tui.core.errors import DevagentError, ModelError, ToolError
from tui.core.events import (ContextUsage, DecisionMade, Emit, ErrorEvent, Notice, ProposalCreated, Retrying,
                             ServerStatus, TextDelta, TextDone, ToolCallFinished, ToolCallStarted, TurnDone,
                             TurnStarted)
from tui.core.llm.base import Backend, ModelInfo, ToolCall
from tui.core.tools.base import ToolContext, ToolResult, ToolSpec
from tui.core.tools.common import CHARS_PER_TOKEN, bound

ANSWER = "answer"  # pseudo-tool offered in constrained mode so the model can finish
ANSWER_SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


class StopTurn(Exception):
    """The developer chose to stop (q in headless, the stop decision)."""


def constrained_schema(tools: dict[str, ToolSpec]) -> dict[str, Any]:
    """JSON schema for Ollama's ``format``: a tool name from the list and an arguments object."""
    return {
        "type": "object",
        "properties": {
            "name": {"type": "string", "enum": [*tools, ANSWER]},
            "arguments": {"type": "object"},
        },
        "required": ["name", "arguments"],
    }


def _call_key(call: ToolCall) -> str:
    return call.name + json.dumps(call.arguments, sort_keys=True, default=str)


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


def _fmt_args(args: dict[str, Any]) -> str:
    parts = []
    for key, value in args.items():
        text = value if isinstance(value, str) else json.dumps(value)
        text = text.replace("\n", "⏎")
        parts.append(f"{key}={text[:60]}{'…' if len(text) > 60 else ''}")
    return ", ".join(parts)


class Agent:
    def __init__(self, *, backend: Backend, info: ModelInfo, tools: dict[str, ToolSpec], approver: Approver,
                 policy: Any, ctx: ToolContext, store: Any, session_id: str, config: Config, emit: Emit,
                 messages: list[dict[str, Any]]) -> None:
        self.backend, self.info, self.tools, self.approver = backend, info, tools, approver
        self.policy, self.ctx, self.store, self.session_id = policy, ctx, store, session_id
        self.config, self.emit, self.messages = config, emit, messages
        self.turns = sum(1 for m in messages if m.get("role") == "user" and not m.get("_tool"))
        self.prompt = ""
        self.native_tools = info.supports_tools and getattr(config.model, "native_tools", "auto") != "off" and (
            getattr(config.model, "native_tools", "auto") == "on" or getattr(backend, "name", "ollama") != "embedded")
        self.limit = context.window(info.context_length, config.model.context, config.model.max_context)

    # -- conversation ---------------------------------------------------------------------------
    def _append(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self.store.add_message(self.session_id, message)

    def _tool_message(self, call: ToolCall, text: str) -> dict[str, Any]:
        if call.source == "native":
            return {"role": "tool", "content": text, "tool_name": call.name, "_tool": True}
        # Small models forget the request and keep calling tools: restate it and say how to finish.
        nudge = (f"\n\n(The developer asked: {_short(self.prompt)} If that is done or you can answer now, reply "
                 "in plain text without JSON. Otherwise reply with one JSON tool call.)")
        return {"role": "user", "_tool": True,
                "content": f"Result of {call.name}({_fmt_args(call.arguments)}):\n{text}{nudge}"}

    # -- one turn -------------------------------------------------------------------------------
    async def run_turn(self, prompt: str) -> TurnDone:
        self.turns += 1
        self.prompt = prompt
        self.emit(TurnStarted(turn=self.turns, prompt=prompt))
        self._append({"role": "user", "content": prompt})
        try:
            done = await self._loop()
        except asyncio.CancelledError:
            done = TurnDone("cancelled")
            self.emit(done)
            raise
        except StopTurn:
            done = TurnDone("stopped")
        except ModelError as err:
            self.emit(ErrorEvent(err.message, err.hint, err.retryable, source="model"))
            done = TurnDone("error")
        self.emit(done)
        return done

    async def _loop(self) -> TurnDone:
        cfg = self.config.model
        seen: set[str] = set()  # calls already made since the working tree last changed
        bad_calls = 0
        constrained = False
        text = ""
        for _step in range(cfg.max_steps):
            text, native = await self._complete(offer_tools=True, constrained=constrained)
            calls, errors = self._calls_from(text, native, constrained)
            constrained = False
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if native:
                message["tool_calls"] = [{"function": {"name": c.name, "arguments": c.arguments}} for c in native]
            self._append(message)
            if calls and calls[0].name == ANSWER:
                answer = str(calls[0].arguments.get("text") or calls[0].arguments.get("answer") or "")
                if answer:
                    self.emit(TextDelta(answer))
                    self.emit(TextDone(answer))
                return TurnDone("complete", answer)
            if not calls:
                if errors and bad_calls < cfg.max_tool_retries:
                    bad_calls += 1
                    names = ", ".join(self.tools)
                    feedback = ("Your tool call could not be used: " + "; ".join(errors) +
                                f'\nReply with ONLY one JSON object {{"name": ..., "arguments": {{...}}}} using one of: {names}.')
                    self.emit(Notice(f"malformed tool call ({'; '.join(errors)}); asking the model again", "warning"))
                    self._append({"role": "user", "content": feedback, "_tool": True})
                    constrained = True
                    continue
                return TurnDone("complete", text)
            for call in calls:
                key = _call_key(call)
                if key in seen:  # the same call again, and nothing changed since: a loop (also A, B, A, B)
                    self.emit(Notice(f"the model repeated {call.name}; asking for its answer", "warning"))
                    return await self._final_answer(call.name)
                seen.add(key)
                if await self._handle(call):
                    seen.clear()  # the working tree changed: earlier results may be stale now
        self.emit(Notice(f"stopped after {cfg.max_steps} model steps (model.max_steps)", "warning"))
        return TurnDone("limit", text)

    async def _final_answer(self, repeated: str) -> TurnDone:
        """Constrained to a single answer string: a looping small model still ends with an answer."""
        self._append({"role": "user", "_tool": True, "content":
                      f"You already called {repeated} with these arguments and got the result above. Stop calling "
                      f"tools. The developer asked: {_short(self.prompt)} Answer now from what you have seen."})
        text, _ = await self._complete(offer_tools=False, constrained=True, fmt=ANSWER_SCHEMA)
        try:
            answer = str(json.loads(text).get("answer", "")).strip()
        except (ValueError, AttributeError):
            answer = text.strip()
        self._append({"role": "assistant", "content": answer})
        if answer:
            self.emit(TextDelta(answer))
            self.emit(TextDone(answer))
        return TurnDone("limit", answer)

    def _calls_from(self, text: str, native: list[ToolCall], constrained: bool) -> tuple[list[ToolCall], list[str]]:
        if native:
            return native, []
        from tui.core.llm.parse import extract_tool_calls

        names = set(self.tools) | ({ANSWER} if constrained else set())
        parsed = extract_tool_calls(text, names)
        calls = [ToolCall(c.name, c.arguments, c.id, "constrained" if constrained else c.source) for c in parsed.calls]
        errors = list(parsed.errors)
        bare = text.strip().strip("`").removeprefix("json").strip()
        if not calls and not errors and bare.startswith("{") and bare.endswith("}"):
            # A lone JSON object is never an answer: a small model half-remembering the call format.
            errors.append(f"{_short(bare, 120)} is not a tool call. To answer, reply in plain text")
        return calls, errors

    # -- the model ------------------------------------------------------------------------------
    async def _complete(self, *, offer_tools: bool, constrained: bool,
                        fmt: dict[str, Any] | None = None) -> tuple[str, list[ToolCall]]:
        cfg = self.config.model
        schemas = [t.schema() for t in self.tools.values()] if offer_tools and self.native_tools else None
        reserve = min(1024, self.limit // 4)
        messages, used, trimmed = context.fit(self.messages, self.limit, reserve, schemas)
        self.emit(ContextUsage(used=used, limit=self.limit, trimmed=trimmed))
        if trimmed:
            self.emit(Notice(f"trimmed {trimmed} old messages/tool outputs to fit the {self.limit}-token context"))
        if constrained and fmt is None:
            fmt = constrained_schema(self.tools)
        for attempt in range(cfg.retries + 1):
            parts: list[str] = []
            calls: list[ToolCall] = []
            try:
                stream = self.backend.stream_chat(context.wire(messages), schemas, format=fmt,
                                                  num_ctx=context.num_ctx_for(used, reserve, self.limit))
                async for chunk in stream:
                    if chunk.text:
                        parts.append(chunk.text)
                        if not constrained:
                            self.emit(TextDelta(chunk.text))
                    calls.extend(chunk.tool_calls)
            except ModelError as err:
                partial = "".join(parts)
                self.emit(ErrorEvent(err.message, err.hint, err.retryable, source="model"))
                if not err.retryable or attempt == cfg.retries:
                    if partial:
                        self._append({"role": "assistant", "content": partial + "\n[reply interrupted]"})
                    raise
                delay = 0.5 * (2 ** attempt)
                self.emit(ServerStatus("reconnecting", getattr(self.backend, "host", ""), self.info.name, err.message))
                self.emit(Retrying(attempt=attempt + 1, delay=delay, reason=err.message))
                await asyncio.sleep(delay)
                continue
            text = "".join(parts)
            if attempt:
                self.emit(ServerStatus("connected", getattr(self.backend, "host", ""), self.info.name))
            if text and not constrained:
                self.emit(TextDone(text))
            return text, calls
        raise AssertionError("unreachable")

    # -- tools ----------------------------------------------------------------------------------
    async def _handle(self, call: ToolCall) -> bool:
        """Run one call and record its result; True when it changed the working tree."""
        call_id = call.id or uuid.uuid4().hex[:8]
        self.emit(ToolCallStarted(call_id=call_id, name=call.name, arguments=call.arguments, source=call.source))
        spec = self.tools.get(call.name)
        if spec is None:
            result = ToolResult(False, f"unknown tool {call.name!r}; use one of: {', '.join(self.tools)}",
                                f"unknown tool {call.name}")
        else:
            result = await self.run_tool(spec, call, call_id)
        budget = self.config.limits.tool_output_tokens * CHARS_PER_TOKEN
        self.emit(ToolCallFinished(call_id=call_id, name=call.name, ok=result.ok, summary=result.summary,
                                   output=bound(result.output, 4000), diff=result.diff))
        body = result.output if result.ok else f"ERROR: {result.output}"
        if call.name != "read_file":
            body = bound(body, budget, "tool output")
        self._append(self._tool_message(call, body))
        return bool(result.ok and spec is not None and not spec.read_only and (result.diff or call.name in (
            "edit_file", "write_file", "scaffold")))

    async def run_tool(self, spec: ToolSpec, call: ToolCall, call_id: str) -> ToolResult:
        try:
            if spec.read_only:
                assert spec.run is not None
                return await spec.run(self.ctx, call.arguments)
            assert spec.propose is not None and spec.execute is not None
            proposal = await spec.propose(self.ctx, call.arguments)
            proposal.call_id = call_id
            decision = await self.decide(proposal)
            if not decision.approved:
                if decision.action == "stop":
                    raise StopTurn()
                why = f" Reason: {decision.reason}" if decision.reason else ""
                who = "the policy" if decision.by == "policy" else "the developer"
                return ToolResult(False, f"{who} rejected this {proposal.kind}.{why} Do not propose the same thing "
                                  "again; take the reason into account or ask the developer.", f"rejected{':' if why else ''}{why}")
            result = await spec.execute(self.ctx, proposal, decision)
            self.store.set_proposal(proposal.id, "done" if result.ok else "failed",
                                    result={"ok": result.ok, "summary": result.summary})
            return result
        except ToolError as err:
            return ToolResult(False, err.message, err.message.splitlines()[0][:120])
        except DevagentError as err:
            return ToolResult(False, str(err), err.message.splitlines()[0][:120])
        except (OSError, UnicodeError) as err:
            return ToolResult(False, f"{type(err).__name__}: {err}", f"failed: {err}")

    async def decide(self, proposal: Proposal) -> Decision:
        """Policy first (deny / allow / ask), then the approver. Recorded before and after."""
        self.policy.evaluate(proposal)
        self.store.put_proposal(self.session_id, proposal.to_dict())
        self.emit(ProposalCreated(proposal))
        if proposal.policy == "deny":
            decision = Decision("reject", reason=f"denied by policy ({proposal.rule})", by="policy")
        elif proposal.policy == "allow":
            decision = Decision("approve", by="policy")
        else:
            decision = await self.approver.decide(proposal)
            decided = proposal
            if decision.action == "edit" and decision.command and proposal.kind == "command":
                decided = Proposal.from_dict({**proposal.to_dict(), "command": decision.command})
                self.policy.evaluate(decided)
                if decided.policy == "deny":
                    decision = Decision("reject", reason=f"the edited command is denied by policy ({decided.rule})",
                                        by="policy")
            if decision.approved and decision.remember:
                rule = self.policy.remember(decided)
                if rule:
                    self.emit(Notice(f"approving similar commands for this session: {rule}"))
                else:
                    self.emit(Notice("this proposal cannot become a rule; similar ones will still ask", "warning"))
        status = "approved" if decision.approved else ("stopped" if decision.action == "stop" else "rejected")
        self.store.set_proposal(proposal.id, status, decision=decision.to_dict())
        self.emit(DecisionMade(id=proposal.id, decision=decision.action, reason=decision.reason, by=decision.by))
        return decision
