"""Frozen dataclasses the engine emits. Every front end consumes the same stream.

``to_dict()`` gives the JSON-lines form used by ``devagent run --json`` (docs/protocol.md):
each event carries a ``"type"`` string. Add new event kinds here, never ad-hoc dicts.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar


@dataclass(frozen=True)
class Event:
    type: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        data = {"type": self.type}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            data[f.name] = value.to_dict() if hasattr(value, "to_dict") else value
        return data


@dataclass(frozen=True)
class SessionStarted(Event):
    type: ClassVar[str] = "session"
    session_id: str
    repo: str
    model: str
    backend: str
    sandbox: str
    resumed: bool = False


@dataclass(frozen=True)
class TurnStarted(Event):
    type: ClassVar[str] = "turn_started"
    turn: int
    prompt: str


@dataclass(frozen=True)
class TextDelta(Event):
    """A piece of model text, exactly as streamed (never interpreted as markup)."""

    type: ClassVar[str] = "text"
    text: str


@dataclass(frozen=True)
class TextDone(Event):
    """One model message finished; ``text`` is the whole message as streamed. ``shown`` is what to show of it
    as text: the message without the tool calls written into it (each is shown as its tool-call line)."""

    type: ClassVar[str] = "text_done"
    text: str
    shown: str | None = None  # None on construction means: the same as text

    def __post_init__(self) -> None:
        if self.shown is None:
            object.__setattr__(self, "shown", self.text)


@dataclass(frozen=True)
class ToolCallStarted(Event):
    type: ClassVar[str] = "tool_call"
    call_id: str
    name: str
    arguments: dict[str, Any]
    source: str = "native"  # native | json | fence | shell | constrained


@dataclass(frozen=True)
class ToolCallFinished(Event):
    type: ClassVar[str] = "tool_result"
    call_id: str
    name: str
    ok: bool
    summary: str
    output: str = ""
    diff: str = ""


@dataclass(frozen=True)
class ProposalCreated(Event):
    type: ClassVar[str] = "proposal"
    proposal: Any  # approval.Proposal (has to_dict)


@dataclass(frozen=True)
class DecisionMade(Event):
    type: ClassVar[str] = "decision"
    id: str
    decision: str  # approve | reject | edit | stop
    reason: str = ""
    by: str = "user"  # user | policy | yes-flag


@dataclass(frozen=True)
class CommandStarted(Event):
    type: ClassVar[str] = "command_started"
    id: str
    command: str
    sandbox: str


@dataclass(frozen=True)
class CommandOutput(Event):
    """A batch of output lines from a running command (batched, never one event per byte)."""

    type: ClassVar[str] = "command_output"
    id: str
    text: str


@dataclass(frozen=True)
class CommandFinished(Event):
    type: ClassVar[str] = "command_finished"
    id: str
    exit_code: int | None
    duration: float
    killed: str = ""  # "" | timeout | idle | cancelled | killed | processes | memory (past limits.max_processes/memory_mb)
    dropped_bytes: int = 0


@dataclass(frozen=True)
class Checkpointed(Event):
    type: ClassVar[str] = "checkpoint"
    ref: str
    label: str
    not_covered: tuple[str, ...] = ()  # nested repositories, FIFOs...: what this checkpoint cannot restore


@dataclass(frozen=True)
class ErrorEvent(Event):
    type: ClassVar[str] = "error"
    message: str
    hint: str = ""
    retryable: bool = False
    source: str = "engine"  # engine | model | tool | protocol | sandbox | repo


@dataclass(frozen=True)
class Retrying(Event):
    type: ClassVar[str] = "retry"
    attempt: int
    delay: float
    reason: str


@dataclass(frozen=True)
class ServerStatus(Event):
    type: ClassVar[str] = "server"
    state: str  # connected | reconnecting | down
    host: str
    model: str = ""
    detail: str = ""


@dataclass(frozen=True)
class ContextUsage(Event):
    """The context meter: tokens the next request uses out of the model's window."""

    type: ClassVar[str] = "context"
    used: int
    limit: int
    trimmed: int = 0  # tool outputs / messages dropped or shortened to fit
    parts: dict[str, int] = field(default_factory=dict)  # tokens of named parts within ``used`` (instructions)


@dataclass(frozen=True)
class Notice(Event):
    """Something the developer should know. Notices with the same non-empty ``key`` are one line that
    changes (progress): a front end shows the latest in place of the one before."""

    type: ClassVar[str] = "notice"
    message: str
    level: str = "info"  # info | warning
    key: str = ""


@dataclass(frozen=True)
class Progress(Event):
    """A wait the developer should see moving: what devagent is doing now and how far it is.

    ``stage`` is one of: loading (the model), reading (the prompt: ``done`` of ``total`` tokens), writing (the
    reply: ``done`` tokens so far), checking (a candidate or a change in a scratch copy), testing (a suite run),
    running (a command), thinking (anything else). ``elapsed`` is seconds since this stage began. A front end
    shows the latest Progress of a turn in one place (a spinner line or the status bar) with the cancel key, and
    clears it on the next TextDelta, ToolCallStarted, ApprovalRequested or TurnDone.
    """

    type: ClassVar[str] = "progress"
    stage: str
    detail: str = ""
    done: int = 0
    total: int = 0
    elapsed: float = 0.0


@dataclass(frozen=True)
class Detail(Event):
    """devagent's own bookkeeping for this turn, not the conversation: what it told the model (a retry, a
    correction, a coaching note), a raw tool call it read out of the text, a checkpoint ref. Front ends put
    these on one collapsed per-turn "details" line the developer can expand; the transcript keeps them all.
    ``kind``: model-note | retry | raw-call | checkpoint | connection | other."""

    type: ClassVar[str] = "detail"
    text: str
    kind: str = "other"


@dataclass(frozen=True)
class FixAttempt(Event):
    """The test fix loop's progress: attempt N of limit (state "fixing"), or why it stopped."""

    type: ClassVar[str] = "fix_attempt"
    attempt: int
    limit: int
    state: str  # fixing | stopped
    reason: str = ""  # when stopped: passed | limit | repeated | declined | cancelled
    failing: int = 0  # failed + errored tests in the run that led here


@dataclass(frozen=True)
class TurnDone(Event):
    type: ClassVar[str] = "turn_done"
    reason: str  # complete | cancelled | error | stopped | limit
    text: str = ""
    at: float = field(default_factory=time.time)


Emit = Callable[[Event], None]
