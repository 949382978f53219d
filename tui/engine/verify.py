"""After a change and before the turn may end: choose the tests that exercise it.

Small models end a turn with "done" after an edit that never ran (a method calling a dict as a
function, a test nobody collects). devagent picks the narrowest selection that exercises the
change (the new test by id, else the test file that imports and names what changed) and runs it
through ``run_tests``, as an ordinary proposal: approved, sandboxed, bounded.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from tui.engine.repomap import TEST_PATH
from tui.safety.parsing import parse_python

PY = (".py",)
JS = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx")
MAX_TEST_FILES = 300
MAX_BYTES = 256_000
_FILE_HEADER = re.compile(r"^\+\+\+ b/(.+)$", re.M)
_NEW_TEST = re.compile(r"^\+\s*(?:async\s+)?def\s+(test\w*)\s*\(", re.M)
_JS_NEW_TEST = re.compile(r"^\+.*\b(?:test|it)\s*\(\s*(['\"`])(.+?)\1", re.M)


@dataclass(frozen=True)
class Target:
    selection: str  # what run_tests gets: a file or a test id
    why: str  # one line for the model and the developer


def is_test(path: str) -> bool:
    return bool(TEST_PATH.search(path))


def changed_files(diff: str) -> list[str]:
    """Files a unified diff adds or modifies (deleted files have no ``+++ b/`` line)."""
    return list(dict.fromkeys(_FILE_HEADER.findall(diff)))


def _file_diffs(diff: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for chunk in re.split(r"(?m)^(?=diff --git )", diff):
        names = _FILE_HEADER.findall(chunk)
        if names:
            out[names[0]] = out.get(names[0], "") + chunk
    return out


def _added_lines(file_diff: str) -> set[int]:
    """Line numbers (new side) of the lines a file's diff adds (its hunks parsed by unidiff, as for staging)."""
    from tui.git.review import added_lines
    from tui.protocol.errors import PatchError

    try:
        return {number for _, number, _ in added_lines(file_diff)}
    except PatchError:  # not a diff git wrote: nothing to point at
        return set()


def _read(repo: Path, rel: str) -> str:
    from tui.safety.paths import resolve_in_repo

    try:
        target = resolve_in_repo(repo, rel)
        if not target.is_file() or target.stat().st_size > MAX_BYTES:
            return ""
        return target.read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError, Exception):  # noqa: BLE001 - a file we cannot read is one we do not use
        return ""


def touched_names(source: str, added: set[int]) -> list[str]:
    """Top-level functions/classes (and methods, as ``name``) whose lines the change added to."""
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError):
        return []
    names: list[str] = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        span = set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        if not span & added:
            continue
        names.append(node.name)
        if isinstance(node, ast.ClassDef):
            names += [m.name for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and set(range(m.lineno, (m.end_lineno or m.lineno) + 1)) & added and not m.name.startswith("__")]
    return names


def _module_names(rel: str) -> list[str]:
    """How code imports ``rel``: ``pkg.mod`` (also without a leading ``src.``/``lib.``), and ``mod``."""
    parts = list(Path(rel).with_suffix("").parts)
    if parts and parts[-1] in ("__init__", "index"):
        parts = parts[:-1]
    if not parts:
        return []
    dotted = ".".join(parts)
    out = [dotted, parts[-1]]
    if parts[0] in ("src", "lib") and len(parts) > 1:
        out.insert(1, ".".join(parts[1:]))
    return list(dict.fromkeys(out))


def _score(text: str, modules: list[str], names: list[str], js: bool) -> int:
    score = 0
    for module in modules:  # an import of the module counts once, however it is spelled: a test that imports
        last = re.escape(module.rsplit(".", 1)[-1])  # a private helper from it is not the one that exercises
        if js:  # the changed definition (pluggy's test_helpers beat test_pluginmanager, outside the benchmark)
            if re.search(rf"(?:from|require\()\s*['\"][^'\"]*\b{last}(?:\.[jt]sx?)?['\"]", text):
                score += 2
                break
        elif re.search(rf"^\s*(?:from\s+[\w.]*\b{re.escape(module)}\b|import\s+[\w.]*\b{re.escape(module)}\b)", text, re.M):
            score += 2
            break
    for name in names:
        if re.search(rf"\b{re.escape(name)}\b", text):
            score += 3
    return score


def new_tests(file_diff: str, js: bool) -> list[str]:
    if js:
        return [m.group(2) for m in _JS_NEW_TEST.finditer(file_diff)]
    return _NEW_TEST.findall(file_diff)


def _test_id(rel: str, source: str, name: str) -> str:
    """``file::name`` or ``file::Class::name`` for a test function the change added."""
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError):
        return rel
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return f"{rel}::{name}"
        if isinstance(node, ast.ClassDef):
            if any(isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name == name for m in node.body):
                return f"{rel}::{node.name}::{name}"
    return rel


def choose(repo: Path, diff: str, files: list[str]) -> Target | None:
    """The narrowest run that exercises the change in ``diff`` (None: nothing of it can be run as a test)."""
    per_file = _file_diffs(diff)
    code = [f for f in per_file if f.endswith(PY + JS)]
    tests = [f for f in code if is_test(f)]
    for rel in tests:
        if rel.endswith(JS):
            return Target(rel, f"the test file you changed, {rel}")
        source = _read(repo, rel)
        touched = new_tests(per_file[rel], False) + touched_names(source, _added_lines(per_file[rel]))
        names = list(dict.fromkeys(n for n in touched if n.startswith("test")))
        if len(names) == 1:
            return Target(_test_id(rel, source, names[0]), f"the test you changed, {names[0]}")
        return Target(rel, f"the test file you changed, {rel}")
    best: tuple[int, str, str] | None = None
    candidates = [f for f in files if is_test(f) and f.endswith(PY + JS)][:MAX_TEST_FILES]
    for rel in code:
        js = rel.endswith(JS)
        names = touched_names(_read(repo, rel), _added_lines(per_file[rel])) if not js else []
        modules = _module_names(rel)
        for test in candidates:
            if test.endswith(JS) != js:
                continue
            score = _score(_read(repo, test), modules, names, js)
            stem = Path(rel).stem.strip("_").lower()  # a tie goes to the test named after the module
            score += 1 if score and len(stem) > 2 and stem in Path(test).stem.lower() else 0
            if score and (best is None or score > best[0]):
                best = (score, test, rel)
    if best is None:
        return None
    return Target(best[1], f"the tests of {best[2]}")


@dataclass(frozen=True)
class NewDef:
    path: str
    owner: str  # the class a method belongs to ('' for a function)
    name: str
    module: str  # how it is imported: cachetools, humanize.number


def new_definitions(repo: Path, diff: str) -> list[NewDef]:
    """Public functions and methods the diff adds whole to non-test Python files (not renamed or changed ones)."""
    out: list[NewDef] = []
    for rel, file_diff in _file_diffs(diff).items():
        if not rel.endswith(".py") or is_test(rel):
            continue
        added = _added_lines(file_diff)
        if not added:
            continue
        try:
            tree = parse_python(_read(repo, rel))
        except (SyntaxError, ValueError):
            continue
        modules = _module_names(rel)
        module = modules[1] if len(modules) > 2 else modules[0] if modules else ""

        def whole(node: ast.AST) -> bool:
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            return set(range(first, (node.end_lineno or node.lineno) + 1)) <= added

        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_") \
                    and whole(node):
                out.append(NewDef(rel, "", node.name, module))
            elif isinstance(node, ast.ClassDef) and not whole(node):
                out += [NewDef(rel, node.name, m.name, module) for m in node.body
                        if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and not m.name.startswith("_")
                        and whole(m)]
    return out


def unexercised(repo: Path, diff: str, tests_seen: list[str]) -> list[NewDef]:
    """The new definitions no test file of ``tests_seen`` (those the turn changed or ran) names."""
    texts = [_read(repo, t.split("::", 1)[0]) for t in tests_seen]
    return [d for d in new_definitions(repo, diff) if not any(re.search(rf"\b{re.escape(d.name)}\b", t) for t in texts)]
