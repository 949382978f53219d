"""Where a failure comes from, by program: the frames of the failing tests' tracebacks (or a pasted one), the
definitions the failing tests call, and the lines the work in progress or the last commit changed.

Each suspect is a definition outside the tests with a score; the best few are what the model is shown.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from tui.engine.pipelines.facts import Frame, Facts, frames_of
from tui.engine.work.index import Definition, RepoIndex, is_test
from tui.safety.parsing import parse_python
from tui.symbols import enclosing

MAX_SUSPECTS = 3
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.M)
_PYTEST_FRAME = re.compile(r"^(?P<path>[\w./-]+\.py):(?P<line>\d+): (?:in (?P<func>\w+)|\w+)", re.M)


@dataclass
class Suspect:
    definition: Definition
    score: float = 0.0
    why: list[str] = field(default_factory=list)
    frame_line: int = 0  # the line a traceback stopped at inside it (0: none)
    changed: str = ""  # the recent diff of its lines, when it was changed

    def add(self, points: float, why: str) -> None:
        self.score += points
        if why not in self.why:
            self.why.append(why)


def _enclosing(index: RepoIndex, path: str, line: int) -> Definition | None:
    outline = index.outline(path)
    if outline is None:
        return None
    sym = enclosing(outline.symbols, line)
    if sym is None or sym.kind in ("class",):
        return None
    return Definition(path, sym)


def trace_frames(index: RepoIndex, text: str) -> list[Frame]:
    frames, _ = frames_of(text, index)
    if not frames:
        for m in _PYTEST_FRAME.finditer(text):
            if index.exists(m.group("path")):
                frames.append(Frame(m.group("path"), int(m.group("line")), m.group("func") or ""))
    return frames


def called_names(source: str) -> set[str]:
    """The names a test calls (functions, methods, classes), read from its source by ``ast`` (or by pattern for JS)."""
    try:
        tree = parse_python(source.strip() + "\n")
    except (SyntaxError, ValueError, RecursionError):
        return set(re.findall(r"([A-Za-z_$][\w$]*)\s*\(", source))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func
            if isinstance(fn, ast.Name):
                names.add(fn.id)
            elif isinstance(fn, ast.Attribute):
                names.add(fn.attr)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.Name):
            names.add(node.id)
    return names


def test_source(index: RepoIndex, test_id: str, file: str) -> tuple[str, Definition | None]:
    """The failing test's own source, found by the last part of its id in its file."""
    path = file if file and is_test(file) else test_id.split("::", 1)[0]
    name = re.sub(r"\[.*$", "", test_id.split("::")[-1]).strip()
    name = name.split(".")[-1].split(" ")[0]
    outline = index.outline(path) if path and index.exists(path) else None
    if outline is None:
        return "", None
    from tui.symbols import walk

    for sym in walk(outline.symbols):
        if sym.name == name:
            d = Definition(path, sym)
            return index.source_of(d, 40), d
    return "", None


def changed_lines(diff: str) -> dict[str, list[tuple[int, int]]]:
    """path -> the line ranges (in the new text) a diff touched."""
    out: dict[str, list[tuple[int, int]]] = {}
    current = ""
    for line in diff.splitlines():
        if line.startswith("+++ "):
            current = line[4:].removeprefix("b/")
        m = _HUNK.match(line)
        if m and current:
            start, count = int(m.group(1)), int(m.group(2) or "1")
            out.setdefault(current, []).append((start, start + max(count, 1) - 1))
    return out


def hunks_for(diff: str, path: str) -> str:
    """The part of ``diff`` that changes ``path``."""
    parts = re.split(r"(?m)^(?=diff --git )", diff)
    return "".join(p for p in parts if f" b/{path}\n" in p.split("\n", 1)[0] + "\n")


def recent_diff(repo: Any) -> str:
    """The uncommitted changes and the last commit's: where a fresh failure usually comes from (both: work in
    progress, e.g. an approved rename, does not hide the commit that broke a test)."""
    from tui.git.facade import GitRepo

    git = GitRepo(repo, timeout=20)
    out = git.run_git("diff", "HEAD", "--unified=0", "--no-color")
    text = out.stdout.decode("utf-8", "replace") if out.returncode == 0 else ""
    parent = git.run_git("rev-parse", "--verify", "--quiet", "HEAD^")
    if parent.returncode != 0:
        return text  # the first commit made everything: "what changed" says nothing about a fault
    out = git.run_git("show", "--format=", "--unified=0", "--no-color", "HEAD")
    commit = out.stdout.decode("utf-8", "replace") if out.returncode == 0 else ""
    dirty = set(changed_lines(text))  # their lines moved since the commit: its hunks there would point wrong
    parts = re.split(r"(?m)^(?=diff --git )", commit)
    return text + "".join(p for p in parts if not any(f" b/{path}\n" in p.split("\n", 1)[0] + "\n" for path in dirty))


def suspects(index: RepoIndex, facts: Facts, failures: list[Any], diff: str) -> list[Suspect]:
    found: dict[tuple[str, str], Suspect] = {}

    def get(d: Definition) -> Suspect:
        key = (d.path, d.symbol.qualname)
        if key not in found:
            found[key] = Suspect(d)
        return found[key]

    frames = list(facts.frames)
    called: set[str] = set()
    for failure in failures[:5]:
        frames += trace_frames(index, getattr(failure, "trace", "") or getattr(failure, "message", ""))
        source, _ = test_source(index, failure.test_id, failure.file)
        called |= called_names(source)
    for depth, frame in enumerate(reversed([f for f in frames if not is_test(f.path)])):
        d = _enclosing(index, frame.path, frame.line)
        if d is not None:
            s = get(d)
            s.add(6.0 / (1 + depth), f"the traceback passes through it ({frame.path}:{frame.line})")
            s.frame_line = s.frame_line or frame.line
    for name in called:
        for d in index.find(name)[:3]:
            if d.symbol.kind in ("function", "method"):
                get(d).add(2.0, "the failing test calls it")
    for n in facts.symbols:
        for d in n.definitions[:2]:
            get(d).add(4.0 if n.strong else 1.0, "the request names it")
    changed: dict[tuple[str, str], Definition] = {}
    for path, ranges in changed_lines(diff).items():
        if is_test(path) or not index.exists(path):
            continue
        outline = index.outline(path)
        if outline is None:
            continue
        for start, end in ranges:
            sym = enclosing(outline.symbols, start) or enclosing(outline.symbols, end)
            if sym is not None and sym.kind != "class":
                changed.setdefault((path, sym.qualname), Definition(path, sym))
    for d in changed.values():  # once per definition, however many of its lines changed (a rename touches many)
        s = get(d)
        s.add(3.0 if (s.score or d.symbol.name in called) else 1.5, "it changed recently")
        s.changed = s.changed or hunks_for(diff, d.path)
    ranked = sorted(found.values(), key=lambda s: s.score, reverse=True)
    return [s for s in ranked if s.score >= 1.5][:MAX_SUSPECTS]


def reverted(text: str, diff: str, start: int, end: int) -> str | None:
    """``text`` with the hunks of ``diff`` (``-U0``, whose new side is ``text``) that touch lines ``start``-``end``
    put back as they were: the program's own candidate when a failure follows a recent change. None when no hunk
    lies there or the text no longer matches the diff."""
    lines = text.split("\n")
    hunks: list[tuple[int, int, list[str], list[str]]] = []
    current: tuple[int, int, list[str], list[str]] | None = None
    for line in diff.splitlines():
        m = re.match(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", line)
        if m:
            if current:
                hunks.append(current)
            new_start, count = int(m.group(1)), int(m.group(2) or "1")
            current = (new_start, count, [], [])
        elif current is not None and line.startswith("-") and not line.startswith("---"):
            current[2].append(line[1:])
        elif current is not None and line.startswith("+") and not line.startswith("+++"):
            current[3].append(line[1:])
    if current:
        hunks.append(current)
    touched = [h for h in hunks if h[0] <= end and h[0] + max(h[1], 1) - 1 >= start]
    if not touched:
        return None
    for new_start, count, old, new in sorted(touched, key=lambda h: h[0], reverse=True):
        at = new_start - 1 if count else new_start  # count 0: the old lines go after line new_start
        if lines[at:at + count] != new:
            return None
        lines[at:at + count] = old
    return "\n".join(lines)
