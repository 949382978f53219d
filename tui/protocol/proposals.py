"""Proposals, decisions and the Approver seam.

A Proposal is every state-changing thing the agent wants: a command, a Python
snippet, a file edit (as a unified diff), staging, a commit, a scaffold. The
Policy (tui/policy/rules.py) labels it; an Approver decides. Front ends implement
Approver: the TUI feeds its queue, headless asks on stdin, the pre-commit
helper never approves anything that changes state.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

ProposalKind = Literal["command", "python", "edit", "stage", "commit", "scaffold", "checks"]
Action = Literal["approve", "reject", "edit", "stop"]

_ids = itertools.count(1)


def new_proposal_id() -> str:
    return f"p{int(time.time() * 1000) % 10**8:08d}-{next(_ids)}"


@dataclass
class Proposal:
    id: str
    kind: ProposalKind
    summary: str  # one line, literal text
    tool: str = ""
    call_id: str = ""
    command: str | None = None  # shell command, shown literally
    code: str | None = None  # run_python snippet
    diff: str | None = None  # unified diff against the working tree
    files: list[str] = field(default_factory=list)
    message: str | None = None  # commit message
    risk: str = "unknown"  # risk label from tui/safety/risk.py
    risk_reasons: list[str] = field(default_factory=list)
    policy: str = "ask"  # allow | ask | deny
    rule: str = "default: ask"  # the rule that decided, shown with the proposal
    sandbox: str = "none"  # which sandbox it will run in
    timeout: float | None = None
    network: bool = False
    warnings: list[str] = field(default_factory=list)  # control chars, bidi, what would be lost
    arguments: dict[str, Any] = field(default_factory=dict)  # the raw tool arguments
    created: float = field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Proposal":
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True)
class Decision:
    action: Action
    reason: str = ""
    command: str | None = None  # an edited command (action "edit" = approve the edited form)
    message: str | None = None  # an edited commit message
    hunks: tuple[int, ...] | None = None  # accepted hunk indices (diff order); None = all
    network: bool = False  # allow network for this command only
    timeout: float | None = None  # override the wall-clock limit at approval
    remember: bool = False  # "approve similar for this session" (adds a structural rule)
    by: str = "user"  # user | policy | yes-flag

    @property
    def approved(self) -> bool:
        return self.action in ("approve", "edit")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Decision":
        names = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in names}
        if values.get("hunks") is not None:
            values["hunks"] = tuple(values["hunks"])
        return cls(**values)


class Approver(Protocol):
    async def decide(self, proposal: Proposal) -> Decision: ...


class RejectAll:
    """An approver that never approves: for the pre-commit helper and dry runs."""

    async def decide(self, proposal: Proposal) -> Decision:
        return Decision("reject", reason="devagent is running in a mode that does not change state", by="policy")


class ApproveAll:
    """``--yes``: approves whatever the policy did not deny."""

    async def decide(self, proposal: Proposal) -> Decision:
        return Decision("approve", by="yes-flag")
