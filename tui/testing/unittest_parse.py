"""`python -m unittest -v` output turned into the same counts and failures as a pytest run.

Per-test lines (``test_add (pkg.test_calc.TestCalc.test_add) ... FAIL``) give the counts; each
``FAIL:`` / ``ERROR:`` block gives a failure with the test file's line and the exception's last line.
Test ids are written the pytest way (``tests/test_calc.py::TestCalc::test_add``) so a failing test can
be selected again with the same id; ``unittest_target`` turns such an id back into a dotted name.
"""

from __future__ import annotations

import re
from pathlib import Path

from tui.testing.model import Failure
from tui.testing.parsers import Parsed, _relpath

RESULT_LINE = re.compile(r"^(?P<name>\S+) \((?P<where>[\w.]+)\)(?: \((?P<sub>.*)\))? \.\.\. (?P<status>.*)$")
STATUS_ONLY = re.compile(r"^\s*(?P<name>\S+) \((?P<where>[\w.]+)\)(?: \((?P<sub>.*)\))? \.\.\. (?P<status>FAIL|ERROR)$")
BLOCK_HEAD = re.compile(r"^(?P<kind>FAIL|ERROR|UNEXPECTED SUCCESS): (?P<name>\S+) \((?P<where>[\w.]+)\)(?: \((?P<sub>.*)\))?$")
RAN = re.compile(r"^Ran (\d+) tests? in ", re.M)
FILE_LINE = re.compile(r'^\s*File "(?P<file>[^"]+\.py)", line (?P<line>\d+)', re.M)
FAILED_IMPORT = re.compile(r"^ImportError: Failed to import test module: (\S+)", re.M)
SEPARATOR = re.compile(r"^(?:=+|-+)$")
SUMMARY = re.compile(r"^(?:FAILED|OK)(?: \((?P<counts>[^)]*)\))?\s*$", re.M)


def _dotted(name: str, where: str) -> str:
    """Python 3.11+ prints the full ``module.Class.method``; older ones ``module.Class`` and the method apart."""
    return where if where.endswith("." + name) or where == name else f"{where}.{name}"


def _module_file(module: str, start: str, base: Path, repo: Path) -> str:
    """The repo-relative file of a dotted module, looked for under the start dir and the suite dir."""
    rel = module.replace(".", "/") + ".py"
    for root in (base / start, base):
        if (root / rel).is_file():
            return _relpath(str(root / rel), base, repo)
    return ""


def _test_id(dotted: str, start: str, base: Path, repo: Path) -> tuple[str, str]:
    """(``file::Class::method``, file) when the module's file is found, else (the dotted name, '')."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        file = _module_file(".".join(parts[:cut]), start, base, repo)
        if file:
            return "::".join([file, *parts[cut:]]), file
    return dotted, ""


def _blocks(text: str) -> list[tuple[re.Match[str], str]]:
    """Each FAIL/ERROR header with its body (up to the next separator line that precedes a header or Ran)."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        head = BLOCK_HEAD.match(line)
        if not head or i == 0 or not SEPARATOR.match(lines[i - 1]):
            continue
        body = []
        for nxt in lines[i + 2:]:
            if SEPARATOR.match(nxt) and nxt.startswith("="):
                break
            if RAN.match(nxt):
                break
            body.append(nxt)
        while body and (not body[-1].strip() or SEPARATOR.match(body[-1])):
            body.pop()
        out.append((head, "\n".join(body)))
    return out


def parse_unittest(text: str, base: Path, repo: Path, start: str = ".") -> Parsed:
    out = Parsed()
    if not RAN.search(text):
        return out
    out.source = "unittest"
    verbose = 0
    for line in text.splitlines():
        m = RESULT_LINE.match(line) or STATUS_ONLY.match(line)
        if not m:
            continue
        verbose += 1
        status = m.group("status").strip()
        if status == "ok":
            out.passed += 1
        elif status.startswith(("skipped", "expected failure")):
            out.skipped += 1
        elif status == "unexpected success":
            out.failed += 1
    for head, body in _blocks(text):
        dotted = _dotted(head.group("name"), head.group("where"))
        kind = "error" if head.group("kind") == "ERROR" else "failed"
        imported = FAILED_IMPORT.search(body)
        if imported:
            file = _module_file(imported.group(1), start, base, repo)
            test_id = file or imported.group(1)
        else:
            test_id, file = _test_id(dotted, start, base, repo)
        if head.group("sub"):
            test_id += f" [{head.group('sub')}]"
        inside = [(m.group("file"), int(m.group("line"))) for m in FILE_LINE.finditer(body)
                  if not _relpath(m.group("file"), base, repo).startswith(("/", ".."))]
        line_no = inside[-1][1] if inside else None
        where = _relpath(inside[-1][0], base, repo) if inside else file
        out.failures.append(Failure(test_id, where, line_no, _message(body) or head.group("kind"), kind, body[-6000:]))
        if kind == "error":
            out.errored += 1
        else:
            out.failed += 1
    if not verbose:  # no per-test lines (tests printed over them): the summary line's counts
        _from_summary(out, text)
    return out


EXCEPTION = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Failure|Warning)\b")


def _message(body: str, extra: int = 6) -> str:
    """The exception line and the few lines after it (assertEqual's diff); the last unindented line when no
    line names an exception. A block's last line alone can be the diff's "?   +" marker."""
    lines = body.splitlines()
    starts = [i for i, ln in enumerate(lines) if EXCEPTION.match(ln)]
    if starts:
        shown = [ln.rstrip() for ln in lines[starts[-1]:starts[-1] + 1 + extra]]
        return "\n".join(ln[:200] for ln in shown if ln.strip())
    last = [ln.strip() for ln in lines if ln.strip() and not ln.startswith(" ")]
    return last[-1] if last else ""


def _from_summary(out: Parsed, text: str) -> None:
    ran = int(RAN.findall(text)[-1])
    summary = SUMMARY.findall(text)
    counts = {k.strip(): int(v) for k, _, v in (c.partition("=") for c in (summary[-1] if summary else "").split(","))
              if v.strip().isdigit()}
    out.skipped = counts.get("skipped", 0) + counts.get("expected failures", 0)
    out.failed = max(out.failed, counts.get("failures", 0) + counts.get("unexpected successes", 0))
    out.errored = max(out.errored, counts.get("errors", 0))
    out.passed = max(0, ran - out.failed - out.errored - out.skipped)


def unittest_target(selection: str) -> str:
    """``tests/test_x.py::TestA::test_b`` -> ``tests.test_x.TestA.test_b`` (a file alone -> its module)."""
    head, _, rest = selection.partition("::")
    module = head[:-3] if head.endswith(".py") else head
    parts = [p for p in module.replace("\\", "/").split("/") if p not in ("", ".")]
    return ".".join(parts + [p for p in rest.split("::") if p])
