"""Fit the conversation into the model's context window, keeping the prefix the server has cached.

A model server reuses its prompt cache for the longest unchanged prefix of a request, and on two CPU
cores every re-processed token costs about 16 ms. So a Fitter remembers what it sent for each message
and sends it again byte for byte; when the budget forces a cut, it cuts as late as it can: first the
current turn's older tool results, newest first (the cache keeps everything before them); only when
that is not enough, or when a new turn starts with the window nearly full, the older turns (once, with
room to spare, so the next steps need no cut); last, the latest results themselves. The system
prompt, the current request and its grounding are never cut.
"""

from __future__ import annotations

import json
from typing import Any

from tui.tools.support.common import CHARS_PER_TOKEN

TRIMMED = "[output trimmed to fit the model's context]"
HIGH, LOW = 0.8, 0.6  # a new turn above HIGH of the budget cuts the older turns down to LOW


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


def _trimmed(message: dict[str, Any]) -> str:
    """A tool result's replacement: its first line says which call it answered (text-protocol results)."""
    first = (message.get("content") or "").split("\n", 1)[0]
    return f"{first}\n{TRIMMED}" if first.startswith("Result of ") else TRIMMED


class _Plan:
    """One request being fitted: a copy of each kept message, its size, and the running total."""

    def __init__(self, sources: list[dict[str, Any]], sent: list[dict[str, Any] | None], fixed: int) -> None:
        self.sources, self.sent = sources, sent
        self.sizes = [message_tokens(m) if m is not None else 0 for m in sent]
        self.used = fixed + sum(self.sizes)
        self.cuts = 0

    def replace(self, i: int, message: dict[str, Any] | None) -> None:
        new = message_tokens(message) if message is not None else 0
        self.used += new - self.sizes[i]
        self.sizes[i], self.sent[i] = new, message
        self.cuts += 1

    def shorten(self, i: int, text: str) -> None:
        message = self.sent[i]
        if message is not None and message.get("content") != text:
            self.replace(i, {**message, "content": text})


class Fitter:
    """Fits each request of one conversation; remembers what it sent so later requests repeat it exactly."""

    def __init__(self) -> None:
        self._sent: list[tuple[dict[str, Any], dict[str, Any] | None]] = []  # (source, sent copy or None)

    def fit(self, messages: list[dict[str, Any]], limit: int, reserve: int,
            tools: list[dict[str, Any]] | None = None) -> tuple[list[dict[str, Any]], int, int]:
        """(messages to send, estimated tokens, messages newly shortened or dropped for this request)."""
        known = {id(src): sent for src, sent in self._sent}
        fresh = [id(m) not in known for m in messages]
        plan = _Plan(messages, [known[id(m)] if not new else dict(m) for m, new in zip(messages, fresh)],
                     len(json.dumps(tools)) // CHARS_PER_TOKEN if tools else 0)
        budget = limit - reserve
        last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user" and not m.get("_tool")),
                        default=len(messages))
        ground = last_user + 1 if last_user + 1 < len(messages) and messages[last_user + 1].get("_grounding") \
            else last_user
        latest = max((i for i, m in enumerate(messages) if m.get("role") == "assistant" and i > ground),
                     default=len(messages))
        new_turn = last_user < len(messages) and fresh[last_user]
        if plan.used > budget:
            self._cut_turn(plan, ground + 1, latest, budget)
        if plan.used > budget or (new_turn and plan.used > budget * HIGH):
            self._cut_history(plan, last_user, int(budget * LOW))
        if plan.used > budget:
            self._cut_latest(plan, last_user, budget)
        self._sent = [(src, sent) for src, sent in zip(messages, plan.sent)]
        return [m for m in plan.sent if m is not None], plan.used, plan.cuts

    @staticmethod
    def _cut_turn(plan: _Plan, start: int, end: int, budget: int) -> None:
        """The current turn's results before the latest, newest first: the cached prefix before them stays."""
        for i in range(end - 1, start - 1, -1):
            if plan.used <= budget:
                return
            message = plan.sent[i]
            if message is not None and message.get("_tool") and TRIMMED not in (message.get("content") or ""):
                plan.shorten(i, _trimmed(message))

    @staticmethod
    def _cut_history(plan: _Plan, last_user: int, target: int) -> None:
        """Older turns, once and with room to spare: their tool output first, then whole turns, oldest first."""
        for i in range(1, last_user):
            if plan.used <= target:
                return
            message = plan.sent[i]
            if message is not None and message.get("_tool") and TRIMMED not in (message.get("content") or ""):
                plan.shorten(i, _trimmed(message))
        for i in range(1, last_user):
            message = plan.sent[i]
            if message is None or message.get("role") == "system":
                continue
            starts_turn = message.get("role") == "user" and not message.get("_tool")
            if plan.used <= target and starts_turn:
                return  # what is kept starts with a request, never with an orphaned result
            plan.replace(i, None)

    @staticmethod
    def _cut_latest(plan: _Plan, last_user: int, budget: int) -> None:
        """Still too big: shorten the newest tool outputs (and oversized call arguments) too."""
        room = max(200, (budget * CHARS_PER_TOKEN) // 4)
        for i in range(last_user + 1, len(plan.sent)):
            message = plan.sent[i]
            if message is None:
                continue
            if message.get("_tool") and len(message.get("content", "")) > 400 and not message.get("_grounding"):
                plan.shorten(i, message["content"][:room] + "\n" + TRIMMED)
            elif message.get("tool_calls") and plan.sizes[i] * CHARS_PER_TOKEN > room:
                plan.replace(i, {**message, "tool_calls": [
                    {"function": {"name": c.get("function", {}).get("name", ""), "arguments": {"note": TRIMMED}}}
                    for c in message["tool_calls"]]})
        while plan.used > budget:  # a quarter each was still too much: take the excess from the largest result
            sizes = [(len(m.get("content") or ""), i) for i, m in enumerate(plan.sent) if i > last_user and m
                     and m.get("_tool") and not m.get("_grounding") and len(m.get("content") or "") > 400]
            if not sizes:
                return
            length, i = max(sizes)
            keep = max(200, length - (plan.used - budget) * CHARS_PER_TOKEN - 64 - len(TRIMMED))
            if keep >= length - len(TRIMMED) - 1:
                return
            text = plan.sent[i]["content"]
            plan.shorten(i, text[:keep].removesuffix(TRIMMED).rstrip() + "\n" + TRIMMED)


def fit(messages: list[dict[str, Any]], limit: int, reserve: int,
        tools: list[dict[str, Any]] | None = None) -> tuple[list[dict[str, Any]], int, int]:
    """One request with no history of earlier ones (see Fitter for a conversation)."""
    return Fitter().fit(messages, limit, reserve, tools)


def wire(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Strip devagent's private keys before sending."""
    return [{k: v for k, v in m.items() if not k.startswith("_")} for m in messages]
