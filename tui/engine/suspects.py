"""Where the bug behind a failing test most likely is: the code the failing test calls.

A small model shown "assert '13rd' == '13th'" edits the test (the only code it has seen). Naming the
function the test calls, and the file that defines it, sends it to the code instead.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

SKIP = {"len", "str", "int", "float", "list", "dict", "set", "tuple", "repr", "print", "range", "isinstance", "type",
        "sorted", "raises", "approx", "mark", "parametrize", "fixture", "assertEqual", "assertTrue", "assertFalse",
        "assertRaises", "assertIn", "assertIs", "assertIsNone", "warns", "skip", "object", "bool", "super"}


def _calls(node: ast.AST) -> list[str]:
    names: list[str] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name and name not in SKIP and not name.startswith("_") and name not in names:
                names.append(name)
    return names


def called_by(source: str, test: str) -> list[str]:
    """Names the test function (``name``, ``Class::name``) calls, and its parametrize decorator's don't count."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    parts = test.split("::")
    scope: list[ast.stmt] = tree.body
    for part in parts[:-1]:
        cls = next((n for n in scope if isinstance(n, ast.ClassDef) and n.name == part), None)
        scope = cls.body if cls else scope
    fn = next((n for n in scope if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == parts[-1]),
              None)
    if fn is None:
        return []
    return [n for stmt in fn.body for n in _calls(stmt)]


def hint(repo: Path, failures: list[dict[str, Any]], is_test: Any, where: Any, read: Any) -> str:
    """One or two sentences naming the code the first failing Python test calls ('' when unknown)."""
    for failure in failures[:3]:
        test_id = str(failure.get("test_id", ""))
        path, _, rest = test_id.partition("::")
        if not path.endswith(".py") or not rest:
            continue
        test = re.sub(r"\[.*\]$", "", rest)
        names = [(n, where(n)) for n in called_by(read(repo, path), test)]
        found = [(n, p) for n, p in names if p and not is_test(p)][:2]
        if found:
            text = " and ".join(f"{n} (defined in {p})" for n, p in found)
            n, p = found[0]
            return (f"The failing test {test.split('::')[-1]} calls {text}. Unless the test itself is wrong, the bug "
                    f"is there: outline(path=\"{p}\", symbol=\"{n}\") shows its code.")
    return ""
