"""Fit the conversation into the model's context window: trim old tool output first, then old turns."""

from __future__ import annotations

import json
from typing import Any

from tui.core.tools.common import CHARS_PER_TOKEN

TRIMMED = "[output trimmed to fit the model's context]"


def message_tokens(message: dict[str, Any]) -> int:
    chars = len(message.get("content") or "") + 16
    if message.get("tool_calls"):
        chars += len(json.dumps(message["tool_calls"]))
    return chars // CHARS_PER_TOKEN + 1


def estimate_tokens(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    total = sum(message_tokens(m) for m in messages)
    if tools:
        total += len(json.dumps(tools)) // CHARS_PER_TOKEN
    return total


def window(context_length: int, configured: int, cap: int) -> int:
    limit = configured or context_length or 4096
    return max(1024, min(limit, context_length or limit, cap or limit))


def num_ctx_for(used: int, reserve: int, limit: int) -> int:
    """Round up to a power of two (>= 2048) so the server does not reload the model on every request."""
    size = 2048
    while size < used + reserve and size < limit:
        size *= 2
    return min(size, limit)


def fit(messages: list[dict[str, Any]], limit: int, reserve: int,
        tools: list[dict[str, Any]] | None = None) -> tuple[list[dict[str, Any]], int, int]:
    """Return (messages to send, estimated tokens, how many messages were trimmed or dropped).

    The system message and the latest user prompt (and everything after it) are always kept.
    Linear in the conversation: each message is measured once and the total kept up to date.
    """
    out = [dict(m) for m in messages]
    sizes = [message_tokens(m) for m in out]
    fixed = len(json.dumps(tools)) // CHARS_PER_TOKEN if tools else 0
    budget = limit - reserve
    used = fixed + sum(sizes)
    trimmed = 0
    last_user = max((i for i, m in enumerate(out) if m.get("role") == "user" and not m.get("_tool")), default=len(out))

    def shorten(i: int, text: str) -> None:
        nonlocal used
        out[i]["content"] = text
        new = message_tokens(out[i])
        used += new - sizes[i]
        sizes[i] = new

    # 1. shorten old tool outputs, oldest first
    for i, msg in enumerate(out[:last_user]):
        if used <= budget:
            break
        if msg.get("_tool") and msg.get("content") != TRIMMED:
            shorten(i, TRIMMED)
            trimmed += 1
    # 2. drop the oldest whole messages after the system prompt
    keep = [True] * len(out)
    for i in range(1, last_user):
        if used <= budget:
            break
        if out[i].get("role") != "system":
            keep[i] = False
            used -= sizes[i]
            trimmed += 1
    # 3. still too big: shorten the newest tool outputs (and oversized call arguments) too
    if used > budget:
        room = max(200, (budget * CHARS_PER_TOKEN) // 4)
        for i in range(last_user + 1, len(out)):
            msg = out[i]
            if msg.get("_tool") and len(msg.get("content", "")) > 400:
                shorten(i, msg["content"][:room] + "\n" + TRIMMED)
                trimmed += 1
            elif msg.get("tool_calls") and sizes[i] * CHARS_PER_TOKEN > room:
                msg["tool_calls"] = [{"function": {"name": c.get("function", {}).get("name", ""),
                                                   "arguments": {"note": TRIMMED}}} for c in msg["tool_calls"]]
                new = message_tokens(msg)
                used += new - sizes[i]
                sizes[i] = new
                trimmed += 1
    return [m for m, k in zip(out, keep) if k], used, trimmed


def wire(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Strip devagent's private keys before sending."""
    return [{k: v for k, v in m.items() if not k.startswith("_")} for m in messages]
