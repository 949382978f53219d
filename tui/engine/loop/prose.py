"""Streamed model text as a front end that cannot take text back shows it: the prose, never a tool call twice.

A small model writes its tool calls into its text (JSON, fenced or not, a ```bash block). The engine
reads them out once the message is complete and says what was prose (``TextDone.shown``); the calls
are shown as tool-call lines. A terminal has printed the stream by then, so ``ProseStream`` holds back
each Markdown block that might hold a call until it is complete and the parser finds none in it, and
prints the rest of ``shown`` when the message ends. Blocks with none of ``{ [ ` ~ <`` stream at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from tui.safety.mdtext import Fence, fence_closes, fence_open

_MAY_BE_CALL = re.compile(r"[{\[`~<]")


def finished_prefix(text: str, start: int) -> int:
    """End of the last complete Markdown block in ``text[start:]`` (``start`` is outside any fence).

    Blocks end at a blank line outside a code fence and at a fence's closing line (CommonMark's fences,
    tui/safety/mdtext.py, which the app's renderer and the ACP escaper read the same way)."""
    cut = start
    fence: Fence | None = None
    pos = start
    previous_blank = False
    for line in text[start:].splitlines(keepends=True):
        pos += len(line)
        if not line.endswith("\n"):
            break  # a partial line never ends a block
        if fence is not None:
            if fence_closes(line, fence):
                fence = None
                cut = pos  # a closed fence is a finished block
            continue
        fence = fence_open(line)
        if fence is not None:
            continue
        stripped = line.strip()
        if not stripped and not previous_blank:
            cut = pos
        previous_blank = not stripped
    return cut


def _default_names() -> set[str]:
    from tui.tools.registry import load_tools

    return set(load_tools())


class ProseStream:
    """One model message at a time: ``push`` each delta and print what it returns; at the end print what
    ``finish(shown)`` returns. What was printed plus that is ``shown`` (up to blank lines at the seams)."""

    def __init__(self, tool_names: Callable[[], Iterable[str]] = _default_names) -> None:
        self._tool_names = tool_names
        self._names: set[str] | None = None
        self.printed = ""
        self._pending = ""  # received, not printed
        self._holding = False  # a block that may hold a call: everything after it waits for the end

    def push(self, delta: str) -> str:
        self._pending += delta
        if self._holding:
            return ""
        cut = finished_prefix(self._pending, 0)
        blocks, tail = self._pending[:cut], self._pending[cut:]
        out = ""
        if blocks:
            if self._has_call(blocks):
                self._holding = True
                return ""
            out = blocks
        match = _MAY_BE_CALL.search(tail)
        ready = tail if match is None else tail[:match.start()]
        line_start = ready.rfind("\n") + 1
        if match is not None and not ready[line_start:].strip():
            ready = ready[:line_start]  # a call's span starts with the indentation of its line
        out += ready
        self._pending = self._pending[len(out):]
        self.printed += out
        return out

    def _has_call(self, text: str) -> bool:
        if not _MAY_BE_CALL.search(text):
            return False
        from tui.llm.parse import extract_tool_calls

        if self._names is None:
            self._names = set(self._tool_names())
        found = extract_tool_calls(text, self._names)
        return bool(found.calls or found.errors or found.text != text)

    def finish(self, shown: str) -> str:
        """The rest of ``shown`` after what was printed; the stream starts over for the next message."""
        printed = self.printed
        self.abandon()
        body, done = shown.lstrip(), printed.strip()
        if not body.startswith(done):  # a call the parser found only in the whole message: print the difference
            return body[len(_common_prefix(done, body)):]
        rest = body[len(done):]
        already = printed[len(printed.rstrip()):]  # the spaces and blank lines printed after the last prose
        if rest.startswith(already):
            return rest[len(already):]
        return rest.lstrip() if already else rest

    def abandon(self) -> str:
        """The message ended without a ``TextDone`` (an error, a cancel): what was held back, literally."""
        held = self._pending
        self.printed, self._pending, self._holding = "", "", False
        return held


def _common_prefix(a: str, b: str) -> str:
    size = 0
    for x, y in zip(a, b):
        if x != y:
            break
        size += 1
    return a[:size]
