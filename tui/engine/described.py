"""Which definition does what the developer describes: "which function turns a dict back into XML?"

The repo map lists names; a name such as ``unparse`` does not say "dict to XML", and a 1.5B model then
answers with the name that looks closest to the question (``parse``). The first line of each definition's
docstring (Python) or doc comment (JS/TS) does say it, so for questions of that kind the definitions
whose description shares the most words with the question are listed with that line.
"""

from __future__ import annotations

import ast
import functools
import re
import stat
from pathlib import Path
from typing import Iterator

from tui.engine.repomap import TEST_PATH, words
from tui.safety.parsing import parse_python

ASKS_WHICH = re.compile(r"\b(?:which|what)\s+(?:\w+\s+)?(?:function|method|class|module|file|code|helper|part|"
                        r"routine|api)s?\b|\bwhere\b.*\b(?:done|handled|implemented|defined|happens|computed|made|"
                        r"converted|parsed|built|formatted|written|checked|validated)\b", re.I)
SOURCES = (".py", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx")
MAX_FILES, MAX_BYTES, SHOWN, WIDTH = 400, 300_000, 3, 110
GENERATED = re.compile(r"(^|/)(dist|build|vendor|node_modules)/|\.min\.[jt]s$|\.bundle\.js$")
QUESTION_WORDS = {"which", "what", "where", "who", "how", "does", "do", "function", "method", "class", "module",
                  "file", "code", "helper", "part", "into", "back", "defined", "implemented", "done", "handled",
                  "there", "them", "its", "are", "was", "were", "has", "have", "when", "repo", "repository"}


def _sources(repo: Path, files: list[str], docs: bool = False) -> Iterator[tuple[str, str]]:
    """(path, text) of the tracked source files (``docs``: the files given) that are not tests, bundles or too
    big, read as UTF-8."""
    from tui.protocol.errors import PathRefused
    from tui.safety.paths import resolve_in_repo

    chosen = files if docs else [f for f in files if f.endswith(SOURCES) and not TEST_PATH.search(f)]
    for path in chosen[:MAX_FILES]:
        try:
            if GENERATED.search(path) or (repo / path).is_symlink():
                continue
            full = resolve_in_repo(repo, path)  # a directory on the way that is a symlink out: refused
            info = full.stat()
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
                continue
            yield path, (_text(str(full), info.st_mtime_ns, info.st_size) if info.st_size <= CACHED_BYTES else
                         full.read_text(encoding="utf-8", errors="replace"))
        except (OSError, PathRefused):
            continue


CACHED_BYTES = 64_000  # files up to this size stay cached (512 of them at most: ~32 MB in a long session)


@functools.lru_cache(maxsize=512)
def _text(path: str, mtime_ns: int, size: int) -> str:
    """A file's text, read once while it stays the same (one question runs several lookups over the files)."""
    return Path(path).read_text(encoding="utf-8", errors="replace")


def _first_line(doc: str) -> str:
    text = " ".join(doc.strip().split())
    return re.split(r"(?<!e\.g\.)(?<!i\.e\.)(?<=[.!?])\s", text, 1)[0][:WIDTH] if text else ""


def python_docs(text: str) -> list[tuple[str, str]]:
    """(qualified name, first docstring sentence) of the classes, functions and methods of a module."""
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError):
        return []
    out: list[tuple[str, str]] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                doc = _first_line(ast.get_docstring(node) or "")
                if doc and not (node.name.startswith("_") and not node.name.startswith("__")):
                    out.append((prefix + node.name, doc))
                if isinstance(node, ast.ClassDef):
                    visit(node.body, f"{prefix}{node.name}.")

    visit(tree.body, "")
    return out


_JS_DOC = re.compile(r"/\*\*((?:[^*]|\*(?!/))*)\*/\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?"
                     r"(?:function\*?\s+([A-Za-z_$][\w$]*)|(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=|"
                     r"class\s+([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*)\s*[:=]\s*(?:async\s+)?function)")


def js_docs(text: str) -> list[tuple[str, str]]:
    """(name, first sentence) of the definitions a ``/** ... */`` comment directly precedes."""
    out: list[tuple[str, str]] = []
    for match in _JS_DOC.finditer(text):
        name = next((g for g in match.groups()[1:] if g), "")
        lines = [re.sub(r"^\s*\*\s?", "", ln) for ln in match.group(1).splitlines()]
        prose = " ".join(ln for ln in lines if ln.strip() and not ln.lstrip().startswith("@"))
        doc = _first_line(prose)
        if name and doc:
            out.append((name, doc))
    return out


def matches(repo: Path, prompt: str, files: list[str]) -> list[tuple[int, str, str, str]]:
    """(shared words, path, name, description), best first."""
    wanted = words(prompt) - QUESTION_WORDS
    found: list[tuple[int, str, str, str]] = []
    for path, text in _sources(repo, files):
        for name, doc in python_docs(text) if path.endswith(".py") else js_docs(text):
            shared = len(wanted & (words(doc) | words(name)))
            if shared >= 2:
                found.append((shared, path, name, doc))
    found.sort(key=lambda item: (-item[0], item[1], item[2]))
    return found


def hint(repo: Path, prompt: str, files: list[str]) -> str:
    """For "which function does X": the definitions whose description matches the question ('' if none)."""
    if not ASKS_WHICH.search(prompt):
        return ""
    best = matches(repo, prompt, files)[:SHOWN]
    if not best:
        return ""
    lines = [f"- {path}: {name}: {doc}" for _, path, name, doc in best]
    return "Definitions whose own description matches the question best (file: name: first line):\n" + \
        "\n".join(lines)


# The old value: quoted (anything up to the closing quote: '#text', '&', '%.1f'; a literal's prefix, as in
# b"salt" or r'\d', is not part of it) or a bare word or number.
_PREFIX = r"(?:\b[bBrRuUfF]{1,2}(?=['\"]))?"
_VALUE = rf"""(?:{_PREFIX}(['"`])([^'"`\s][^'"`]{{0,40}}?)\1|([\w.\-+]+))"""
_FROM_TO = re.compile(rf"\bfrom\s+{_VALUE}\s+to\s+(?:{_PREFIX}(['\"`])[^'\"`]+\4|[\w.\-+]+)", re.I)


_INSTEAD = re.compile(rf"\binstead\s+of\s+(?:an?\s+|the\s+)?{_VALUE}", re.I)
# A character named in words, as it is written in a string literal of the source.
NAMED = {"tab": r"\\t", "tabs": r"\\t", "newline": r"\\n", "newlines": r"\\n", "space": " ", "comma": ",",
         "semicolon": ";", "colon": ":", "pipe": r"\|", "dash": "-", "hyphen": "-", "underscore": "_", "dot": r"\.",
         "period": r"\.", "slash": "/", "backslash": r"\\\\"}
# A number named in words ("four digits instead of three"): the code has the digits.
NUMBERS = {word: str(n) for n, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}


def old_value(prompt: str) -> re.Pattern[str] | None:
    """The value a change request replaces: "from A to B", "B instead of A" (A in words: "a tab", "three";
    quoted with its punctuation: "'$text' instead of '#text'")."""
    found = _FROM_TO.search(prompt) or _INSTEAD.search(prompt)
    if not found:
        return None
    quoted, old = found.group(2), found.group(3)
    if quoted:
        return re.compile(rf"""(['"`]){re.escape(quoted)}\1""") if not re.fullmatch(r"[\w.\-+]+", quoted) else \
            re.compile(rf"(?<![\w.]){re.escape(quoted)}(?![\w])")
    old = old.rstrip(".")  # the sentence's full stop ("instead of three.")
    if old.lower() in NAMED:
        return re.compile(rf"""(['"]){NAMED[old.lower()]}\1""")
    if old.lower() in NUMBERS:
        old = NUMBERS[old.lower()]
    return re.compile(rf"(?<![\w.]){re.escape(old)}(?![\w])")


def _value_hits(repo: Path, prompt: str, files: list[str]) -> list[tuple[int, str, int, str, int]]:
    """(score, path, line number, line, times that line occurs in its file), best first."""
    value = old_value(prompt)
    if value is None:
        return []
    worded = _worded_number(prompt)
    wanted = {w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]{3,}", prompt)} - QUESTION_WORDS
    hits: list[tuple[int, str, int, str, int]] = []
    for path, text in _sources(repo, files):
        in_named_file = Path(path).stem.lower() in wanted  # "qs.stringify": lib/stringify.js before lib/parse.js
        lines = text.splitlines()
        reached = _reached_from(text, wanted) if path.endswith(".py") and value.search(text) else {}
        for number, line in enumerate(lines, 1):
            found = value.search(line) if len(line) <= 240 else None  # a longer line is minified or data
            if found:
                named = sum(1 for w in wanted if w in line.lower()) + in_named_file + reached.get(number, 0)
                assigned = re.search(r"(?<![=!<>])[=:]\s*[bBrRuUfF]{0,2}['\"]?$", line[:found.start()]) is not None
                if worded and not (assigned and named):  # "instead of one": a bare 1 in `abs_bytes == 1` is not a
                    continue  # setting, nor is MILLISECONDS = 1 in a module the request does not reach
                hits.append((named + 2 * assigned, path, number, line, lines.count(line)))
    hits.sort(key=lambda h: -h[0])
    return hits


def _worded_number(prompt: str) -> bool:
    """The old value is a number written in words ("instead of one"): the digit is everywhere in code, so only
    a setting (``x = 1``, ``precision=1``) can be it."""
    found = _FROM_TO.search(prompt) or _INSTEAD.search(prompt)
    return bool(found and not found.group(2) and (found.group(3) or "").rstrip(".").lower() in NUMBERS)


def _reached_from(text: str, wanted: set[str]) -> dict[int, int]:
    """{line: 1} for the lines of the top-level definitions that a function the request names is or calls
    ("make xmltodict.parse use '$text'": the setting is in _DictSAXHandler, which parse calls, and not in _emit,
    which unparse calls; both lines read ``cdata_key='#text',``)."""
    import ast

    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError):
        return {}
    tops = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    used: set[str] = set()
    for name, node in tops.items():
        if name.lower() in wanted:
            used.add(name)
            used.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
    return {line: 1 for name in used & set(tops)
            for line in range(tops[name].lineno, (tops[name].end_lineno or tops[name].lineno) + 1)}


def value_lines(repo: Path, prompt: str, files: list[str], limit: int = 3,
                hits: list[tuple[int, str, int, str, int]] | None = None) -> list[str]:
    """For "raise the default X from 1000 to 2000" or "indent with two spaces instead of a tab": the source
    lines with the old value, those that also name a word of the request first (``path:line: text``)."""
    hits = _value_hits(repo, prompt, files) if hits is None else hits
    if not hits:
        return []
    best = hits[0][0]
    return [f"{path}:{number}: {line.strip()[:WIDTH]}" for n, path, number, line, _ in hits
            if n == best or len(hits) <= limit][:limit]


_NUMBER = r"\d+(?:\.\d+)?"


def _new_value(prompt: str) -> str | None:
    """What the old value becomes: "from A to B" -> B; "use B instead of A" -> the nearest value of A's kind
    before "instead" (a quoted one for a quoted A, a number or number word for a number). None when unsure."""
    found = _FROM_TO.search(prompt)
    if found:
        tail = found.group(0)
        to = re.search(rf"\bto\s+(?:{_PREFIX}(['\"`])([^'\"`]+)\1|([\w.\-+]+))\Z", tail)
        if to:
            value = to.group(2) or (to.group(3) or "").rstrip(".")
            return NUMBERS.get(value.lower(), value) if not to.group(2) else value
        return None
    found = _INSTEAD.search(prompt)
    if not found:
        return None
    before = prompt[:found.start()]
    if found.group(2):  # quoted: the last quoted value before "instead"
        quoted = re.findall(r"(['\"`])([^'\"`\s][^'\"`]{0,40}?)\1", before)
        return quoted[-1][1] if quoted else None
    old = found.group(3).rstrip(".").lower()
    if old in NUMBERS or re.fullmatch(_NUMBER, old):
        numbers = re.findall(rf"\b({_NUMBER}|{'|'.join(NUMBERS)})\b", before, re.I)
        return NUMBERS.get(numbers[-1].lower(), numbers[-1]) if numbers else None
    return None


def value_call(repo: Path, prompt: str, files: list[str], hits: list[tuple[int, str, int, str, int]] | None = None) -> str:
    """The whole edit_file call for a value change whose line is certain: one best line, unique in its file, and
    a new value the request states ('' otherwise). A 1.5B model copies a call it is shown; a template it fills
    in wrongly, a list of lines it often ignores."""
    hits = _value_hits(repo, prompt, files) if hits is None else hits
    new_value, old_pattern = _new_value(prompt), old_value(prompt)
    if not hits or new_value is None or old_pattern is None or (len(hits) > 1 and hits[1][0] == hits[0][0]):
        return ""
    _, path, _, line, count = hits[0]
    if count != 1:
        return ""
    found = old_pattern.search(line)
    if found is None:
        return ""
    start, end = (found.start(0) + 1, found.end(0) - 1) if found.re.pattern.startswith("(['\"") else found.span()
    new_line = line[:start] + new_value + line[end:]
    if new_line == line:
        return ""
    import json

    call = json.dumps({"name": "edit_file", "arguments": {"path": path, "old": line, "new": new_line}})
    return f"The change is probably this one edit (check the line first if unsure):\n{call}"


def value_hint(repo: Path, prompt: str, files: list[str]) -> str:
    hits = _value_hits(repo, prompt, files)  # the sources are read once for both
    lines = value_lines(repo, prompt, files, hits=hits)
    if not lines:
        return ""
    call = value_call(repo, prompt, files, hits=hits)
    return ("The value to change is probably on one of these lines (path:line: text); change it with one edit_file "
            "call whose old text is that line:\n" + "\n".join(lines) + (f"\n{call}" if call else ""))


ASKS_WHERE = re.compile(r"\b(?:where|which\s+(?:\w+\s+)?file|what\s+file|in\s+which)\b", re.I)


def definitions(repo: Path, files: list[str], wanted: set[str]) -> dict[str, list[tuple[str, int, str]]]:
    """name -> [(path, line, kind)] for the definitions named in ``wanted``, over the source files."""
    from tui.symbols import outline_of, walk

    found: dict[str, list[tuple[str, int, str]]] = {}
    for path, text in _sources(repo, files):
        if not any(w in text for w in wanted):
            continue
        for sym in walk(outline_of(path, text).symbols):
            if sym.name in wanted and sym.kind not in ("field",):
                found.setdefault(sym.name, []).append((path, sym.line, sym.kind))
    return found


_NOT_LIBRARY = re.compile(r"(^|/)(tests?|testing|__tests__|spec|benchmarks?|bench|examples?|docs?)/|(^|/)test_[^/]*$|"
                          r"[._-](test|spec)\.[^/]+$|(^|/)conftest\.py$")


def where_hint(repo: Path, prompt: str, files: list[str]) -> str:
    """For "which file defines compact?": where each definition the question names is ('' when none)."""
    if not ASKS_WHERE.search(prompt):
        return ""
    wanted = {w for w in re.findall(r"[A-Za-z_$][\w$]{2,}", prompt) if w.lower() not in QUESTION_WORDS} - \
        {"the", "and", "for", "that", "this", "with", "from", "file", "files", "defined", "define", "defines"}
    found = definitions(repo, files, wanted)
    if not re.search(r"\btests?\b|\bbench", prompt, re.I):
        # the library's own code, not a test helper: "where is the hook call tracing" named a function `hook`
        # in pluggy's testing/benchmark.py (a probe outside the benchmark)
        found = {n: kept for n, places in found.items()
                 if (kept := [p for p in places if not _NOT_LIBRARY.search(p[0])])}
    lines = []
    for name in [w for w in dict.fromkeys(re.findall(r"[A-Za-z_$][\w$]{2,}", prompt)) if w in found][:2]:
        places = found[name][:3]
        lines.append(f"{name} is defined in " + "; ".join(f"{p} (line {n}, {k})" for p, n, k in places) + ".")
    return "\n".join(lines)


_LITERAL = re.compile(r"`([^`]{3,60})`|'([^'\s][^']{1,58})'|\"([^\"\s][^\"]{1,58})\"|"
                      r"(?<![\w.])([\w$]+(?:[.\[\]\w$]*)=[^\s,;?!]+)")
DOCS = re.compile(r"(?:^|/)(?:readme|usage|guide|docs?/[^/]+)[^/]*\.(?:md|rst|txt)$", re.I)


def example_lines(repo: Path, prompt: str, files: list[str], limit: int = 3) -> list[str]:
    """Lines of the README and docs that contain a literal the question quotes (``a.b=c``, `'??a=b'`)."""
    literals = [next(g for g in m.groups() if g) for m in _LITERAL.finditer(prompt)]
    literals = [lit for lit in literals if not re.fullmatch(r"[\w.]+\.\w{1,5}", lit)]  # a file name is not one
    if not literals:
        return []
    hits: list[str] = []
    for path, text in _sources(repo, [f for f in files if DOCS.search(f)][:50], docs=True):
        for number, line in enumerate(text.splitlines(), 1):
            if any(lit in line for lit in literals):
                hits.append(f"{path}:{number}: {line.strip()[:160]}")
                if len(hits) >= limit:
                    return hits
    return hits


def example_hint(repo: Path, prompt: str, files: list[str]) -> str:
    lines = example_lines(repo, prompt, files)
    return ("The project's documentation shows the example the question quotes (path:line: text):\n" + "\n".join(lines)
            if lines else "")
