"""A JS/TS token scanner that knows strings, comments, template literals and regex literals.

Enough to match brackets and find declarations without a parser: a brace inside a string,
a comment, a template literal (``${}`` nesting included) or a regex literal never counts.
It never raises. Quoted strings end at a newline (in JSX, ``Don't`` is text, not a string), a
``/`` that cannot end as a regex on its line is division, and the first real problem (a
bracket that does not match, an unterminated comment or template) is kept in ``error``.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

REGEX_AFTER_WORDS = {"return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do",
                     "else", "yield", "await", "export", "default"}
REGEX_AFTER_PUNCT = set("(,=:[!&|?{};+-*%<>~^") | {"=>", "&&", "||", "??", "==", "===", "!=", "!==", "<=", ">=",
                                                   "..."}
MULTI_PUNCT = ("===", "!==", "...", "=>", "?.", "==", "!=", "<=", ">=", "&&", "||", "??")
OPENERS = {"(": ")", "[": "]", "{": "}"}
CLOSERS = {")": "(", "]": "[", "}": "{"}


@dataclass(frozen=True)
class Tok:
    kind: str  # id (identifiers, keywords, #private), num, str, tmpl, regex, p (punctuation)
    text: str
    start: int
    end: int


@dataclass
class Scan:
    text: str
    tokens: list[Tok] = field(default_factory=list)
    match: dict[int, int] = field(default_factory=dict)  # index of an opening bracket token -> its closer
    error: str = ""  # the first problem, "line N: ..."
    error_line: int = 0
    _starts: list[int] = field(default_factory=list)

    def line_of(self, pos: int) -> int:
        """1-based line of a character offset."""
        return bisect.bisect_right(self._starts, pos)

    def line_start(self, pos: int) -> int:
        return self._starts[self.line_of(pos) - 1]


def _ident_char(char: str) -> bool:
    return char.isalnum() or char in "_$" or ord(char) > 127


def _regex_allowed(prev: Tok | None) -> bool:
    if prev is None:
        return True
    if prev.kind == "p":
        return prev.text in REGEX_AFTER_PUNCT
    return prev.kind == "id" and prev.text in REGEX_AFTER_WORDS


def _regex_end(text: str, i: int) -> int:
    """End of a regex literal starting at ``text[i] == '/'``, or -1 when none ends on this line."""
    j, in_class = i + 1, False
    while j < len(text):
        char = text[j]
        if char == "\n":
            return -1
        if char == "\\":
            j += 2
            continue
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "/" and not in_class:
            j += 1
            while j < len(text) and (text[j].isalnum() or text[j] == "_"):
                j += 1
            return j
        j += 1
    return -1


def _string_end(text: str, i: int) -> int:
    """End of a quoted string at ``i``, or -1 when a newline comes first (JSX text, not a string)."""
    quote, j = text[i], i + 1
    while j < len(text):
        char = text[j]
        if char == "\\":
            j += 2
            continue
        if char == "\n":
            return -1
        if char == quote:
            return j + 1
        j += 1
    return -1


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.scan = Scan(text)
        starts, pos = [0], text.find("\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = text.find("\n", pos + 1)
        self.scan._starts = starts
        self.templates: list[list[int]] = []  # per open template: [start offset, brace depth in its ${}]
        self.brackets: list[tuple[str, int, int]] = []  # (char, offset, token index or -1 inside templates)
        self.prev: Tok | None = None

    def fail(self, pos: int, message: str) -> None:
        if not self.scan.error:
            line = self.scan.line_of(pos)
            self.scan.error, self.scan.error_line = f"line {line}: {message}", line

    def emit(self, kind: str, start: int, end: int) -> None:
        tok = Tok(kind, self.text[start:end], start, end)
        self.prev = tok
        if not self.templates:
            self.scan.tokens.append(tok)

    def template(self, i: int) -> int:
        """Scan template text from ``i`` (just after a backtick or a closing ``}``); return where code resumes."""
        text = self.text
        while i < len(text):
            char = text[i]
            if char == "\\":
                i += 2
            elif char == "`":
                start = self.templates.pop()[0]
                self.emit("tmpl", start, i + 1)
                return i + 1
            elif text.startswith("${", i):
                self.templates[-1][1] = 0
                self.prev = None
                return i + 2
            else:
                i += 1
        self.fail(self.templates[-1][0], "unterminated template literal")
        return len(text)

    def bracket(self, char: str, pos: int) -> None:
        index = -1 if self.templates else len(self.scan.tokens)
        self.emit("p", pos, pos + 1)
        if char in OPENERS:
            self.brackets.append((char, pos, index))
            return
        if not self.brackets or self.brackets[-1][0] != CLOSERS[char]:
            opened = f" (the innermost open bracket is '{self.brackets[-1][0]}' from line " \
                     f"{self.scan.line_of(self.brackets[-1][1])})" if self.brackets else ""
            self.fail(pos, f"'{char}' closes nothing{opened}")
            return
        _, _, open_index = self.brackets.pop()
        if open_index >= 0 and index >= 0:
            self.scan.match[open_index] = index

    def run(self) -> Scan:
        text, i, n = self.text, 0, len(self.text)
        if text.startswith("#!"):
            i = text.find("\n") if "\n" in text else n
        while i < n:
            char = text[i]
            if char.isspace() or char == "\ufeff":
                i += 1
            elif text.startswith("//", i):
                end = text.find("\n", i)
                i = n if end == -1 else end
            elif text.startswith("/*", i):
                end = text.find("*/", i + 2)
                if end == -1:
                    self.fail(i, "unterminated /* comment")
                    return self.finish()
                i = end + 2
            elif char in "'\"":
                end = _string_end(text, i)
                self.emit("str" if end != -1 else "p", i, end if end != -1 else i + 1)
                i = end if end != -1 else i + 1
            elif char == "`":
                self.templates.append([i, 0])
                i = self.template(i + 1)
            elif char == "/" and _regex_allowed(self.prev) and (end := _regex_end(text, i)) != -1:
                self.emit("regex", i, end)
                i = end
            elif char.isdigit() or (char == "." and i + 1 < n and text[i + 1].isdigit()):
                j = i + 1
                while j < n and (_ident_char(text[j]) or text[j] == "." or (text[j] in "+-" and text[j - 1] in "eE"
                                                                             and not text[i:j].startswith("0x"))):
                    j += 1
                self.emit("num", i, j)
                i = j
            elif _ident_char(char) or (char == "#" and i + 1 < n and _ident_char(text[i + 1])):
                j = i + 1
                while j < n and _ident_char(text[j]):
                    j += 1
                self.emit("id", i, j)
                i = j
            elif char == "}" and self.templates and self.templates[-1][1] == 0:
                i = self.template(i + 1)
            elif char in "([{)]}":
                if self.templates and char in "{}":
                    self.templates[-1][1] += 1 if char == "{" else -1
                self.bracket(char, i)
                i += 1
            else:
                multi = next((m for m in MULTI_PUNCT if text.startswith(m, i)), "")
                if multi == "?." and i + 2 < n and text[i + 2].isdigit():
                    multi = ""
                self.emit("p", i, i + (len(multi) or 1))
                i += len(multi) or 1
        return self.finish()

    def finish(self) -> Scan:
        if self.templates:
            self.fail(self.templates[0][0], "unterminated template literal")
        for char, pos, _ in self.brackets[:1]:
            self.fail(pos, f"'{char}' is never closed")
        return self.scan


def scan(text: str) -> Scan:
    """Tokens of ``text`` outside templates, the bracket pairs, and the first problem. Never raises."""
    try:
        return _Scanner(text).run()
    except (RecursionError, IndexError, ValueError):  # defensive: model and repo text are hostile
        result = Scan(text)
        result.error, result.error_line = "line 1: could not be scanned", 1
        return result
