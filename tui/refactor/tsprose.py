"""What a TypeScript/JavaScript refactoring reads besides the code: the docs that mention a renamed name (the
optional part of a proposal) and the package's public entry points (a moved name stays importable from them).
"""

from __future__ import annotations

import re
from pathlib import Path

from tui.refactor.base import FileChange
from tui.safety.parsing import loads_json

PROSE_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc")
PROSE_LIMIT = 2_000_000
_ENTRY_KEYS = ("main", "module", "types", "typings", "browser", "exports", "bin", "source")
_OUT_EXT = re.compile(r"(\.d)?\.(js|mjs|cjs|ts|mts|cts|tsx|jsx)$")
_SOURCE_EXT = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def prose_changes(work: Path, files: list[str], old: str, new: str, skip: set[str]) -> list[FileChange]:
    """Docs (README, guides, ...) with ``old`` as a whole word, renamed: the proposal's optional part. Changelogs
    and release notes keep what they said."""
    from tui.refactor.pytext import HISTORY

    pattern = re.compile(rf"(?<![\w$]){re.escape(old)}(?![\w$])")
    found: list[FileChange] = []
    for rel in files:
        if not rel.lower().endswith(PROSE_SUFFIXES) or rel in skip or HISTORY.match(rel.rsplit("/", 1)[-1]):
            continue
        path = work / rel
        try:
            if path.stat().st_size > PROSE_LIMIT:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        text = data.decode("utf-8", "surrogateescape")
        changed = pattern.sub(new, text)
        if changed != text:
            found.append(FileChange(rel, data, changed.encode("utf-8", "surrogateescape")))
    return found


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _out_dirs(work: Path) -> list[tuple[str, str]]:
    """(outDir, rootDir) pairs from tsconfig.json, to map a built entry (lib/index.js) to its source."""
    try:
        text = (work / "tsconfig.json").read_text(encoding="utf-8", errors="replace")[:PROSE_LIMIT]
    except OSError:
        return []
    out = re.search(r'"outDir"\s*:\s*"([^"]+)"', text)
    root = re.search(r'"rootDir"\s*:\s*"([^"]+)"', text)
    norm = [(m.group(1) if m else "").strip("./").rstrip("/") for m in (out, root)]
    return [(norm[0], norm[1] or "src")] if norm[0] else []


def public_entries(work: Path, files: list[str]) -> list[str]:
    """Source files the package.json entry points name (directly, or as the built copy of a source file)."""
    try:
        meta = loads_json((work / "package.json").read_text(encoding="utf-8")[:PROSE_LIMIT], "package.json")
    except (OSError, ValueError):
        return []
    if not isinstance(meta, dict):
        return []
    targets = [s for key in _ENTRY_KEYS for s in _strings(meta.get(key))]
    sources = set(files)
    found: list[str] = []
    for target in targets:
        stem = _OUT_EXT.sub("", target.strip().lstrip("./"))
        stems = [stem]
        for out, root in _out_dirs(work):
            if stem == out or stem.startswith(out + "/"):
                stems.append((root + stem[len(out):]).lstrip("/"))
        stems += [f"src/{s.split('/', 1)[1]}" for s in list(stems) if "/" in s]
        for s in stems:
            for candidate in (s + ext for ext in _SOURCE_EXT):
                if candidate in sources and candidate not in found:
                    found.append(candidate)
            for candidate in (f"{s}/index{ext}" for ext in _SOURCE_EXT):
                if candidate in sources and candidate not in found:
                    found.append(candidate)
    return found
