"""New tests in a JavaScript test file written the way that file's runner runs them.

A 1.5B model asked to add a test to a tape file (``var test = require('tape');``) writes mocha's
``it('...', function (t) {...});`` and leaves out ``t.end()``: the file then stops at "ReferenceError: it
is not defined", or tape fails the test for never ending, and the model cannot tell why. When the file
binds its runner by name and the new lines call a test function the file never defines, that call is
the file's own (``test``); a new tape test whose callback never ends or plans gets its ``t.end()``.
Only the lines the edit adds are touched; the developer sees the result in the diff as usual.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter

RUNNERS = ("tape", "tap", "ava", "node:test", "zora", "riteway")
_BOUND = r"(?m)^\s*(?:var|let|const)\s+(\w+)\s*=\s*require\(\s*['\"]({})['\"]\s*\)|^\s*import\s+(\w+)\s+from\s+['\"]({})['\"]"
_FOREIGN = ("it", "test", "specify")  # describe() nests, so it is not a test of its own to rename


def _runner(text: str) -> tuple[str, str]:
    """(the name the file binds its test runner to, the runner's package), ('', '') when it binds none."""
    names = "|".join(re.escape(r) for r in RUNNERS)
    found = re.search(_BOUND.format(names, names), text)
    if not found:
        return "", ""
    return (found.group(1) or found.group(3)), (found.group(2) or found.group(4))


def _bound(text: str, name: str) -> bool:
    return bool(re.search(rf"(?m)(?:\b(?:var|let|const|function|class)\s+{name}\b|^\s*import\b[^;]*\b{name}\b|"
                          rf"[{{,]\s*{name}\s*[,}}][^=\n]*=\s*require\()", text))


def _added(before: str, after: list[str]) -> set[int]:
    """0-based indices of the lines of ``after`` the edit added."""
    matcher = difflib.SequenceMatcher(a=before.split("\n"), b=after, autojunk=False)
    return {j for tag, _, _, j1, j2 in matcher.get_opcodes() if tag in ("insert", "replace") for j in range(j1, j2)}


def _ended(block: str, arg: str) -> bool:
    return bool(re.search(rf"\b{re.escape(arg)}\.(?:end|plan)\s*\(", block))


def fitted_tests(rel: str, before: str, after: str) -> tuple[str, str]:
    """``after`` with the new lines' tests written for the file's runner, and a note ('' when nothing changed)."""
    if not re.search(r"\.(?:[cm]?js|jsx|tsx?)$", rel):
        return after, ""
    runner, package = _runner(after)  # a file that requires a test runner is a test file, whatever its name
    if not runner:
        return after, ""
    lines = after.split("\n")
    added = _added(before, lines)
    notes: list[str] = []
    for i in sorted(added):
        call = re.match(r"(\s*)(\w+)(\s*\(\s*['\"`])", lines[i])
        if call and not call.group(1) and call.group(2) in _FOREIGN and call.group(2) != runner \
                and not _bound(after, call.group(2)):
            lines[i] = runner + lines[i][len(call.group(2)):]
            notes.append(f"{call.group(2)}(...) is written {runner}(...), this file's {package} test")
    if package == "tape":
        i = 0
        while i < len(lines):
            opened = re.match(rf"{re.escape(runner)}\s*\(.*function\s*\(\s*(\w+)\s*\)\s*\{{", lines[i]) \
                if i in added else None
            if not opened:
                i += 1
                continue
            arg = opened.group(1)
            one_line = re.match(r"(.*\S)\s*\}\s*\)\s*;?\s*$", lines[i][opened.end():])
            if one_line:  # test('x', function (t) { ...; });
                if not _ended(lines[i], arg):
                    cut = lines[i].rindex("}")
                    lines[i] = f"{lines[i][:cut].rstrip()} {arg}.end(); {lines[i][cut:]}"
                    notes.append(f"the new tape test ends with {arg}.end()")
                i += 1
                continue
            end = next((j for j in range(i + 1, len(lines)) if re.match(r"\}\s*\)\s*;?\s*$", lines[j])), None)
            if end is None:
                break
            if not _ended("\n".join(lines[i:end]), arg):
                body = [line for line in lines[i + 1:end] if line.strip()]
                indent = re.match(r"\s*", body[-1]).group(0) if body else "    "
                lines.insert(end, f"{indent or '    '}{arg}.end();")
                added = {j + 1 if j >= end else j for j in added} | {end}
                notes.append(f"the new tape test ends with {arg}.end()")
                end += 1
            i = end + 1
    if not notes:
        return after, ""
    return "\n".join(lines), "; ".join(dict.fromkeys(notes))


_TITLE = re.compile(r"""(?m)^\s*(?:test|it|specify|t\.test|st\.test)\s*\(\s*(['"`])((?:(?!\1).){1,200})\1""")


def repeated_title(rel: str, before: str, after: str) -> tuple[str, int] | None:
    """A JS test the edit adds under a title the file already has (a copy of the example test it was shown, seen
    on minimist outside the benchmark): (the title, the line of the first), or None."""
    if not rel.endswith((".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx")):
        return None
    first: dict[str, int] = {}
    for m in _TITLE.finditer(before):
        first.setdefault(m.group(2), before.count("\n", 0, m.start(2)) + 1)
    old, new = (Counter(m.group(2) for m in _TITLE.finditer(text)) for text in (before, after))
    title = next((t for t, n in new.items() if t in first and n > old[t]), None)
    return (title, first[title]) if title is not None else None
