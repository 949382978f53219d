"""A tool is a module exporting one ``SPEC`` (name, description, JSON schema, read-only flag, functions).

Read-only tools implement ``run`` and execute without asking. State-changing
tools implement ``propose`` (build a Proposal: nothing changes yet) and
``execute`` (carry out an approved Proposal with the Decision's edits). Tool
output given to the model is bounded by the agent, not by each tool.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from tui.protocol.proposals import Decision, Proposal
from tui.protocol.events import Emit

if TYPE_CHECKING:
    from tui.config import Config


@dataclass
class ToolContext:
    repo: Path  # the work tree root (realpath)
    config: "Config"
    emit: Emit
    sandbox: Any = None  # core.sandbox.Sandbox (the one runner)
    session_id: str = ""
    extras: dict[str, Any] = field(default_factory=dict)
    # Each file as it was before the current turn's first edit of it: the static check after an edit names
    # what the turn's edits introduced (a problem an earlier edit made stays named until it is fixed), and
    # the end of an "add a test" turn counts the tests a file gained.
    turn_start: dict[str, bytes | None] = field(default_factory=dict)
    # An editor's view of a file inside the repo (its unsaved buffer), None to read the disk; see tui/acp.
    read_text: Callable[[Path], Awaitable[str | None]] | None = None


@dataclass
class ToolResult:
    ok: bool
    output: str  # what the model sees
    summary: str  # one line for the screen
    diff: str = ""  # what changed in the working tree, if anything
    data: dict[str, Any] = field(default_factory=dict)  # structured extras (test results, ...)


RunFn = Callable[[ToolContext, dict[str, Any]], Awaitable[ToolResult]]
ProposeFn = Callable[[ToolContext, dict[str, Any]], Awaitable[Proposal]]
ExecuteFn = Callable[[ToolContext, Proposal, Decision], Awaitable[ToolResult]]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str  # one or two lines: small models have small contexts
    parameters: dict[str, Any]  # JSON schema of the arguments object
    read_only: bool
    run: RunFn | None = None
    propose: ProposeFn | None = None
    execute: ExecuteFn | None = None

    def schema(self) -> dict[str, Any]:
        """The tool as sent to the model (Ollama / OpenAI function format)."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


def params(required: list[str] | None = None, **props: dict[str, Any]) -> dict[str, Any]:
    """Build a JSON schema for an arguments object."""
    return {"type": "object", "properties": props, "required": required or []}
