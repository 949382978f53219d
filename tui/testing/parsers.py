"""Turn a runner's machine-readable output (or, failing that, its summary line) into counts and failures."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from tui.safety.parsing import TooDeep, loads_json
from tui.testing.model import Failure


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


@dataclass
class Parsed:
    passed: int = 0
    failed: int = 0
    errored: int = 0
    skipped: int = 0
    failures: list[Failure] = field(default_factory=list)
    source: str = "none"
    unread: str = ""  # why a report the run wrote was not read (nested too deeply)

    @property
    def found(self) -> bool:
        return self.source != "none"


def _relpath(path: str, base: Path, repo: Path) -> str:
    """Repo-relative form of a path a runner printed (absolute, or relative to the suite's cwd)."""
    if not path:
        return ""
    path = path.removeprefix("file://")
    p = Path(path)
    full = p if p.is_absolute() else base / p
    try:
        return full.resolve().relative_to(repo.resolve()).as_posix()
    except (ValueError, OSError):
        return path


PY_LOC = re.compile(r"^(?P<file>[^\s:][^:\n]*\.py):(?P<line>\d+): ", re.M)
PY_FILE_LINE = re.compile(r'File "([^"]+\.py)", line (\d+)')


def parse_junit(xml_text: str, base: Path, repo: Path) -> Parsed:
    """pytest ``--junitxml`` (xunit1 family so testcases carry file and line)."""
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError:
        return Parsed()
    out = Parsed(source="junit")
    for case in root.iter("testcase"):
        name = case.get("name", "")
        file = case.get("file", "")
        classname = case.get("classname", "")
        module = file[:-3].replace("/", ".") if file.endswith(".py") else ""
        cls = classname[len(module) + 1:] if module and classname.startswith(module + ".") else ""
        test_id = "::".join(p for p in (file or classname, cls, name) if p)
        if file and not classname and name == module:
            test_id = file  # a module that failed to collect
        problem = case.find("failure")
        kind = "failed"
        if problem is None:
            problem = case.find("error")
            kind = "error"
        if case.find("skipped") is not None and problem is None:
            out.skipped += 1
            continue
        if problem is None:
            out.passed += 1
            continue
        if kind == "failed":
            out.failed += 1
        else:
            out.errored += 1
        body = problem.text or ""
        line = int(case.get("line", "0") or 0) + 1 if case.get("line") else None
        loc_file = file
        found = [(m.group("file"), int(m.group("line"))) for m in PY_LOC.finditer(body)]
        found += [(m.group(1), int(m.group(2))) for m in PY_FILE_LINE.finditer(body)]
        inside = [loc for loc in found if not _relpath(loc[0], base, repo).startswith(("/", ".."))]
        if inside:
            same = [loc for loc in inside if file and loc[0].endswith(file)] or inside
            loc_file, line = same[-1]
        message = problem.get("message", "") or body.strip().splitlines()[-1:] and body.strip().splitlines()[-1] or ""
        detail = [ln[2:].strip() for ln in body.splitlines() if ln.startswith("E ")]
        if detail:
            message = "\n".join(detail[:12])
        out.failures.append(Failure(test_id, _relpath(loc_file, base, repo), line, message, kind, body[-6000:]))
    return out


TAP_RESULT = re.compile(r"^(?P<indent>\s*)(?P<ok>not ok|ok) \d+ - (?P<name>.*?)(?:\s+#\s*(?P<directive>SKIP|TODO)\b.*)?$", re.I)
TAP_COUNT = re.compile(r"^# (tests|pass|fail|skipped|todo|cancelled) (\d+)$")
YAML_KV = re.compile(r"^\s*(\w+): ?(.*)$")
JS_LOC = re.compile(r"(?P<file>(?:file://)?/[^\s:()]+|[\w./-]+\.[cm]?[jt]sx?):(?P<line>\d+):(?P<col>\d+)")


def _yaml_block(lines: list[str], start: int) -> tuple[dict[str, str], int]:
    data: dict[str, str] = {}
    i = start
    if i < len(lines) and lines[i].strip() == "---":
        i += 1
        key = ""
        while i < len(lines) and lines[i].strip() != "...":
            m = YAML_KV.match(lines[i])
            if m and len(lines[i]) - len(lines[i].lstrip()) <= len(lines[start]) - len(lines[start].lstrip()) + 2:
                key, value = m.group(1), m.group(2).strip()
                data[key] = value.strip("'\"") if value not in ("|-", "|", ">-") else ""
            elif key:
                data[key] = (data[key] + "\n" + lines[i].strip()).strip()
            i += 1
        i += 1
    return data, i


def parse_tap(text: str, base: Path, repo: Path) -> Parsed:
    """TAP 13/14 as node's test runner prints it (nested subtests, YAML diagnostics, ``# pass N`` counts)."""
    lines = text.splitlines()
    out = Parsed()
    counts: dict[str, int] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        count = TAP_COUNT.match(line)
        if count:
            counts[count.group(1)] = int(count.group(2))
            i += 1
            continue
        m = TAP_RESULT.match(line)
        if not m:
            i += 1
            continue
        out.source = "tap"
        diag, i = _yaml_block(lines, i + 1)
        if diag.get("failureType") == "subtestsFailed":
            continue
        directive = (m.group("directive") or "").upper()
        if m.group("ok").lower() == "ok":
            if directive:
                out.skipped += 1
            elif not diag.get("type") == "suite":
                out.passed += 1
            continue
        out.failed += 1
        file, lineno = "", None
        loc = JS_LOC.search(diag.get("location", "")) or JS_LOC.search(diag.get("stack", ""))
        if loc:
            file, lineno = loc.group("file"), int(loc.group("line"))
        message = diag.get("error", "") or diag.get("message", "")
        out.failures.append(Failure(m.group("name"), _relpath(file, base, repo), lineno, message,
                                    trace=(diag.get("stack", "") or diag.get("at", ""))[-6000:]))
    if counts and out.source == "tap":
        out.passed = counts.get("pass", out.passed)
        out.failed = counts.get("fail", out.failed) + counts.get("cancelled", 0)
        out.skipped = counts.get("skipped", 0) + counts.get("todo", 0)
    return out


GO_LOC = re.compile(r"^\s+(?P<file>[\w./-]+\.go):(?P<line>\d+): (?P<msg>.*)$")


def parse_go_json(text: str, base: Path, repo: Path) -> Parsed:
    """``go test -json`` event stream."""
    out = Parsed()
    output: dict[tuple[str, str], list[str]] = {}
    for raw in text.splitlines():
        if not raw.startswith("{"):
            continue
        try:
            ev = loads_json(raw, "a go test -json line")
        except ValueError:  # not JSON, or nested too deeply: not an event
            continue
        out.source = "go-json"
        key = (ev.get("Package", ""), ev.get("Test", ""))
        action = ev.get("Action")
        if action == "output":
            output.setdefault(key, []).append(ev.get("Output", ""))
            continue
        if not key[1]:
            if action == "fail" and not any(k[0] == key[0] and k[1] for k in output):
                out.errored += 1  # the package did not build
                text_out = "".join(output.get(key, []))
                out.failures.append(Failure(key[0], "", None, text_out.strip()[-1500:], "error"))
            continue
        if action == "pass":
            out.passed += 1
        elif action == "skip":
            out.skipped += 1
        elif action == "fail":
            out.failed += 1
            file, line, msgs = "", None, []
            for ln in output.get(key, []):
                m = GO_LOC.match(ln)
                if m:
                    file = file or m.group("file")
                    line = line or int(m.group("line"))
                    msgs.append(m.group("msg"))
            pkg_dir = base  # go prints file names relative to the package directory
            out.failures.append(Failure(f"{key[0]}.{key[1]}", _relpath(file, pkg_dir, repo) if file else "", line,
                                        "\n".join(msgs)))
    # A parent test fails when a subtest fails: report only the subtest.
    ids = {f.test_id for f in out.failures}
    parents = {i for i in ids if any(o.startswith(i + "/") for o in ids)}
    out.failures = [f for f in out.failures if f.test_id not in parents]
    out.failed -= len(parents)
    return out


def parse_jest_json(text: str, base: Path, repo: Path, source: str = "jest-json") -> Parsed:
    """jest ``--json`` and vitest's json reporter (same shape)."""
    try:
        data = loads_json(text, f"the {source.split('-')[0]} report")
    except TooDeep as exc:
        return Parsed(unread=exc.message)
    except json.JSONDecodeError:
        return Parsed()
    if not isinstance(data, dict) or "testResults" not in data:
        return Parsed()
    out = Parsed(source=source)
    statuses = [a.get("status") for r in data["testResults"] for a in r.get("assertionResults", [])]
    if statuses:  # per-test statuses: vitest's totals count skipped tests as passed
        out.passed = statuses.count("passed")
        out.failed = statuses.count("failed")
        out.skipped = len(statuses) - out.passed - out.failed
    else:
        out.passed = int(data.get("numPassedTests", 0))
        out.failed = int(data.get("numFailedTests", 0))
        out.skipped = int(data.get("numPendingTests", 0)) + int(data.get("numTodoTests", 0))
    for result in data.get("testResults", []):
        file = result.get("name", "")
        asserts = result.get("assertionResults", [])
        if result.get("status") == "failed" and not any(a.get("status") == "failed" for a in asserts):
            out.errored += 1
            out.failures.append(Failure(_relpath(file, base, repo), _relpath(file, base, repo), None,
                                        (result.get("message") or "").strip()[:1500], "error"))
        for a in asserts:
            if a.get("status") != "failed":
                continue
            messages = strip_ansi("\n".join(a.get("failureMessages") or []))
            line = None  # the failing line in the test file beats the test's declaration line
            for m in JS_LOC.finditer(messages):
                if Path(m.group("file").removeprefix("file://")).name == Path(file).name:
                    line = int(m.group("line"))
                    break
            if line is None:
                line = (a.get("location") or {}).get("line")
            text_lines = messages.strip().splitlines()
            stack = next((i for i, ln in enumerate(text_lines) if ln.strip().startswith("at ")), len(text_lines))
            first = "\n".join(text_lines[: min(stack, 8)]).strip()
            test_id = (a.get("fullName") or a.get("title") or "").strip()
            out.failures.append(Failure(test_id, _relpath(file, base, repo), line, first, trace=messages[-6000:]))
    return out


CARGO_RESULT = re.compile(r"test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored")
CARGO_PANIC = re.compile(
    r"thread '(?P<name>[^']+)'(?: \(\d+\))? panicked at (?P<file>[^:\s]+):(?P<line>\d+):(?:\d+:)?\s*(?P<msg>.*)")


def parse_cargo(text: str, base: Path, repo: Path) -> Parsed:
    out = Parsed()
    for m in CARGO_RESULT.finditer(text):
        out.source = "cargo"
        out.passed += int(m.group(1))
        out.failed += int(m.group(2))
        out.skipped += int(m.group(3))
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = CARGO_PANIC.search(line)
        if m:
            following = [ln for ln in lines[i + 1:i + 5] if not ln.startswith("note:")]
            if "" in following:
                following = following[: following.index("")]
            msg = m.group("msg") or "\n".join(following)
            out.failures.append(Failure(m.group("name"), _relpath(m.group("file"), base, repo),
                                        int(m.group("line")), msg.strip()))
    return out


SUMMARY_WORDS = {
    "passed": "passed", "pass": "passed", "passing": "passed", "ok": "passed",
    "failed": "failed", "fail": "failed", "failing": "failed", "failures": "failed",
    "error": "errored", "errors": "errored",
    "skipped": "skipped", "skip": "skipped", "pending": "skipped", "ignored": "skipped", "todo": "skipped",
}
SUMMARY_NUM = re.compile(r"\b(\d+) (passed|passing|failed|failing|failures|errors?|skipped|pending|ignored|todo)\b")
SUMMARY_PREFIXED = re.compile(r"^\W*(pass|fail|skipped|todo)\s+(\d+)\s*$", re.M)


def parse_summary(text: str) -> Parsed:
    """Last resort: the summary line most runners print ("3 passed, 1 failed")."""
    out = Parsed()
    tail = "\n".join(text.splitlines()[-60:])
    for line in reversed(tail.splitlines()):
        hits = SUMMARY_NUM.findall(line)
        if hits:
            for num, word in hits:
                setattr(out, SUMMARY_WORDS[word], getattr(out, SUMMARY_WORDS[word]) + int(num))
            out.source = "summary"
            return out
    hits = SUMMARY_PREFIXED.findall(tail)
    if hits:
        for word, num in hits:
            setattr(out, SUMMARY_WORDS[word], int(num))
        out.source = "summary"
    return out
