""""How many ...?": count with something exact, never by eye.

A 1.5B model shown a 150-line test file and asked how many tests it has counts the ``def`` lines it
sees and is off by a few; shown 40 rows of a CSV it is off by more. The outline tool counts definitions
exactly ("9 functions (9 tests)"), and a few lines of ``run_python`` count rows, entries, lines and
occurrences exactly. So a count question about definitions in a named source file gets that file's
outline up front (even when the whole file would fit), and one about what a data or text file holds
gets the code that counts it.
"""

from __future__ import annotations

import re
from pathlib import Path

from tui.engine.agent_words import is_question
from tui.engine.coach import COUNTS
from tui.safety.parsing import parse_python

DEFINITIONS = re.compile(r"\b(?:functions?|methods?|class(?:es)?|tests?|test\s+(?:cases?|functions?|methods?)|"
                         r"constants?|definitions?|defs?|fields?|propert(?:y|ies)|attributes?|subclass(?:es)?)\b",
                         re.I)
OCCURS = re.compile(r"\b(?:times|occurrences?|occur\w*|appear\w*|mentions?|instances)\b", re.I)
LINES = re.compile(r"\blines?\b", re.I)
DATA = (".csv", ".tsv", ".json", ".jsonl", ".ndjson")
TEXT = (".txt", ".md", ".rst", ".log", ".cfg", ".ini", ".toml", ".yaml", ".yml")
_QUOTED = re.compile(r"`([^`]+)`|'([^']+)'|\"([^\"]+)\"")
MAX_BYTES = 2_000_000


def wants_definition_count(prompt: str) -> bool:
    return is_question(prompt) and bool(COUNTS.search(prompt)) and bool(DEFINITIONS.search(prompt)) \
        and not OCCURS.search(prompt)


def outline_counts(path: str, prompt: str) -> bool:
    """Whether a named file is better outlined than read for this question (its counts are exact)."""
    from tui.symbols import language_of
    from tui.symbols.model import is_test_file

    if not wants_definition_count(prompt) or language_of(path) not in ("python", "js"):
        return False
    # A JS test file's tests are calls (tape's test(...), mocha's it(...)): the outline does not count them.
    return not (language_of(path) == "js" and is_test_file(path) and re.search(r"\btests?\b", prompt, re.I))


def hint(repo: Path, prompt: str, files: list[str]) -> str:
    """The run_python code that counts what a question asks about a named data or text file, or the exact count
    of the definitions it asks about in a named source file ('' otherwise)."""
    if not is_question(prompt) or not COUNTS.search(prompt):
        return ""
    from tui.engine.mentions import mentioned

    named = mentioned(prompt, files, 5)
    if not named and wants_definition_count(prompt):  # "how many methods does LRUCache define": where it is
        from tui.engine.repomap import RepoMap

        try:
            index = RepoMap.for_repo(repo)
        except Exception:  # noqa: BLE001 - an aid only
            return ""
        for name in dict.fromkeys(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]{2,}\b", prompt)):
            found = index.where_defined(name) if name[:1].isupper() or "_" in name else []
            path = found[0] if len(found) == 1 else ""
            if path:
                return definition_count(repo, path, prompt)
    for path in named:
        lower = path.lower()
        entries = object_count(repo, path, prompt)
        if entries:
            return entries
        if outline_counts(path, prompt):
            counted = definition_count(repo, path, prompt)
            if counted:
                return counted
        if lower.endswith(DATA):
            return _intro(path) + _data_code(repo, path, prompt)
        if lower.endswith(TEXT) or (OCCURS.search(prompt) or LINES.search(prompt)) and not \
                wants_definition_count(prompt):
            return _intro(path) + _text_code(path, prompt)
    return "" if named or wants_definition_count(prompt) else directory_count(prompt, files)


_HOW_MANY = re.compile(r"\bhow\s+many\s+((?:[A-Za-z_-]+\s+){0,2}[A-Za-z_-]+)", re.I)


def directory_count(prompt: str, files: list[str]) -> str:
    """"How many locales does humanize ship translations for?": what is counted is a directory's entries (one
    directory per locale under src/humanize/locale/), which neither a search nor a read counts (fresh held-out:
    the model searched i18n.py for "locale" and answered 21 of 33). The entries of the one directory named like
    the counted word, exact; '' when no single directory is."""
    asked = _HOW_MANY.search(prompt)
    if not asked:
        return ""
    words = []  # the counted noun and its adjectives: up to the verb ("locales" of "how many locales does X ...")
    for word in asked.group(1).lower().split():
        if word in ("does", "do", "did", "are", "is", "were", "was", "have", "has", "in", "of", "can", "will"):
            break
        words.append(word)
    forms = set(words) | {w[:-1] for w in words if w.endswith("s")} | {w[:-2] for w in words if w.endswith("es")}
    forms -= {"file", "line", "test", "function", "class", "method", "time"}
    found: dict[str, set[str]] = {}
    for path in files:
        parts = path.split("/")
        for depth in range(len(parts) - 1):
            if parts[depth].lower() in forms:
                found.setdefault("/".join(parts[:depth + 1]), set()).add(parts[depth + 1])
    if len(found) != 1:
        return ""
    where, entries = next(iter(found.items()))
    names = sorted(entries)
    return (f"{where}/ holds {len(names)} entries (each file or directory right under it, counted exactly): "
            + ", ".join(names[:80]) + (" ..." if len(names) > 80 else ""))


def _intro(path: str) -> str:
    return (f"Count it exactly: one run_python call that reads {path} and prints the count (do not count by eye). "
            "Start from this code and keep only what the question asks:\n")


def _quoted(prompt: str) -> str:
    found = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(prompt)]
    return next((q for q in found if not re.fullmatch(r"[\w./-]+\.\w{1,5}", q)), "")


def _text_code(path: str, prompt: str) -> str:
    needle = _quoted(prompt)
    lines = [f"path = {path!r}", "with open(path, encoding='utf-8') as f:", "    text = f.read()"]
    if needle or OCCURS.search(prompt):
        lines.append(f"print(text.count({needle or '...'!r}))  # times the text occurs")
    lines.append("print(len(text.splitlines()))  # lines")
    return "\n".join(lines)


def _data_code(repo: Path, path: str, prompt: str) -> str:
    lower = path.lower()
    if lower.endswith((".csv", ".tsv")):
        delimiter = ", delimiter=chr(9)" if lower.endswith(".tsv") else ""
        header = _csv_header(repo, path, delimiter != "")
        column = next((h for h in sorted(header, key=len, reverse=True)
                       if h and re.search(rf"\b{re.escape(h)}\b", prompt, re.I)), "")
        lines = ["import csv", f"path = {path!r}", "with open(path, newline='', encoding='utf-8') as f:",
                 f"    rows = list(csv.reader(f{delimiter}))", "header, body = rows[0], rows[1:]",
                 "print(len(body))  # data rows, without the header"]
        if column:
            lines += [f"col = header.index({column!r})",
                      "print(sum(1 for r in body if len(r) > col and r[col].strip() == ''))  # rows where it is empty",
                      "print(len({r[col] for r in body if len(r) > col}))  # distinct values"]
        return "\n".join(lines)
    if lower.endswith((".jsonl", ".ndjson")):
        return (f"path = {path!r}\nwith open(path, encoding='utf-8') as f:\n"
                "    print(sum(1 for line in f if line.strip()))  # records")
    from tui.engine.dataskel import _entries, _keys, _named

    data = _json(repo, path)
    items = _entries(data)
    lines = ["import json", f"path = {path!r}", "with open(path, encoding='utf-8') as f:", "    data = json.load(f)",
             f"print(len({items}))  # entries"]
    if isinstance(data, dict) and items == "data":
        lines[-1] = "print(len(data))  # top-level keys"
    empty = _named(prompt, _keys(data), r"no|without|missing|empty|blank|lacks?|null")
    if empty:
        lines.append(f"print(sum(1 for e in {items} if not str(e.get({empty!r}) or '').strip()))  "
                     f"# entries whose {empty} is missing or empty")
    return "\n".join(lines)


def _csv_header(repo: Path, path: str, tabs: bool) -> list[str]:
    import csv

    from tui.safety.paths import read_text_or_none

    text = read_text_or_none(repo, path, MAX_BYTES)
    first = text.split("\n", 1)[0] if text else ""
    return [h.strip() for h in next(csv.reader([first], delimiter="\t" if tabs else ","), [])]


def _json(repo: Path, path: str) -> object:
    from tui.safety.parsing import loads_json
    from tui.safety.paths import read_text_or_none

    text = read_text_or_none(repo, path, MAX_BYTES)
    try:
        return loads_json(text, path) if text is not None else None
    except ValueError:  # not JSON, or nested too deeply to walk: nothing is counted from it
        return None


# What a definition count asks for, most specific first: (words in the question, what is counted).
_KINDS = (
    (re.compile(r"\btest(?:s|\s+(?:cases?|functions?|methods?))?\b", re.I), "test"),
    (re.compile(r"\bmethods?\b", re.I), "method"),
    (re.compile(r"\bfunctions?\b|\bdefs?\b", re.I), "function"),
    (re.compile(r"\bsubclass(?:es)?\b|\bclass(?:es)?\b", re.I), "class"),
    (re.compile(r"\bconstants?\b", re.I), "constant"),
    (re.compile(r"\bfields?\b|\battributes?\b|\bpropert(?:y|ies)\b", re.I), "field"),
)
_ACCESS = ((re.compile(r"\bpublic\b", re.I), "public"), (re.compile(r"\bprivate\b", re.I), "private"),
           (re.compile(r"\b(?:special|dunder|magic)\b", re.I), "special"))
MAX_NAMES = 40


def _access(name: str) -> str:
    if name.startswith("__") and name.endswith("__"):
        return "special"
    return "private" if name.startswith(("_", "#")) else "public"


def definition_count(repo: Path, path: str, prompt: str) -> str:
    """"How many public functions does time.py define?": the number, counted from the file's outline, stated as
    the answer to that question with the names (a 1.5B model shown "1 class, 13 functions (5 public, 8 private)"
    answers with the first number it sees: 13, or 1)."""
    from tui.safety.paths import read_text_or_none
    from tui.symbols import outline_of, walk

    text = read_text_or_none(repo, path, MAX_BYTES)
    if text is None:
        return ""
    outline = outline_of(path, text)
    if outline.language == "js" and EXPORTS.search(prompt) and not outline.error:
        return _exported_count(path, outline, prompt)
    if outline.error or outline.language != "python":  # JS: functions in object literals are not all outlined
        return ""
    kind = next((k for pattern, k in _KINDS if pattern.search(prompt)), "")
    access = next((a for pattern, a in _ACCESS if pattern.search(prompt)), "")
    if not kind:
        return ""
    symbols = list(walk(outline.symbols))
    owner = next((s for s in symbols if s.kind == "class" and re.search(rf"\b{re.escape(s.name)}\b", prompt)), None)
    if owner is not None and kind in ("method", "field", "test"):
        symbols = [s for s in owner.children]
    if kind == "test":
        chosen = [s for s in symbols if s.kind in ("function", "method") and s.name.startswith("test")]
    elif kind == "function" and owner is None:
        chosen = [s for s in outline.symbols if s.kind == "function"]  # module level: a method is not a function
    else:
        chosen = [s for s in symbols if s.kind == kind]
    if access:
        chosen = [s for s in chosen if _access(s.name) == access]
    names = list(dict.fromkeys(s.name for s in chosen))  # overloads and getter/setter pairs count once
    what = {"test": "tests", "method": "methods", "function": "functions", "class": "classes",
            "constant": "constants", "field": "fields"}[kind]
    label = f"{access} {what}" if access else what
    where = f"{owner.name} in {path}" if owner is not None else path
    shown = ", ".join(names[:MAX_NAMES]) + (f", … {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else "")
    return (f"Counted exactly from the outline of {path}: {where} has {len(names)} {label}"
            + (f" ({shown})" if names else "") + f". The answer to the question is {len(names)}.")


EXPORTS = re.compile(r"\bexport(?:s|ed|ing)?\b", re.I)


def _exported_count(path: str, outline, prompt: str) -> str:
    """"How many functions does lib/utils.js export?": the top-level definitions marked exported (ES ``export``
    and CommonJS ``module.exports = {...}`` / ``exports.x =``), of the kind asked (functions, else all)."""
    kind = next((k for pattern, k in _KINDS if pattern.search(prompt)), "")
    chosen = [s for s in outline.symbols if "exported" in s.marks and (not kind or s.kind == kind)
              and s.name != "module.exports"]
    if not chosen:
        return ""
    names = list(dict.fromkeys(s.name for s in chosen))
    what = {"function": "functions", "class": "classes", "constant": "constants"}.get(kind, "definitions")
    shown = ", ".join(names[:MAX_NAMES]) + (f", … {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else "")
    return (f"Counted exactly from the outline of {path}: it exports {len(names)} {what} ({shown}). The answer to "
            f"the question is {len(names)}.")


ENTRIES = re.compile(r"\b(?:options?|keys?|entries|entry|properties|property|settings?|items?|fields?|members?|values?)\b",
                     re.I)


def _literal_entries(path: str, text: str, name: str) -> list[str] | None:
    """The top-level keys of the object/dict literal assigned to ``name`` in a JS or Python source (None: no such
    literal)."""
    if path.endswith(".py"):
        import ast

        try:
            tree = parse_python(text)
        except (SyntaxError, ValueError, RecursionError):
            return None
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
                if isinstance(node, ast.AnnAssign) else []
            if any(isinstance(t, ast.Name) and t.id == name for t in targets) and isinstance(node.value, ast.Dict):
                return [ast.unparse(k) if k is not None else "**" for k in node.value.keys]
        return None
    from tui.symbols.jsscan import scan

    result = scan(text)
    tokens = result.tokens
    for i, tok in enumerate(tokens[:-2]):
        if tok.text != name or tokens[i + 1].text != "=" or tokens[i + 2].text != "{" or \
                (i and tokens[i - 1].text == "."):
            continue
        close = result.match.get(i + 2)
        if close is None:
            return None
        keys, depth, expect_key = [], 0, True
        for t in tokens[i + 3:close]:
            if t.text in ("{", "(", "["):
                depth += 1
            elif t.text in ("}", ")", "]"):
                depth -= 1
            elif depth == 0 and t.text == ",":
                expect_key = True
            elif depth == 0 and expect_key and t.kind in ("id", "str", "num"):
                keys.append(t.text.strip("'\""))
                expect_key = False
        return keys
    return None


def object_count(repo: Path, path: str, prompt: str) -> str:
    """"How many options does the defaults object in lib/stringify.js have?": its top-level keys, counted from the
    code (the outline lists definitions, not an object's keys; the 1.5B model answered with the outline's count
    of constants)."""
    from tui.safety.paths import read_text_or_none
    from tui.symbols import language_of

    if language_of(path) not in ("python", "js") or not ENTRIES.search(prompt):
        return ""
    text = read_text_or_none(repo, path, MAX_BYTES)
    if text is None:
        return ""
    for name in dict.fromkeys(re.findall(r"`?\b([A-Za-z_$][\w$]{2,})\b`?", prompt)):
        if name.lower() in ("how", "many", "the", "does", "have", "has", "object", "dict", "file") or \
                name not in text:
            continue
        keys = _literal_entries(path, text, name)
        if keys:
            shown = ", ".join(keys[:MAX_NAMES]) + (f", … {len(keys) - MAX_NAMES} more" if len(keys) > MAX_NAMES else "")
            return (f"Counted exactly from the code of {path}: the literal assigned to {name} has {len(keys)} "
                    f"top-level keys ({shown}). The answer to the question is {len(keys)}.")
    return ""
