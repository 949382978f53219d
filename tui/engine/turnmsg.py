"""Two small helpers for the messages of a turn, shared by the loop and its coaching steps."""

from __future__ import annotations

from typing import Any

from tui.llm.base import ToolCall


def assistant(text: str, native: list[ToolCall]) -> dict[str, Any]:
    """The model's turn as a chat message; native calls go in ``tool_calls``."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if native:
        message["tool_calls"] = [{"function": {"name": c.name, "arguments": c.arguments}} for c in native]
    return message


def short(text: str, limit: int = 300) -> str:
    """``text`` on one line, at most ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"
