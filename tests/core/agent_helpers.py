"""Drive a real Session (real git repo, real sandbox, real ollama client) against the scripted server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from tui.protocol.proposals import Decision, Proposal
from tui.config import Config, load_config
from tui.protocol.events import Event
from tui.engine.session import Session


class ScriptedApprover:
    """Answers proposals from a list, in order, and remembers what it was asked (a real Approver)."""

    def __init__(self, decisions: Iterable[Decision] = ()) -> None:
        self.decisions = list(decisions)
        self.asked: list[Proposal] = []

    async def decide(self, proposal: Proposal) -> Decision:
        self.asked.append(proposal)
        return self.decisions.pop(0) if self.decisions else Decision("reject", reason="no scripted decision left")


def fast_config(repo: Path, **model: Any) -> Config:
    config = load_config(repo)
    config.model.connect_timeout = 3.0
    config.model.chunk_timeout = 5.0
    config.model.total_timeout = 30.0
    config.model.retries = 1
    for key, value in model.items():
        setattr(config.model, key, value)
    return config


async def run_prompt(repo: Path, url: str, prompt: str, approver: Any = None, config: Config | None = None,
                     resume: str | None = None) -> tuple[list[Event], Any, Session]:
    events: list[Event] = []
    session = await Session.open(repo, config or fast_config(repo), approver=approver or ScriptedApprover(),
                                 emit=events.append, host=url, resume=resume)
    try:
        done = await session.run_turn(prompt)
    finally:
        await session.close()
    return events, done, session


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def of(events: list[Event], kind: str) -> list[Any]:
    return [e for e in events if e.type == kind]


def details(events: list[Event]) -> str:
    """devagent's own notes of a run (Detail events: what it told the model, retries...), one per line."""
    return "\n".join(e.text for e in of(events, "detail"))


def sent_text(request: dict[str, Any]) -> str:
    """Everything the model was sent in one /api/chat request, as text."""
    return "\n".join((m.get("content") or "") + json.dumps(m.get("tool_calls") or "") for m in request["messages"])
