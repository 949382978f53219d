"""Every reply of the general loop decoded under one JSON schema built from the tool specs: a tool's name with
exactly its arguments, or the ``answer`` pseudo-call. A reply is then always a well-formed call; only a reply cut
at the token limit can fail to parse (it is asked for again, once). The answer's text is streamed to the screen
as it is written, decoded from inside the JSON."""

from __future__ import annotations

import re
from typing import Any, Callable

from tui.safety.parsing import loads_json
from tui.tools.base import ToolSpec

ANSWER = "answer"


def call_schema(tools: dict[str, ToolSpec], *, answer: bool = True, only: set[str] | None = None) -> dict[str, Any]:
    variants = []
    for name, spec in tools.items():
        if only is not None and name not in only:
            continue
        params = dict(spec.parameters)
        params.setdefault("type", "object")
        params["additionalProperties"] = False
        variants.append({"type": "object", "properties": {"name": {"const": name}, "arguments": params},
                         "required": ["name", "arguments"], "additionalProperties": False})
    if answer:
        variants.append({"type": "object", "properties": {
            "name": {"const": ANSWER},
            "arguments": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"],
                          "additionalProperties": False}},
            "required": ["name", "arguments"], "additionalProperties": False})
    return {"anyOf": variants}


ANSWER_ONLY = {"type": "object", "properties": {"name": {"const": ANSWER}, "arguments": {
    "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"], "additionalProperties": False}},
    "required": ["name", "arguments"], "additionalProperties": False}


def parse_call(text: str) -> tuple[str, dict[str, Any]] | None:
    """(name, arguments) of a constrained reply; None when it was cut short."""
    try:
        value = loads_json(text, "the model's reply")
    except ValueError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    args = value.get("arguments")
    return value["name"], args if isinstance(args, dict) else {}


_START = re.compile(r'^\s*\{\s*"name"\s*:\s*"answer"\s*,\s*"arguments"\s*:\s*\{\s*"text"\s*:\s*"')


class AnswerStream:
    """Feed it a constrained reply as it streams; while it is the answer pseudo-call, ``emit`` gets the answer's
    text piece by piece (JSON escapes decoded), so the developer reads the answer as it is written."""

    def __init__(self, emit: Callable[[str], None]) -> None:
        self.emit = emit
        self.text = ""
        self.start = -1
        self.sent = 0  # characters of the raw string part already decoded and sent
        self.done = False
        self.plain = False
        self.shown = ""

    def feed(self, piece: str) -> None:
        self.text += piece
        if self.done:
            return
        if self.plain or (self.start < 0 and self.text.strip() and not self.text.lstrip().startswith("{")):
            self.plain = True  # a server that does not honour the schema writes prose: shown as it comes
            self.emit(piece)
            self.shown += piece
            return
        if self.start < 0:
            m = _START.match(self.text)
            if not m:
                return
            self.start = m.end()
        raw = self.text[self.start:]
        end = _string_end(raw)
        if end >= 0:
            self.done = True
            raw = raw[:end]
        else:  # keep a trailing backslash sequence for the next piece
            cut = len(raw)
            back = raw.rfind("\\", max(0, cut - 6))
            if back >= 0:
                cut = back
            raw = raw[:cut]
        try:
            decoded = loads_json(f'"{raw}"', "the answer")
        except ValueError:
            return
        if len(decoded) > len(self.shown):
            self.emit(decoded[len(self.shown):])
            self.shown = decoded


def _string_end(raw: str) -> int:
    """Index of the unescaped quote that ends a JSON string body, -1 if not yet there."""
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i
        i += 1
    return -1
