"""A new Python method's parameters against what the request and Python fix for it.

Seen on itsdangerous (a probe outside the benchmark): asked for "a __repr__ method to Signer that returns
something like Signer(salt=b'x', sep=b'.')", a 1.5B model wrote ``def __repr__(self, salt=b'x', sep=b'.', ...)``
and formatted its own defaults: the tests passed and ``repr(signer)`` showed values the signer does not have.
The class is wider than ``__repr__``: an example in the request becomes parameters with defaults that shadow
the instance, and a method the request spells with its arguments (``copy_with_salt(salt)``) grows more.
A new method whose parameters are more than that is refused before it is proposed, with the attributes the
instance does have. Used by tui/tools/support/edits.py for the definitions any edit adds.
"""

from __future__ import annotations

import ast
import re

from tui.protocol.errors import ToolError
from tui.safety.parsing import parse_python

# How many arguments besides self Python passes to these (repr(x), len(x), x == y, x[k] = v, ...).
FIXED = {**dict.fromkeys(("__repr__", "__str__", "__len__", "__bool__", "__hash__", "__iter__", "__next__",
                          "__reversed__", "__enter__", "__copy__", "__int__", "__float__", "__index__", "__neg__",
                          "__abs__"), 0),
         **dict.fromkeys(("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__contains__",
                          "__getitem__", "__delitem__", "__add__", "__sub__", "__mul__", "__or__", "__and__",
                          "__radd__", "__deepcopy__", "__format__"), 1),
         "__setitem__": 2, "__exit__": 3}


def _params(node: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[str]:
    """The named parameters a caller passes (self or cls left out for a method; *args and **kwargs not)."""
    args = node.args
    names = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
    return names[1:] if method and names and not static else names


def _attributes(source: str, owner: str) -> list[str]:
    """The ``self.x`` the class ``owner`` assigns anywhere in its methods, in order of first assignment."""
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError):
        return []
    found: dict[str, None] = {}
    for cls in [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == owner]:
        for node in ast.walk(cls):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id == "self":
                    found.setdefault(target.attr)
    return list(found)


def requested(request: str, name: str) -> list[str] | None:
    """The argument names the request writes for ``name(...)`` (None when it does not spell a call)."""
    found = re.search(rf"(?<!\w){re.escape(name)}\s*\(([^()]*)\)", request)  # Signer.with_salt(salt) too
    if found is None:
        return None
    names = [re.split(r"[=:]", part, maxsplit=1)[0].strip() for part in found.group(1).split(",")]
    if any(n and not n.isidentifier() for n in names):
        return None  # a call with values (``f(2, 'x')``) says how it is used, not what its parameters are called
    return [n for n in names if n and n not in ("self", "cls")]


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Top-level functions and the methods of top-level classes, by qualified name."""
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found[node.name] = node
        elif isinstance(node, ast.ClassDef):
            found.update({f"{node.name}.{m.name}": m for m in node.body
                          if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))})
    return found


def check_new(rel: str, old: str | None, new: str, request: str) -> None:
    """Each function or method an edit adds to a Python file (by any edit tool), checked by check_added."""
    if not rel.endswith(".py") or old is None:
        return
    try:
        before, after = _functions(parse_python(old)), parse_python(new)
    except (SyntaxError, ValueError):
        return
    for qualname, node in _functions(after).items():
        if qualname not in before:
            check_added(qualname, node, request, new)


def check_added(qualname: str, node: ast.FunctionDef | ast.AsyncFunctionDef, request: str, file_text: str) -> None:
    """Refuse a new method or function with more parameters than Python passes to it (dunders) or than the
    request writes for it; nothing to say otherwise."""
    owner, _, name = qualname.rpartition(".")
    params = _params(node, bool(owner))
    if owner and name in FIXED:
        allowed, why = FIXED[name], f"Python calls {name} with {FIXED[name] or 'no'} argument" + \
            ("s" if FIXED[name] != 1 else "") + " besides self"
        keep, extra = params[:allowed], params[allowed:]
    else:
        asked = requested(request, name)
        if asked is None:
            return
        keep, extra = [p for p in params if p in asked], [p for p in params if p not in asked]
        why = f"the request asks for {name}({', '.join(asked)})"
    if not extra:
        return
    attrs = _attributes(file_text, owner.rsplit(".", 1)[-1]) if owner else []
    have = (f" The instance already has {', '.join('self.' + a for a in attrs[:8])}: use those." if attrs else "")
    signature = ", ".join((["self"] if owner else []) + keep)
    raise ToolError(f"{why}, but your {name} also takes {', '.join(extra)}; nothing was changed. Values "
                    f"the request shows are examples of what it returns, not parameters.{have} Send it again as "
                    f"def {name}({signature}):")
