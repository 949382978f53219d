"""After rope moves a definition: the old module's ``__all__`` and its re-export, the new module's ``__all__``.

A public name (no leading underscore, and listed in ``__all__`` when the module has one) stays importable from
where it was, so code outside the repository keeps working: ``from new import name`` is added to the old module,
unless the new module imports the old one (the re-export would make a cycle), which is said instead.
Runs inside the worker on the throwaway copy.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from tui.refactor.pyfind import parse, trees
from tui.refactor.pytext import all_entries, bound, read, write
from tui.safety.parsing import parse_python


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
    """``from module import name`` in ``rel`` (relative when ``rel`` imports its own package relatively)."""
    text = read(root / rel)
    tree = parse_python(text)
    package = rel.rsplit("/", 1)[0] if "/" in rel else ""
    relative = any(isinstance(n, ast.ImportFrom) and n.level == 1 for n in tree.body)
    if relative and "." in module and module.rsplit(".", 1)[0].replace(".", "/") in (package, package.split("/", 1)[-1]):
        module = "." + module.rsplit(".", 1)[1]
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


def drop_unused_imports(root: Path, rel: str, before: str | None) -> None:
    """rope gives the new module imports from the old one that the moved code does not use (``__all__``, a
    neighbour): an import rope added that nothing in the module uses goes. Imports the module had are kept."""
    tree = parse(root, rel)
    if tree is None:
        return
    had = set((before or "").splitlines())
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    used |= {c.value for c in all_entries(tree)}
    text = read(root / rel)
    lines = text.splitlines(keepends=True)
    for node in reversed(tree.body):
        if not isinstance(node, (ast.Import, ast.ImportFrom)) or node.end_lineno != node.lineno:
            continue
        line = lines[node.lineno - 1]
        if line.rstrip("\r\n") in had or any(a.name == "*" for a in node.names):
            continue
        keep = [a for a in node.names if (a.asname or a.name.split(".")[0]) in used]
        if len(keep) == len(node.names):
            continue
        ending = line[len(line.rstrip("\r\n")):]
        if not keep:
            del lines[node.lineno - 1]
            continue
        names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in keep)
        head = f"from {'.' * node.level}{node.module or ''} import " if isinstance(node, ast.ImportFrom) else "import "
        lines[node.lineno - 1] = head + names + ending
    while lines and not lines[0].strip():
        del lines[0]
    new = "".join(lines)
    if new != text:
        write(root / rel, new)


def star_importers(root: Path, old_rel: str, old_module: str) -> list[str]:
    """The ``__init__.py`` of the old module's packages (its own and each one above) that take every public name
    of the old module with ``from .old import *``: they exported the moved name, and lose it when the old module
    cannot re-export it."""
    found: list[str] = []
    folder = Path(old_rel).parent
    while folder != folder.parent and (root / folder / "__init__.py").is_file():
        init = (folder / "__init__.py").as_posix()
        tree = parse(root, init)
        if tree is not None and any(isinstance(n, ast.ImportFrom) and [a.name for a in n.names] == ["*"]
                                    and _resolves(n, init, old_module) for n in tree.body):
            found.append(init)
        folder = folder.parent
    return found


def after_move(root: Path, old_rel: str, new_rel: str, new_module: str, name: str, was_public: bool,
               old_module: str, new_before: str | None = None) -> tuple[list[str], list[str]]:
    """Fix up both modules after rope's move. (re-exports added as "path:name", unhandled notes)."""
    notes: list[str] = []
    reexports: list[str] = []
    drop_unused_imports(root, new_rel, new_before)
    old_tree, new_tree = parse(root, old_rel), parse(root, new_rel)
    if old_tree is None or new_tree is None:
        return reexports, [f"{old_rel}: could not be parsed after the move; __all__ and re-exports not checked"]
    if name not in bound(old_tree) and was_public:
        if imports_module(new_tree, old_module):
            notes.append(f"{old_rel}: {name} was public here, but a re-export would make {new_rel} and {old_rel} "
                         f"import each other; none was added, so code outside this repository that imports {name} "
                         f"from {old_module} must import it from {new_module}")
            for init in star_importers(root, old_rel, old_module):  # the package's own API keeps the name
                if name not in bound(parse(root, init) or ast.Module(body=[], type_ignores=[])):
                    add_reexport(root, init, new_module, name)
                    reexports.append(f"{init}:{name}")
        else:
            add_reexport(root, old_rel, new_module, name)
            reexports.append(f"{old_rel}:{name}")
            old_tree = parse(root, old_rel) or old_tree
            if all_entries(old_tree) and not any(c.value == name for c in all_entries(old_tree)):
                _edit_all(root, old_rel, name, add=True)  # still exported from here, as it was
                old_tree = parse(root, old_rel) or old_tree
    new_tree = parse(root, new_rel) or new_tree
    if imports_module(old_tree, new_module) and imports_module(new_tree, old_module):
        notes.append(f"{old_rel} and {new_rel} now import each other (each uses something of the other); "
                     "this works only while neither needs the other's names at import time: the tests check says")
    if name not in bound(old_tree) and any(c.value == name for c in all_entries(old_tree)):
        _edit_all(root, old_rel, name, add=False)
    if all_entries(new_tree) and not any(c.value == name for c in all_entries(new_tree)):
        _edit_all(root, new_rel, name, add=True)
    stub = old_rel[:-3] + ".pyi"
    if (root / stub).is_file() and f"def {name}" in read(root / stub) or \
            (root / stub).is_file() and f"class {name}" in read(root / stub):
        notes.append(f"{stub}: the stub still declares {name}; move its declaration to {new_rel[:-3]}.pyi by hand")
    return reexports, notes


def _both(root: Path, rel: str, before: str | None) -> tuple[ast.Module, ast.Module] | None:
    """(the tree before, the tree now) of a file rope changed; None when either does not parse."""
    tree = parse(root, rel)
    if before is None or tree is None:
        return None
    try:
        return parse_python(before), tree
    except (SyntaxError, ValueError, RecursionError):
        return None


def rewrap_imports(root: Path, before: dict[str, str], files: list[str]) -> None:
    """rope writes an import it changed on one line; one that was wrapped in parentheses is wrapped again, with
    the original's continuation indent and width."""
    for rel in files:
        pair = _both(root, rel, before.get(rel))
        if pair is None:
            continue
        old_tree, tree = pair
        old_text = before[rel]
        wrapped = {(n.module, n.level): n for n in old_tree.body
                   if isinstance(n, ast.ImportFrom) and (n.end_lineno or n.lineno) > n.lineno}
        text = read(root / rel)
        lines = text.splitlines(keepends=True)
        old_lines = old_text.splitlines()
        width = max(79, max((len(x) for x in old_lines), default=79))
        for node in reversed(tree.body):
            if not isinstance(node, ast.ImportFrom) or (node.end_lineno or node.lineno) != node.lineno:
                continue
            line = lines[node.lineno - 1]
            model = wrapped.get((node.module, node.level))
            if model is None or len(line.rstrip()) <= width or "(" in line or any(a.asname for a in node.names):
                continue
            indent = re.match(r"\s*", old_lines[model.lineno]).group(0)  # type: ignore[union-attr]
            head = line[: line.index(" import ") + len(" import ")] + "("
            rows, current = [], head
            for i, alias in enumerate(node.names):
                piece = alias.name + ("," if i < len(node.names) - 1 else ")")
                if len(current) + len(piece) + 1 > width and current.strip() not in (head.strip(), ""):
                    rows.append(current.rstrip())
                    current = indent
                current += piece if current in (head, indent) else " " + piece
            rows.append(current)
            ending = line[len(line.rstrip("\r\n")):]
            lines[node.lineno - 1] = ending.join(rows) + ending
        new_text = "".join(lines)
        if new_text != text:
            write(root / rel, new_text)


def _resolves(node: ast.ImportFrom, rel: str, module: str) -> bool:
    """Whether ``from ... import`` in file ``rel`` names ``module`` (absolutely or relatively)."""
    if not node.level:
        return node.module == module
    package = rel.rsplit("/", 1)[0].split("/") if "/" in rel else []
    base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
    target = ".".join([*base, *(node.module.split(".") if node.module else [])])
    return target == module or target.endswith("." + module) or module.endswith("." + target) and bool(target)


def merge_imports(root: Path, files: list[str], name: str, old_module: str, new_module: str) -> None:
    """rope leaves ``from old import name`` inside ``try:`` blocks and adds ``from new import name`` at the top:
    the old import is pointed at the new module where it stands, and rope's added line goes."""
    for rel in files:
        tree = parse(root, rel)
        if tree is None:
            continue
        imports = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.end_lineno == n.lineno
                   and [a.name for a in n.names] == [name] and not n.names[0].asname]
        added = [n for n in imports if n in tree.body and not n.level and n.module == new_module]
        stale = [n for n in imports if _resolves(n, rel, old_module) and n not in added]
        if len(added) != 1 or not stale:
            continue
        lines = read(root / rel).splitlines(keepends=True)
        same_package = new_module.rsplit(".", 1)[0] == old_module.rsplit(".", 1)[0]
        for node in stale:
            line = lines[node.lineno - 1]
            indent = line[: len(line) - len(line.lstrip())]
            source = "." + new_module.rsplit(".", 1)[-1] if node.level == 1 and same_package else new_module
            ending = line[len(line.rstrip("\r\n")):]
            lines[node.lineno - 1] = f"{indent}from {source} import {name}{ending}"
        del lines[added[0].lineno - 1]
        write(root / rel, "".join(lines))


def stale_imports(root: Path, files: list[str], module: str, old: str) -> list[str]:
    """path:line of each ``from module import old`` still there after a rename: an import rope could not resolve
    (a namespace package, a path it does not know), left as it is rather than guessed."""
    found = []
    for rel, tree in trees(root, files):
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and any(a.name == old for a in node.names) \
                    and _resolves(node, rel, module):
                found.append(f"{rel}:{node.lineno}: imports {old} from {module}, which rope could not follow here; "
                             "left as it is")
    return found


def _header(tree: ast.Module) -> list[ast.stmt]:
    """The module's leading imports (after its docstring), up to the first other statement."""
    found: list[ast.stmt] = []
    for i, node in enumerate(tree.body):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        else:
            break
    return found


def _keys(node: ast.stmt) -> list[tuple[object, ...]]:
    module = (getattr(node, "module", None), getattr(node, "level", 0))
    return [(type(node).__name__, *module, a.name, a.asname) for a in node.names]  # type: ignore[attr-defined]


def restore_imports(root: Path, rel: str, before: str | None) -> None:
    """rope re-renders a module's whole import block when it drops an import (one import a line becomes one long
    line): the block is put back as its author wrote it, without the imports rope dropped, plus the ones it added."""
    pair = _both(root, rel, before)
    if pair is None or before is None:
        return
    old_tree, tree = pair
    old, new = _header(old_tree), _header(tree)
    if not old or not new:
        return
    old_keys = {k for n in old for k in _keys(n)}
    new_keys = {k for n in new for k in _keys(n)}
    old_lines, lines = before.splitlines(keepends=True), read(root / rel).splitlines(keepends=True)
    region: list[str] = []
    last = old[0].lineno - 1
    for node in old:
        region += old_lines[last:node.lineno - 1]  # comments and blank lines between imports stay
        kept = [a for a, k in zip(node.names, _keys(node)) if k in new_keys]  # type: ignore[attr-defined]
        if len(kept) == len(node.names):  # type: ignore[attr-defined]
            region += old_lines[node.lineno - 1:node.end_lineno]
        elif kept:
            names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in kept)
            head = (f"from {'.' * node.level}{node.module or ''} import " if isinstance(node, ast.ImportFrom)
                    else "import ")
            region.append(head + names + "\n")
        last = node.end_lineno or node.lineno
    for node in new:
        if any(k not in old_keys for k in _keys(node)):
            region += lines[node.lineno - 1:node.end_lineno]
    start, end = new[0].lineno - 1, new[-1].end_lineno or new[-1].lineno
    text = "".join(lines[:start] + region + lines[end:])
    if text != "".join(lines):
        write(root / rel, text)
