"""The model's code, cleaned and re-indented to where it goes, whatever indentation it used.

Small models are weak at exact whitespace: they copy a method with its class indentation, drop
the indentation of the first line only, use spaces in a tab-indented file, or wrap the code in
a Markdown fence. Code is unfenced and dedented, then each statement gets the file's unit per
nesting level (from Python's own tokenizer; for JS/TS, units are converted line by line).
"""

from __future__ import annotations

import io
import re
import textwrap
import tokenize
from collections import Counter

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})[^\n]*\n(?P<body>.*?)\n?[ \t]*\1[ \t]*$", re.S)


def leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def clean_code(code: str) -> str:
    """Without a Markdown fence, trailing spaces, surrounding blank lines and common indentation."""
    code = code.replace("\r\n", "\n").replace("\r", "\n")
    fenced = _FENCE.match(code)
    if fenced:
        code = fenced.group("body")
    lines = [line.rstrip() for line in code.split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return textwrap.dedent("\n".join(lines))


def first_line_fixed(code: str) -> str:
    """``def f():`` at column 0 with the rest still at its old depth: give the first line that depth too."""
    lines = code.split("\n")
    rest = [leading(line) for line in lines[1:] if line.strip()]
    if len(lines) < 2 or leading(lines[0]) or not rest:
        return code
    shortest = min(rest, key=len)
    return textwrap.dedent("\n".join([shortest + lines[0], *lines[1:]]))


def indent_unit(text: str, default: str = "    ") -> str:
    """The indentation step a file uses: a tab, or the most common increase in spaces."""
    tabs = spaces = previous = 0
    steps: Counter[int] = Counter()
    for line in text.split("\n")[:20_000]:
        if not line.strip():
            continue
        lead = leading(line)
        if lead.startswith("\t"):
            tabs += 1
            continue
        width = len(lead)
        spaces += width > 0
        if width > previous:
            steps[width - previous] += 1
        previous = width
    if tabs > spaces:
        return "\t"
    common = [step for step, _ in steps.most_common() if step in (2, 3, 4, 8)]
    return " " * common[0] if common else default


def reindent_python(code: str, unit: str) -> str:
    """Each logical line at ``unit`` times its nesting level; continuation lines move with their statement."""
    levels: dict[int, int] = {}
    level, at_start = 0, True
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code + "\n").readline):
            if tok.type == tokenize.INDENT:
                level += 1
            elif tok.type == tokenize.DEDENT:
                level -= 1
            elif tok.type == tokenize.NEWLINE:
                at_start = True
            elif tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER) and at_start:
                levels[tok.start[0] - 1] = level
                at_start = False
    except (tokenize.TokenError, SyntaxError):
        return code
    out: list[str] = []
    old_prefix = new_prefix = ""
    for row, line in enumerate(code.split("\n")):
        if row in levels:
            old_prefix, new_prefix = leading(line), unit * levels[row]
            out.append(new_prefix + line[len(old_prefix):])
        elif not line.strip():
            out.append("")
        elif line.startswith(old_prefix):
            out.append(new_prefix + line[len(old_prefix):])
        else:
            out.append(line)
    return "\n".join(out)


def convert_unit(code: str, unit: str, frozen: set[int] | None = None) -> str:
    """Leading whitespace re-expressed in ``unit`` (brace languages); rows in ``frozen`` are left alone."""
    have = indent_unit(code, default=unit)
    if have == unit:
        return code
    out = []
    for row, line in enumerate(code.split("\n")):
        lead = leading(line)
        if frozen and row in frozen or not lead:
            out.append(line)
            continue
        if have == "\t":
            depth, rest = len(lead) - len(lead.lstrip("\t")), lead.lstrip("\t")
        else:
            spaces = lead.replace("\t", have)
            depth, rest = divmod(len(spaces), len(have))
            rest = " " * rest
        out.append(unit * depth + rest + line[len(lead):])
    return "\n".join(out)


def indent_block(code: str, prefix: str) -> list[str]:
    """The lines of ``code`` with ``prefix`` before each one that is not blank."""
    return [prefix + line if line.strip() else "" for line in code.split("\n")]
