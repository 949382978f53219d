"""For "add a test to FILE": one short test already in FILE, to copy its form.

A 1.5B model shown only the outline of a 1,170-line tape test file wrote a plain function named after
the option it was to test; shown nothing of a unittest file, it wrote a pytest function with ``self``.
The file's own last short test says how this project writes tests (tape's ``test('...', function (t)
{ ... t.end(); })``, a ``TestCase`` method, a pytest function) and where a new one goes.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tui.safety.parsing import parse_python

MAX_LINES, MAX_BYTES = 25, 2_000_000
_JS_TEST = re.compile(r"^(?:test|it|describe|suite)(?:\.\w+)?\(", re.M)


def _python(text: str, prompt: str = "") -> tuple[str, str] | None:
    """(where a new test goes, the code of the file's last short test)."""
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError):
        return None
    lines = text.splitlines()
    found: list[tuple[str, ast.AST]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            found.append(("at the end of the file (a top-level test function)", node))
        elif isinstance(node, ast.ClassDef):
            found += [(f"inside class {node.name} (edit_symbol with symbol '{node.name}.test_<what it checks>')", item)
                      for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                      and item.name.startswith("test")]
    def start(node: ast.AST) -> int:
        return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])  # type: ignore[attr-defined]

    short = [(where, "\n".join(lines[start(n) - 1:n.end_lineno])) for where, n in found
             if (n.end_lineno or n.lineno) - start(n) < MAX_LINES]
    return _closest(short, prompt) if short else None


def _js(text: str, prompt: str = "") -> tuple[str, str] | None:
    lines = text.splitlines()
    starts = [text[:m.start()].count("\n") for m in _JS_TEST.finditer(text)]
    blocks = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(lines)
        block = lines[start:end]
        close = max((j for j, line in enumerate(block) if re.match(r"^\}\s*\)\s*;?\s*$", line)), default=-1)
        if close >= 0 and close < MAX_LINES:
            blocks.append("\n".join(block[:close + 1]))
    blocks += _subtests(lines)
    if not blocks:
        return None
    return _closest([("at the end of the file, as a top-level call like this one", b) for b in blocks], prompt)


_SUBTEST = re.compile(r"^(\s+)(?:t|tt)\.test\((.*)function\s*\((\w+)\)\s*\{\s*$")


def _subtests(lines: list[str]) -> list[str]:
    """Short tape subtests (``t.test('...', function (st) {...});`` inside a big suite), written as the top-level
    test they would be: most of a tape file's short tests are nested in one long ``test('parse()', ...)``."""
    out = []
    for i, line in enumerate(lines):
        found = _SUBTEST.match(line)
        if not found:
            continue
        indent, head, param = found.groups()
        end = next((j for j in range(i + 1, min(len(lines), i + MAX_LINES)) if re.match(
            rf"^{indent}\}}\s*\)\s*;?\s*$", lines[j])), None)
        if end is None:
            continue
        body = [re.sub(rf"\b{param}\.", "t.", x[len(indent):] if x.startswith(indent) else x.lstrip())
                for x in lines[i + 1:end]]
        out.append("\n".join([f"test({head}function (t) {{", *body[:6], *(["    t.end();"] if len(body) > 6 else []),
                              "});"]))
    return out[:200]


_WORD = re.compile(r"[A-Za-z_$][\w$]{4,}")
_LOOPS = re.compile(r"\.forEach\(|\.map\(|\bfor\s*\(|\bwhile\s*\(|^\s*for\s+\w.*\bin\b|^\s*while\b", re.M)


def _named(prompt: str) -> set[str]:
    """The code names a request uses (``ignoreQueryPrefix``, ``typedkey``), not its English words."""
    return {w for w in _WORD.findall(prompt) if not w.isalpha() or not w.islower() or "_" in w} | \
        {w for w in _WORD.findall(prompt) if w.islower() and len(w) >= 7}


def _closest(found: list[tuple[str, str]], prompt: str) -> tuple[str, str]:
    """The plainest short test (no loop, then the fewest lines; the later one on a tie): its form is what a
    small model copies, and a loop or a nested suite it copies whole. Not the test that already covers what the
    request names: shown that one, a 1.5B model sends it back unchanged."""
    names = _named(prompt)
    def rank(item: tuple[int, tuple[str, str]]) -> tuple[int, int, int, int]:
        index, (_, code) = item
        covers = any(re.search(rf"(?<![\w$]){re.escape(n)}(?![\w$])", code) for n in names)
        return (1 if covers else 0, 1 if _LOOPS.search(code) else 0, code.count("\n"), -index)
    return min(enumerate(found), key=rank)[1]


def usage(text: str, prompt: str, limit: int = 2) -> list[str]:
    """Lines of the test file that already use a name the request uses, assertions first ("line N: ...")."""
    names = [n for n in _named(prompt) if n in text]
    hits = [(i, line.strip()) for i, line in enumerate(text.splitlines(), 1)
            if any(re.search(rf"(?<![\w$]){re.escape(n)}(?![\w$])", line) for n in names) and len(line) < 200
            and not re.match(r"\s*(?:def|async def|class|#|//|\*|/\*)", line)]
    hits.sort(key=lambda h: (0 if re.search(r"assert|[Ee]qual|expect\(", h[1]) else 1, h[0]))
    return [f"line {i}: {line}" for i, line in hits[:limit]]


_JS_CASE = re.compile(r"(?:^|[\s;(,{])(?:test|it|(?:t|st|tt)\.test)(?:\.\w+)?\(\s*['\"`]", re.M)


def count_tests(path: str, text: str) -> int | None:
    """How many test cases a test file defines (Python test functions and TestCase methods; tape, mocha and
    jest calls with a name), None when it cannot tell."""
    if path.endswith(".py"):
        try:
            tree = parse_python(text)
        except (SyntaxError, ValueError):
            return None
        return sum(1 for node in ast.walk(tree)
                   if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"))
    if path.endswith((".js", ".mjs", ".cjs", ".ts", ".jsx", ".tsx")):
        return len(_JS_CASE.findall(text))
    return None


def example(repo: Path, path: str, prompt: str = "") -> str:
    """The hint text ('' when the file has no short test to show)."""
    from tui.safety.paths import read_text_or_none

    text = read_text_or_none(repo, path, MAX_BYTES)
    if text is None:
        return ""
    found = _python(text, prompt) if path.endswith(".py") else _js(text, prompt) \
        if path.endswith((".js", ".mjs", ".cjs", ".ts")) else None
    if found is None:
        return ""
    where, code = found
    used = usage(text, prompt) if prompt else []
    return (f"A test already in {path}, to copy its form (a new test goes {where}; give it a name of its own and "
            f"write what the request checks in it):\n{code}"
            + ("\nHow the file already calls what the request names:\n" + "\n".join(used) if used else ""))
