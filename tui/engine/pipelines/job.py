"""What a pipeline works with: the request, the repository as a program sees it, narrow model questions,
a throwaway copy to try things in, and the one way a change reaches the developer (a proposal they approve).

Every visible step is a tool-call line (the developer sees what ran: a test run, a search, candidates tried);
devagent's bookkeeping is a ``Detail``. Nothing here writes the work tree except ``propose`` after approval.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, TypeVar

from tui.protocol.events import Detail, Notice, TextDelta, TextDone, ToolCallFinished, ToolCallStarted, TurnDone
from tui.protocol.proposals import Proposal, new_proposal_id
from tui.engine.work.ask import Ask
from tui.engine.work.budget import Budget
from tui.engine.work.index import RepoIndex
from tui.engine.work.scratch import Scratch, ScratchError

T = TypeVar("T")


class NotHandled(Exception):
    """The pipeline cannot do this request exactly (nothing located, nothing that checks out): the general loop
    takes over, with what was found so far as its hint."""

    def __init__(self, why: str, hint: str = "") -> None:
        super().__init__(why)
        self.why, self.hint = why, hint


@dataclass
class Outcome:
    """What ``propose`` came to: applied (the diff that was applied), or rejected with the developer's reason."""

    applied: bool
    diff: str = ""
    reason: str = ""
    summary: str = ""


@dataclass
class Memory:
    """What a session remembers across turns: checks approved, proposals rejected (never made again unchanged)."""

    checks: bool | None = None  # the developer's answer to running checks in a throwaway copy (asked once)
    rejected: dict[str, str] = field(default_factory=dict)  # diff digest -> the reason given
    reasons: list[str] = field(default_factory=list)  # every rejection reason of the session, newest last
    rejected_calls: dict[str, str] = field(default_factory=dict)  # the general loop's rejected calls -> reason
    consents: dict[str, bool] = field(default_factory=dict)  # other one-off permissions (an install) -> the answer


def digest(diff: str) -> str:
    body = "\n".join(line for line in diff.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---")))
    return hashlib.sha256(body.encode()).hexdigest()[:16]


class Job:
    def __init__(self, agent: Any, request: str, memory: Memory) -> None:
        self.agent, self.request, self.memory = agent, request, memory
        self.ctx, self.config, self.emit = agent.ctx, agent.config, agent.emit
        self.repo: Path = agent.ctx.repo
        cfg = agent.config.model
        self.budget = Budget(cfg.turn_seconds, getattr(agent, "turn_started", None))
        self.ask = Ask(agent.backend, agent.emit, temperature=cfg.temperature, retries=cfg.retries, seed=cfg.seed,
                       budget=self.budget)
        self.samples = max(1, cfg.samples)
        self._index: RepoIndex | None = None
        self._scratch: Scratch | None = None
        self.tried: list[str] = []  # what was tried, for the answer ("3 candidates: 1 passed the tests")
        self.no_suite = ""  # set when the project has no test suite to run (what to do about it)
        self.graded_before: dict[str, dict[int, bool]] = {}  # a check -> its asserts on the code as it was

    # -- the repository ---------------------------------------------------------------------------------
    async def index(self) -> RepoIndex:
        if self._index is None:
            self._index = await asyncio.to_thread(RepoIndex.build, self.repo)
        return self._index

    async def scratch(self) -> Scratch | None:
        """The throwaway copy, made once per turn; None when checks were declined or cannot run here (said)."""
        if self._scratch is not None:
            return self._scratch
        if not await self.checks_allowed():
            return None
        try:
            self._scratch = await Scratch(self.repo).create()
        except ScratchError as err:
            self.emit(Notice(f"candidates are not tried: {err.message}", "warning"))
            return None
        return self._scratch

    async def checks_allowed(self) -> bool:
        """Running the project's code (a question's snippet, tests of a candidate) in a sandboxed throwaway copy
        is asked once per session; without bubblewrap it is not offered (nothing can hide the real tree)."""
        if self.memory.checks is not None:
            return self.memory.checks
        sandbox = getattr(self.ctx.sandbox, "info", None)
        if sandbox is None or sandbox.kind != "bwrap":
            self.emit(Notice("candidate changes are not tried before they are shown: that needs the bubblewrap "
                             "sandbox, which is not active here", "warning"))
            self.memory.checks = False
            return False
        self.memory.checks = await self.allowed("checks", (
            "for this session: run the project's code and tests in a sandboxed throwaway copy of the work tree, to "
            "check answers and candidate changes before they are shown (your files are not touched; no network)"))
        return self.memory.checks

    async def allowed(self, key: str, summary: str) -> bool:
        """A one-off permission (e.g. installing the pinned TypeScript compiler), asked in the queue once per session
        and remembered under ``key``; the time it waits is not the turn's."""
        if key not in self.memory.consents:
            proposal = Proposal(id=new_proposal_id(), kind="checks", tool=key, summary=summary)
            async with self.budget.paused():
                decision = await self.agent.gate.decide(proposal)
            self.memory.consents[key] = decision.approved
        return self.memory.consents[key]

    def close(self) -> None:
        if self._scratch is not None:
            self._scratch.close()
            self._scratch = None

    # -- what the developer sees --------------------------------------------------------------------------
    async def step(self, name: str, arguments: dict[str, Any], work: Callable[[], Awaitable[T]],
                   summary: Callable[[T], str] = lambda _: "done") -> T:
        """Run a program step shown as a tool line (``name(arguments)`` then its one-line result)."""
        call_id = f"dv-{uuid.uuid4().hex[:8]}"
        self.emit(ToolCallStarted(call_id=call_id, name=name, arguments=arguments, source="devagent"))
        try:
            result = await work()
        except Exception as exc:
            self.emit(ToolCallFinished(call_id=call_id, name=name, ok=False, summary=str(exc)[:200], output=""))
            raise
        self.emit(ToolCallFinished(call_id=call_id, name=name, ok=True, summary=summary(result), output=""))
        return result

    def note(self, text: str, kind: str = "model-note") -> None:
        self.emit(Detail(text, kind))

    def answer(self, text: str, reason: str = "complete") -> TurnDone:
        """The turn's answer, shown as the assistant's text and kept in the conversation."""
        text = text.strip()
        if text:
            self.emit(TextDelta(text))
            self.emit(TextDone(text))
        self.agent._append({"role": "assistant", "content": text})
        return TurnDone(reason, text)

    # -- changes ----------------------------------------------------------------------------------------
    async def propose(self, changes: dict[str, bytes | None], summary: str, *, tool: str = "edit",
                      warnings: list[str] | None = None) -> Outcome:
        """One multi-file edit proposal through the gate (policy, approver, checkpoint, apply the accepted hunks).
        A diff the developer rejected before in this session is never proposed again: NotHandled."""
        from tui.git.diffs import file_diff
        from tui.tools.support.edits import apply_edit, read_current

        diffs = []
        for rel, new in changes.items():
            _, old = await asyncio.to_thread(read_current, self.ctx, rel)
            diffs.append(await asyncio.to_thread(file_diff, rel, old, new))
        diff = "".join(diffs)
        if not diff.strip():
            raise NotHandled("the change leaves every file as it is")
        key = digest(diff)
        if key in self.memory.rejected:
            raise NotHandled(f"the same change was rejected before ({self.memory.rejected[key] or 'no reason'})")
        call_id = f"dv-{uuid.uuid4().hex[:8]}"
        files = [rel for rel, d in zip(changes, diffs) if d]
        self.emit(ToolCallStarted(call_id=call_id, name=tool, arguments={"files": files}, source="devagent"))
        proposal = Proposal(id=new_proposal_id(), kind="edit", tool=tool, summary=summary, diff=diff, files=files,
                            call_id=call_id, warnings=list(warnings or []))
        async with self.budget.paused():
            decision = await self.agent.gate.decide(proposal)
        if not decision.approved:
            from tui.engine.loop.gate import StopTurn

            if decision.action == "stop":
                raise StopTurn()
            self.memory.rejected[key] = decision.reason
            if decision.reason:
                self.memory.reasons.append(decision.reason)
            self.emit(ToolCallFinished(call_id=call_id, name=tool, ok=False, summary=f"rejected{': ' + decision.reason if decision.reason else ''}", output=""))
            return Outcome(False, diff, decision.reason, "rejected")
        result = await apply_edit(self.ctx, proposal, decision)
        self.emit(ToolCallFinished(call_id=call_id, name=tool, ok=result.ok, summary=result.summary, output="",
                                   diff=result.diff))
        self.agent.store.set_proposal(proposal.id, "done" if result.ok else "failed",
                                      result={"ok": result.ok, "summary": result.summary})
        if result.ok:
            self._index = None  # the tree changed
        return Outcome(result.ok, result.diff, "", result.summary)

    # -- running ---------------------------------------------------------------------------------------
    async def tests(self, selection: str = "", *, label: str = "") -> Any:
        """The project's tests (all, or ``selection``): in the throwaway copy when checks are allowed, else through
        the run_tests tool, whose proposal the developer approves. A TestRun, or None when nothing ran."""
        from tui.engine.work import trial

        scratch = await self.scratch()
        args = {"selection": selection} if selection else {}
        if scratch is not None:
            return await self.step("run_tests", {**args, **({"in": label} if label else {})},
                                   lambda: trial.run_tests(self, scratch, selection),
                                   lambda run: run.summary() if run is not None else "did not run")
        from tui.llm.base import ToolCall
        from tui.testing.model import TestRun

        spec = self.agent.tools.get("run_tests")
        if spec is None:
            return None
        call_id = f"dv-{uuid.uuid4().hex[:8]}"
        self.emit(ToolCallStarted(call_id=call_id, name="run_tests", arguments=args, source="devagent"))
        result = await self.agent.gate.run(spec, ToolCall("run_tests", args, call_id, "devagent"), call_id)
        self.emit(ToolCallFinished(call_id=call_id, name="run_tests", ok=result.ok, summary=result.summary,
                                   output=result.output[:4000], diff=result.diff))
        data = result.data.get("test_run")
        return TestRun.from_dict(data) if isinstance(data, dict) else None
