"""Fit the conversation into the model's context window: trim old tool output first, then old turns."""

from __future__ import annotations

import json
from typing import Any

from tui.core.tools.common import CHARS_PER_TOKEN

TRIMMED = "[output trimmed to fit the model's context]"


def estimate_tokens(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    chars = sum(len(m.get("content") or "") + 16 for m in messages)
    chars += sum(len(json.dumps(m["tool_calls"])) for m in messages if m.get("tool_calls"))
    if tools:
        chars += len(json.dumps(tools))
    return chars // CHARS_PER_TOKEN + 1


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
    """
    out = [dict(m) for m in messages]
    budget = limit - reserve
    used = estimate_tokens(out, tools)
    trimmed = 0
    last_user = max((i for i, m in enumerate(out) if m.get("role") == "user" and not m.get("_tool")), default=len(out))
    # 1. shorten old tool outputs, oldest first
    for i, msg in enumerate(out):
        if used <= budget:
            break
        if i >= last_user or not msg.get("_tool") or msg.get("content") == TRIMMED:
            continue
        msg["content"] = TRIMMED
        trimmed += 1
        used = estimate_tokens(out, tools)
    # 2. drop the oldest whole messages after the system prompt
    while used > budget:
        candidates = [i for i, m in enumerate(out) if i > 0 and i < last_user and m.get("role") != "system"]
        if not candidates:
            break
        del out[candidates[0]]
        last_user -= 1
        trimmed += 1
        used = estimate_tokens(out, tools)
    # 3. still too big: shorten the newest tool outputs too
    if used > budget:
        for msg in out[last_user + 1:]:
            if msg.get("_tool") and len(msg.get("content", "")) > 400:
                keep = max(200, (budget * CHARS_PER_TOKEN) // 4)
                msg["content"] = msg["content"][:keep] + "\n" + TRIMMED
                trimmed += 1
        used = estimate_tokens(out, tools)
    return out, used, trimmed


def wire(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Strip devagent's private keys before sending."""
    return [{k: v for k, v in m.items() if not k.startswith("_")} for m in messages]
