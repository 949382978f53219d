"""After rope moves a definition: the old module's ``__all__`` and its re-export, the new module's ``__all__``.

A public name (no leading underscore, and listed in ``__all__`` when the module has one) stays importable from
where it was, so code outside the repository keeps working: ``from new import name`` is added to the old module,
unless the new module imports the old one (the re-export would make a cycle), which is said instead.
Runs inside the worker on the throwaway copy.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from tui.refactor.pyfind import parse
from tui.refactor.pytext import all_entries, bound, read, write


def public(tree: ast.Module, name: str) -> bool:
    entries = all_entries(tree)
    return not name.startswith("_") and (not entries or any(c.value == name for c in entries))


def imports_module(tree: ast.Module, module: str) -> bool:
    """Whether a module imports ``module`` (absolutely, or relatively by its last name) at all."""
    short = module.rsplit(".", 1)[-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == module or a.name.startswith(module + ".")
                                                for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom):
            if node.module == module or (node.level and (node.module or "").rsplit(".", 1)[-1] == short):
                return True
            if node.level and node.module is None and any(a.name == short for a in node.names):
                return True
    return False


def _insert_at(tree: ast.Module) -> int:
    """The line after which an import goes: after the last top-level import, else after the docstring and
    ``__future__`` imports (0: the very top)."""
    line = 0
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            line = node.end_lineno or node.lineno
        elif line == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            line = node.end_lineno or node.lineno
    return line


def add_reexport(root: Path, rel: str, module: str, name: str) -> None:
    text = read(root / rel)
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    at = _insert_at(tree)
    newline = "\r\n" if "\r\n" in text else "\n"
    lines.insert(at, f"from {module} import {name}{newline}")
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += newline
    write(root / rel, "".join(lines))


def _edit_all(root: Path, rel: str, name: str, add: bool) -> bool:
    """Remove ``name`` from (or append it to) the module's ``__all__`` list or tuple literal; True when done."""
    import libcst as cst

    text = read(root / rel)
    try:
        module = cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError):
        return False
    done = []

    class Edit(cst.CSTTransformer):
        def leave_Assign(self, original: Any, updated: Any) -> Any:
            if done or not any(isinstance(t.target, cst.Name) and t.target.value == "__all__"
                               for t in updated.targets):
                return updated
            value = updated.value
            if not isinstance(value, (cst.List, cst.Tuple)):
                return updated
            elements = list(value.elements)
            strings = [e for e in elements if isinstance(e.value, cst.SimpleString)]
            if add:
                if any(e.value.evaluated_value == name for e in strings):
                    return updated
                quote = strings[-1].value.quote if strings else '"'
                entry = cst.Element(cst.SimpleString(f"{quote}{name}{quote}"))
                if elements and isinstance(elements[-1].comma, cst.Comma):  # a trailing comma: one entry a line
                    entry = entry.with_changes(comma=elements[-1].comma)
                    sep = elements[-2].comma if len(elements) > 1 else None
                    elements[-1] = elements[-1].with_changes(comma=sep if isinstance(sep, cst.Comma) else
                                                             cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                elif elements:
                    elements[-1] = elements[-1].with_changes(
                        comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                elements.append(entry)
            else:
                kept = [e for e in elements if not (isinstance(e.value, cst.SimpleString)
                                                    and e.value.evaluated_value == name)]
                if len(kept) == len(elements):
                    return updated
                if kept and len(kept) < len(elements) and elements[-1] not in kept:
                    kept[-1] = kept[-1].with_changes(comma=elements[-1].comma)
                elements = kept
            done.append(True)
            return updated.with_changes(value=value.with_changes(elements=elements))

    result = module.visit(Edit()).code
    if result != text:
        write(root / rel, result)
    return bool(done)


def after_move(root: Path, old_rel: str, new_rel: str, new_module: str, name: str, was_public: bool,
               old_module: str) -> tuple[list[str], list[str]]:
    """Fix up both modules after rope's move. (re-exports added as "path:name", unhandled notes)."""
    notes: list[str] = []
    reexports: list[str] = []
    old_tree, new_tree = parse(root, old_rel), parse(root, new_rel)
    if old_tree is None or new_tree is None:
        return reexports, [f"{old_rel}: could not be parsed after the move; __all__ and re-exports not checked"]
    if name not in bound(old_tree) and was_public:
        if imports_module(new_tree, old_module):
            notes.append(f"{old_rel}: {name} was public here, but a re-export would make {new_rel} and {old_rel} "
                         f"import each other; none was added, so code outside this repository that imports {name} "
                         f"from {old_module} must import it from {new_module}")
        else:
            add_reexport(root, old_rel, new_module, name)
            reexports.append(f"{old_rel}:{name}")
            old_tree = parse(root, old_rel) or old_tree
    if name not in bound(old_tree) and any(c.value == name for c in all_entries(old_tree)):
        _edit_all(root, old_rel, name, add=False)
    if all_entries(new_tree) and not any(c.value == name for c in all_entries(new_tree)):
        _edit_all(root, new_rel, name, add=True)
    stub = old_rel[:-3] + ".pyi"
    if (root / stub).is_file() and f"def {name}" in read(root / stub) or \
            (root / stub).is_file() and f"class {name}" in read(root / stub):
        notes.append(f"{stub}: the stub still declares {name}; move its declaration to {new_rel[:-3]}.pyi by hand")
    return reexports, notes
