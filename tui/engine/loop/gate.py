"""The gate every tool call passes: policy -> approver -> execute -> record.

A read-only tool runs at once. Any other tool proposes; the Policy labels the proposal (deny / allow /
ask); the front end's Approver decides what is asked; the tool executes only what was approved; the
store records the proposal before the decision and its outcome after. What the model is told when a
proposal is rejected is written here.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from tui.llm.base import ToolCall
from tui.protocol.errors import DevagentError, ToolError
from tui.protocol.events import DecisionMade, Emit, Notice, ProposalCreated
from tui.protocol.proposals import Approver, Decision, Proposal
from tui.tools.base import ToolContext, ToolResult, ToolSpec


class StopTurn(Exception):
    """The developer chose to stop (q in headless, the stop decision)."""


class Gate:
    def __init__(self, *, policy: Any, approver: Approver, store: Any, session_id: str, ctx: ToolContext,
                 emit: Emit) -> None:
        self.policy, self.approver, self.store, self.session_id = policy, approver, store, session_id
        self.ctx, self.emit = ctx, emit
        self.read_left = float(ctx.config.limits.read_seconds)

    def new_turn(self) -> None:
        """A new request: the last turn's file snapshots go, and the read-only tools get their budget back."""
        self.ctx.turn_start.clear()
        self.read_left = float(self.ctx.config.limits.read_seconds)

    async def _read_only(self, spec: ToolSpec, call: ToolCall) -> ToolResult:
        """A read-only tool, at once, within what is left of the turn's budget (it runs on the host, unasked)."""
        assert spec.run is not None
        budget = self.ctx.config.limits.read_seconds
        if self.read_left <= 0:
            return ToolResult(False, f"Not run: the read-only tools used this turn's budget ({budget:.0f} s, "
                              "limits.read_seconds). Answer with what you have, or ask the developer.",
                              "not run: the turn's read-only budget is used")
        started = time.monotonic()
        try:
            return await asyncio.wait_for(spec.run(self.ctx, call.arguments), self.read_left)
        except asyncio.TimeoutError:
            return ToolResult(False, f"{spec.name} was stopped: the read-only tools used this turn's budget "
                              f"({budget:.0f} s, limits.read_seconds). Answer with what you have, or narrow it.",
                              f"{spec.name} stopped: the turn's read-only budget is used")
        finally:
            self.read_left -= time.monotonic() - started

    async def run(self, spec: ToolSpec, call: ToolCall, call_id: str) -> ToolResult:
        """Run one call: a read-only tool at once, any other through a proposal and its decision."""
        try:
            if spec.read_only:
                return await self._read_only(spec, call)
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
            if decision.remember and decision.action in ("approve", "edit", "reject"):
                rule = self.policy.remember(decided, "allow" if decision.approved else "deny")
                verb = "approving" if decision.approved else "rejecting"
                if rule:
                    self.emit(Notice(f"{verb} similar commands for this session: {rule}"))
                else:
                    self.emit(Notice("this proposal cannot become a rule; similar ones will still ask", "warning"))
        status = "approved" if decision.approved else ("stopped" if decision.action == "stop" else "rejected")
        self.store.set_proposal(proposal.id, status, decision=decision.to_dict())
        self.emit(DecisionMade(id=proposal.id, decision=decision.action, reason=decision.reason, by=decision.by))
        return decision
