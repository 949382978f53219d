"""Run one request through the pipelines: a real Session, repo, sandbox and ollama client against the scripted
server, whose replies are the JSON the narrow questions are decoded under."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.core.agent_helpers import ScriptedApprover, fast_config, run_prompt
from tests.ollama_server import Reply
from tui.protocol.proposals import Decision


def js(value: Any) -> Reply:
    """A constrained reply: the JSON text the model writes under the schema."""
    return Reply(json.dumps(value))


async def pipeline_turn(repo: Path, server: Any, prompt: str, replies: list[Reply],
                        decisions: list[Decision] | None = None, **model: Any) -> tuple[list[Any], Any, ScriptedApprover]:
    server.push(*replies)
    approver = ScriptedApprover(decisions if decisions is not None else [Decision("approve")] * 6)
    config = fast_config(repo, pipelines="auto", samples=3, total_timeout=60.0, **model)
    events, done, _ = await run_prompt(repo, server.url, prompt, approver=approver, config=config)
    return events, done, approver


def edits(approver: ScriptedApprover) -> list[Any]:
    return [p for p in approver.asked if p.kind == "edit"]
