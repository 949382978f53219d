"""A compact map of the repo for the prompt: tracked files and their top-level symbols, ranked and cut to budget.

Small local models have small contexts, so the map is ranked by relevance to the request (word
overlap with paths and symbols, recently changed files first) and cut to a token budget. Symbols
are cached per file, keyed by the blob sha from ``git ls-files -s`` (or size+mtime for files
changed in the work tree), so a rebuild only re-reads files that changed.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui.git.facade import GitRepo
from tui.git.gitsafe import signature
from tui.git.repo import parse_status
from tui.protocol.errors import PathRefused
from tui.safety.parsing import parse_python
from tui.safety.paths import read_bounded

CHARS_PER_TOKEN = 4
MAX_FILE_BYTES = 256_000
MAX_SYMBOLS = 24
MAX_METHODS = 100
MAX_LINE = 200  # one file's line in the map
CACHE_VERSION = 5  # bump when symbol extraction changes
STOPWORDS = {"the", "a", "an", "and", "or", "to", "of", "in", "on", "for", "with", "add", "make", "fix", "use", "is",
             "it", "be", "this", "that", "test", "tests", "run", "new", "please", "can", "you", "me", "my", "from"}

TEST_PATH = re.compile(r"(^|/)(tests?|__tests__|spec)/|(^|/)test_[^/]*$|[._-](test|spec)\.[^/]+$")
JS_PATTERNS = [
    re.compile(r"^export\s+(?:default\s+)?(?:async\s+)?function\*?\s+([A-Za-z_$][\w$]*)", re.M),
    re.compile(r"^export\s+(?:default\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)", re.M),
    re.compile(r"^export\s+(?:const|let|var|interface|type|enum)\s+([A-Za-z_$][\w$]*)", re.M),
    re.compile(r"^(?:async\s+)?function\*?\s+([A-Za-z_$][\w$]*)", re.M),
    re.compile(r"^class\s+([A-Za-z_$][\w$]*)", re.M),
    re.compile(r"^(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=", re.M),
]
GO_PATTERNS = [
    re.compile(r"^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)", re.M),
    re.compile(r"^type\s+([A-Za-z_]\w*)\s", re.M),
]
RUST_PATTERNS = [re.compile(r"^pub(?:\([^)]*\))?\s+(?:async\s+)?(?:fn|struct|enum|trait|type|mod)\s+([A-Za-z_]\w*)", re.M)]


def _methods(node: ast.ClassDef) -> list[str]:
    """A class's methods once each (overloads and property setters repeat a name), dunders kept."""
    names: list[str] = []
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name not in names:
            if not item.name.startswith("_") or (item.name.startswith("__") and item.name.endswith("__")):
                names.append(item.name)
    return names[:MAX_METHODS]


def python_symbols(text: str) -> list[str]:
    """Top-level classes (``class C [m1, m2]``), functions (``f()``) and constants, through ``ast``.

    Written so that no line of it reads as code: a small model shown ``class C(a, b)`` tried to edit that text.
    Private definitions (``_Handler``) are indexed too, so "where is" and "how many" find them; the map shows
    them only to a request that names them (``render``).
    """
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError):
        return []
    out: list[str] = []
    constants: list[str] = []
    for node in tree.body:
        name = getattr(node, "name", "")
        if name in out or (name.startswith("__") and name.endswith("__")):
            continue
        if isinstance(node, ast.ClassDef):
            methods = _methods(node)
            out.append(f"class {name}" + (f" [{', '.join(methods)}]" if methods else ""))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if f"{name}()" not in out:
                out.append(f"{name}()")
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id.isupper() and not node.targets[0].id.startswith("_"):
                constants.append(node.targets[0].id)
    return out + constants


def _regex_symbols(text: str, patterns: list[re.Pattern[str]]) -> list[str]:
    found: list[tuple[int, str]] = []
    for pattern in patterns:
        found.extend((m.start(), m.group(1)) for m in pattern.finditer(text))
    seen: set[str] = set()
    out: list[str] = []
    for _, name in sorted(found):
        if name not in seen:
            seen.add(name)
            out.append(name)
    return out


def symbols_for(path: str, text: str) -> list[str]:
    suffix = Path(path).suffix
    if suffix in (".py", ".pyi"):
        names = python_symbols(text)
    elif suffix in (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs"):
        names = _regex_symbols(text, JS_PATTERNS)
    elif suffix == ".go":
        names = [n for n in _regex_symbols(text, GO_PATTERNS) if n[:1].isupper() or n == "main"]
    elif suffix == ".rs":
        names = _regex_symbols(text, RUST_PATTERNS)
    else:
        return []
    return names[:MAX_SYMBOLS]


def _stem(word: str) -> str:
    for suffix in ("ing", "ers", "es", "ed", "er", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def words(text: str) -> set[str]:
    """Lowercased, roughly stemmed words of a path, symbol list or request (camelCase and snake_case split)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return {_stem(w) for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if len(w) > 1 and w not in STOPWORDS}


@dataclass
class Entry:
    key: str
    symbols: list[str]


def _git(repo: Path, *args: str) -> str:
    try:
        out = GitRepo(repo, timeout=30).run(*args, env={"GIT_OPTIONAL_LOCKS": "0"})
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout.decode("utf-8", "replace") if out.returncode == 0 else ""


def _git_dir(repo: Path) -> Path | None:
    """The repository's own git directory when it is a plain ``.git`` directory (else None: no shortcuts)."""
    gd = repo / ".git"
    return gd if gd.is_dir() and not gd.is_symlink() else None


def _head_files(gd: Path) -> list[str]:
    """What a commit, checkout or reset rewrites: HEAD, its reflog, the packed refs and the ref HEAD names."""
    files = [str(gd / name) for name in ("HEAD", "logs/HEAD", "packed-refs")]
    try:
        if not stat.S_ISREG((gd / "HEAD").lstat().st_mode):  # never open a FIFO or a device the repo put there
            return files
        with open(gd / "HEAD", "rb") as fh:
            head = fh.read(300).decode("utf-8", "replace").strip()
    except OSError:
        return files
    ref = head[5:].strip() if head.startswith("ref: ") else ""
    return files + ([str(gd / ref)] if ref.startswith("refs/") and ".." not in ref else [])


def _cache_path(repo: Path) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    digest = hashlib.sha1(str(repo).encode()).hexdigest()[:16]
    return Path(base) / "devagent" / "repomap" / f"{digest}.json"


class RepoMap:
    """Symbols per tracked file, refreshed incrementally; one per repo (see ``for_repo``)."""

    _instances: dict[str, "RepoMap"] = {}

    def __init__(self, repo: Path, persist: bool = True) -> None:
        self.repo = Path(os.path.realpath(repo))
        self.persist = persist
        self.entries: dict[str, Entry] = {}
        self.parsed = 0  # files (re)read by the last refresh, for tests and `doctor`
        self._git_dir = _git_dir(self.repo)
        self._index_mark: tuple | None = None
        self._index_listed: dict[str, str] = {}
        self._log_mark: tuple | None = None
        self._log_paths: list[str] = []
        if persist:
            self._load()

    @classmethod
    def for_repo(cls, repo: Path) -> "RepoMap":
        key = os.path.realpath(repo)
        if key not in cls._instances:
            cls._instances[key] = cls(Path(key))
        return cls._instances[key]

    def _load(self) -> None:
        try:
            data = json.loads(_cache_path(self.repo).read_text())
        except (OSError, ValueError):
            return
        if data.get("version") == CACHE_VERSION:
            self.entries = {p: Entry(e[0], list(e[1])) for p, e in data.get("files", {}).items()}

    def _save(self) -> None:
        path = _cache_path(self.repo)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"version": CACHE_VERSION,
                                       "files": {p: [e.key, e.symbols] for p, e in self.entries.items()}}))
            tmp.replace(path)
        except OSError:
            pass  # a cache that cannot be written only costs time

    def _listed(self) -> dict[str, str]:
        """Tracked path -> blob id, from the index; read again only when the index file changed (git replaces it
        whole on every change: a new inode, size or time)."""
        mark = signature([str(self._git_dir / "index")], str(self.repo)) if self._git_dir else None
        if mark is not None and mark == self._index_mark:
            return self._index_listed
        listed: dict[str, str] = {}
        for line in _git(self.repo, "ls-files", "-s", "-z").split("\0"):
            if "\t" in line:
                meta, path = line.split("\t", 1)
                parts = meta.split()
                if len(parts) >= 2 and parts[0] != "160000":  # skip submodules
                    listed[path] = parts[1]
        self._index_mark, self._index_listed = mark, listed
        return listed

    def refresh(self, changed: set[str] | None = None) -> None:
        """Symbols of every tracked file; ``changed``: the paths whose work-tree copy differs from the index
        (asked of git when not given)."""
        listed = self._listed()
        if changed is None:
            changed = set(_git(self.repo, "diff", "--name-only", "-z").split("\0")) - {""}
        self.parsed = 0
        fresh: dict[str, Entry] = {}
        for path, sha in listed.items():
            full = self.repo / path
            key = sha
            if path in changed:
                try:
                    st = full.lstat()
                except OSError:
                    continue  # deleted in the work tree
                key = f"wt:{st.st_size}:{st.st_mtime_ns}"
            old = self.entries.get(path)
            if old is not None and old.key == key:
                fresh[path] = old
                continue
            fresh[path] = Entry(key, self._read_symbols(path, full))
            self.parsed += 1
        dirty = self.parsed or len(fresh) != len(self.entries)
        self.entries = fresh
        if self.persist and dirty:
            self._save()

    def _read_symbols(self, path: str, full: Path) -> list[str]:
        if Path(path).suffix not in (".py", ".pyi", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".go", ".rs"):
            return []
        if full.is_symlink():
            return []
        try:  # never through a symlinked directory, never a FIFO, never more than MAX_FILE_BYTES
            data, size = read_bounded(self.repo, path, MAX_FILE_BYTES)
        except (OSError, PathRefused):
            return []
        return symbols_for(path, data.decode("utf-8", "replace")) if size <= MAX_FILE_BYTES else []

    def where_defined(self, name: str) -> list[str]:
        """Tracked files whose top level defines function or class ``name`` (the map's own symbols)."""
        if not self.entries:
            self.refresh()
        return [p for p, e in self.entries.items()
                if f"{name}()" in e.symbols or f"class {name}" in e.symbols
                or any(s.startswith(f"class {name} [") for s in e.symbols) or name in e.symbols]

    def _logged(self, limit: int) -> list[str]:
        """The files of the last ``limit`` commits; read again only when HEAD moved (its reflog or the ref)."""
        gd = self._git_dir
        mark = (limit, signature(_head_files(gd), str(self.repo))) if gd else None
        if mark is not None and mark == self._log_mark:
            return self._log_paths
        paths = [p for p in _git(self.repo, "log", "-n", str(limit), "--name-only", "--format=").splitlines() if p]
        self._log_mark, self._log_paths = mark, paths
        return paths

    def recent(self, limit: int = 30, status: Any = None) -> dict[str, float]:
        """Recency weight: files changed in the work tree, then files in the last commits."""
        weights: dict[str, float] = {}
        for i, path in enumerate(self._logged(limit)):
            weights.setdefault(path, max(0.5, 1.5 - i * 0.02))
        st = status if status is not None else parse_status(_git(self.repo, "status", "--porcelain=v2", "-z"))
        for path in [*(f.path for f in st.staged + st.unstaged), *st.untracked, *st.unmerged]:
            weights[path] = 2.0
        return weights

    def render(self, query: str, budget_tokens: int) -> str:
        status = parse_status(_git(self.repo, "status", "--porcelain=v2", "-z"))  # one look at the work tree
        self.refresh(changed={f.path for f in status.unstaged} | {p for p in status.unmerged})
        wanted = words(query)
        names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", query))
        wants_tests = bool(re.search(r"\btest|spec\b", query, re.I))
        recent = self.recent(status=status)
        scored: list[tuple[float, str]] = []
        for path, entry in self.entries.items():
            public = [s for s in entry.symbols if not _private(s)]
            score = 3.0 * len(wanted & words(path)) + 2.0 * len(wanted & words(" ".join(public)))
            score += 4.0 * len(names & _identifiers(entry.symbols))  # the request names a symbol exactly
            score += recent.get(path, 0.0) + (0.3 if public else 0.0) - 0.05 * path.count("/")
            if not wants_tests and TEST_PATH.search(path):
                score -= 1.0  # source before tests unless the request is about tests
            scored.append((score, path))
        scored.sort(key=lambda item: (-item[0], item[1]))
        budget = max(0, budget_tokens) * CHARS_PER_TOKEN
        lines: list[str] = []
        used = 0
        for rank, (_, path) in enumerate(scored):
            room = budget - 40 - used
            if room < len(path) + 1:
                break
            # the best-ranked files get room for their whole class/method lists; the rest a short line
            width = min(room, MAX_LINE * (3 if rank < 3 else 1), max(60, budget // 6) if rank >= 3 else room)
            shown = [s for s in self.entries[path].symbols if not _private(s) or _identifiers([s]) & names]
            line = _file_line(path, shown, wanted | {n.lower() for n in names}, width)
            lines.append(line)
            used += len(line) + 1
        if len(lines) < len(scored):
            lines.append(f"... and {len(scored) - len(lines)} more files")
        text = "\n".join(lines)
        return text if len(text) <= budget else text[:budget]


def _private(item: str) -> bool:
    """``_helper()`` or ``class _Handler [...]``: a private definition (the map shows it when it is asked for)."""
    return item.removeprefix("class ").startswith("_")


def _identifiers(symbols: list[str]) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", " ".join(symbols))) - {"class"}


def _focus(item: str, wanted: set[str], only_hits: bool = False) -> str:
    """A class item with the methods the request names first (or only those)."""
    if not (item.startswith("class ") and item.endswith("]")):
        return item
    head, methods = item[:-1].split(" [", 1)
    parts = methods.split(", ")
    hits = [m for m in parts if m.lower() in wanted or words(m) & wanted]
    keep = hits if only_hits else hits + [m for m in parts if m not in hits]
    more = len(parts) - len(keep)
    listed = ", ".join(keep) + (f", +{more} more" if more and keep else f"{more} methods" if more else "")
    return f"{head} [{listed}]"


def _file_line(path: str, symbols: list[str], wanted: set[str], width: int) -> str:
    """``path: item, item, ...`` within ``width``: what the request names survives the cuts."""
    if not symbols:
        return path
    for only_hits in (False, True):
        items = [_focus(item, wanted, only_hits) for item in symbols]
        line = f"{path}: {', '.join(items)}"
        if len(line) <= width:
            return line
    while len(items) > 1 and len(line) > width:
        misses = [i for i, item in enumerate(items) if not words(item) & wanted]
        del items[misses[-1] if misses else -1]
        line = f"{path}: {', '.join(items)}, ..."
    return line if len(line) <= width else path


def build_repo_map(repo: Path, query: str, budget_tokens: int) -> str:
    """The ranked map (one ``path: symbols`` line per file, no header), at most ``budget_tokens`` (~4 chars each)."""
    return RepoMap.for_repo(repo).render(query, budget_tokens)
