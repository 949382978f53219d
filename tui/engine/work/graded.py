"""Checks graded assert by assert.

A check written by a small model for a request often holds one assert that no code could satisfy (a generator
compared with a list, ``mean([]) == 0`` beside "raises ValueError on an empty sequence"). Run whole, it fails every
candidate, the right one too. Run graded, each top-level assert reports on its own line (the run still fails when
any fails, so a graded check means what the check means), and the candidates can be compared assert by assert: an
assert that no candidate satisfies says nothing about which one is right (CodeT's dual agreement, at the level of
asserts). ``live`` keeps the others, as long as what is left still asks for the change: at least one assert the
code as it was fails (the change itself), and two of them when more than half of the asserts are dropped.
"""

from __future__ import annotations

import ast
import re
import secrets

# Each assert's line starts with a mark the code under test cannot know (it is made when devagent starts), so the
# project's own code cannot print a verdict for an assert (the data harness does the same).
MARK = "devagent-assert-" + secrets.token_hex(6)
_RESULT = re.compile(rf"^{MARK} (\d+) (pass|fail)", re.M)
_JS_ASSERT = re.compile(r"^\s*assert(?:\.\w+)?\s*\(.*\)\s*;?\s*$")


def _python_asserts(snippet: str) -> list[ast.stmt] | None:
    from tui.safety.parsing import parse_python

    try:
        tree = parse_python(snippet)
    except (SyntaxError, ValueError, RecursionError):
        return None
    return tree.body


def count(snippet: str, language: str) -> int:
    """How many asserts of ``snippet`` are graded (top-level asserts; in JS, one-line assert calls)."""
    if language == "python":
        body = _python_asserts(snippet)
        return sum(isinstance(n, ast.Assert) for n in body or [])
    return sum(bool(_JS_ASSERT.match(line)) for line in snippet.splitlines())


def graded(snippet: str, language: str) -> str:
    """``snippet`` with each of its asserts reporting ``devagent-assert N pass|fail``; it still fails at the end
    (an AssertionError) when any failed. A snippet with nothing to grade is returned as it is."""
    if count(snippet, language) < 2:
        return snippet
    if language == "python":
        body = _python_asserts(snippet) or []
        lines, n = ["__devagent_failed = 0"], 0
        for node in body:
            text = ast.get_source_segment(snippet, node) or ast.unparse(node)
            if not isinstance(node, ast.Assert):
                lines.append(text)
                continue
            n += 1
            lines += ["try:", *("    " + ln for ln in text.splitlines()),
                      "except Exception as __devagent_error:",
                      "    __devagent_failed += 1",
                      f"    print('{MARK} {n} fail:', type(__devagent_error).__name__, __devagent_error, flush=True)",
                      "else:", f"    print('{MARK} {n} pass', flush=True)"]
        lines.append("if __devagent_failed:\n    raise AssertionError(f'{__devagent_failed} assert(s) failed')")
        return "\n".join(lines)
    out, n = ["let __devagentFailed = 0;"], 0
    for line in snippet.splitlines():
        if not _JS_ASSERT.match(line):
            out.append(line)
            continue
        n += 1
        out.append(f"try {{ {line.strip().rstrip(';')}; console.log('{MARK} {n} pass'); }} catch (err) "
                   f"{{ __devagentFailed++; console.log('{MARK} {n} fail: ' + err); }}")
    load = "(await import('node:assert'))" if language == "module" else "require('assert')"  # no require in ESM
    out.append(f"if (__devagentFailed) {{ throw new ({load}.AssertionError)("
               "{ message: __devagentFailed + ' assert(s) failed' }); }")
    return "\n".join(out)


def results(output: str) -> dict[int, bool]:
    """Which asserts passed, by number (1-based), from a graded run's output."""
    return {int(m.group(1)): m.group(2) == "pass" for m in _RESULT.finditer(output or "")}


def asserted(output: str) -> bool:
    """Whether an assert of a graded run failed by asserting (not by an error before it could compare)."""
    return bool(re.search(rf"^{MARK} \d+ fail: AssertionError", output or "", re.M))


def without(snippet: str, language: str, drop: set[int]) -> str:
    """``snippet`` without its asserts numbered in ``drop`` (numbered as ``graded`` numbers them)."""
    n, kept = 0, []
    if language == "python":
        for node in _python_asserts(snippet) or []:
            if isinstance(node, ast.Assert):
                n += 1
                if n in drop:
                    continue
            kept.append(ast.get_source_segment(snippet, node) or ast.unparse(node))
        return "\n".join(kept)
    for line in snippet.splitlines():
        if _JS_ASSERT.match(line):
            n += 1
            if n in drop:
                continue
        kept.append(line)
    return "\n".join(kept)


def live(total: int, before: dict[int, bool] | None, candidates: list[dict[int, bool]]) -> set[int] | None:
    """The asserts that no candidate satisfies, to drop; None when dropping them is not justified: nothing to drop,
    a candidate's results missing (the run died before its asserts), none left that the code as it was fails
    (``before``; None for new code, where every assert asks for something new), or only one such left when more
    than half would go."""
    if total < 2 or not candidates or any(len(c) < total for c in candidates):
        return None
    dead = {i for i in range(1, total + 1) if not any(c.get(i) for c in candidates)}
    asked = [i for i in range(1, total + 1) if i not in dead and (before is None or not before.get(i, False))]
    if not dead or not asked or (len(dead) * 2 > total and len(asked) < 2):
        return None
    return dead
