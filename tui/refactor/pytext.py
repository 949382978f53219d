"""What a rename means beyond the code rope follows: ``__all__`` entries, doctest examples, strings that name the
old name at run time (reported, never guessed), and prose mentions (offered as a separate, optional part).

Runs inside the worker on the throwaway copy; every file is parsed, never imported.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from tui.refactor.pyfind import parse, trees

DOC_SUFFIXES = (".md", ".rst", ".txt", ".adoc", ".markdown")
# changelogs and release notes, by file name (docs/versions.rst, CHANGES.md, whatsnew.rst ...): what was, stays as it was
HISTORY = re.compile(r"^(?:changelog|changes|history|news|releases?|release[-_ ]?notes|versions|whats[-_]?new)\b",
                     re.I)
MAX_TEXT = 1_000_000
DYNAMIC_CALLS = {"getattr", "setattr", "hasattr", "delattr", "import_module", "__import__", "attrgetter",
                 "methodcaller"}


def read(path: Path) -> str:
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as fh:
        return fh.read()


def write(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="") as fh:
        fh.write(text)


def _offsets(text: str) -> list[int]:
    starts, total = [0], 0
    for line in text.splitlines(keepends=True):
        total += len(line)
        starts.append(total)
    return starts


def _char(text_lines: list[str], starts: list[int], line: int, byte_col: int) -> int:
    return starts[line - 1] + len(text_lines[line - 1].encode("utf-8", "surrogateescape")[:byte_col]
                                  .decode("utf-8", "replace"))


def bound(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level (definitions, assignments, imports), conditional ones too."""
    names: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update(a.asname or a.name.split(".")[0] for a in node.names)
                continue
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names.add(sub.id)
            for part in ("body", "orelse", "finalbody"):
                visit(getattr(node, part, []) or [])
            for handler in getattr(node, "handlers", []) or []:
                visit(handler.body)

    visit(tree.body)
    return names


def all_entries(tree: ast.Module) -> list[ast.Constant]:
    """The string entries of ``__all__`` (``=``, ``+=``, ``.extend``/``.append``) at the module's top level."""
    found: list[ast.Constant] = []
    for node in tree.body:
        value: ast.AST | None = None
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            value = node.value
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name) \
                and node.target.id == "__all__":
            value = node.value
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute) and isinstance(node.value.func.value, ast.Name) \
                and node.value.func.value.id == "__all__":
            value = ast.Tuple(elts=list(node.value.args))
        if value is not None:
            found += [c for c in ast.walk(value) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
    return found


def rename_in_all(root: Path, files: list[str], old: str, new: str) -> list[str]:
    """``"old"`` -> ``"new"`` in the ``__all__`` of every module that now binds ``new`` and no longer ``old``."""
    changed = []
    for rel in files:
        tree = parse(root, rel)
        if tree is None:
            continue
        entries = [c for c in all_entries(tree) if c.value == old]
        names = bound(tree)
        if not entries or new not in names or old in names:
            continue
        text = read(root / rel)
        lines, starts = text.splitlines(keepends=True), _offsets(text)
        for const in sorted(entries, key=lambda c: (c.lineno, c.col_offset), reverse=True):
            begin = _char(lines, starts, const.lineno, const.col_offset)
            end = _char(lines, starts, const.end_lineno or const.lineno, const.end_col_offset or 0)
            literal = text[begin:end]
            text = text[:begin] + literal.replace(old, new, 1) + text[end:]
        write(root / rel, text)
        changed.append(rel)
    return changed


def _doc_nodes(tree: ast.Module) -> list[tuple[ast.Constant, str]]:
    """Each docstring and the class it belongs to ('' outside classes)."""
    found: list[tuple[ast.Constant, str]] = []

    def visit(node: ast.AST, owner: str) -> None:
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            found.append((body[0].value, owner))
        for child in body or []:
            if isinstance(child, ast.ClassDef):
                visit(child, child.name)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, owner)

    visit(tree, "")
    return found


_PROMPT = re.compile(r"^(\s*(?:>>>|\.\.\.) )(.*)$")


def _rename_code(code: str, old: str, new: str, attribute: bool) -> str | None:
    """``old`` -> ``new`` as a name token of one line of doctest code (``attribute``: only after a dot)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    out, last, changed = [], 0, False
    previous = ""
    for tok in tokens:
        if tok.type == tokenize.NAME and tok.string == old and (previous == ".") == attribute and tok.start[0] == 1:
            out.append(code[last:tok.start[1]] + new)
            last, changed = tok.end[1], True
        if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            previous = tok.string
    return code[:0] + "".join(out) + code[last:] if changed else code


def rename_in_doctests(root: Path, files: list[str], old: str, new: str, owner_class: str = "") -> list[str]:
    """Doctest examples run in their module's globals: where the module now binds ``new`` (and not ``old``),
    ``old`` in its examples is the renamed name. For a method or attribute (``owner_class``), ``.old`` in the
    examples of that class's own docstrings."""
    changed = []
    for rel in files:
        if not rel.endswith(".py"):
            continue
        tree = parse(root, rel)
        if tree is None:
            continue
        names = bound(tree)
        if not owner_class and (new not in names or old in names):
            continue
        text = read(root / rel)
        lines = text.splitlines(keepends=True)
        touched = False
        for node, owner in _doc_nodes(tree):
            if owner_class and owner != owner_class:
                continue
            for index in range(node.lineno - 1, min(node.end_lineno or node.lineno, len(lines))):
                match = _PROMPT.match(lines[index].rstrip("\r\n"))
                if not match or not re.search(rf"\b{re.escape(old)}\b", match.group(2)):
                    continue
                code = _rename_code(match.group(2), old, new, bool(owner_class))
                if code is not None and code != match.group(2):
                    ending = lines[index][len(lines[index].rstrip("\r\n")):]
                    lines[index] = match.group(1) + code + ending
                    touched = True
        if touched:
            write(root / rel, "".join(lines))
            changed.append(rel)
    return changed


def dynamic_uses(root: Path, files: list[str], old: str) -> list[str]:
    """path:line of each string that names ``old`` where a name is looked up at run time (getattr, import_module,
    ``__all__`` of a module that does not bind it): what a rename cannot follow exactly."""
    found = []
    for rel in files:
        try:
            if old not in read(root / rel):
                continue
        except OSError:
            continue
        tree = parse(root, rel)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if func not in DYNAMIC_CALLS:
                continue
            for arg in node.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and \
                        re.search(rf"(?:^|\.){re.escape(old)}(?:$|\.)", arg.value):
                    found.append(f"{rel}:{node.lineno}: {func}(..., {arg.value!r}) looks the name up at run time; "
                                 "left as it is")
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == old:
                found.append(f"{rel}:{node.value.lineno}: a keyword argument {old}=... (a key or name built at run "
                             "time?); left as it is")
        names = bound(tree)
        for const in all_entries(tree):
            if const.value == old and old not in names:
                found.append(f"{rel}:{const.lineno}: __all__ lists {old!r}, which this module does not define or "
                             "import; left as it is")
    return found


def star_users(root: Path, files: list[str], module: str, old: str) -> list[str]:
    """path:line where ``old`` is still used in a module that takes names from ``module`` with ``import *``."""
    found = []
    short = module.rsplit(".", 1)[-1]
    for rel, tree in trees(root, files):
        stars = [n for n in tree.body if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
                 and (n.module == module or (n.level and (n.module or "").rsplit(".", 1)[-1] == short))]
        if not stars:
            continue
        uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == old]
        for use in uses[:5]:
            found.append(f"{rel}:{use.lineno}: {old} comes from `from {stars[0].module or '.'} import *` here and "
                         "was not renamed; check it by hand")
    return found


def _spans(text: str) -> list[tuple[int, int]] | None:
    """Character spans of a Python file's comments and strings (None when it does not tokenize)."""
    starts = _offsets(text)
    spans = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.COMMENT, tokenize.STRING) or tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
                spans.append((starts[tok.start[0] - 1] + tok.start[1], starts[tok.end[0] - 1] + tok.end[1]))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return spans


def mentions(root: Path, files: list[str], pattern: str, replace: str,
             more: tuple[tuple[str, str], ...] = ()) -> dict[str, str]:
    """The optional part: ``pattern`` (a regex) -> ``replace`` (then each of ``more``) in prose docs and in Python
    comments and strings. Returns {path: new text}; nothing is written. Changelogs and release notes keep what
    they said."""
    pairs = [(re.compile(pattern), replace)] + [(re.compile(p), r) for p, r in more]
    regex = re.compile("|".join(f"(?:{p.pattern})" for p, _ in pairs))

    def substitute(text: str) -> str:
        for compiled, replacement in pairs:
            text = compiled.sub(replacement, text)
        return text

    result: dict[str, str] = {}
    for rel in files:
        name = rel.rsplit("/", 1)[-1]
        is_py = rel.endswith((".py", ".pyi"))
        if HISTORY.match(name) or not (is_py or name.lower().endswith(DOC_SUFFIXES) or name.upper().startswith(
                ("README", "CONTRIBUTING"))):
            continue
        path = root / rel
        try:
            if path.stat().st_size > MAX_TEXT:
                continue
            text = read(path)
        except OSError:
            continue
        if not regex.search(text):
            continue
        if is_py:
            spans = _spans(text)
            if not spans:
                continue
            pieces, last = [], 0
            for begin, end in spans:
                pieces.append(text[last:begin])
                pieces.append(substitute(text[begin:end]))
                last = end
            new = "".join(pieces) + text[last:]
        else:
            new = substitute(text)
        if new != text:
            result[rel] = new
    return result
