"""Signature changes with LibCST: add a parameter with a default, or change a default, on the definition only.

Callers need no change: a parameter with a default added after the positional ones (keyword-only when the
function takes ``*args`` or already has keyword-only parameters) leaves every existing call meaning what it
meant. Only the definition's header changes (every ``@overload`` of it and its ``.pyi`` stub too), with its
formatting, annotations and comments kept, which rope's signature change does not do. Overrides in subclasses are
named, not changed. Runs inside the worker on the throwaway copy.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from tui.refactor.pyfind import IDENT, Target, trees
from tui.refactor.pytext import read, write

_LITERAL_NODES = (ast.Expression, ast.Constant, ast.Name, ast.Attribute, ast.Load, ast.Tuple, ast.List, ast.Set,
                  ast.Dict, ast.UnaryOp, ast.USub, ast.UAdd, ast.Not, ast.Invert, ast.BinOp, ast.Add, ast.Sub,
                  ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.BitOr)


class SignatureError(Exception):
    """The change cannot be made as asked; the message says why."""


def check_default(value: str) -> str:
    """A default must be a value (a literal, a name, a dotted name, simple arithmetic), never a call: the
    model's and the developer's arguments are names and values, not code."""
    value = value.strip()
    if len(value) > 200:
        raise SignatureError("a default value longer than 200 characters is not a plain value")
    try:
        tree = ast.parse(value, mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        raise SignatureError(f"{value!r} is not a Python value") from None
    bad = next((type(n).__name__ for n in ast.walk(tree) if not isinstance(n, _LITERAL_NODES)), "")
    if bad:
        raise SignatureError(f"{value!r} is not a plain value ({bad} is not allowed): give a literal such as 10, "
                             "'utf-8', None, (1, 2), or a name such as DEFAULT_TIMEOUT")
    return value


def _matching(module: Any, qualname: str) -> list[Any]:
    """Every FunctionDef of ``qualname`` in a LibCST module (overloads included)."""
    import libcst as cst

    found: list[Any] = []

    class Finder(cst.CSTVisitor):
        def __init__(self) -> None:
            self.stack: list[str] = []

        def visit_ClassDef(self, node: Any) -> None:
            self.stack.append(node.name.value)

        def leave_ClassDef(self, node: Any) -> None:
            self.stack.pop()

        def visit_FunctionDef(self, node: Any) -> None:
            if ".".join([*self.stack, node.name.value]) == qualname:
                found.append(node)
            self.stack.append(node.name.value)

        def leave_FunctionDef(self, node: Any) -> None:
            self.stack.pop()

    module.visit(Finder())
    return found


def _all_params(params: Any) -> list[Any]:
    import libcst as cst

    star = [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
    kwargs = [params.star_kwarg] if params.star_kwarg is not None else []
    return [*params.posonly_params, *params.params, *star, *params.kwonly_params, *kwargs]


def _added(fn: Any, name: str, default: str, keyword_only: bool) -> Any:
    import libcst as cst

    params = fn.params
    if name in {p.name.value for p in _all_params(params)}:
        raise SignatureError(f"{fn.name.value} already has a parameter {name}")
    new = cst.Param(cst.Name(name), default=cst.parse_expression(default),
                    equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
    kwonly = keyword_only or params.star_arg is not cst.MaybeSentinel.DEFAULT or bool(params.kwonly_params)
    lists = {"posonly_params": list(params.posonly_params), "params": list(params.params),
             "kwonly_params": list(params.kwonly_params)}
    into = "kwonly_params" if kwonly else "params"
    order = ["posonly_params", "params", "star_arg", "kwonly_params", "star_kwarg"]
    after = order[order.index(into) + 1:]
    followed = any(lists.get(k) if k in lists else getattr(params, k) not in (None, cst.MaybeSentinel.DEFAULT)
                   for k in after)
    star = params.star_arg
    if kwonly and star is cst.MaybeSentinel.DEFAULT:
        star = cst.ParamStar()
    before: list[tuple[str, int]] = []  # (where, index) of the elements before the insertion point, in order
    for key in order[: order.index(into) + 1]:
        if key in lists:
            before += [(key, i) for i in range(len(lists[key]))]
        elif key == "star_arg" and isinstance(star, (cst.Param, cst.ParamStar)):
            before.append(("star_arg", -1))

    def element(ref: tuple[str, int]) -> Any:
        return star if ref[0] == "star_arg" else lists[ref[0]][ref[1]]

    def set_comma(ref: tuple[str, int], comma: Any) -> None:
        nonlocal star
        if ref[0] == "star_arg":
            star = star.with_changes(comma=comma)
        else:
            lists[ref[0]][ref[1]] = lists[ref[0]][ref[1]].with_changes(comma=comma)

    if before:
        prev = element(before[-1])
        if isinstance(prev.comma, cst.Comma):
            new = new.with_changes(comma=prev.comma)
            if not followed:  # a trailing comma: the new last one keeps it, the one before gets a separator
                sep = element(before[-2]).comma if len(before) > 1 else None
                set_comma(before[-1], sep if isinstance(sep, cst.Comma) else
                          cst.Comma(whitespace_after=fn.whitespace_before_params))
        elif not followed and not isinstance(getattr(prev, "whitespace_after_param", None), cst.SimpleWhitespace):
            # one parameter a line, no trailing comma: the new one goes on a line of its own, the ")" stays put
            sep = element(before[-2]).comma if len(before) > 1 else None
            new = new.with_changes(whitespace_after_param=prev.whitespace_after_param)
            prev = prev.with_changes(whitespace_after_param=cst.SimpleWhitespace(""))
            if before[-1][0] == "star_arg":
                star = prev
            else:
                lists[before[-1][0]][before[-1][1]] = prev
            set_comma(before[-1], sep if isinstance(sep, cst.Comma) else
                      cst.Comma(whitespace_after=fn.whitespace_before_params))
    lists[into].append(new)
    return fn.with_changes(params=params.with_changes(
        posonly_params=lists["posonly_params"], params=lists["params"], kwonly_params=lists["kwonly_params"],
        star_arg=star))


def _defaulted(fn: Any, name: str, default: str) -> Any:
    import libcst as cst

    params = fn.params
    for key in ("posonly_params", "params", "kwonly_params"):
        items = list(getattr(params, key))
        for i, param in enumerate(items):
            if param.name.value != name:
                continue
            if param.default is None and key != "kwonly_params" and any(p.default is None for p in items[i + 1:]):
                raise SignatureError(f"{name} has no default and parameters without one follow it, so it cannot "
                                     "get one")
            equal = param.equal if isinstance(param.equal, cst.AssignEqual) else (
                cst.AssignEqual() if param.annotation is not None else
                cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
            items[i] = param.with_changes(default=cst.parse_expression(default), equal=equal)
            return fn.with_changes(params=params.with_changes(**{key: items}))
    raise SignatureError(f"{fn.name.value} has no parameter {name}")


def change(root: Path, rel: str, qualname: str, how: str, name: str, default: str, keyword_only: bool = False,
           stub: bool = False) -> bool:
    """Apply ``how`` ("add" or "default") to every definition of ``qualname`` in ``rel``; True when it changed."""
    import libcst as cst

    text = read(root / rel)
    try:
        module = cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError) as err:
        raise SignatureError(f"{rel} could not be parsed by LibCST: {str(err).splitlines()[0]}") from None
    found = _matching(module, qualname)
    if not found:
        if stub:
            return False
        raise SignatureError(f"no definition of {qualname} in {rel}")
    value = default
    replaced: dict[int, Any] = {}
    for fn in found:
        if how == "add":
            value = "..." if stub else default
            replaced[id(fn)] = _added(fn, name, value, keyword_only)
        else:
            current = next((p for p in _all_params(fn.params) if p.name.value == name), None)
            if stub and (current is None or current.default is None or
                         isinstance(current.default, cst.Ellipsis)):
                continue  # a stub says `= ...`: nothing to change there
            replaced[id(fn)] = _defaulted(fn, name, default)

    class Swap(cst.CSTTransformer):
        def leave_FunctionDef(self, original: Any, updated: Any) -> Any:
            new = replaced.get(id(original))
            return updated.with_changes(params=new.params) if new is not None else updated

    result = module.visit(Swap()).code
    if result == text:
        return False
    write(root / rel, result)
    return True


def overrides(root: Path, files: list[str], target: Target) -> list[str]:
    """path:line of each subclass method that overrides ``target`` (a method) and keeps its old signature."""
    if target.kind != "method" or "." not in target.qualname:
        return []
    owner, method = target.qualname.rsplit(".", 1)
    owner = owner.rsplit(".", 1)[-1]
    found = []
    for rel, tree in trees(root, files):
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef) or (rel == target.path and node.name == owner):
                continue
            bases = {b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases}
            if owner not in bases:
                continue
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == method:
                    found.append(f"{rel}:{item.lineno}: {node.name}.{method} overrides {owner}.{method} and was left "
                                 "as it is; change it too if callers will pass the new argument through it")
    return found


def check_name(name: str) -> str:
    if not IDENT.match(name or "") or name in ("self", "cls"):
        raise SignatureError(f"{name!r} is not a parameter name")
    return name


def parse_assignment(text: str) -> tuple[str, str]:
    """``PARAM=VALUE`` -> (param, value), both checked."""
    match = re.match(r"^\s*([A-Za-z_]\w*)\s*=(.*)$", text or "", re.S)
    if not match or not match.group(2).strip():
        raise SignatureError(f"{text!r}: give PARAM=VALUE, e.g. timeout=30")
    return check_name(match.group(1)), check_default(match.group(2))
