"""Fit the conversation into the model's context window, keeping the prefix the server has cached.

A model server reuses its prompt cache for the longest unchanged prefix of a request, and on two CPU
cores every re-processed token costs about 16 ms. So a Fitter remembers what it sent for each message
and sends it again byte for byte. When the budget forces a cut, it removes whole messages, never edits
one already sent: a request is then the previous one with messages taken out, and llama.cpp's cache
reuse (the embedded backend turns it on) shifts the cached messages after the gap into place instead of
reading them again. The order: first the current turn's older steps (a call with its results), oldest
first, down to three quarters of the budget (so the next steps fit without another cut), named in a note
in the newest result; only when that is not enough, or when a new turn starts
with the window nearly full, the older turns (once, with room to spare, so the next steps need no cut:
their steps, then whole turns); last, the latest results themselves (new text, shortened). The system
prompt, the current request and its grounding are never cut.
"""

from __future__ import annotations

import json
from typing import Any

from tui.tools.support.common import CHARS_PER_TOKEN

TRIMMED = "[output trimmed to fit the model's context]"
REMOVED = "To fit the model's context, devagent removed the output of these earlier steps"
NOTE_ROOM = 60  # tokens kept free for the note naming removed steps
HIGH, LOW = 0.8, 0.6  # a new turn above HIGH of the budget cuts the older turns down to LOW
TURN_ROOM = 0.75  # a cut inside the turn goes down to this share of the budget: the next step or two then fit
# without another cut, so the prefix they are sent with stays the one the server has cached


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


def _step_name(message: dict[str, Any]) -> str:
    """What a result answered, for the note that says it was removed: ``read_file(path=x.py)``."""
    first = (message.get("content") or "").split("\n", 1)[0]
    if first.startswith("Result of "):
        return first.removeprefix("Result of ").removesuffix(":")[:120]
    return str(message.get("tool_name") or "")


def _steps(sent: list[dict[str, Any] | None], start: int, end: int) -> list[list[int]]:
    """The removable units in sent[start:end], in order: a model reply with the results that follow it, or
    results that follow a request directly (an older turn's grounding). Requests and final answers are not."""
    units: list[list[int]] = []
    i = start
    while i < end:
        message = sent[i]
        if message is None:
            i += 1
            continue
        j = i + 1 if message.get("role") == "assistant" else i
        while j < end and (sent[j] is None or sent[j].get("_tool")):
            j += 1
        if j > i and any(sent[k] is not None and sent[k].get("_tool") for k in range(i, j)):
            units.append([k for k in range(i, j) if sent[k] is not None])
            i = j
        else:
            i += 1
    return units


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
            self._note(plan, fresh, self._cut_turn(plan, ground + 1, latest,
                                                   min(budget - NOTE_ROOM, int(budget * TURN_ROOM))))
        if plan.used > budget or (new_turn and plan.used > budget * HIGH):
            self._cut_history(plan, last_user, int(budget * LOW))
        if plan.used > budget:
            self._cut_latest(plan, [i > last_user and new for i, new in enumerate(fresh)], budget)
        if plan.used > budget:  # the new text alone could not make room: what was sent before is cut too
            self._cut_latest(plan, [i > last_user for i in range(len(fresh))], budget)
        self._sent = [(src, sent) for src, sent in zip(messages, plan.sent)]
        return [m for m in plan.sent if m is not None], plan.used, plan.cuts

    @staticmethod
    def _cut_turn(plan: _Plan, start: int, end: int, budget: int) -> list[str]:
        """The current turn's steps before the latest, oldest first, each removed whole (the model's call with
        its results): the request is then the previous one with messages taken out, which a server reusing
        cached chunks (llama.cpp's cache reuse) serves without reading the steps after the gap again, and
        the model keeps its most recent steps. Returns what went."""
        removed: list[str] = []
        for unit in _steps(plan.sent, start, end):
            if plan.used <= budget:
                break
            removed += [_step_name(plan.sent[i]) for i in unit if plan.sent[i].get("_tool")]
            for i in unit:
                plan.replace(i, None)
        return [name for name in removed if name]

    @staticmethod
    def _note(plan: _Plan, fresh: list[bool], removed: list[str]) -> None:
        """Say in the newest result (new text, not yet cached) which earlier steps were taken out."""
        if not removed:
            return
        for i in range(len(plan.sent) - 1, -1, -1):
            message = plan.sent[i]
            if message is not None and fresh[i] and message.get("_tool") and not message.get("_grounding"):
                names = ", ".join(dict.fromkeys(removed))
                note = f"[{REMOVED}: {names}. Call again if you need one.]"
                text = message.get("content") or ""
                head, sep, rest = text.partition("\n")
                # Near the top, so that shortening this result to fit (its head is kept) keeps the note.
                plan.shorten(i, f"{head}\n{note}\n{rest}" if head.startswith("Result of ") and sep else
                             f"{note}\n{text}")
                plan.cuts -= 1  # the note itself is not a cut
                return

    @staticmethod
    def _cut_history(plan: _Plan, last_user: int, target: int) -> None:
        """Older turns, once and with room to spare: their steps first (requests and answers stay), then whole
        turns, oldest first. Whole messages only, so the rest of the prefix can still be served from cache."""
        for unit in _steps(plan.sent, 1, last_user):
            if plan.used <= target:
                return
            for i in unit:
                plan.replace(i, None)
        for i in range(1, last_user):
            message = plan.sent[i]
            if message is None or message.get("role") == "system":
                continue
            starts_turn = message.get("role") == "user" and not message.get("_tool")
            if plan.used <= target and starts_turn:
                return  # what is kept starts with a request, never with an orphaned result
            plan.replace(i, None)

    @staticmethod
    def _cut_latest(plan: _Plan, allowed: list[bool], budget: int) -> None:
        """Still too big: shorten the newest tool outputs (and oversized call arguments) too, where allowed."""
        room = max(200, (budget * CHARS_PER_TOKEN) // 4)
        for i in range(len(plan.sent)):
            message = plan.sent[i]
            if message is None or not allowed[i]:
                continue
            if message.get("_tool") and len(message.get("content", "")) > 400 and not message.get("_grounding"):
                plan.shorten(i, message["content"][:room] + "\n" + TRIMMED)
            elif message.get("tool_calls") and plan.sizes[i] * CHARS_PER_TOKEN > room:
                plan.replace(i, {**message, "tool_calls": [
                    {"function": {"name": c.get("function", {}).get("name", ""), "arguments": {"note": TRIMMED}}}
                    for c in message["tool_calls"]]})
        while plan.used > budget:  # a quarter each was still too much: take the excess from the largest result
            sizes = [(len(m.get("content") or ""), i) for i, m in enumerate(plan.sent) if allowed[i] and m
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
