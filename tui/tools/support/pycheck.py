"""A static check of Python files after an edit: syntax errors and undefined names (pyflakes).

Nothing is run. Only problems the edit introduced are reported, so the model (and the
developer reading the tool result) learns at once that ``test_mul`` uses ``mul`` without
importing it. When a module the file already imports from defines the name, the report
carries the exact edit_file call that extends that import (small models otherwise "fix" an
undefined name by renaming it).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from tui.safety.parsing import TooDeep, parse_python

SERIOUS = ("UndefinedName", "UndefinedLocal", "UndefinedExport")


def problems(source: str, filename: str) -> list[tuple[int, str, str]]:
    """(line, message, undefined name or '') for each syntax error or undefined name in ``source``."""
    try:
        tree = parse_python(source, filename)
    except SyntaxError as err:
        return [(err.lineno or 0, f"syntax error: {err.msg}", "")]
    except TooDeep as err:  # reported only when the edit made it so (the same message before is not new)
        return [(1, f"not checked: {err.reason}", "")]
    except ValueError:  # null bytes
        return []
    from tui.tools.support.pysmells import smells

    try:
        from pyflakes import checker
    except ImportError:  # the check is a help, not a requirement
        return smells(tree, filename)
    found = checker.Checker(tree, filename=filename).messages
    flakes = [(m.lineno, m.message % m.message_args, str(m.message_args[0]) if m.message_args else "")
              for m in found if type(m).__name__ in SERIOUS]
    return sorted(flakes + smells(tree, filename), key=lambda p: p[0])


def _top_names(repo: Path, path: Path) -> tuple[set[str], set[str]]:
    """(names the module at ``path`` defines, names it imports) at its top level; empty when it is not a
    regular file inside the work tree (a symlinked ``src/`` that leaves the repository is not read)."""
    from tui.protocol.errors import PathRefused
    from tui.safety.paths import read_regular, resolve_in_repo

    try:
        real = resolve_in_repo(repo, str(path))
        tree = parse_python(read_regular(real, 2_000_000, follow=False).decode("utf-8", "replace"))
    except (OSError, SyntaxError, ValueError, PathRefused):
        return set(), set()
    defined: set[str] = set()
    imported: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Assign):
            defined.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            imported.update(a.asname or a.name for a in node.names)
    return defined, imported


def _module_files(repo: Path, rel: str, dotted: str) -> list[Path]:
    """Where the module ``dotted`` imported by ``rel`` can live in the repository."""
    module = dotted.replace(".", "/")
    here = (repo / rel).parent
    return [base / suffix for base in (here, repo, repo / "src") for suffix in (f"{module}.py", f"{module}/__init__.py")]


def import_fix(source: str, name: str, repo: Path, rel: str) -> str:
    """The edit_file call that adds ``name`` to a one-line ``from X import ...`` whose module defines it."""
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError):
        return ""
    lines = source.splitlines()
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or not node.module or node.level or node.lineno != node.end_lineno:
            continue
        if any(name in _top_names(repo, p)[0] for p in _module_files(repo, rel, node.module)):
            line = lines[node.lineno - 1]
            if "(" in line or "#" in line or "*" in line:
                return ""
            call = {"name": "edit_file", "arguments": {"path": rel, "old": line, "new": f"{line.rstrip()}, {name}"}}
            return f" ({node.module} defines {name}; import it: {json.dumps(call)})"
    return ""


def new_problems(before: bytes | None, after: bytes | None, filename: str, repo: Path | None = None) -> list[str]:
    """Problems in ``after`` that ``before`` did not have (compared without line numbers)."""
    if after is None or not filename.endswith(".py"):
        return []
    old = {message for _, message, _ in problems(before.decode("utf-8", "replace"), filename)} if before else set()
    text = after.decode("utf-8", "replace")
    found = []
    for line, message, name in problems(text, filename):
        if message in old:
            continue
        hint = import_fix(text, name, repo, filename) if repo is not None and name else ""
        found.append(f"{filename} line {line}: {message}{hint}")
    return found


def qualified(repo: Path, rel: str, before: str, after: str) -> tuple[str, str]:
    """An undefined name the edit introduces that a module the file already imports provides (a new test calls
    ``intcomma(...)`` where the file has ``import humanize``) is written as that module's attribute
    (``humanize.intcomma``) on the lines that use it: a 1.5B model told "undefined name" renames the call instead
    (``intcomma_2``). Returns the text and a note ('' when nothing was done). Modules outside the repository are
    not looked into."""
    import io
    import tokenize

    if not rel.endswith(".py"):
        return after, ""
    old = {name for _, _, name in problems(before, rel)} if before else set()
    missing = [(line, name) for line, message, name in problems(after, rel)
               if name and message.startswith("undefined name") and name not in old]
    if not missing:
        return after, ""
    tree = parse_python(after)
    bound: list[tuple[str, str]] = []  # (name in this file, the module's dotted path)
    for node in tree.body:
        if isinstance(node, ast.Import):
            bound += [(a.asname or a.name, a.name) for a in node.names if a.asname or "." not in a.name]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            bound += [(a.asname or a.name, f"{node.module}.{a.name}") for a in node.names if a.name != "*"]
    lines = after.split("\n")
    done: dict[str, str] = {}
    for line_no, name in missing:
        owner = done.get(name) or next((local for local, dotted in bound if local != name and any(
            name in defined | imported for defined, imported in
            (_top_names(repo, path) for path in _module_files(repo, rel, dotted)))), "")
        if not owner or not 0 < line_no <= len(lines):
            continue
        line = lines[line_no - 1]
        tokens: list[tokenize.TokenInfo] = []
        try:  # one line of a longer statement ends in a TokenError: its tokens up to there are enough
            tokens.extend(tokenize.generate_tokens(io.StringIO(line.lstrip() + "\n").readline))
        except (tokenize.TokenError, IndentationError, SyntaxError):
            pass
        indent = len(line) - len(line.lstrip())
        for index in sorted((i for i, t in enumerate(tokens) if t.type == tokenize.NAME and t.string == name and
                             not (i and tokens[i - 1].string in (".", "def", "class"))), reverse=True):
            col = indent + tokens[index].start[1]
            line = f"{line[:col]}{owner}.{line[col:]}"
        lines[line_no - 1] = line
        done[name] = owner
    if not done:
        return after, ""
    text = "\n".join(lines)
    try:
        parse_python(text)
    except (SyntaxError, ValueError):
        return after, ""
    return text, "; ".join(f"{name} is written {owner}.{name} (the file imports {owner})" for name, owner in done.items())
