"""Small helpers for the messages of a turn, shared by the loop and its coaching steps."""

from __future__ import annotations

import json
import re
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


def with_counts(answer: str, run: dict[str, Any]) -> str:
    """The answer, with the run's own counts added when it leaves one out (a small model says "1 of 215 failed"
    and drops the 214 that passed)."""
    counts = [(int(run.get(k) or 0), k) for k in ("passed", "failed", "errored", "skipped")]
    said = set(re.findall(r"\d+", answer))
    if all(str(n) in said for n, k in counts if n or k in ("passed", "failed")):
        return answer
    words = ", ".join(f"{n} {'errors' if k == 'errored' else k}" for n, k in counts if n or k in ("passed", "failed"))
    return f"{answer}\n\n(devagent's count from the run: {words}.)" if answer else f"{words}."


def fmt_args(args: dict[str, Any]) -> str:
    """A call's arguments as the result's header names them: short values as they are, a long or many-line value
    only by its size (shown cut with ⏎ for its newlines, the model pasted "⏎" and "…" into its next call)."""
    parts = []
    for key, value in args.items():
        text = value if isinstance(value, str) else json.dumps(value)
        if "\n" in text.strip("\n"):
            text = f"[{text.strip(chr(10)).count(chr(10)) + 1} lines]"
        elif len(text) > 60:
            text = f"[{len(text)} characters]"
        parts.append(f"{key}={text.strip(chr(10))}")
    return ", ".join(parts)


def answer_of(arguments: dict[str, Any]) -> str:
    """The text of an ``answer`` pseudo-call: its "text" or "answer", else the first string it holds (the grammar
    fixes the call's shape, not the names of its arguments)."""
    for key in ("text", "answer"):
        if isinstance(arguments.get(key), str) and arguments[key]:
            return str(arguments[key])
    return next((v for v in arguments.values() if isinstance(v, str) and v), "")
