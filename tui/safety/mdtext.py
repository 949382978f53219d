"""Model text as a Markdown renderer would read it, so that what is shown is what was said.

A model's text is Markdown-ish prose with code in it: ``__init__.py``, ``__all__``, ``snake_case``,
``*args``, ``C:\\temp``. Rendered as Markdown, underscores and asterisks become emphasis and backslashes
escapes ("init.py", "all"). devagent therefore never renders prose as Markdown: the app shows it
literally (only code fences become code blocks), and for a client that renders Markdown itself (an ACP
editor: "Clients SHOULD render this text as Markdown") the prose is escaped here so that it shows
literally there too. Code fences and inline code spans, whose content Markdown already keeps as is, go
through unchanged; list items stay lists.

The fence rule is CommonMark's (a run of at least three backticks or tildes opens, a run of the same
character at least as long closes), with any indentation, as the block splitter of streamed text uses.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_OPEN = re.compile(r"[ \t]*(`{3,}|~{3,})([^\n]*)\n?\Z")
_PROSE_SPECIAL = frozenset("\\`*_[]<>&|~")  # emphasis, code, links, HTML, entities, tables, strikethrough
_LINE_START_SPECIAL = frozenset("#>-+=*_~")  # headings, quotes, breaks and setext underlines
_MARKERISH = frozenset(" \t#>-+=*_~.)0123456789")  # what a block marker at the start of a line is made of
_BULLET = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]")
_BREAK = re.compile(r"[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*\n?\Z")


class Fence(NamedTuple):
    char: str  # ` or ~
    size: int  # how many opened it
    info: str  # what follows the opening run ("python", "json title=x")
    indent: int  # columns before it

    @property
    def lang(self) -> str:
        return self.info.split()[0] if self.info.split() else ""


def fence_open(line: str) -> Fence | None:
    """The fence ``line`` opens (a whole line, with or without its newline), or None."""
    match = _OPEN.match(line)
    if match is None:
        return None
    run, info = match.group(1), match.group(2)
    if run[0] == "`" and "`" in info:
        return None  # ```x``` is inline code, not a fence
    return Fence(run[0], len(run), info.strip(), len(line) - len(line.lstrip(" \t")))


def fence_closes(line: str, fence: Fence) -> bool:
    """Whether ``line`` closes ``fence``."""
    stripped = line.strip()
    return len(stripped) >= fence.size and stripped == fence.char * len(stripped)


def split_fences(text: str) -> list[tuple[str, Fence | None]]:
    """``text`` as runs of prose lines and fenced blocks, in order: (prose, None) or (code, fence). The code is
    the lines between the fences, less the opening fence's indentation; an unclosed fence runs to the end."""
    parts: list[tuple[str, Fence | None]] = []
    prose: list[str] = []
    code: list[str] = []
    fence: Fence | None = None
    for line in text.splitlines(keepends=True):
        if fence is None:
            opened = fence_open(line) if line.lstrip(" \t")[:1] in ("`", "~") else None
            if opened is None:
                prose.append(line)
                continue
            if prose:
                parts.append(("".join(prose), None))
                prose = []
            fence, code = opened, []
        elif fence_closes(line, fence):
            parts.append(("".join(code), fence))
            fence = None
        else:
            cut = min(fence.indent, len(line) - len(line.lstrip(" ")))
            code.append(line[cut:])
    if fence is not None:
        parts.append(("".join(code), fence))
    elif prose:
        parts.append(("".join(prose), None))
    return parts


def escape_markdown(text: str) -> str:
    """``text`` escaped so that a Markdown renderer shows it literally (fences and code spans kept as code)."""
    escaper = MarkdownEscaper()
    return escaper.push(text) + escaper.finish()


def code_span(text: str) -> str:
    """``text`` as one inline code span (the backtick run longer than any inside it), on one line."""
    text = " ".join(text.split("\n"))
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


class MarkdownEscaper:
    """Streamed text in, Markdown that renders as that text out: ``push`` each piece, ``finish`` at the end.

    Held back only while the next characters decide what the current ones are: the start of a line (a
    block marker or a fence), a backtick run (a code span closes on the same line, or it is escaped), a
    line inside a fence (its closing fence), a prose line's newline (it becomes a hard break when another
    line of the paragraph follows, so lines stay lines).
    """

    def __init__(self) -> None:
        self._buf = ""
        self._fence: Fence | None = None
        self._at_start = True  # the buffer begins a line
        self._indented = False  # inside an indented code block (kept as is: Markdown shows it literally)
        self._after_blank = True  # the previous line was blank (or there was none): an indented line is code
        self._break = False  # a prose line ended: its newline waits for the next line

    def push(self, text: str) -> str:
        self._buf += text
        return self._drain(final=False)

    def finish(self) -> str:
        out = self._drain(final=True)
        self.__init__()  # type: ignore[misc]
        return out

    def _drain(self, final: bool) -> str:
        out: list[str] = []
        while self._buf:
            step = self._step(final)
            if step is None:
                break
            out.append(step)
        if final:
            out.append(self._newline(False))
        return "".join(out)

    def _newline(self, hard: bool) -> str:
        """The held newline of the prose line before: a hard break before another line of its paragraph."""
        if not self._break:
            return ""
        self._break = False
        return "  \n" if hard else "\n"

    def _take(self, size: int) -> str:
        piece, self._buf = self._buf[:size], self._buf[size:]
        return piece

    def _line_end(self) -> int:
        """Index just past the buffer's first newline, or -1."""
        found = self._buf.find("\n")
        return found + 1 if found >= 0 else -1

    def _step(self, final: bool) -> str | None:
        """Emit one decided piece of the buffer, or None when the rest must wait."""
        end = self._line_end()
        if self._fence is not None:
            return self._in_fence(end, final)
        if self._at_start:
            return self._line_start(end, final)
        return self._prose(end, final)

    def _in_fence(self, end: int, final: bool) -> str | None:
        assert self._fence is not None
        if self._at_start:
            stripped = self._buf.lstrip(" \t")
            if end < 0 and not final and (not stripped or stripped[0] == self._fence.char):
                return None  # may be the closing fence
            line = self._take(end) if end >= 0 else self._take(len(self._buf))
            if fence_closes(line, self._fence):
                self._fence, self._after_blank = None, True
            self._at_start = end >= 0
            return line
        piece = self._take(end if end >= 0 else len(self._buf))
        self._at_start = end >= 0
        return piece

    def _line_start(self, end: int, final: bool) -> str | None:
        line = self._buf[:end] if end >= 0 else self._buf
        prefix = line[:next((i for i, ch in enumerate(line) if ch not in _MARKERISH), len(line))]
        whole = end >= 0 or final
        if not whole and prefix == line:
            return None  # only marker characters so far: the next one decides
        indent = len(line) - len(line.lstrip(" \t"))
        width = len(line[:indent].expandtabs(4))
        if not line.strip():  # a blank line neither starts nor ends an indented block
            self._after_blank, self._at_start = True, end >= 0
            return self._newline(False) + self._take(len(line))
        if width >= 4 and (self._after_blank or self._indented):
            if not whole:
                return None  # indented code (shown literally already) goes out a whole line at a time
            self._indented, self._after_blank, self._at_start = True, False, end >= 0
            return self._newline(False) + self._take(len(line))
        self._indented = False
        if line.lstrip(" \t")[:1] in ("`", "~"):
            if not whole:
                return None  # a fence's info string runs to the end of the line
            opened = fence_open(line)
            if opened is not None:
                self._fence, self._at_start = opened, end >= 0
                return self._newline(False) + self._take(len(line))
        self._after_blank, self._at_start = False, False
        bullet = _BULLET.match(line)
        if bullet and not _BREAK.match(line):
            kept = bullet.group(0)  # a list item stays a list item; its content starts a line of its own
            self._take(len(kept))
            self._at_start = True
            return self._newline(False) + kept
        body = line[indent:len(prefix)]
        self._take(len(prefix))
        return self._newline(True) + line[:indent] + \
            "".join("\\" + ch if ch in _LINE_START_SPECIAL else ch for ch in body)

    def _prose(self, end: int, final: bool) -> str | None:
        line = self._buf[:end - 1] if end >= 0 else self._buf
        out: list[str] = []
        i = 0
        while i < len(line):
            ch = line[i]
            if ch == "`":
                run = len(line) - i - len(line[i:].lstrip("`"))
                if i + run == len(line) and end < 0 and not final:
                    break  # the run may go on
                close = _closing_run(line, i + run, run)
                open_end = end < 0 and not final  # more of this line may come
                if open_end and (close < 0 or close + run == len(line)):
                    break  # the span may close later on this line (or the closing run go on)
                if close >= 0:
                    out.append(line[i:close + run])  # a code span shows its content literally already
                    i = close + run
                    continue
                out.append("\\`" * run)
                i += run
                continue
            out.append("\\" + ch if ch in _PROSE_SPECIAL else ch)
            i += 1
        self._take(i)
        if i == len(line) and end >= 0:
            self._take(1)
            self._at_start = self._break = True  # the newline waits: a hard break if the paragraph goes on
        return "".join(out) if out or self._at_start else None


def code_spans(line: str) -> list[tuple[int, int]]:
    """The inline code spans of one line, as (start, end) with their backticks: a run of backticks up to the
    next run of the same length. A run with none after it is literal text."""
    spans: list[tuple[int, int]] = []
    i = 0
    while True:
        start = line.find("`", i)
        if start < 0:
            return spans
        run = len(line) - start - len(line[start:].lstrip("`"))
        close = _closing_run(line, start + run, run)
        if close < 0:
            i = start + run
            continue
        spans.append((start, close + run))
        i = close + run


def _closing_run(line: str, start: int, size: int) -> int:
    """Where a run of exactly ``size`` backticks starts in ``line`` at or after ``start`` (-1: none)."""
    for match in re.finditer(r"`+", line[start:]):
        if len(match.group(0)) == size:
            return start + match.start()
    return -1
