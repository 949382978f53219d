"""What a small model sends to edit_symbol besides the definition, and what it leaves out of it: script lines
after the definition, the class line around a method, a statement for a class, a body without its return.
Each is seen on pluggy (a probe outside the benchmark); each either cleans the code or refuses it with what to
send instead. Used by tui/symbols/pysplice.py.
"""

from __future__ import annotations

import ast
import re
import textwrap
from typing import Any

from tui.protocol.errors import ToolError
from tui.safety.parsing import parse_python
from tui.symbols.model import Symbol

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def returns_value(nodes: list[ast.stmt]) -> bool:
    """A ``return <value>``, ``raise`` or ``yield`` outside nested definitions."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Raise, ast.Yield, ast.YieldFrom)) or (isinstance(node, ast.Return) and node.value):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return False


def keeps_returning(target: Symbol, source: str, new_body: ast.Module) -> None:
    """A new body for a function that returned a value, with no return in it, makes it return None: refused
    with the current code (pluggy, outside the benchmark: ``return name`` became one assignment statement)."""
    try:
        old = parse_python(textwrap.dedent(source)).body
    except (SyntaxError, ValueError):
        return
    if not old or not isinstance(old[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return
    if returns_value(old[0].body) and not returns_value(new_body.body):
        raise ToolError(f"that body has no return, so {target.qualname} would return None where it now returns a "
                        f"value; nothing was changed. Send its whole new definition, with the return line, written "
                        f"from its current code:\n{textwrap.dedent(source)}")


def unwrapped(tree: ast.Module, code: str, wanted: str) -> tuple[ast.Module, str]:
    """``class PluginManager:`` around the ``def get_name`` sent for ``PluginManager.get_name`` is the class it
    belongs to, written for context: the method alone is meant (it was spliced as a class nested in the class;
    seen on pluggy, outside the benchmark)."""
    owner, _, name = wanted.rpartition(".")
    if not owner or len(tree.body) != 1 or not isinstance(tree.body[0], ast.ClassDef) \
            or tree.body[0].name != owner.rsplit(".", 1)[-1]:
        return tree, code
    inner = [n for n in tree.body[0].body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
    if len(inner) != 1:
        return tree, code
    node = inner[0]
    lines = code.split("\n")[min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1:node.end_lineno]
    method = textwrap.dedent("\n".join(lines))
    try:
        return parse_python(method), method
    except SyntaxError:  # a string that starts a line at column 0 keeps the indentation: leave it as it was
        return tree, code


def member_meant(splice: Any, cls: Symbol, code: str) -> None:
    """A class named and a statement given that names one of its methods (``DistFacade.project_name =
    DistFacade.project_name.lower()``, seen on pluggy outside the benchmark): refused with the method's
    symbol and its current code, so the retry replaces that method. Nothing when no member is named."""
    named = [c for c in cls.children if re.search(rf"\b{re.escape(c.name)}\b", code) and c.name != cls.name]
    if not named:
        return
    member = named[0]
    now = "\n".join(line[len(cls.body_indent):] for line in splice.lines[member.start - 1:member.end])
    raise ToolError(f"{cls.qualname} is a class: code for it must be its whole definition. To change "
                    f"{member.qualname}, call edit_symbol with symbol {member.qualname!r} and the whole new "
                    f"{member.kind} as code; it is now:\n{now}")


def without_demo(tree: ast.Module, code: str) -> tuple[ast.Module, str, str]:
    """Statements after the definition that call something at top level (``pm = PluginManager('x')`` then
    ``print(pm.plugin_count())``) are code to run, not part of it: left out, with a note saying so. Seen on
    pluggy: a 1.5B model pasted its failed try-out script into edit_symbol, and each resend indented it into
    the class again. Trailing constants (``LIMIT = 3``) without a bare call are kept."""
    last = max((i for i, n in enumerate(tree.body) if isinstance(n, _DEFS)), default=-1)
    tail = tree.body[last + 1:]
    if last < 0 or not any(isinstance(n, ast.Expr) and isinstance(n.value, (ast.Call, ast.Await)) for n in tail):
        return tree, code, ""
    lines = code.split("\n")
    kept = "\n".join(lines[:tree.body[last].end_lineno]).rstrip()
    shown = ", ".join(lines[n.lineno - 1].strip()[:40] for n in tail[:2]) + (", ..." if len(tail) > 2 else "")
    note = (f"left out the {len(tail)} statement(s) after the definition ({shown}): they are code to run, not "
            "part of it; to run them use run_python")
    return parse_python(kept), kept, note


def parameter_meant(source: str, tree: ast.Module, rel: str) -> None:
    """``edit_symbol(symbol="salt", code="salt: bytes = b'x'")`` in a file where ``salt`` is no definition but a
    parameter with a default: asked to change that default, the model would add a module-level variable nobody
    reads (itsdangerous, outside the benchmark). Refused with the parameter's line and the edit_file call that
    changes its default, when the line is certain; nothing to say otherwise."""
    import json

    first = tree.body[0] if len(tree.body) == 1 else None
    target = first.targets[0] if isinstance(first, ast.Assign) and len(first.targets) == 1 else \
        first.target if isinstance(first, ast.AnnAssign) else None
    if not isinstance(target, ast.Name) or first is None or first.value is None:
        return
    try:
        module = parse_python(source)
    except (SyntaxError, ValueError):
        return
    hits = []
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            positional = [*args.posonlyargs, *args.args]
            defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
            defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
            if target.id in defaults:
                hits.append((node, defaults[target.id]))
    if not hits:
        return
    lines = source.splitlines()
    where = "; ".join(f"a parameter of {getattr(node, 'name', 'a lambda')} (line {d.lineno}: {lines[d.lineno - 1].strip()})"
                      for node, d in hits[:3])
    node, default = hits[0]
    line = lines[default.lineno - 1]
    old, new = ast.get_source_segment(source, default), ast.unparse(first.value)
    if len(hits) == 1 and default.lineno == default.end_lineno and old and line.count(old) == 1:
        call = json.dumps({"name": "edit_file", "arguments": {"path": rel, "old": line, "new": line.replace(old, new)}})
        raise ToolError(f"{target.id} is not a definition in {rel}: it is {where}, so this would add a variable "
                        f"nothing reads; nothing was changed. To change its default, send:\n{call}")
    raise ToolError(f"{target.id} is not a definition in {rel}: it is {where}; nothing was changed. Change its "
                    "default on its line with edit_file.")
