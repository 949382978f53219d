"""The general loop: for requests no pipeline can do, the model calls tools one at a time until it answers.

Every reply is decoded under the JSON schema of the tool specs (loop/calls.py), so every call is well formed;
the answer is the ``answer`` pseudo-call, streamed to the screen as it is written. What used to be dozens of
countermeasures is the short list of rules in tui/engine/rules, asked at named points of the turn. Everything
state-changing passes the gate (policy, approver, checkpoint) before it runs; model output is data.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from typing import Any

from tui.config import Config
from tui.engine import context, rules
from tui.engine.context import instructions
from tui.engine.loop import modelstep
from tui.engine.loop.gate import Gate, StopTurn
from tui.engine.loop.calls import ANSWER, ANSWER_ONLY, AnswerStream, call_schema, parse_call
from tui.engine.pipelines.dispatch import pipelined
from tui.engine.rules import TurnState, Verdict
from tui.engine.loop.turnmsg import fmt_args, short
from tui.llm.base import Backend, ModelInfo, ToolCall
from tui.protocol.errors import ModelError
from tui.protocol.events import (Detail, Emit, ErrorEvent, Notice, TextDelta, TextDone, ToolCallFinished,
                                 ToolCallStarted, TurnDone, TurnStarted)
from tui.protocol.proposals import Approver, Decision, Proposal
from tui.tools.base import ToolContext, ToolResult, ToolSpec
from tui.tools.support.common import CHARS_PER_TOKEN, bound

FINAL_SECONDS = 90.0  # the forced answer's own deadline
FINAL_LEAST = 30.0  # ... but past the turn's time budget, the answer gets only this long


def call_key(name: str, arguments: dict[str, Any]) -> str:
    return name + json.dumps(arguments, sort_keys=True, default=str)


class Agent:
    def __init__(self, *, backend: Backend, info: ModelInfo, tools: dict[str, ToolSpec], approver: Approver,
                 policy: Any, ctx: ToolContext, store: Any, session_id: str, config: Config, emit: Emit,
                 messages: list[dict[str, Any]]) -> None:
        self.backend, self.info, self.tools, self.approver = backend, info, tools, approver
        self.policy, self.ctx, self.store, self.session_id = policy, ctx, store, session_id
        self.config, self.emit, self.messages = config, emit, messages
        self.turns = sum(1 for m in messages if m.get("role") == "user" and not m.get("_tool"))
        self.prompt = ""
        self.looped = False  # modelstep: the last reply was cut because it repeated itself
        self.heat: float | None = None  # modelstep: the temperature of the next request only
        self.native_tools = False  # every reply is a constrained JSON call; native tool calls are not offered
        self.limit = context.window(info.context_length, config.model.context, config.model.max_context)
        self.fitter = context.Fitter()  # repeats what earlier requests sent, so the server's cache serves it
        self.token_scale = 1.0  # real tokens per estimated token (modelstep raises it when the server overflows)
        self.gate = Gate(policy=policy, approver=approver, store=store, session_id=session_id, ctx=ctx, emit=emit)
        from tui.engine.pipelines.job import Memory

        self.memory = Memory()  # what the session remembers across turns: checks approved, rejected changes
        self.pipeline_hint = ""  # what a pipeline found before this loop took over
        self.turn_kind = ""  # the request's kind, when the pipelines' classifier decided one
        self.turn_started = time.monotonic()  # the current turn's start: model.turn_seconds counts from here
        self.last_result: ToolResult | None = None
        self.rules: list[rules.Rule] = []

    # -- conversation -------------------------------------------------------------------------------------
    def _append(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self.store.add_message(self.session_id, message)

    def _tell(self, text: str, detail: str = "") -> None:
        """Something for the model only: a message in its context and a line in the turn's details."""
        self.emit(Detail(f"{detail or 'devagent to the model'}:\n{text}", "model-note"))
        self._append({"role": "user", "_tool": True, "_said": True, "content": text})

    # -- one turn -----------------------------------------------------------------------------------------
    async def run_turn(self, prompt: str, verify: bool = True) -> TurnDone:
        """One request. ``verify=False``: the caller checks the change itself (the fix loop reruns the tests)."""
        self.turns += 1
        self.turn_started = time.monotonic()
        self.prompt = prompt
        self.ctx.turn_start.clear()
        self.ctx.extras["request"] = prompt
        self.emit(TurnStarted(turn=self.turns, prompt=prompt))
        self._append({"role": "user", "content": prompt})
        try:
            self.turn_kind = ""
            handled = await pipelined(self, prompt) if verify else None
            if handled is not None:
                self.emit(handled)
                return handled
            done = await self._loop(prompt)
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

    async def _loop(self, prompt: str) -> TurnDone:
        from tui.engine.pipelines.facts import gather
        from tui.engine.work.index import RepoIndex

        index = await asyncio.to_thread(RepoIndex.build, self.ctx.repo)
        facts = gather(prompt, index)
        turn = TurnState(prompt, kind=self.turn_kind, question=facts.question, started=self.turn_started,
                         names_code=bool(facts.files or facts.dirs or [n for n in facts.symbols if n.strong]))
        self.rules = rules.make_rules(self.config, self.memory)
        for rule in self.rules:
            rule.reset()
        turn.looked = await self._ground(prompt, facts, index.files)
        cut_told = False
        while True:
            calls = await self._reply(deadline=self._turn_deadline())  # a reply still streaming then is cut
            turn.steps += 1
            verdict = rules.ask(self.rules, "after_reply", turn)
            if calls is None:
                if cut_told or verdict.do == "answer":
                    return await self._final(turn, verdict)
                cut_told = True
                self._tell("Your reply was cut off before it ended. Reply with one shorter JSON call.", "a reply "
                           "was cut off")
                continue
            for name, args in calls:
                if name == ANSWER:
                    done = self._at_end(turn, str(args.get("text") or ""))
                    if done is not None:
                        return done
                    break
                if verdict.do == "answer":
                    return await self._final(turn, verdict)
                outcome = await self._call(turn, name, args)
                if outcome is not None:
                    return await self._final(turn, outcome)

    async def _ground(self, prompt: str, facts: Any, files: list[str]) -> bool:
        """The request-ranked repo map, the project's instructions and what a pipeline found, after the prompt
        (``files``: the repository's files, tracked and untracked, that git does not ignore)."""
        from tui.engine.context.grounding import HEADER, map_budget, project_instructions, repo_map_for

        parts = []
        if self.pipeline_hint:
            parts.append(f"What devagent found for this request:\n{self.pipeline_hint}")
        repo_map = await asyncio.to_thread(repo_map_for, self.ctx.repo, prompt, map_budget(self.limit)) if files else ""
        if repo_map.strip():
            parts.append(HEADER + "\n" + repo_map.strip())
        text = await asyncio.to_thread(project_instructions, self.ctx.repo, prompt, files, self.limit,
                                       self.config.limits.instructions_tokens)
        if text:
            parts.append(text)
        if parts:
            self._append({"role": "user", "_tool": True, "_grounding": True, "content": "\n\n".join(parts)})
        return await self._read_named(prompt, files, facts)

    async def _read_named(self, prompt: str, files: list[str], facts: Any) -> bool:
        """The files the prompt names, read up front as devagent's own read_file (or, too long to read whole, outline)
        calls the developer sees, within a third of the context (model.read_mentioned files at most); then the
        code of up to two definitions it names in files not read whole. Whether anything was shown."""
        from tui.engine.context.mentions import mentioned

        budget, per_file = self.limit // 3, self.config.limits.file_tokens
        read: set[str] = set()
        for path in mentioned(prompt, files, self.config.model.read_mentioned):
            try:
                size = (self.ctx.repo / path).stat().st_size
            except OSError:
                continue
            name, cost = "read_file", min(size // CHARS_PER_TOKEN, per_file) + 40
            if size // CHARS_PER_TOKEN > per_file and path.endswith((".py", ".js", ".ts", ".mjs", ".cjs", ".tsx")):
                name, cost = "outline", 400
            if cost > budget or name not in self.tools:
                continue
            budget -= cost
            await self._own_call(name, {"path": path})
            read.add(path) if name == "read_file" else None
        shown = bool(read)
        for named in [n for n in facts.symbols if n.strong][:2]:
            d = named.definitions[0]
            if d.path in read or "outline" not in self.tools or budget < 400:
                continue
            budget -= 400
            await self._own_call("outline", {"path": d.path, "symbol": d.symbol.qualname})
            shown = True
        return shown

    async def _own_call(self, name: str, args: dict[str, Any]) -> None:
        """A read devagent makes for the model, shown as its call and result like the model's own."""
        self._append({"role": "assistant", "content": json.dumps({"name": name, "arguments": args})})
        await self._handle(ToolCall(name, args, uuid.uuid4().hex[:8], "auto"))

    async def _reply(self, schema: dict[str, Any] | None = None, deadline: float | None = None
                     ) -> list[tuple[str, dict[str, Any]]] | None:
        """One constrained reply: its calls [(name, arguments)], None when it was cut short. The answer streams
        as it comes. A server that does not honour the schema may send native calls (used as they are) or plain
        text (the answer)."""
        stream = AnswerStream(lambda piece: self.emit(TextDelta(piece)))
        text, native = await modelstep.complete(self, offer_tools=False, constrained=True,
                                                fmt=schema or call_schema(self.tools), deadline=deadline,
                                                on_text=stream.feed)
        self._append({"role": "assistant", "content": text or json.dumps(
            [{"name": c.name, "arguments": c.arguments} for c in native])})
        if native:
            return [(c.name, c.arguments) for c in native]
        call = parse_call(text)
        if call is None:  # cut off at the limit, or the schema was not honoured (prose, calls written into it)
            return self._prose(text, stream.shown)
        if call[0] == ANSWER:
            if not stream.shown:
                self.emit(TextDelta(str(call[1].get("text") or "")))
            self.emit(TextDone(str(call[1].get("text") or "")))
        return [call]

    def _prose(self, text: str, streamed: str) -> list[tuple[str, dict[str, Any]]] | None:
        """A reply from a server that ignored the schema: the calls written into it (tui/llm/parse.py reads JSON,
        fenced and near-miss forms), else the prose is the answer."""
        calls, _errors, shown = modelstep.calls_from(self.tools, text, [], False)
        if not calls and text.lstrip().startswith("{"):
            self.emit(Detail(text, "raw-call"))
            return None  # a JSON call cut short
        if not streamed:
            self.emit(TextDelta(text))
        self.emit(TextDone(text, shown))
        if shown != text:
            self.emit(Detail(text, "raw-call"))
        if calls:
            return [(c.name, c.arguments) for c in calls]
        return [(ANSWER, {"text": shown})]

    def _at_end(self, turn: TurnState, answer: str) -> TurnDone | None:
        verdict = rules.ask(self.rules, "at_end", turn, answer=answer)
        if verdict.do == "say":
            self._tell(verdict.text, verdict.detail)
            return None
        if verdict.do == "note":
            self.emit(Detail(verdict.detail, "model-note"))
            self.emit(Notice(verdict.text, "warning"))
        return TurnDone("complete", answer)

    async def _call(self, turn: TurnState, name: str, args: dict[str, Any]) -> Verdict | None:
        """Run one call through the rules and the gate; a verdict when the turn must now end with an answer."""
        key = call_key(name, args)
        verdict = rules.ask(self.rules, "before_call", turn, name=name, key=key, args=args)
        if verdict.do == "answer":
            return verdict
        if verdict.do == "refuse":
            self._tell(verdict.text, verdict.detail)
            return None
        result, changed = await self._handle(ToolCall(name, args, uuid.uuid4().hex[:8], "constrained"))
        turn.calls.append((name, key))
        spec = self.tools.get(name)
        if changed:
            turn.since_change.clear()
            turn.changes.append(result.diff)
            turn.failed_change = ""
        else:
            turn.since_change.add(key)
        if spec is not None and (spec.read_only or name in ("run_python", "run_command", "run_tests")):
            turn.looked = True
        if not result.ok:
            if result.summary.startswith("rejected") and self.memory is not None:
                self.memory.rejected_calls[key] = result.summary.partition(":")[2].strip()
            elif spec is not None and not spec.read_only:
                turn.failed_change = short(result.output, 160)
        verdict = rules.ask(self.rules, "after_result", turn, name=name, result=result)
        if verdict.do == "say":
            self._tell(verdict.text, verdict.detail)
        return verdict if verdict.do == "answer" else None

    def _turn_deadline(self) -> float | None:
        """When the turn's time budget (model.turn_seconds, from the turn's start) ends; None without one."""
        seconds = self.config.model.turn_seconds
        return self.turn_started + seconds if seconds and seconds > 0 else None

    async def _final(self, turn: TurnState, why: Verdict) -> TurnDone:
        """No more calls: the answer, decoded under the answer-only schema, within its own deadline."""
        if why.detail:
            self.emit(Detail(f"{why.detail}; asking for the answer", "model-note"))
        self._tell(f"No more tool calls. The developer asked: {short(self.prompt)} Answer now, in one or two "
                   "sentences, from what you have seen: what you found or changed, and plainly what you could not do.")
        ends = self._turn_deadline()
        left = FINAL_SECONDS if ends is None else max(FINAL_LEAST, ends - time.monotonic())
        reply = await self._reply(ANSWER_ONLY, deadline=time.monotonic() + min(FINAL_SECONDS, left))
        answer = next((str(a.get("text") or "").strip() for n, a in reply or [] if n == ANSWER), "")
        if not answer:
            answer = "The model gave no answer."
            self.emit(TextDelta(answer))
            self.emit(TextDone(answer))
        verdict = rules.ask([r for r in self.rules if r.name == "claims"], "at_end", turn, answer=answer)
        if verdict.do != "pass":
            self.emit(Notice("No file was changed." if not turn.changes else
                             f"This request changed {len(turn.changes)} file(s); its last change did not happen.",
                             "warning"))
        return TurnDone("limit", answer)

    # -- tools --------------------------------------------------------------------------------------------
    async def _handle(self, call: ToolCall) -> tuple[ToolResult, bool]:
        """Run one call and record its result; (the result, whether it changed the working tree)."""
        spec = self.tools.get(call.name)
        self.emit(ToolCallStarted(call_id=call.id, name=call.name, arguments=call.arguments, source=call.source))
        if spec is None:
            result = ToolResult(False, f"unknown tool {call.name!r}; use one of: {', '.join(self.tools)}",
                                f"unknown tool {call.name}")
        else:
            result = await self.run_tool(spec, call, call.id)
        self.last_result = result
        self.emit(ToolCallFinished(call_id=call.id, name=call.name, ok=result.ok, summary=result.summary,
                                   output=bound(result.output, 4000), diff=result.diff))
        changed = bool(result.ok and spec is not None and not spec.read_only and (
            result.diff or call.name in ("edit_file", "edit_symbol", "write_file", "scaffold", "refactor")))
        body = result.output if result.ok else f"ERROR: {result.output}"
        if call.name != "read_file":
            body = bound(body, self.config.limits.tool_output_tokens * CHARS_PER_TOKEN, "tool output")
        if result.ok and call.name in ("read_file", "edit_file", "write_file"):
            body += self._instructions_for(str(call.arguments.get("path") or ""))
        done = "That change is applied. " if changed else ""
        self._append({"role": "user", "_tool": True, "content": (
            f"Result of {call.name}({fmt_args(call.arguments)}):\n{body}\n\n({done}The developer asked: "
            f"{short(self.prompt)} Reply with the next call, or with the answer call when you can answer.)")})
        return result, changed

    def _instructions_for(self, path: str) -> str:
        """A file the turn reads or edits has an AGENTS.md this turn was not given: it comes with the result."""
        last = max((i for i, m in enumerate(self.messages) if m.get("role") == "user" and not m.get("_tool")),
                   default=0)
        return instructions.for_file(self.ctx.repo, path, self.messages[last:],
                                     instructions.budget(self.config.limits.instructions_tokens, self.limit))

    async def run_tool(self, spec: ToolSpec, call: ToolCall, call_id: str) -> ToolResult:
        return await self.gate.run(spec, call, call_id)

    async def decide(self, proposal: Proposal) -> Decision:
        return await self.gate.decide(proposal)
