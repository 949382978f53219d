"""A static check of Python files after an edit: syntax errors and undefined names (pyflakes).

Nothing is run. Only problems the edit introduced are reported, so the model (and the
developer reading the tool result) learns at once that ``test_mul`` uses ``mul`` without
importing it, instead of finding out from a failing test run later.
"""

from __future__ import annotations

import ast

SERIOUS = ("UndefinedName", "UndefinedLocal", "UndefinedExport")


def problems(source: str, filename: str) -> list[str]:
    """'line N: message' for each syntax error or undefined name in ``source``."""
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as err:
        return [f"line {err.lineno}: syntax error: {err.msg}"]
    except ValueError:  # null bytes
        return []
    try:
        from pyflakes import checker
    except ImportError:  # the check is a help, not a requirement
        return []
    found = checker.Checker(tree, filename=filename).messages
    return [f"line {m.lineno}: {m.message % m.message_args}"
            for m in sorted(found, key=lambda m: m.lineno) if type(m).__name__ in SERIOUS]


def new_problems(before: bytes | None, after: bytes | None, filename: str) -> list[str]:
    """Problems in ``after`` that ``before`` did not have (compared without line numbers)."""
    if after is None or not filename.endswith(".py"):
        return []
    def text(data: bytes) -> str:
        return data.decode("utf-8", "replace")
    old = {p.split(": ", 1)[1] for p in problems(text(before), filename)} if before is not None else set()
    return [f"{filename} {p}" for p in problems(text(after), filename) if p.split(": ", 1)[1] not in old]
