"""For "add a test to FILE": one short test already in FILE, to copy its form.

A 1.5B model shown only the outline of a 1,170-line tape test file wrote a plain function named after
the option it was to test; shown nothing of a unittest file, it wrote a pytest function with ``self``.
The file's own last short test says how this project writes tests (tape's ``test('...', function (t)
{ ... t.end(); })``, a ``TestCase`` method, a pytest function) and where a new one goes.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

MAX_LINES, MAX_BYTES = 25, 2_000_000
_JS_TEST = re.compile(r"^(?:test|it|describe|suite)(?:\.\w+)?\(", re.M)


def _python(text: str) -> tuple[str, str] | None:
    """(where a new test goes, the code of the file's last short test)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    lines = text.splitlines()
    found: list[tuple[str, ast.AST]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            found.append(("at the end of the file (a top-level test function)", node))
        elif isinstance(node, ast.ClassDef):
            found += [(f"inside class {node.name} (edit_symbol with symbol '{node.name}.test_<what it checks>')", item)
                      for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and item.name.startswith("test")]
    def start(node: ast.AST) -> int:
        return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])  # type: ignore[attr-defined]

    short = [(where, n) for where, n in found if (n.end_lineno or n.lineno) - start(n) < MAX_LINES]
    if not short:
        return None
    where, node = short[-1]
    return where, "\n".join(lines[start(node) - 1:node.end_lineno])


def _js(text: str) -> tuple[str, str] | None:
    lines = text.splitlines()
    starts = [text[:m.start()].count("\n") for m in _JS_TEST.finditer(text)]
    blocks = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(lines)
        block = lines[start:end]
        close = max((j for j, line in enumerate(block) if re.match(r"^\}\s*\)\s*;?\s*$", line)), default=-1)
        if close >= 0 and close < MAX_LINES:
            blocks.append("\n".join(block[:close + 1]))
    if not blocks:
        return None
    return "at the end of the file, as a top-level call like this one", blocks[-1]


_JS_CASE = re.compile(r"(?:^|[\s;(,{])(?:test|it|(?:t|st|tt)\.test)(?:\.\w+)?\(\s*['\"`]", re.M)


def count_tests(path: str, text: str) -> int | None:
    """How many test cases a test file defines (Python test functions and TestCase methods; tape, mocha and
    jest calls with a name), None when it cannot tell."""
    if path.endswith(".py"):
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return None
        return sum(1 for node in ast.walk(tree)
                   if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"))
    if path.endswith((".js", ".mjs", ".cjs", ".ts", ".jsx", ".tsx")):
        return len(_JS_CASE.findall(text))
    return None


def example(repo: Path, path: str) -> str:
    """The hint text ('' when the file has no short test to show)."""
    full = repo / path
    try:
        if full.is_symlink() or not full.is_file() or full.stat().st_size > MAX_BYTES:
            return ""
        text = full.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    found = _python(text) if path.endswith(".py") else _js(text) if path.endswith((".js", ".mjs", ".cjs", ".ts")) \
        else None
    if found is None:
        return ""
    where, code = found
    return (f"A test already in {path}, to copy its form (a new test goes {where}; give it a name of its own):\n"
            f"{code}")
