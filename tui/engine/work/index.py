"""The repository as a program sees it: its files, each source file's definitions, and what a request names.

Localisation is done here, by program, before the model is asked anything: a name the request mentions is
looked up among the definitions of every source file (Python through ``ast``, JS/TS through the scanner in
tui/symbols); a path or a file name is matched against the tracked files. What the program cannot decide (a
plain English word that is also a function's name) is offered to the model as a choice, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tui.safety.paths import read_text_or_none
from tui.symbols import Outline, Symbol, language_of, outline_of, walk
from tui.symbols.model import is_test_file

MAX_SOURCE = 400_000  # a larger source file is not indexed
SOURCE = ("python", "js")
_WORD = re.compile(r"`([^`\n]{1,120})`|([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(\(\))?")
_PATH = re.compile(r"(?<![\w/.-])([\w./@-]*[\w-]\.[A-Za-z]\w{0,7}|[\w.-]+/[\w./-]*[\w-])(?![\w/-])")
NEW_CODE = (".py", ".js", ".mjs", ".cjs", ".ts", ".jsx", ".tsx")
DATA_SUFFIXES = (".json", ".jsonc", ".json5", ".toml", ".yaml", ".yml", ".csv", ".tsv", ".ini", ".cfg", ".xml")
TEST_DIRS = ("test", "tests", "__tests__", "spec", "specs", "testing")


@dataclass(frozen=True)
class Definition:
    path: str
    symbol: Symbol

    @property
    def qualname(self) -> str:
        return self.symbol.qualname

    def where(self) -> str:
        return f"{self.path}:{self.symbol.line}"


@dataclass(frozen=True)
class Named:
    """A definition the request names: ``strong`` when written as code (backticks, ``()``, dotted, snake_case,
    CamelCase, digits), weak when it is a plain word that happens to be a name in the repo."""

    text: str
    definitions: tuple[Definition, ...]
    strong: bool


def is_test(path: str) -> bool:
    parts = path.lower().split("/")
    name = parts[-1]
    return is_test_file(path) or any(p in TEST_DIRS for p in parts[:-1]) or bool(
        re.search(r"[._-](test|spec)\.[cm]?[jt]sx?$", name))


def _codelike(word: str) -> bool:
    """Written the way code is named: snake_case, camelCase, PascalCase with two capitals (TestCase), an acronym
    before a word (LRUCache, JSONPath, HTTPServer), digits, dots, or all capitals."""
    return bool(re.search(r"[_.$]|[a-z][A-Z]|^[A-Z][a-z]+[A-Z]|[A-Z]{2}[a-z]|\d", word)) or word.isupper() and len(word) > 1


class RepoIndex:
    """Built once per turn from the file list; outlines are read lazily and cached."""

    def __init__(self, repo: Path, files: list[str]) -> None:
        self.repo = repo
        self.files = files
        self._known = set(files)
        self._outlines: dict[str, Outline | None] = {}

    @classmethod
    def build(cls, repo: Path) -> "RepoIndex":
        from tui.git.facade import GitRepo

        out = GitRepo(repo, timeout=30).run("ls-files", "-z", "-c", "-o", "--exclude-standard")
        files = sorted({p for p in out.stdout.decode("utf-8", "surrogateescape").split("\0") if p}) \
            if out.returncode == 0 else []
        return cls(repo, files)

    def exists(self, rel: str) -> bool:
        return rel in self._known

    def text(self, rel: str, limit: int = MAX_SOURCE) -> str | None:
        return read_text_or_none(self.repo, rel, limit)

    def outline(self, rel: str) -> Outline | None:
        if rel not in self._outlines:
            text = self.text(rel) if language_of(rel) in SOURCE else None
            try:
                self._outlines[rel] = outline_of(rel, text) if text is not None else None
            except (RecursionError, ValueError, MemoryError):
                self._outlines[rel] = None  # a pathologically nested file is left out, not a crash
        return self._outlines[rel]

    def sources(self, tests: bool | None = None) -> list[str]:
        """Source files (``tests``: only tests / only non-tests / both)."""
        found = [f for f in self.files if language_of(f) in SOURCE and not f.endswith(".d.ts")]
        if tests is None:
            return found
        return [f for f in found if is_test(f) == tests]

    def definitions(self, paths: list[str] | None = None) -> list[Definition]:
        out: list[Definition] = []
        for rel in paths if paths is not None else self.sources():
            outline = self.outline(rel)
            if outline is not None:
                out += [Definition(rel, s) for s in walk(outline.symbols)]
        return out

    def find(self, name: str, *, tests: bool | None = False) -> list[Definition]:
        """Definitions named ``name`` (a qualified ``Class.method`` matches exactly; a bare name any scope)."""
        name = name.strip().strip("`").removesuffix("()")
        paths = self.sources(tests)
        qualified = "." in name
        hits = [d for d in self.definitions(paths) if (d.qualname == name if qualified else d.symbol.name == name)]
        if not hits and qualified:  # module.func or package.module.func: the last part in a file of that name
            head, _, last = name.rpartition(".")
            stem = head.rsplit(".", 1)[-1]
            hits = [d for d in self.definitions(paths) if d.symbol.name == last and
                    Path(d.path).stem in (stem, "index", "__init__")]
        return hits

    def named_files(self, text: str) -> list[str]:
        """Repo files the text names by path, or by a file name only one file has; in order."""
        by_name: dict[str, list[str]] = {}
        for path in self.files:
            by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
        found: list[str] = []
        for token in _PATH.findall(text):
            token = token.removeprefix("./").rstrip(".,:;")
            hit = token if token in self._known else (by_name.get(token, [""])[0]
                                                     if len(by_name.get(token, [])) == 1 else "")
            if not hit:  # a path written without its top directory (humanize/number.py for src/humanize/number.py)
                tails = [f for f in self.files if f.endswith("/" + token)]
                hit = tails[0] if len(tails) == 1 else ""
            if hit and hit not in found:
                found.append(hit)
        return found

    def new_files(self, text: str) -> list[str]:
        """Code files the text names by path that do not exist yet (a file to create): a path with a directory
        (lib/range.js), or a bare name ending in .py or .ts (a bare x.js is too often a product's name: Node.js)."""
        found: list[str] = []
        for token in _PATH.findall(text):
            token = token.removeprefix("./").rstrip(".,:;")
            if not token.endswith(NEW_CODE) or token in self._known or ".." in token.split("/"):
                continue
            if ("/" not in token and not token.endswith((".py", ".ts"))) or token.startswith("/"):
                continue
            if any(f.endswith("/" + token) for f in self.files) or token in found:
                continue
            found.append(token)
        return found

    def named_dirs(self, text: str) -> list[str]:
        dirs = {f.rsplit("/", 1)[0] for f in self.files if "/" in f}
        found = []
        for token in _PATH.findall(text) + re.findall(r"\b[\w.-]+/", text):
            token = token.removeprefix("./").rstrip("/.,:;")
            if token in dirs and token not in found:
                found.append(token)
        return found

    def named_symbols(self, text: str, *, tests: bool | None = False) -> list[Named]:
        """Definitions the text names, strongest first: code-like words before plain ones, in order of mention."""
        seen: dict[str, Named] = {}
        for match in _WORD.finditer(text):
            quoted, word, call = match.group(1), match.group(2), match.group(3)
            candidates = [quoted] if quoted else [word]
            if quoted and re.fullmatch(r"[\w.$]+(\(.*\))?", quoted):
                candidates = [quoted.split("(")[0]]
            for cand in candidates:
                if not cand or cand in seen or len(cand) < 2:
                    continue
                if "/" in cand or re.search(r"\.(py|js|ts|json|md|toml|ya?ml|csv)$", cand):
                    continue  # a path, not a name
                defs = self.find(cand, tests=tests)
                if not defs and "." in cand:  # obj.method written as on an instance: the method's own name
                    defs = self.find(cand.rsplit(".", 1)[-1], tests=tests)
                if defs:
                    strong = bool(quoted or call or _codelike(cand))
                    seen[cand] = Named(cand, tuple(defs), strong)
        return sorted(seen.values(), key=lambda n: not n.strong)

    def source_of(self, definition: Definition, limit_lines: int = 80) -> str:
        """The definition's lines, numbered as in the file, at most ``limit_lines`` (then its head and tail)."""
        text = self.text(definition.path) or ""
        lines = text.splitlines()
        sym = definition.symbol
        start, end = sym.start, sym.end if sym.exact else min(len(lines), sym.start + 30)
        body = lines[start - 1:end]
        if len(body) > limit_lines:
            keep = limit_lines // 2
            body = body[:keep] + [f"... ({len(body) - 2 * keep} lines) ..."] + body[-keep:]
        return "\n".join(body)

    def module_of(self, rel: str) -> str:
        """The dotted module a Python file is imported as (src/ layouts and package roots found by __init__.py)."""
        parts = rel.removesuffix(".py").split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        # the package root: the longest run of directories with an __init__.py, ending at the file
        start = len(parts) - 1
        while start > 0 and f"{'/'.join(parts[:start])}/__init__.py" in self._known:
            start -= 1
        return ".".join(parts[start:]) if start < len(parts) else parts[-1]

    def test_files_for(self, rel: str) -> list[str]:
        """Test files that look like ``rel``'s (test_x.py / x_test.py / x.test.ts for x.py / x.ts), best first."""
        stem = Path(rel).stem
        tests = [f for f in self.sources(True)]
        named = [f for f in tests if re.sub(r"^test_|(?:_test|\.test|\.spec|_spec)$", "", Path(f).stem) == stem]
        mentioning = []
        if not named:
            module = self.module_of(rel) if rel.endswith(".py") else stem
            for f in tests:
                text = self.text(f, 200_000) or ""
                if re.search(rf"\b{re.escape(module.rsplit('.', 1)[-1])}\b", text):
                    mentioning.append(f)
        return sorted(named, key=len) + mentioning
