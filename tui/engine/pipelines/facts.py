"""What the structure of a request shows before any model is asked: a pasted traceback and its frames, the
files, directories, definitions and tests it names, the data files among them, whether it is a question.

Nothing here reads the meaning of words: a traceback is recognised by its frames, a name by being defined in
the repository, a question by its form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tui.engine.work.index import DATA_SUFFIXES, Named, RepoIndex, is_test
from tui.safety.parsing import parses

_PY_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<func>[\w<>.]+)', re.M)
_JS_FRAME = re.compile(r"^\s*at (?:(?P<func>[\w$.<>\[\] ]+?) \()?(?P<path>[^():\s]+\.[cm]?[jt]sx?):(?P<line>\d+):\d+\)?",
                       re.M)
_PYTEST_LOC = re.compile(r"^(?P<path>[\w./-]+\.py):(?P<line>\d+): (?P<error>\w*(?:Error|Exception)\b.*)$", re.M)
_ERROR_LINE = re.compile(r"^(?:E\s+)?(?P<error>[A-Z]\w*(?:Error|Exception|Failure)\b:?.*)$", re.M)
# The form of a question: it ends with "?" or opens with a question word. Auxiliaries ("do", "can") open
# imperatives too ("do things", "can you fix it" is a request), so only a closing "?" makes those questions.
_QUESTION = re.compile(r"^\s*(?:what|where|which|who|whom|whose|when|why|how)\b", re.I)


@dataclass(frozen=True)
class Frame:
    path: str  # repo-relative (frames outside the repo are left out)
    line: int
    function: str


@dataclass
class Facts:
    request: str
    files: list[str] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)
    symbols: list[Named] = field(default_factory=list)  # definitions outside the tests the request names
    tests: list[Named] = field(default_factory=list)  # test definitions it names
    frames: list[Frame] = field(default_factory=list)  # a pasted traceback's frames in the repo, outermost first
    error: str = ""  # the traceback's error line
    question: bool = False
    unparsed: list[str] = field(default_factory=list)  # named data files that do not parse as their format
    new_files: list[str] = field(default_factory=list)  # code files it names by path that do not exist yet

    @property
    def traceback(self) -> bool:
        return bool(self.frames)

    @property
    def data_files(self) -> list[str]:
        return [f for f in self.files if f.lower().endswith(DATA_SUFFIXES)]

    @property
    def test_files(self) -> list[str]:
        return [f for f in self.files if is_test(f)]

    @property
    def code_files(self) -> list[str]:
        return [f for f in self.files if not is_test(f) and not f.lower().endswith(DATA_SUFFIXES) and
                not f.lower().endswith((".md", ".rst", ".txt"))]

    def summary(self) -> str:
        """What was found, in a few lines for a model's prompt ('' when nothing)."""
        lines = []
        if self.files:
            lines.append("files it names: " + ", ".join(self.files[:6]))
        strong = [n for n in self.symbols if n.strong] or self.symbols[:3]
        if strong:
            lines.append("code it names: " + ", ".join(
                f"{n.text} ({n.definitions[0].symbol.kind} in {n.definitions[0].path})" for n in strong[:5]))
        if self.tests:
            lines.append("tests it names: " + ", ".join(n.text for n in self.tests[:5]))
        if self.new_files:
            lines.append("files it names that do not exist yet: " + ", ".join(self.new_files[:3]))
        if self.unparsed:
            lines.append("data files it names that do not parse: " + ", ".join(self.unparsed[:3]))
        if self.frames:
            lines.append(f"a traceback through {', '.join(f'{f.path}:{f.line}' for f in self.frames[-3:])}")
        return "\n".join(lines)


def _repo_path(raw: str, index: RepoIndex) -> str:
    raw = raw.replace("\\", "/")
    root = str(index.repo).rstrip("/") + "/"
    if raw.startswith(root):
        raw = raw[len(root):]
    raw = raw.removeprefix("./")
    if index.exists(raw):
        return raw
    tails = [f for f in index.files if raw.endswith("/" + f) or f.endswith("/" + raw)]
    return min(tails, key=len) if tails else ""


def frames_of(text: str, index: RepoIndex) -> tuple[list[Frame], str]:
    """A pasted traceback's frames that lie in the repository (Python, node, pytest's short form)."""
    frames: list[Frame] = []
    for pattern in (_PY_FRAME, _JS_FRAME, _PYTEST_LOC):
        for m in pattern.finditer(text):
            path = _repo_path(m.group("path"), index)
            if path:
                func = m.groupdict().get("func") or ""
                frames.append(Frame(path, int(m.group("line")), (func or "").strip()))
        if frames:
            break
    errors = _ERROR_LINE.findall(text)
    return frames, (errors[-1].strip() if errors else "")


def in_named_files(named: Named, files: list[str]) -> Named:
    """A name defined in several files, its definitions in the files the request names first ("the defaults
    object in lib/stringify.js" is stringify's, not parse's)."""
    defs = sorted(named.definitions, key=lambda d: d.path not in files)
    return Named(named.text, tuple(defs), named.strong) if files and defs != list(named.definitions) else named


_REQUIRE = re.compile(r"^\s*(?:export\s+)?(?:var|let|const)\s+[\w$]+\s*=\s*require\(\s*['\"](\.{1,2}/[^'\"]+)['\"]\s*\)"
                      r"\s*;?\s*$")


def followed(index: RepoIndex, named: Named) -> Named:
    """A name whose definition only loads another module (``var parse = require('./parse')``) stands for what
    that module exports: its ``module.exports`` (or the definition of the same name there) comes first."""
    from tui.engine.work.index import Definition

    d = named.definitions[0] if named.definitions else None
    if d is None or d.symbol.end != d.symbol.start:
        return named
    lines = (index.text(d.path) or "").splitlines()
    m = _REQUIRE.match(lines[d.symbol.start - 1]) if d.symbol.start <= len(lines) else None
    if not m:
        return named
    import posixpath

    base = posixpath.normpath(posixpath.join(posixpath.dirname(d.path), m.group(1)))
    target = next((f for f in (base, base + ".js", base + ".cjs", base + "/index.js") if index.exists(f)), None)
    outline = index.outline(target) if target else None
    if outline is None:
        return named
    exported = [s for s in outline.symbols if s.name in ("module.exports", d.symbol.name)]
    if not exported:
        return named
    return Named(named.text, (Definition(target, exported[0]),) + named.definitions, named.strong)


def gather(request: str, index: RepoIndex) -> Facts:
    facts = Facts(request)
    facts.files = index.named_files(request)
    facts.dirs = index.named_dirs(request)
    facts.symbols = [followed(index, in_named_files(n, facts.files))
                     for n in index.named_symbols(request, tests=False)]
    facts.tests = [n for n in index.named_symbols(request, tests=True) if n.strong or n.text.startswith("test")]
    facts.frames, facts.error = frames_of(request, index)
    first = request.strip().split("\n", 1)[0]
    facts.question = first.rstrip().endswith("?") or bool(_QUESTION.match(first))
    facts.new_files = [f for f in index.new_files(request) if not is_test(f)]
    facts.unparsed = [f for f in facts.data_files
                      if index.exists(f) and parses(f, (index.text(f, 20_000_000) or "").encode())]
    return facts
