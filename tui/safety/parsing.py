"""Parsing repo content without letting its shape crash devagent: JSON, TOML and Python, depth-bounded.

``json``, ``tomllib`` and ``ast.parse`` recurse once per nesting level, so a file nested a few thousand levels
deep (a few kilobytes of ``[``, or ``x = 1 + 1 + ...`` with no parenthesis at all) raises RecursionError, or
MemoryError in Python's parser, wherever devagent reads it: the config loader, test and interpreter detection,
scaffold, the repo map, review, the checks after an edit. A file that parses can still be too deep for what
walks it afterwards (pyflakes, ``ast.unparse``, a recursive visitor, ``json.dumps``). Every parser of repo content
(and of what a sandboxed run leaves behind) goes through this module; tests/core/test_parsing.py scans ``tui/``
for any other. What is nested deeper than a real file ever is raises :class:`TooDeep`, a clear message that is
also a ``ValueError`` (every caller already treats one as "does not parse").
"""

from __future__ import annotations

import ast
import csv
import io
from typing import Any

from tui.protocol.errors import ToolError

MAX_DEPTH = 100  # JSON and TOML containers within containers; real files stay under 20
MAX_PY_DEPTH = 120  # AST nodes within nodes: in 14,600 modules of a large site-packages, only 3 generated ones
# were deeper (171, 230, 569), the deepest written by hand 99; at 120, ast.unparse of a nested dict (its costliest
# walk, ~4 frames a level) still fits in Python's recursion limit from a caller 400 frames deep
_HINT = ("devagent does not read files nested this deeply (a real one never is): it is left out, and nothing "
         "is decided from it.")


class TooDeep(ToolError, ValueError):
    """A repo file nested deeper than devagent parses: refused, never a crash."""

    def __init__(self, what: str, limit: int) -> None:
        self.what, self.limit = what, limit
        self.reason = f"nested more than {limit} levels deep"
        super().__init__(f"{what or 'the file'}: {self.reason}; not parsed", _HINT)


def data_depth_over(value: Any, limit: int) -> bool:
    """Whether lists and dicts in ``value`` nest more than ``limit`` levels (iteratively: never recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


def tree_depth_over(tree: ast.AST, limit: int) -> bool:
    """Whether the syntax tree is more than ``limit`` nodes deep (level by level: never recursion)."""
    level, depth = [tree], 1
    while level:
        if depth > limit:
            return True
        following: list[ast.AST] = []
        for node in level:
            following.extend(ast.iter_child_nodes(node))
        level, depth = following, depth + 1
    return False


def loads_json(text: str | bytes, what: str = "", *, limit: int = MAX_DEPTH, strict: bool = True) -> Any:
    """``json.loads``; TooDeep past ``limit`` levels, json.JSONDecodeError (a ValueError) when it is not JSON."""
    import json  # imported where used: a module this low is loaded before the app's first frame

    try:
        value = json.loads(text, strict=strict)
    except (RecursionError, MemoryError):
        raise TooDeep(what, limit) from None
    if data_depth_over(value, limit):
        raise TooDeep(what, limit)
    return value


def loads_toml(text: str, what: str = "", *, limit: int = MAX_DEPTH) -> dict[str, Any]:
    """``tomllib.loads``; TooDeep past ``limit`` levels (brackets, inline tables or dotted keys alike),
    tomllib.TOMLDecodeError (a ValueError) when it is not TOML."""
    import tomllib

    try:
        value = tomllib.loads(text)
    except (RecursionError, MemoryError):
        raise TooDeep(what, limit) from None
    if data_depth_over(value, limit):
        raise TooDeep(what, limit)
    return value


def yaml_documents(text: str, what: str = "", *, limit: int = MAX_DEPTH) -> list[Any]:
    """Every document of a YAML stream (PyYAML's safe loader); TooDeep past ``limit`` levels, which YAML nests by
    indentation and ``- - -`` as well as brackets; yaml.YAMLError when it is not YAML."""
    import yaml

    try:
        docs = list(yaml.safe_load_all(text))
    except (RecursionError, MemoryError):
        raise TooDeep(what, limit) from None
    if data_depth_over(docs, limit + 1):
        raise TooDeep(what, limit)
    return docs


def parse_python(source: str | bytes, filename: str = "<unknown>", *, what: str = "",
                 limit: int | None = MAX_PY_DEPTH) -> ast.Module:
    """``ast.parse``; SyntaxError (and ValueError for NUL bytes) as usual, TooDeep when the parser overflows or
    the tree is more than ``limit`` deep. ``limit=None`` only when nothing walks the tree afterwards (a check that
    the file parses at all): then only the parser's own overflow is refused."""
    try:
        tree = ast.parse(source, filename)
    except (RecursionError, MemoryError):
        raise TooDeep(what or filename, limit or MAX_PY_DEPTH) from None
    if limit is not None and tree_depth_over(tree, limit):
        raise TooDeep(what or filename, limit)
    return tree


def compile_check(source: str, filename: str) -> None:
    """``compile(source, filename, "exec")`` for its errors only (SyntaxError, ValueError): code the model sent is
    compiled to see whether it would run; TooDeep where the compiler overflows."""
    try:
        compile(source, filename, "exec")
    except (RecursionError, MemoryError):
        raise TooDeep(filename, MAX_PY_DEPTH) from None


def parses(rel: str, data: bytes | None) -> str:
    """'' when ``data`` parses as the format ``rel``'s suffix names (JSON, CSV/TSV, TOML; others are not read),
    else why not."""
    if data is None:
        return "the file is gone"
    text = data.decode("utf-8", "replace")
    try:
        if rel.endswith((".json",)):
            loads_json(text, rel)
        elif rel.endswith((".csv", ".tsv")):
            list(csv.reader(io.StringIO(text), delimiter="\t" if rel.endswith(".tsv") else ","))
        elif rel.endswith(".toml"):
            loads_toml(text, rel)
    except (ValueError, RecursionError, csv.Error) as err:
        return str(err)[:200]
    return ""
