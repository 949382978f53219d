"""What a definition is: its name, kind and line range, and how definitions are looked up by name."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Iterator


@dataclass
class Symbol:
    name: str
    kind: str  # class, function, method, field, constant, interface, type, enum, definition (pattern-found)
    start: int  # first line (1-based), decorators included
    end: int  # last line
    line: int  # the line that names it
    qualname: str = ""
    marks: list[str] = field(default_factory=list)  # async, property, overload, static, exported, arrow, ...
    children: list["Symbol"] = field(default_factory=list)
    exact: bool = True  # False: only the start line is known (pattern-found)
    indent: str = ""  # leading whitespace of its first line
    body_indent: str = ""  # classes: the indentation of the body
    suite_line: int = 0  # functions: the first line of the body
    body_line: int = 0  # functions: the first line of the body after any docstring (0 if none)
    decorators: tuple[str, ...] = ()
    span: tuple[int, int] = (0, 0)  # JS/TS: character offsets of the definition
    close_line: int = 0  # JS/TS classes: the line of the closing brace

    def __post_init__(self) -> None:
        self.qualname = self.qualname or self.name


@dataclass
class Outline:
    path: str
    language: str  # python, js, pattern, none
    lines: int
    symbols: list[Symbol]
    error: str = ""  # why the structure could not be read (a syntax error, ...)


def walk(symbols: list[Symbol]) -> Iterator[Symbol]:
    for sym in symbols:
        yield sym
        yield from walk(sym.children)


def enclosing(symbols: list[Symbol], line: int) -> Symbol | None:
    """The innermost definition whose lines contain ``line`` (pattern-found ones: the nearest before it)."""
    best: Symbol | None = None
    for sym in walk(symbols):
        if sym.kind in ("field", "constant"):
            continue
        inside = sym.start <= line <= sym.end if sym.exact else sym.start <= line
        if inside and (best is None or sym.start >= best.start):
            best = sym
    return best


_DECORATION = re.compile(r"^(?:async\s+)?(?:def|class|function|func|fn|method)\s+")


def normalize(wanted: str) -> str:
    """``Config::get``, ``Config#get()``, ``def get``, ``calc.py:Config.get`` all mean ``Config.get``."""
    name = wanted.strip().strip("`'\"")
    name = _DECORATION.sub("", name)
    if ":" in name.replace("::", ".") and not name.startswith(":"):
        head, _, tail = name.rpartition(":")
        if head.endswith((".py", ".pyi", ".js", ".ts", ".tsx", ".jsx", ".mjs", ".cjs")):
            name = tail
    name = name.replace("::", ".").replace("#", ".").replace("->", ".")
    name = re.sub(r"\(.*\)$", "", name).strip(". ")
    return name.removeprefix(".")


def groups(symbols: list[Symbol]) -> list[list[Symbol]]:
    """Definitions of one scope grouped by name, in order of first appearance (overloads, getter+setter)."""
    by_name: dict[tuple[str, str], list[Symbol]] = {}
    for sym in symbols:
        key = (sym.name, "value" if sym.kind in ("field", "constant") else "def")
        by_name.setdefault(key, []).append(sym)
    return list(by_name.values())


def find(symbols: list[Symbol], wanted: str) -> list[Symbol]:
    """Definitions named ``wanted``: by qualified name first, else by their own name anywhere (all of a group)."""
    name = normalize(wanted)
    every = list(walk(symbols))
    exact = [s for s in every if s.qualname == name]
    if exact or "." in name:
        return exact
    return [s for s in every if s.name == name]


def parent_of(symbols: list[Symbol], qualname: str) -> Symbol | None:
    head = qualname.rpartition(".")[0]
    return next((s for s in walk(symbols) if s.qualname == head and s.kind == "class"), None) if head else None


def is_test_file(path: str) -> bool:
    """pytest's default file patterns (and conftest.py)."""
    name = PurePosixPath(path).name
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
