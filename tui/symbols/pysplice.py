"""Replace or add a Python definition by name, through ``ast``; the result must parse.

A method is added at the end of its class, a function at module level after the last
definition (never inside it), each re-indented to its scope with PEP 8 blank lines around it.
Imports at the top of the code go to the file's imports. Decorators the code leaves out are
kept; code without a ``def`` line replaces the body of an existing function.
"""

from __future__ import annotations

import ast
import re

from tui.protocol.errors import ToolError
from tui.safety.parsing import parse_python
from tui.symbols.indent import clean_code, first_line_fixed, indent_block, indent_unit, reindent_python
from tui.symbols.model import Symbol, find, is_test_file, walk
from tui.symbols.pyguards import keeps_returning, member_meant, parameter_meant, unwrapped, without_demo
from tui.symbols.pysyms import is_main_guard, dotted, parse, python_symbols
from tui.symbols.splice_common import (Spliced, ambiguous_names, insert_lines, located, no_parent,
                                            prepared)

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def parse_code(code: str) -> tuple[ast.Module, str]:
    """The cleaned code and its tree; a ToolError naming the line when it does not parse."""
    cleaned = clean_code(code)
    if not cleaned.strip():
        raise ToolError("argument 'code' is empty: give the whole new definition")
    first_error: SyntaxError | None = None
    for candidate in (cleaned, first_line_fixed(cleaned), *_lines_from_spaces(cleaned)):
        try:
            return parse_python(candidate), candidate
        except SyntaxError as err:
            first_error = first_error or err
        except (ValueError, RecursionError) as err:
            raise ToolError(f"the code cannot be read: {err}") from None
    assert first_error is not None
    line = first_error.lineno or 0
    text = cleaned.split("\n")[line - 1].strip() if 0 < line <= cleaned.count("\n") + 1 else ""
    one_line = "" if "\n" in cleaned.strip() else (". It is all on one line: put each statement on a line of its "
                                                    "own (\\n in the JSON string), the body indented 4 spaces")
    raise ToolError(f"your code does not parse: line {line} of the code: {first_error.msg}"
                    + (f" ({text!r})" if text else "") + one_line + "; nothing was changed")


def _lines_from_spaces(code: str) -> list[str]:
    """One line whose newlines came out as the spaces of the next line's indentation (``def f(x):        if
    x:            return 1``, seen from the 1.5B model): each run of four or more spaces between two
    non-spaces as a new line with that indentation. Tried only for code of one line that does not parse."""
    if "\n" in code.strip() or not re.search(r"\S {4,}\S", code):
        return []
    return [clean_code(re.sub(r"(?<=\S)( {4,})(?=\S)", lambda m: "\n" + m.group(1), code.strip("\n")))]


def _role(decorators: tuple[str, ...]) -> str:
    for name in decorators:
        last = name.rsplit(".", 1)[-1]
        if last == "overload" or (last in ("setter", "getter", "deleter") and "." in name):
            return last
    return "main"


def _pick(group: list[Symbol], new_defs: list[ast.stmt]) -> list[Symbol]:
    """Which of several same-named definitions (overloads, getter/setter) the code replaces."""
    if len(group) == 1 or len(new_defs) >= len(group):
        return group
    roles = [_role(tuple(dotted(d) for d in getattr(node, "decorator_list", []))) for node in new_defs]
    hits = [s for s in group if _role(s.decorators) in roles]
    if len(hits) == len(new_defs):
        return hits
    lines = ", ".join(f"{s.start}-{s.end}" for s in group)
    raise ToolError(f"{group[0].qualname} has {len(group)} definitions (lines {lines}); give all of them in code "
                    "(with their decorators) to replace them together")


def _self_arg(node: ast.stmt) -> str:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.args.args:
        first = node.args.args[0].arg
        return first if first in ("self", "cls") else ""
    return ""


def _as_method(code: str, tree: ast.Module, node: ast.stmt) -> tuple[str, ast.Module]:
    """``code`` with ``self`` as the first parameter of ``node`` (a function meant as a method), unless it has
    ``self``/``cls`` already or is a static method."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or _self_arg(node) or \
            any(getattr(d, "id", "") == "staticmethod" for d in node.decorator_list):
        return code, tree
    lines = code.split("\n")
    row = node.lineno - 1
    found = re.search(rf"\bdef\s+{re.escape(node.name)}\s*\(", lines[row])
    if not found:
        return code, tree
    rest = lines[row][found.end():]
    lines[row] = lines[row][:found.end()] + ("self" if rest.lstrip().startswith(")") else "self, ") + rest
    new = "\n".join(lines)
    try:
        return new, parse_python(new)
    except (SyntaxError, ValueError, RecursionError):
        return code, tree


class _Splice:
    def __init__(self, text: str, rel: str) -> None:
        tree, error = parse(text)
        if tree is None:
            raise ToolError(f"{rel} does not parse ({error}); fix that with edit_file first")
        self.tree, self.rel = tree, rel
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.symbols, _ = python_symbols(text)
        self.unit = indent_unit(text)

    def unit_in(self, scope: Symbol | None) -> str:
        if scope is not None and scope.body_indent.startswith(scope.indent) and len(scope.body_indent) > len(scope.indent):
            return scope.body_indent[len(scope.indent):]
        return self.unit

    def block(self, code: str, indent: str, scope: Symbol | None) -> list[str]:
        return indent_block(reindent_python(code, self.unit_in(scope)), indent)

    def replace(self, targets: list[Symbol], code: str, defs: list[ast.stmt]) -> tuple[list[str], int]:
        first, last = targets[0], targets[-1]
        between = [s for s in walk(self.symbols) if first.start < s.start <= last.end and s not in targets
                   and s.indent == first.indent]
        if between:
            raise ToolError(f"{first.qualname}'s definitions are not next to each other; replace them one at a time")
        new_def = defs[0]
        if len(targets) == 1 and first.decorators and not getattr(new_def, "decorator_list", None) \
                and isinstance(new_def, (ast.FunctionDef, ast.AsyncFunctionDef)):
            kept = [line[len(first.indent):] for line in self.lines[first.start - 1:first.line - 1]]
            code = "\n".join(kept + [code])
        scope = next((s for s in walk(self.symbols) if first in s.children), None)
        block = self.block(code, first.indent, scope)
        self.lines[first.start - 1:last.end] = block
        return block, first.start

    def replace_body(self, target: Symbol, code: str, tree: ast.Module) -> tuple[list[str], int]:
        if target.kind not in ("function", "method") or target.suite_line == target.line:
            raise ToolError(f"code must be the whole definition of {target.qualname} (starting with def or class)")
        has_doc = bool(tree.body) and isinstance(tree.body[0], ast.Expr) and isinstance(
            getattr(tree.body[0], "value", None), ast.Constant) and isinstance(tree.body[0].value.value, str)
        start = target.suite_line if has_doc or not target.body_line else target.body_line
        if not has_doc and not target.body_line:  # only a docstring so far: the code goes after it
            start = target.end + 1
        keeps_returning(target, "\n".join(self.lines[target.start - 1:target.end]), tree)
        indent = target.body_indent or target.indent + self.unit
        block = indent_block(reindent_python(code, self.unit), indent)
        self.lines[start - 1:target.end] = block
        return block, start

    def add(self, parent: Symbol | None, code: str) -> tuple[list[str], int]:
        if parent is not None:
            indent = parent.body_indent or parent.indent + self.unit
            block = self.block(code, indent, parent)
            return block, insert_lines(self.lines, parent.end, block, blank=1)
        defs = [n for n in self.tree.body if isinstance(n, _DEFS)]
        if defs:
            at = defs[-1].end_lineno or len(self.lines)
        else:
            guard = next((n for n in self.tree.body if is_main_guard(n)), None)
            at = guard.lineno - 1 if guard is not None else len(self.lines)
        block = self.block(code, "", None)
        return block, insert_lines(self.lines, at, block, blank=2)

    def hoist(self, imports: list[str]) -> int:
        """Add the code's imports the file lacks after its last top-level import; how many lines were added."""
        tree = parse_python("\n".join(self.lines))
        bound: set[str] = set()
        last_import, first_def = 0, None
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                bound.update((a.asname or a.name.split(".")[0]) for a in node.names)
                if first_def is None:
                    last_import = node.end_lineno or node.lineno
            elif isinstance(node, _DEFS) and first_def is None:
                first_def = node
        missing = []
        for source in imports:
            names = {(a.asname or a.name.split(".")[0]) for n in parse_python(source).body
                     for a in getattr(n, "names", [])}
            if not names <= bound:
                missing.append(source)
                bound |= names
        if not missing:
            return 0
        block, at = missing, last_import
        if not last_import:  # the first imports: after the module docstring, blank lines per PEP 8 around them
            doc = tree.body[0] if tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(
                getattr(tree.body[0], "value", None), ast.Constant) else None
            at = (doc.end_lineno or 1) if doc is not None else 0
            rest = self.lines[at:]
            blanks = next((i for i, line in enumerate(rest) if line.strip()), len(rest))
            following = rest[blanks] if blanks < len(rest) else ""
            need = 2 if following.startswith(("def ", "class ", "@", "async def ")) else 1
            block = ([""] if at else []) + missing + [""] * max(0, need - blanks)
        self.lines[at:at] = block
        return len(block)


def _home(symbols: list[Symbol], wanted: str, defs: list[ast.stmt], code: str, rel: str
          ) -> tuple[Symbol | None, str, str]:
    """Where a definition that does not exist yet goes: (its class, None for module level; the code; a note)."""
    head, name = wanted.rpartition(".")[0], wanted.rpartition(".")[2]
    if head:
        parent = next((s for s in walk(symbols) if s.kind == "class" and s.qualname == head), None)
        if parent is None:
            raise ToolError(no_parent(head, symbols, rel))
        return parent, code, ""
    takes = _self_arg(defs[0]) if defs else ""
    classes = [s for s in symbols if s.kind == "class"]
    if not takes:
        return None, code, ""
    if len(classes) == 1:
        return classes[0], code, f"added to class {classes[0].name} because the code takes {takes}"
    if classes:
        raise ToolError(f"the code takes {takes}, so it is a method: name its class in symbol, e.g. "
                        f"\"ClassName.{name}\" (classes in {rel}: {', '.join(c.name for c in classes)})")
    if is_test_file(rel) and getattr(defs[0], "name", "").startswith("test"):
        return None, _without_first_arg(code, defs[0]), f"removed {takes}: a module-level test takes none"
    return None, code, ""


def _without_first_arg(code: str, node: ast.stmt) -> str:
    """The code with its function's first parameter (``self``) removed from the ``def`` line."""
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    arg = node.args.args[0]
    lines = code.split("\n")
    raw = lines[arg.lineno - 1].encode("utf-8")  # ast offsets count bytes
    end = arg.end_col_offset or arg.col_offset
    rest = raw[end:]
    end += len(rest) - len(rest.lstrip(b" ,")) if rest.lstrip(b" ").startswith(b",") else 0
    lines[arg.lineno - 1] = (raw[:arg.col_offset] + raw[end:]).decode("utf-8")
    return "\n".join(lines)


def _split_imports(tree: ast.Module, code: str) -> tuple[list[str], str]:
    """The import statements at the top of the code, and the rest of it."""
    lines = code.split("\n")
    imports: list[str] = []
    rest_from = 0
    for node in tree.body:
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            rest_from = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) - 1
            break
        imports.append(" ".join(" ".join(lines[node.lineno - 1:node.end_lineno]).split()))
    else:
        rest_from = len(lines)
    return imports, "\n".join(lines[rest_from:])


def splice_python(text: str, symbol: str, code: str, rel: str) -> Spliced:
    """``text`` with ``symbol`` replaced by (or, when it does not exist, extended with) ``code``."""
    text, bom, wanted = prepared(text, symbol)
    header = _new_header(text, wanted, code, rel)
    if header is not None:
        return Spliced(bom + header.text, header.action, header.qualname, header.start, header.end, header.note)
    tree, cleaned = parse_code(code)
    imports, code = _split_imports(tree, cleaned)
    tree = parse_python(code) if imports else tree
    tree, code, demo = without_demo(tree, code)
    tree, code = unwrapped(tree, code, wanted)
    defs = [n for n in tree.body if isinstance(n, _DEFS)]
    splice = _Splice(text, rel)
    found = find(splice.symbols, wanted)
    if len(found) == 1 and found[0].kind == "class" and defs and not isinstance(defs[0], ast.ClassDef) \
            and (_self_arg(defs[0]) or defs[0].name != found[0].name):  # a class named, a function given:
        code, tree = _as_method(code, tree, defs[0])  # the method of that class is meant (``def reset():``
        defs = [n for n in tree.body if isinstance(n, _DEFS)]  # for the class had replaced all of it)
        wanted = f"{found[0].qualname}.{getattr(defs[0], 'name', '')}"
        found = find(splice.symbols, wanted)
    name = wanted.rsplit(".", 1)[-1]
    note = ""
    if len({s.qualname for s in found}) > 1:
        raise ToolError(ambiguous_names(wanted, found, rel))
    same = [d for d in defs if getattr(d, "name", "") == name] or defs[:1]
    if found and not defs:
        if found[0].kind == "class":
            member_meant(splice, found[0], code)
        if found[0].kind in ("constant", "field") and tree.body:
            block, start = splice.replace(found, code, list(tree.body))
        else:
            block, start = splice.replace_body(found[0], code, tree)
        action, defined = "changed the body of" if found[0].kind not in ("constant", "field") else "replaced", found[0].qualname
    elif found:
        block, start = splice.replace(_pick(found, same), code, same)
        action, defined = "replaced", found[0].qualname.rpartition(".")[0] + "." + getattr(same[0], "name", name)
        defined = defined.lstrip(".")
    else:
        if not defs and not (tree.body and isinstance(tree.body[0], (ast.Assign, ast.AnnAssign))):
            raise ToolError(f"{wanted} does not exist in {rel}, so code must be its whole definition "
                            f"(def {name}(...): ...), not only its body")
        if not defs and "." not in wanted:
            parameter_meant(text, tree, rel)
        parent, code, note = _home(splice.symbols, wanted, defs, code, rel)
        block, start = splice.add(parent, code)
        own = getattr(same[0], "name", name) if same else name
        action, defined = "added", f"{parent.qualname}.{own}" if parent else own
    new_text = "\n".join(splice.lines) + "\n"
    _, error = parse(new_text)
    if error:
        raise ToolError(_where(error, start, len(block), rel))
    shift = splice.hoist(imports) if imports else 0
    new_text = "\n".join(splice.lines) + "\n"
    first, last = located(python_symbols(new_text)[0], defined, start + shift, start + shift + len(block) - 1)
    return Spliced(bom + new_text, action, defined, first, last, "; ".join(filter(None, [note, demo])), demo)


_HEADER_ONLY = re.compile(r"\A\s*(?:async\s+)?def\s+(\w+)\s*\(")


def _new_header(text: str, wanted: str, code: str, rel: str) -> Spliced | None:
    """``code`` that is only a new ``def`` line (``def metric(value, unit="", precision=4) -> str:``) for an
    existing function: its signature is replaced and its body kept (a 1.5B model asked to change a default sends
    just that line). A first ``self``/``cls`` the function never had is dropped (the model adds it to any def).
    None when ``code`` is not a lone header of the function ``wanted`` names."""
    cleaned = clean_code(code).strip()
    shape = _HEADER_ONLY.match(cleaned)
    if not shape or shape.group(1) != wanted.rsplit(".", 1)[-1]:
        return None
    try:
        parse_python(cleaned)
        return None  # it parses: a definition with a body, not a lone header
    except (SyntaxError, ValueError, RecursionError):
        pass
    try:
        new = parse_python(cleaned + "\n    pass\n").body
        tree = parse_python(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    if len(new) != 1 or not isinstance(new[0], (ast.FunctionDef, ast.AsyncFunctionDef)) or \
            len(new[0].body) != 1 or new[0].body[0].lineno <= cleaned.count("\n") + 1:
        return None  # the body is only the ``pass`` added here
    found = [s for s in find(python_symbols(text)[0], wanted) if s.kind in ("function", "method")]
    if len({s.qualname for s in found}) != 1:
        return None
    node = next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.lineno == found[0].line), None)
    if node is None or node.body[0].lineno <= node.lineno:  # a one-line def has no header of its own
        return None
    lines = text.split("\n")
    first, last = node.lineno, node.body[0].lineno - 1
    while last > first and not lines[last - 1].rstrip().endswith(":"):  # a docstring or comment above the body
        last -= 1
    if not lines[last - 1].rstrip().endswith(":") and "#" not in lines[last - 1]:
        return None
    old_args = [a.arg for a in node.args.posonlyargs + node.args.args]
    new_args = [a.arg for a in new[0].args.posonlyargs + new[0].args.args]
    note = ""
    if new_args[:1] in (["self"], ["cls"]) and old_args[:1] != new_args[:1]:
        cleaned = re.sub(rf"\(\s*{new_args[0]}\s*(?:,\s*|(?=\)))", "(", cleaned, count=1)
        note = f"the {new_args[0]} the new line added was left out: {found[0].qualname} never took one"
    indent = lines[first - 1][:len(lines[first - 1]) - len(lines[first - 1].lstrip())]
    header = [indent + line if i == 0 else line for i, line in enumerate(cleaned.split("\n"))]
    if header == lines[first - 1:last]:
        return None
    new_lines = lines[:first - 1] + header + lines[last:]
    new_text = "\n".join(new_lines)
    if parse(new_text)[1]:
        return None
    end = found[0].end + len(header) - (last - first + 1)
    return Spliced(new_text, "changed the first line of", found[0].qualname, found[0].start, end,
                   note or "its body was kept")


def _where(error: str, start: int, size: int, rel: str) -> str:
    """'line 12 of calc.py (line 3 of your code): ...' for a parse error in the result."""
    head, _, message = error.partition(": ")
    line = int(head.removeprefix("line ") or 0) if head.removeprefix("line ").isdigit() else 0
    in_code = f" (line {line - start + 1} of your code)" if start <= line < start + size else ""
    return (f"the result would not parse: line {line} of {rel}{in_code}: {message}; nothing was changed. "
            "Check the code's indentation and brackets")


def place_appended(text: str, body: str) -> str | None:
    """Where a definition appended with edit_file belongs: in the class the file ends with when it is a method
    (indented or not: ``def test_comments(self):`` at column 0 after a TestCase was collected as a function
    asking for a fixture named self), else at module level; None when ``body`` is not definitions (or would not
    parse), or is a function at module level already."""
    try:
        tree, code = parse_code(body)
        splice = _Splice(text, "")
    except ToolError:
        return None
    if not tree.body or not all(isinstance(n, _DEFS) for n in tree.body):
        return None
    last = splice.tree.body[-1] if splice.tree.body else None
    method = _self_arg(tree.body[0]) or any(dotted(d) in ("staticmethod", "classmethod")
                                             for d in getattr(tree.body[0], "decorator_list", []))
    if not body[:1].isspace() and not (method and isinstance(last, ast.ClassDef) and not any(
            getattr(n, "name", None) == getattr(tree.body[0], "name", "") for n in last.body)):
        return None  # a function, or a copy of a method the class has (refused as such by the edit's checks)
    parent = next((s for s in reversed(splice.symbols) if s.kind == "class"), None)
    if isinstance(last, ast.ClassDef) and method and parent is not None and parent.line == last.lineno:
        splice.add(parent, code)
    else:
        insert_lines(splice.lines, len(splice.lines), splice.block(code, "", None), blank=2)
    result = "\n".join(splice.lines) + "\n"
    return None if parse(result)[1] else result


def first_def_name(code: str) -> str:
    """The name the code defines first ('' when it defines nothing or does not parse)."""
    try:
        tree = parse_python(first_line_fixed(clean_code(code)))
    except (SyntaxError, ValueError, RecursionError):
        return ""
    return next((n.name for n in tree.body if isinstance(n, _DEFS)), "")


__all__ = ["first_def_name", "parse_code", "place_appended", "splice_python"]
