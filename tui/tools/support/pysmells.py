"""Two mistakes small models make in Python that pyflakes does not report.

- A test function defined inside another function (appended indented after the previous
  test): pytest never collects it, so the new test silently never runs.
- ``self.x(...)`` where the class only ever assigns ``x`` a dict, list, set, tuple, string or
  number literal: calling it raises TypeError.
Messages carry no line numbers so the static check can tell old problems from new ones.
"""

from __future__ import annotations

import ast

from tui.symbols.model import is_test_file

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LITERALS = (ast.Dict, ast.List, ast.Set, ast.Tuple, ast.DictComp, ast.ListComp, ast.SetComp, ast.JoinedStr)
_FACTORIES = {"dict", "list", "set", "tuple", "defaultdict", "OrderedDict", "Counter", "deque", "str", "int"}
_CONTAINERS = {"dict", "list", "set", "tuple", "defaultdict", "OrderedDict", "Counter", "deque"}
_KIND = {ast.Dict: "a dict", ast.DictComp: "a dict", ast.List: "a list", ast.ListComp: "a list", ast.Set: "a set",
         ast.SetComp: "a set", ast.Tuple: "a tuple", ast.JoinedStr: "a string"}


def _nested_tests(tree: ast.Module) -> list[tuple[int, str, str]]:
    found = []
    for outer in ast.walk(tree):
        if not isinstance(outer, _FUNCS):
            continue
        for inner in ast.walk(outer):
            if inner is not outer and isinstance(inner, _FUNCS) and inner.name.startswith("test"):
                found.append((inner.lineno, f"{inner.name} is defined inside {outer.name}, so pytest never collects "
                              "it; it must be at module level (dedent it, or add it with edit_symbol)", ""))
    return found


def _a(noun: str) -> str:
    return f"{'an' if noun[:1] in 'aeiouAEIOU' else 'a'} {noun}"


def _value_kind(value: ast.expr) -> str:
    """'a dict' ... for a value that can never be called; '' otherwise."""
    if isinstance(value, _LITERALS):
        return _KIND[type(value)]
    if isinstance(value, ast.Constant) and value.value is not None and not isinstance(value.value, bool):
        return _a(type(value.value).__name__)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _FACTORIES:
        return _a(value.func.id)
    return ""


def _self_attr(target: ast.expr) -> str:
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        return target.attr
    return ""


def _assigned(cls: ast.ClassDef) -> dict[str, set[str]]:
    """For each attribute the class assigns (``self.x = ...`` anywhere, ``x = ...`` in its body): what kinds of
    value; '' marks a value that may be callable."""
    kinds: dict[str, set[str]] = {}
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign):
            pairs = [(t, node.value) for t in node.targets]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            pairs = [(node.target, node.value)]
        elif isinstance(node, ast.AugAssign):
            pairs = [(node.target, None)]
        else:
            continue
        for target, value in pairs:
            name = _self_attr(target) or (target.id if isinstance(target, ast.Name) and node in cls.body else "")
            if name:
                kinds.setdefault(name, set()).add(_value_kind(value) if value is not None else "")
    return kinds


def _attribute_calls(cls: ast.ClassDef) -> list[tuple[int, str, str]]:
    methods = {n.name for n in cls.body if isinstance(n, (*_FUNCS, ast.ClassDef))}
    kinds = _assigned(cls)
    found = []
    for node in ast.walk(cls):
        name = _self_attr(node.func) if isinstance(node, ast.Call) else ""
        seen = kinds.get(name, set())
        if name and seen and "" not in seen and name not in methods:
            kind = sorted(seen)[0]
            hint = " (index it, or call one of its methods)" if kind.split()[-1] in _CONTAINERS else ""
            found.append((node.lineno, f"self.{name} is {kind}, not a method: calling self.{name}(...) "
                          f"raises TypeError{hint}", ""))
    return found


def smells(tree: ast.Module, filename: str) -> list[tuple[int, str, str]]:
    """(line, message, '') for each nested test (in test files) and each call of a non-callable attribute."""
    found = _nested_tests(tree) if is_test_file(filename) else []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            found.extend(_attribute_calls(node))
    return found
