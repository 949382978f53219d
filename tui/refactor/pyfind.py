"""Which definition a developer's name means, found by parsing (``ast``), never by importing.

A name is ``func``, ``Class``, ``Class.method``, ``func.param``, ``CONSTANT``, a dotted module path
(``pkg.mod``, ``pkg.mod.func``) or a file (``pkg/mod.py``). Every definition that matches is a candidate;
more than one is an ambiguity the operation refuses, listing each with path:line and how to pick one.
Runs inside the refactoring worker (tui/refactor/pyworker.py), bounded in time and memory.
"""

from __future__ import annotations

from tui.safety.parsing import parse_python
import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SKIP_DIRS = {".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "node_modules", "__pycache__", "build", "dist",
             ".mypy_cache", ".pytest_cache", ".eggs", "site-packages"}


class FindError(Exception):
    """The name matches nothing, or more than one thing; the message says which and how to pick."""


@dataclass(frozen=True)
class Target:
    path: str  # repo-relative .py / .pyi, or a package directory for a package
    line: int  # 1-based line of the name (0 for a module)
    col: int  # 0-based character column of the name
    kind: str  # module | package | function | class | method | attribute | variable | parameter | local
    qualname: str  # dotted within the module: "Class.method", "" for a module
    module: str  # dotted module name ("pkg.mod")

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1] if self.qualname else self.module.rsplit(".", 1)[-1]

    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


def python_files(root: Path, skip: set[str]) -> list[str]:
    """Every .py / .pyi file of the copy, repo-relative, minus the ones left out (``skip``)."""
    found = []
    for path in sorted(root.rglob("*.py*")):
        rel = path.relative_to(root)
        if path.suffix not in (".py", ".pyi") or any(part in SKIP_DIRS for part in rel.parts[:-1]):
            continue
        if path.is_symlink() or not path.is_file() or rel.as_posix() in skip:
            continue
        found.append(rel.as_posix())
    return found


def module_name(rel: str, roots: list[str]) -> str:
    """``src/pkg/mod.py`` -> ``pkg.mod`` (the longest source root that contains it is cut off)."""
    path = rel[:-4] if rel.endswith(".pyi") else rel[:-3] if rel.endswith(".py") else rel
    for root in sorted(roots, key=len, reverse=True):
        if root and path.startswith(root.rstrip("/") + "/"):
            path = path[len(root.rstrip("/")) + 1:]
            break
    parts = path.split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def parse(root: Path, rel: str) -> ast.Module | None:
    """The file's tree; None when it does not parse (or is too deeply nested to parse)."""
    try:
        return parse_python((root / rel).read_bytes(), rel)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OSError):
        return None


def trees(root: Path, files: list[str]) -> "Iterator[tuple[str, ast.Module]]":
    """(path, tree) of every file that parses."""
    for rel in files:
        tree = parse(root, rel)
        if tree is not None:
            yield rel, tree


def _name_col(lines: list[str], line: int, start: int, name: str) -> int:
    """The character column of ``name`` as a word on ``line`` at or after ``start`` (-1 when absent)."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    found = re.compile(rf"(?<![\w.]){re.escape(name)}\b").search(text, start)
    return found.start() if found else -1


def _char_col(lines: list[str], line: int, byte_col: int) -> int:
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


def definitions(root: Path, rel: str, roots: list[str]) -> list[Target]:
    """Every named definition in one file: modules' own name, defs, classes, methods, assigned names, params."""
    tree = parse(root, rel)
    if tree is None:
        return []
    lines = (root / rel).read_text("utf-8", "replace").splitlines()
    module = module_name(rel, roots)
    found: list[Target] = []

    def add(node: ast.AST, name: str, kind: str, qual: str, after: int = 0) -> None:
        line = getattr(node, "lineno", 0)
        col = _name_col(lines, line, _char_col(lines, line, getattr(node, "col_offset", 0)) + after, name)
        if col >= 0:
            found.append(Target(rel, line, col, kind, qual, module))

    def visit(body: list[ast.stmt], scope: str, scope_kind: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                is_class = isinstance(node, ast.ClassDef)
                kind = "class" if is_class else "method" if scope_kind == "class" else \
                    "function" if scope_kind == "module" else "local"
                qual = f"{scope}.{node.name}" if scope else node.name
                add(node, node.name, kind, qual, 4 if is_class else 3)
                if not is_class:
                    args = node.args
                    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                        if arg.arg not in ("self", "cls"):
                            found.append(Target(rel, arg.lineno, _char_col(lines, arg.lineno, arg.col_offset),
                                                "parameter", f"{qual}.{arg.arg}", module))
                visit(node.body, qual, "class" if is_class else "function")
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name in [t for t in ast.walk(target) if isinstance(t, ast.Name)]:
                        if name.id == "__all__":
                            continue
                        kind = {"module": "variable", "class": "attribute"}.get(scope_kind, "local")
                        found.append(Target(rel, name.lineno, _char_col(lines, name.lineno, name.col_offset), kind,
                                            f"{scope}.{name.id}" if scope else name.id, module))
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)) and scope_kind != "function":
                for part in ("body", "orelse", "finalbody"):
                    visit(getattr(node, part, []) or [], scope, scope_kind)
                for handler in getattr(node, "handlers", []) or []:
                    visit(handler.body, scope, scope_kind)

    visit(tree.body, "", "module")
    # The first of several assignments of one name in one scope is its definition; later ones are uses.
    seen: set[tuple[str, str]] = set()
    result = []
    for target in found:
        key = (target.kind if target.kind in ("variable", "attribute", "local") else "def", target.qualname)
        if key[0] != "def" and key in seen:
            continue
        seen.add(key)
        result.append(target)
    return result


def find(root: Path, files: list[str], roots: list[str], name: str, within: str = "",
         kinds: tuple[str, ...] = ()) -> Target:
    """The one definition ``name`` means (``within``: a file or directory it must be in). FindError otherwise."""
    name = name.strip()
    within = within.strip().strip("/")
    if name.endswith((".py", ".pyi")) or "/" in name:
        rel = name.strip("/")
        if rel.endswith("/__init__.py"):
            rel = rel[: -len("/__init__.py")]
        if rel in files or rel + ".py" in files:
            rel = rel if rel in files else rel + ".py"
            return Target(rel, 0, 0, "module", "", module_name(rel, roots))
        if f"{rel}/__init__.py" in files:
            return Target(rel, 0, 0, "package", "", module_name(rel + "/__init__.py", roots))
        raise FindError(f"{name}: no such Python file or package in the repository")
    parts = name.split(".")
    if not all(IDENT.match(p) for p in parts):
        raise FindError(f"{name!r} is not a Python name (a name, Class.method, or pkg.module.name)")
    pool = [f for f in files if not within or f == within or f.startswith(within + "/")]
    candidates: list[Target] = []
    modules: list[Target] = []
    for rel in pool:
        module = module_name(rel, roots)
        if rel.endswith(".pyi") and rel[:-1] in files:
            continue  # a stub follows its module: renamed with it, never a target of its own
        package = rel.endswith("__init__.py")
        if module == name or (len(parts) == 1 and module.rsplit(".", 1)[-1] == name):
            modules.append(Target(rel.rsplit("/", 1)[0] if package else rel, 0, 0, "package" if package else "module",
                                  "", module))
        for target in definitions(root, rel, roots):
            if kinds and target.kind not in kinds:
                continue
            full = f"{module}.{target.qualname}"
            if target.qualname == name or (len(parts) > 1 and (full == name or full.endswith("." + name))):
                candidates.append(target)
    # A bare name means a definition when one has it (`slugify` the function, not the package slugify);
    # a module only when nothing else is called that.
    if not candidates or (len(parts) > 1 and any(m.module == name for m in modules)):
        candidates = [m for m in modules if m.module == name] or (modules if len(parts) == 1 else [])
    if not candidates:
        where = f" in {within}" if within else ""
        raise FindError(f"no definition of {name}{where} in the repository's Python files")
    defs = [c for c in candidates if c.kind not in ("parameter",)] or candidates
    if len(defs) == 1:
        return defs[0]
    listed = "; ".join(f"{c.where()} ({c.kind} {c.module}{'.' + c.qualname if c.qualname else ''})" for c in defs[:8])
    more = f" and {len(defs) - 8} more" if len(defs) > 8 else ""
    raise FindError(f"{name} is ambiguous: {len(defs)} definitions match: {listed}{more}. Name one with "
                    "--in PATH (the tool's `path`) or a dotted name such as pkg.module.name")
