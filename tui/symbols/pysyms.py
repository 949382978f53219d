"""Python definitions through ``ast``: classes and their members, functions, module constants.

Decorators belong to the definition they decorate (its first line is the first decorator's).
Definitions inside a module-level ``if``/``try``/``with`` count as module-level; functions
nested in functions do not (they are code, not structure).
"""

from __future__ import annotations

import ast
import re

from tui.safety.parsing import TooDeep, parse_python
from tui.symbols.model import Symbol

_CONSTANT = re.compile(r"^_*[A-Z][A-Z0-9_]*$")
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def parse(text: str) -> tuple[ast.Module | None, str]:
    """(tree, '') or (None, 'line N: message')."""
    try:
        return parse_python(text[1:] if text.startswith("\ufeff") else text), ""  # a BOM is valid in a source file
    except SyntaxError as err:
        return None, f"line {err.lineno or 0}: {err.msg}"
    except TooDeep as err:
        return None, f"line 1: {err.reason}"
    except ValueError as err:
        return None, f"line 1: {err}"


def dotted(node: ast.expr) -> str:
    """``functools.cached_property`` for a decorator (the called function for ``@x(...)``)."""
    if isinstance(node, ast.Call):
        return dotted(node.func)
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return f"{inner}.{node.attr}" if inner else node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _indent(lines: list[str], lineno: int) -> str:
    line = lines[lineno - 1] if 0 < lineno <= len(lines) else ""
    return line[: len(line) - len(line.lstrip(" \t"))]


def _marks(node: ast.AST, decorators: tuple[str, ...]) -> list[str]:
    marks = ["async"] if isinstance(node, ast.AsyncFunctionDef) else []
    for name in decorators:
        last = name.rsplit(".", 1)[-1]
        if last == "overload":
            marks.append("overload")
        elif last in ("property", "cached_property"):
            marks.append("property")
        elif last in ("setter", "getter", "deleter") and "." in name:
            marks.append(last)
        elif last in ("staticmethod", "classmethod", "abstractmethod"):
            marks.append(last.replace("method", "") if last != "abstractmethod" else "abstract")
    return marks


def _body_line(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    body = node.body
    first = body[0]
    has_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    if has_doc:
        return body[1].lineno if len(body) > 1 else 0
    return first.lineno


def _definition(node: ast.AST, lines: list[str], prefix: str, in_class: bool) -> Symbol:
    assert isinstance(node, (*_FUNCS, ast.ClassDef))
    decorators = tuple(dotted(d) for d in node.decorator_list)
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    qual = f"{prefix}{node.name}"
    end = node.end_lineno or node.lineno
    sym = Symbol(node.name, "class" if isinstance(node, ast.ClassDef) else ("method" if in_class else "function"),
                 start, end, node.lineno, qual, _marks(node, decorators), indent=_indent(lines, start),
                 decorators=decorators)
    if isinstance(node, ast.ClassDef):
        first = node.body[0]
        same_line = first.lineno == node.lineno
        sym.body_indent = _indent(lines, first.lineno) if not same_line else ""
        sym.children = _scope(node.body, lines, qual + ".", in_class=True)
    else:
        sym.body_line, sym.suite_line = _body_line(node), node.body[0].lineno
        sym.body_indent = _indent(lines, node.body[0].lineno) if node.body[0].lineno != node.lineno else ""
    return sym


def _targets(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def _scope(body: list[ast.stmt], lines: list[str], prefix: str, in_class: bool) -> list[Symbol]:
    out: list[Symbol] = []
    for node in body:
        if isinstance(node, (*_FUNCS, ast.ClassDef)):
            out.append(_definition(node, lines, prefix, in_class))
            continue
        names = _targets(node)
        if names:
            kind = "field" if in_class else "constant"
            for name in names:
                if in_class or _CONSTANT.match(name) and not name.startswith("__"):
                    out.append(Symbol(name, kind, node.lineno, node.end_lineno or node.lineno, node.lineno,
                                      f"{prefix}{name}", indent=_indent(lines, node.lineno)))
        elif isinstance(node, (ast.If, ast.Try, ast.With)) and not is_main_guard(node):
            # module or class level: ``if not IS_JYTHON: def test_x(self)`` is a method like any other
            for part in ("body", "orelse", "finalbody"):
                out.extend(_scope(getattr(node, part, []), lines, prefix, in_class))
            for handler in getattr(node, "handlers", []):
                out.extend(_scope(handler.body, lines, prefix, in_class))
    return out


def is_main_guard(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and "__main__" in ast.dump(node.test)


def python_symbols(text: str) -> tuple[list[Symbol], str]:
    """The definitions of a Python module, or ([], 'line N: why') when it does not parse."""
    tree, error = parse(text)
    if tree is None:
        return [], error
    try:
        return _scope(tree.body, text.splitlines(), "", in_class=False), ""
    except RecursionError:
        return [], "line 1: nested too deeply"
