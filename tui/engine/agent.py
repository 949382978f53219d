"""The loop: model -> tool calls -> approvals -> results, until the model answers.

Everything state-changing is a Proposal that passes the gate (gate.py: Policy, Approver, execute,
record) before its tool's ``execute`` runs. Model output is data: nothing it says can approve or skip.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from typing import Any

from tui.engine import context, instructions
from tui.protocol.proposals import Approver, Decision, Proposal
from tui.config import Config
from tui.protocol.errors import ModelError
from tui.protocol.events import (Detail, Emit, ErrorEvent, Notice, TextDelta, TextDone, ToolCallFinished,
                                 ToolCallStarted, TurnDone, TurnStarted)
from tui.engine import checks, modelstep, preflight, targets, testedits
from tui.engine.modelstep import ANSWER, EDIT_TOOLS
from tui.engine.coach import (REHEATS, about_the_code, cut_result_echo, echoes, guessed_path, look_first, looked,
                              reheat)
from tui.engine.retyped import retyped_data
from tui.engine.agent_words import is_question, keeps_tests
from tui.engine.turnmsg import answer_of as _answer_of, assistant as _assistant, fmt_args as _fmt_args, short as _short
from tui.engine.gate import Gate, StopTurn
from tui.llm.base import Backend, ModelInfo, ToolCall
from tui.tools.base import ToolContext, ToolResult, ToolSpec
from tui.tools.support.common import CHARS_PER_TOKEN, bound
from tui.engine.turnstate import Turn as _Turn
from tui.engine.verify import is_test
from tui.engine.pipelines.dispatch import pipelined

CHANGE_TOOLS = ("edit_file", "edit_symbol", "write_file", "run_python", "scaffold")
MAX_TEST_EDITS = 2  # refused edits of the tests the developer said to keep, before the turn asks for the answer
EDIT_CALL = re.compile(r'"name"\s*:\s*"(?:' + "|".join(EDIT_TOOLS) + r')"')


def _call_key(call: ToolCall) -> str:
    return call.name + json.dumps(call.arguments, sort_keys=True, default=str)


class Agent:
    def __init__(self, *, backend: Backend, info: ModelInfo, tools: dict[str, ToolSpec], approver: Approver,
                 policy: Any, ctx: ToolContext, store: Any, session_id: str, config: Config, emit: Emit,
                 messages: list[dict[str, Any]]) -> None:
        self.backend, self.info, self.tools, self.approver = backend, info, tools, approver
        self.policy, self.ctx, self.store, self.session_id = policy, ctx, store, session_id
        self.config, self.emit, self.messages = config, emit, messages
        self.turns = sum(1 for m in messages if m.get("role") == "user" and not m.get("_tool"))
        self.prompt = ""
        self.verifying = True
        self.looped = False  # the last reply was cut because it repeated itself
        self._reads = set()
        self.last_result: ToolResult | None = None
        self.turn: _Turn | None = None
        self.heat: float | None = None  # the temperature of the next request only (coach.reheat)
        native = config.model.native_tools
        self.native_tools = info.supports_tools and native != "off" and (
            native == "on" or getattr(backend, "name", "ollama") != "embedded")
        self.limit = context.window(info.context_length, config.model.context, config.model.max_context)
        self.fitter = context.Fitter()  # repeats what earlier requests sent, so the server's cache serves it
        self.token_scale = 1.0  # real tokens per estimated token (modelstep raises it when the server overflows)
        self._failing: list[str] = []  # tests that failed when the turn started (preflight.run_failing)
        self._hints = ""  # what the grounding found for this request (preflight.ground), said again when it drifts
        self._suspects = ""  # the turn's latest pointer from a failing test to the code it calls (checks.suspects)
        self.gate = Gate(policy=policy, approver=approver, store=store, session_id=session_id, ctx=ctx, emit=emit)
        self.memory: Any = None  # what the pipelines remember across turns (pipelines/job.py: Memory)
        self.pipeline_hint = ""  # what a pipeline found before the general loop took over

    # -- conversation ---------------------------------------------------------------------------
    def _append(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self.store.add_message(self.session_id, message)

    def _tool_message(self, call: ToolCall, text: str, changed: bool = False) -> dict[str, Any]:
        if call.source == "native" or (call.source == "auto" and self.native_tools):
            return {"role": "tool", "content": text, "tool_name": call.name, "_tool": True}
        if call.source == "verify":  # devagent's own check: what follows it is said by _verify
            return {"role": "user", "_tool": True, "content": f"Result of {call.name}({_fmt_args(call.arguments)}):\n{text}"}
        # Small models forget the request and keep calling tools: restate it and say how to finish.
        if changed and self.last_result and self.last_result.data.get("problems"):
            nudge = (f"\n\n(The developer asked: {_short(self.prompt)} The change is applied but has the problems "
                     "listed above: fix them now with one JSON tool call.)")
        else:
            done = "That change is applied now. If nothing else is needed" if changed else \
                "If that is done or you can answer now"
            nudge = (f"\n\n(The developer asked: {_short(self.prompt)} {done}, reply in plain text without JSON. "
                     "Otherwise reply with one JSON tool call.)")
        return {"role": "user", "_tool": True,
                "content": f"Result of {call.name}({_fmt_args(call.arguments)}):\n{text}{nudge}"}

    # -- one turn -------------------------------------------------------------------------------
    async def run_turn(self, prompt: str, verify: bool = True) -> TurnDone:
        """One request. ``verify=False`` when the caller checks the change itself (the fix loop reruns the tests)."""
        self.turns += 1
        self.prompt = prompt
        self.verifying = verify
        self._reads: set[str] = set()  # files read and definitions outlined in this turn
        self._suspects = ""
        self.gate.new_turn()
        self.ctx.extras["request"] = prompt  # read_file shows the parts of a long file the request names
        self.turn = _Turn()  # devagent's own reads before the first step count for it too
        self.emit(TurnStarted(turn=self.turns, prompt=prompt))
        self._append({"role": "user", "content": prompt})
        try:
            handled = await pipelined(self, prompt) if verify else None
            if handled is not None:
                self.emit(handled)
                return handled
            await preflight.ground(self, prompt)
            await preflight.read_mentioned(self, prompt)
            await preflight.show_named(self, prompt)
            await preflight.run_failing(self, prompt)
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
        turn = self.turn = self.turn or _Turn()
        constrained = False
        text = ""
        started = time.monotonic()
        deadline = started + cfg.turn_seconds if cfg.turn_seconds else None
        always = cfg.constrain == "always"  # every reply a JSON call (or the answer pseudo-call), by grammar
        for _step in range(cfg.max_steps):
            constrained = constrained or always
            if deadline is not None and time.monotonic() > deadline:
                self.emit(Notice(f"this request took over {cfg.turn_seconds:.0f} s (model.turn_seconds); "
                                 "asking the model for its answer", "warning"))
                return await checks.final_answer(self, turn)
            sniff = EDIT_CALL if is_question(self.prompt) else None
            look = modelstep.constrained_schema({k: v for k, v in self.tools.items() if k not in EDIT_TOOLS},
                                                answer=False) if turn.force_look else None
            turn.force_look = False
            text, native = await self._complete(offer_tools=True, constrained=constrained or look is not None,
                                                fmt=look, cut=sniff, deadline=deadline)
            if deadline is not None and time.monotonic() > deadline:  # cut mid-reply: what was written is moot
                if text and not constrained:
                    self.emit(TextDone(text, ""))
                continue
            if reheat(turn, text, native, cfg.reheat):  # the reply it sent before: at temperature 0 it stays so
                if text and not constrained:
                    self.emit(TextDone(text, ""))
                self.heat = REHEATS[turn.reheats - 1]
                self.emit(Detail("the model sent the same reply again; asking once more, less predictably", "retry"))
                continue
            salvaged = modelstep.salvage_looped_run(text) if self.looped else None
            if salvaged:  # a run_python call whose code looped: its lines up to the loop are still worth running
                self.emit(Detail("the model's run_python code repeated itself; running it with each repeat once"))
                text, native, self.looped = salvaged, [], False
            if self.looped:  # a reply cut in a loop is neither an answer nor a call: once, ask again; then stop
                if text and not constrained:
                    self.emit(TextDone(text, ""))
                if turn.looped:
                    return await checks.final_answer(self, turn)
                turn.looped = True
                self._ask_again("the model's reply looped", (
                    f"You wrote the same text over and over. The developer asked: {_short(self.prompt)} Reply with "
                    "one JSON tool call, or answer in one or two plain sentences."))
                constrained = True
                continue
            if sniff is not None and sniff.search(text[:400]):
                if not constrained:  # the streamed start of the cut call ends as a reply; its call is not shown
                    self.emit(TextDone(text, text[:text.find("{")] if "{" in text else ""))
                self._append(_assistant(text, []))
                if turn.asked_question:  # told once already: a question never ends in a change
                    self.emit(Detail("the model proposed an edit for a question again; asking for its answer", "retry"))
                    return await checks.final_answer(self, turn)
                checks.remind_question(self, turn, text.split('"name"', 1)[-1][:40])
                constrained = True
                continue
            calls, errors, shown = self._calls_from(text, native, constrained)
            if text and not constrained:  # streamed: front ends show ``shown``, the calls as their own lines
                self.emit(TextDone(text, shown))
            if text.strip() and shown.strip() != text.strip():  # the reply as written, raw calls and all
                self.emit(Detail(text, "raw-call"))
            if not calls and not errors and shown != text:
                text = shown  # an answer written as {"done": true, "answer": ...}: its answer is the reply
            message = _assistant(text, native)
            self._append(message)
            if turn.scratch and (calls or not errors):
                self._forget(turn.scratch)  # the model recovered: its malformed reply would only mislead it
            if calls and calls[0].name == ANSWER:
                answer = _answer_of(calls[0].arguments)
                if not always:
                    return self._answered(answer, "complete")
                text, calls, errors = answer, [], []  # the answer goes through the checks a plain one does
            if not calls and not errors and not turn.look_told and is_question(self.prompt) and \
                    not looked(turn, self.messages) and not echoes(text, self.messages) and \
                    await asyncio.to_thread(about_the_code, self.ctx.repo, self.prompt):
                turn.look_told = turn.force_look = True  # answered from memory: look at the repository first, once
                self._ask_again("the model answered without looking at the code", look_first(self.prompt))
                continue
            if not calls:
                if errors and turn.bad_calls < cfg.max_tool_retries:
                    turn.bad_calls += 1
                    names = ", ".join(self.tools)
                    self._ask_again(f"malformed tool call ({'; '.join(errors)})",
                                    "Your tool call could not be used: " + "; ".join(errors) +
                                    f'\nReply with ONLY one JSON object {{"name": ..., "arguments": {{...}}}} '
                                    f"using one of: {names}.")
                    turn.scratch += [message, self.messages[-1]]
                    constrained = True
                    continue
                if echoes(text, self.messages):  # it repeated devagent's instruction instead of answering
                    if turn.echoed:  # twice: an echo is never the answer; the constrained one-line answer is
                        self.emit(Detail("the model repeated devagent's instruction again; asking for its answer"))
                        return await checks.final_answer(self, turn)
                    turn.echoed = True
                    self._ask_again("the model repeated devagent's instruction instead of answering", (
                        f"That repeats my instruction. The developer asked: {_short(self.prompt)} Give the answer "
                        "itself now (the facts, numbers and names), or make one JSON tool call (to find it out, or for the "
                        "change)."))
                    constrained = True
                    continue
                if turn.problems and not turn.problems_told:  # "added it" over a change that cannot work
                    turn.problems_told = True
                    self._ask_again("the change still has the problems the static check found", checks.problems_left(
                        self, turn.problems))
                    constrained = True
                    continue
                why = "" if turn.pushed_back else checks.unfinished(turn.failed_change, text, turn.changed,
                                                                             is_question(self.prompt))
                if not why:
                    if await checks.untouched(self, turn) or checks.no_new_test(self, turn):
                        constrained = True
                        continue
                    if await checks.check_change(self, turn):
                        constrained = False
                        continue
                    done = self._answered(text, "complete") if constrained else TurnDone("complete", text)  # shown
                    checks.outcome(self, turn, text, told=turn.pushed_back)  # still claiming what did not happen
                    return done
                turn.pushed_back = True  # "I have added it" when nothing changed: one push back, then it stands
                self._ask_again(why, f"{why[0].upper()}{why[1:]}. The developer asked: {_short(self.prompt)} If "
                                "that needs a change, make it now with one JSON tool call (read the file first if "
                                "you need its exact text). Otherwise answer in plain text, and say plainly what "
                                "you could not do.")
                constrained = True
                continue
            outcome = await self._run_calls(calls, turn)
            if isinstance(outcome, TurnDone):
                return outcome
            constrained = outcome
        self.emit(Notice(f"stopped after {cfg.max_steps} model steps (model.max_steps); asking for its answer",
                         "warning"))
        return await checks.final_answer(self, turn)

    def _checks_done(self, call: ToolCall) -> bool:
        setting = self.config.model.check_done
        if self.last_result and self.last_result.data.get("problems"):
            return False  # the edit broke something the result names: the model should fix that first
        return setting == "on" or (setting == "auto" and call.source != "native")

    def _forget(self, scratch: list[dict[str, Any]]) -> None:
        """Drop these messages from what the model is sent (the store keeps them: the transcript is whole)."""
        self.messages[:] = [m for m in self.messages if not any(m is s for s in scratch)]
        scratch.clear()

    def _ask_again(self, notice: str, message: str) -> None:
        self.emit(Detail(f"{notice}; asking the model again:\n{message}", "retry"))
        self._append({"role": "user", "content": message, "_tool": True, "_said": True})

    async def _run_calls(self, calls: list[ToolCall], turn: "_Turn") -> "TurnDone | bool":
        """Run the calls; a TurnDone when a loop ends the turn, else whether the next reply is constrained."""
        for call in calls:
            key = _call_key(call)
            if call.name in EDIT_TOOLS and is_question(self.prompt):
                if turn.asked_question:  # told once already: a question never ends in a change
                    self.emit(Detail("the model proposed an edit for a question again; asking for its answer", "retry"))
                    return await checks.final_answer(self, turn)
                checks.remind_question(self, turn, call.name)
                return True
            if call.name in EDIT_TOOLS and keeps_tests(self.prompt) and is_test(str(call.arguments.get("path", ""))):
                self.emit(Detail(f"the model tried to edit {call.arguments.get('path')}, which the request rules out"))
                turn.test_edits += 1
                if turn.test_edits > MAX_TEST_EDITS:  # told each time; a model that keeps at it is not listening
                    return await checks.final_answer(self, turn)
                self._append({"role": "user", "_tool": True, "content": (
                    f"Not done: the developer said not to edit the tests, and {call.arguments.get('path')} is a "
                    "test. Change the code the test calls instead, with one JSON tool call." + (
                        self._suspects or " The failure names that code."))})  # the hint may have been cut by now
                return True
            if testedits.alters_a_test(self, call, turn) or testedits.no_test_in_it(self, call, turn) or \
                    retyped_data(self, call, turn):
                return True  # before the target check: an add-a-test request is never pointed at an existing test
            if call.name == "edit_symbol" and (await targets.wrong_target(self, call, turn)
                                               or await checks.show_before_replace(self, call, turn)):
                return True
            if key in turn.seen:  # the same call again, and nothing changed since: a loop (also A, B, A, B)
                error = turn.failed.get(key)
                if error and not turn.warned_repeat:
                    turn.warned_repeat = True
                    self._ask_again(f"the model repeated a failed {call.name} call", (
                        f"You made this exact {call.name} call before and it failed: {error} It will fail again. "
                        "Make a different call (read_file shows a file's exact text), or answer in plain text."))
                    return True
                spec = self.tools.get(call.name)
                if not error and not turn.nudged_repeat and spec is not None and spec.read_only:
                    turn.nudged_repeat = True  # often a re-read of what devagent read up front: point ahead once
                    self._ask_again(f"the model repeated {call.name}", (
                        f"You already have the result of that {call.name} call above; it will not change. Take "
                        f"the next step the request needs. The developer asked: {_short(self.prompt)} Make the "
                        "change itself (edit_symbol adds or replaces a whole function, method or test; edit_file "
                        "changes a few lines), another call, or answer in plain text."))
                    return True
                self.emit(Detail(f"the model repeated {call.name}; asking for its answer", "retry"))
                return await checks.final_answer(self, turn)
            turn.seen.add(key)
            if await self._handle(call):
                turn.seen.clear()  # the working tree changed: earlier results may be stale now
                turn.failed.clear()
                turn.failed_change = ""
                turn.changed = True
                turn.record_change(self.last_result.diff if self.last_result else "")
                turn.problems = list(self.last_result.data.get("problems") or []) if self.last_result else []
                if call is calls[-1] and self._checks_done(call):
                    done = await checks.done_check(self, turn)
                    if done and not await checks.check_change(self, turn):
                        return done
                continue
            result = self.last_result
            done = await checks.answer_from_result(self, turn, call, result) if call is calls[-1] else None
            if done:
                return done
            if result and result.ok and call.name == "run_tests":
                turn.unverified = ""  # the model ran the tests after its change, and they passed
            checks.after_run(self, turn, call, result)
            if result and not result.ok and not result.summary.startswith("rejected"):
                turn.failed[key] = _short(result.output, 160)
                if call.name in CHANGE_TOOLS:
                    turn.failed_change = f"your {call.name} call failed ({turn.failed[key]})"
        return False

    def _answered(self, answer: str, reason: str) -> TurnDone:
        """End the turn with an answer that came as constrained JSON: show it as the model's text."""
        if answer:
            self.emit(TextDelta(answer))
            self.emit(TextDone(answer))
        return TurnDone(reason, answer)

    # -- the model (modelstep.py) ------------------------------------------------------------------
    async def _complete(self, **kw: Any) -> tuple[str, list[ToolCall]]:
        return await modelstep.complete(self, **kw)

    def _calls_from(self, text: str, native: list[ToolCall], constrained: bool
                    ) -> tuple[list[ToolCall], list[str], str]:
        return modelstep.calls_from(self.tools, text, native, constrained)

    # -- tools ----------------------------------------------------------------------------------
    async def _handle(self, call: ToolCall) -> bool:
        """Run one call and record its result; True when it changed the working tree."""
        call_id = call.id or uuid.uuid4().hex[:8]
        spec = self.tools.get(call.name)
        guessed = await guessed_path(self.ctx.repo, call, spec)
        if cut_result_echo(call):
            self.emit(Detail(f"the model pasted devagent's result text into its {call.name} call; that part is out"))
        self.emit(ToolCallStarted(call_id=call_id, name=call.name, arguments=call.arguments, source=call.source))
        if spec is None:
            result = ToolResult(False, f"unknown tool {call.name!r}; use one of: {', '.join(self.tools)}",
                                f"unknown tool {call.name}")
        else:
            result = await self.run_tool(spec, call, call_id)
            if guessed:
                result.output = f"[{guessed} does not exist; this is {call.arguments['path']}]\n{result.output}"
        self.last_result = result
        if self.turn is not None:
            self.turn.results += 1
        if result.ok and call.name == "read_file":
            self._reads.add(str(call.arguments.get("path", "")))
        elif result.ok and call.name == "outline" and call.arguments.get("symbol"):
            self._reads.add(f'{call.arguments.get("path", "")}::{call.arguments.get("symbol")}')
        budget = self.config.limits.tool_output_tokens * CHARS_PER_TOKEN
        self.emit(ToolCallFinished(call_id=call_id, name=call.name, ok=result.ok, summary=result.summary,
                                   output=bound(result.output, 4000), diff=result.diff))
        body = result.output if result.ok else f"ERROR: {result.output}"
        if call.name == "run_tests" and not result.ok and not (call.source == "verify" and
                                                               checks.changes_behaviour(self.prompt)):
            self._suspects = checks.suspects(self, result) or self._suspects
            body += self._suspects
        if call.name != "read_file":
            body = bound(body, budget, "tool output")
        changed = bool(result.ok and spec is not None and not spec.read_only and (result.diff or call.name in (
            "edit_file", "edit_symbol", "write_file", "scaffold")))
        if result.ok and call.name in ("read_file", "edit_file", "write_file"):
            body += self._instructions_for(str(call.arguments.get("path") or ""))
        self._append(self._tool_message(call, body, changed))
        return changed

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
