"""Where the bug behind a failing test most likely is: the code the failing test calls.

A small model shown "assert '13rd' == '13th'" edits the test (the only code it has seen). Naming the
function the test calls, and the file that defines it, sends it to the code instead. And where that
function was changed recently (uncommitted, or by one of the last few commits), the changed lines are
what a developer looks at first ("it broke since my last commit"): they are shown too, a few at most.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path
from typing import Any

from tui.safety.parsing import parse_python

SKIP = {"len", "str", "int", "float", "list", "dict", "set", "tuple", "repr", "print", "range", "isinstance", "type",
        "sorted", "raises", "approx", "mark", "parametrize", "fixture", "assertEqual", "assertTrue", "assertFalse",
        "assertRaises", "assertIn", "assertIs", "assertIsNone", "warns", "skip", "object", "bool", "super"}


def _calls(node: ast.AST) -> list[str]:
    names: list[str] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name and name not in SKIP and not name.startswith("_") and name not in names:
                names.append(name)
    return names


def called_by(source: str, test: str) -> list[str]:
    """Names the test function (``name``, ``Class::name``) calls, and its parametrize decorator's don't count."""
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError):
        return []
    parts = test.split("::")
    scope: list[ast.stmt] = tree.body
    for part in parts[:-1]:
        cls = next((n for n in scope if isinstance(n, ast.ClassDef) and n.name == part), None)
        scope = cls.body if cls else scope
    fn = next((n for n in scope if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == parts[-1]),
              None)
    if fn is None:
        return []
    return [n for stmt in fn.body for n in _calls(stmt)]


def hint(repo: Path, failures: list[dict[str, Any]], is_test: Any, where: Any, read: Any) -> str:
    """One or two sentences naming the code the first failing Python test calls ('' when unknown)."""
    for failure in failures[:3]:
        test_id = str(failure.get("test_id", ""))
        path, _, rest = test_id.partition("::")
        if not path.endswith(".py") or not rest:
            continue
        test = re.sub(r"\[.*\]$", "", rest)
        names = [(n, where(n)) for n in called_by(read(repo, path), test)]
        found = [(n, p) for n, p in names if p and not is_test(p)][:2]
        if found:
            text = " and ".join(f"{n} (defined in {p})" for n, p in found)
            n, p = found[0]
            lead = (f"The failing test {test.split('::')[-1]} calls {text}. Unless the test itself is wrong, the bug "
                    f"is there: outline(path=\"{p}\", symbol=\"{n}\") shows its code.")
            return lead + recent_change(repo, p, n, read(repo, p))
    return ""


RECENT_COMMITS = 5  # a change older than this many commits is history, not a suspect
MAX_LINES = 12
MAX_ELSEWHERE = 8  # changed lines elsewhere in the file, shown only when the change is this small


def _hunks(diff: str, start: int, end: int) -> list[str]:
    """The changed lines of a -U0 diff whose new-side range meets lines start..end."""
    shown: list[str] = []
    keep = False
    for line in diff.splitlines():
        match = re.match(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", line)
        if match:
            first = int(match.group(1))
            count = int(match.group(2)) if match.group(2) is not None else 1
            keep = first <= end and first + max(count, 1) - 1 >= start
        elif keep and line[:1] in "+-" and not line.startswith(("+++", "---")):
            shown.append(line[:160])
    return shown


def recent_change(repo: Path, path: str, name: str, text: str) -> str:
    """The lines of ``name`` (in ``path``) that were changed recently, as a short diff ('' when none)."""
    from tui.git.facade import GitRepo
    from tui.symbols import outline_of, walk

    symbol = next((s for s in walk(outline_of(path, text).symbols) if s.name == name and s.exact), None)
    if symbol is None:
        return ""
    git = GitRepo(repo, timeout=10)
    try:
        diff = git.run_text("diff", "-U0", "--no-color", "HEAD", "--", path).stdout
        lines, when = _hunks(diff, symbol.start, symbol.end), "uncommitted changes"
        if not lines and not diff.strip():  # the file is as committed: its last commit's lines are today's
            recent = git.run_text("log", f"-{RECENT_COMMITS}", "--format=%H").stdout.split()
            last, *parents = git.run_text("log", "-1", "--format=%H %P", "--", path).stdout.split() or [""]
            if last in recent and parents:  # a root commit (the first import) "changed" every line: no suspect
                diff = git.run_text("show", "-U0", "--no-color", "--format=", last, "--", path).stdout
                lines = _hunks(diff, symbol.start, symbol.end)
                ago = recent.index(last)
                when = "the last commit" if ago == 0 else f"a commit {ago} before the last"
    except (OSError, ValueError, subprocess.SubprocessError):
        return ""
    lead = f"{name} was changed by {when}"
    if not lines:  # not in the function the test calls, but in its file: what it calls may be what changed
        lines = _hunks(diff, 1, 10 ** 9)
        if not lines or len(lines) > MAX_ELSEWHERE:
            return ""
        first = re.search(r"^@@ -\d+(?:,\d+)? \+(\d+)", diff, re.M)
        inside = [s for s in walk(outline_of(path, text).symbols)
                  if first and s.start <= int(first.group(1)) <= s.end]
        lead = (f"{path} was changed by {when}" +
                (f", in {inside[-1].name} ({name} may depend on it)" if inside else ""))
    revert = _revert(path, lines, lead)
    if revert:
        return revert
    more = f"\n(and {len(lines) - MAX_LINES} more changed lines)" if len(lines) > MAX_LINES else ""
    return (f"\n{lead} (- before, + now):\n" + "\n".join(lines[:MAX_LINES]) + more +
            "\nIf the bug is in those lines, fix them with edit_file.")


def _revert(path: str, lines: list[str], lead: str) -> str:
    """One changed block (a few lines now, a few before): the lines as they read now and before, and the
    edit_file call that puts them back. A small model shown a -/+ diff copies the "-" side as ``old``; the
    lines named "now" and "before", with the call written out, leave nothing to turn round."""
    before = [line[1:] for line in lines if line.startswith("-")]
    now = [line[1:] for line in lines if line.startswith("+")]
    if not before or not now or len(before) > 4 or len(now) > 4 or any(len(line) >= 160 for line in lines) or \
            lines != [f"-{b}" for b in before] + [f"+{n}" for n in now]:
        return ""
    call = json.dumps({"name": "edit_file", "arguments": {"path": path, "old": "\n".join(now),
                                                          "new": "\n".join(before)}})
    return (f"\n{lead}. Those lines now read:\n" + "\n".join(now) + "\nBefore that change they read:\n" +
            "\n".join(before) + f"\nIf that change is the bug, put the old lines back:\n{call}")


SOURCE = re.compile(r"\.(?:py|pyi|js|jsx|mjs|cjs|ts|tsx|go|rs|rb|java|c|h|cc|cpp)$")


def recent_source_change(repo: Path, is_test: Any) -> str:
    """For any language: the library lines (tests left out) changed by the uncommitted work, else by the last
    commit, when they are few (held-out qs: "tests fail since my last commit" with tape's output, which names no
    function to follow; the model rewrote an unrelated function). '' when there is no such small change."""
    from tui.git.facade import GitRepo

    git = GitRepo(repo, timeout=10)
    try:
        diff, when = git.run_text("diff", "-U0", "--no-color", "HEAD").stdout, "uncommitted changes"
        if not _source_hunks(diff, is_test):
            last, *parents = git.run_text("log", "-1", "--format=%H %P").stdout.split() or [""]
            if not parents:
                return ""  # a root commit "changed" every line
            diff, when = git.run_text("show", "-U0", "--no-color", "--format=", last).stdout, "the last commit"
    except (OSError, ValueError, subprocess.SubprocessError):
        return ""
    files = _source_hunks(diff, is_test)
    count = sum(len(lines) for lines in files.values())
    if not files or count > MAX_LINES:
        return ""
    if len(files) == 1:
        path, lines = next(iter(files.items()))
        revert = _revert(path, lines, f"{path} was changed by {when}")
        if revert:
            return revert
    shown = "\n".join(f"{path}:\n" + "\n".join(lines) for path, lines in files.items())
    return f"\nThe code (not the tests) changed by {when} (- before, + now):\n{shown}\nIf the bug is in those " \
           "lines, fix them with edit_file."


def _source_hunks(diff: str, is_test: Any) -> dict[str, list[str]]:
    """path -> changed lines of a -U0 diff, for source files that are not tests."""
    files: dict[str, list[str]] = {}
    path = ""
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            path = ""
        elif line.startswith("+++ "):
            name = line[4:].removeprefix("b/")
            path = name if name != "/dev/null" and SOURCE.search(name) and not is_test(name) else ""
        elif path and line[:1] in "+-" and not line.startswith("--- "):
            files.setdefault(path, []).append(line[:160])
    return files
