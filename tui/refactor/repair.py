"""Repair a JSON, TOML or YAML file's syntax, keeping every value; refuse when a value would be guessed.

``repair_file(repo, rel)`` reads the file as data (tui.safety.paths: no symlink out of the tree, no FIFO, bounded),
and returns an Outcome with the repaired file as one change; the repair is a set of small edits to the original text
(comments dropped, quotes and commas and brackets put right, indentation aligned), so the diff shows only them.

JSON: json-repair (a tolerant parser) reads the damaged text; devagent's token patcher (repair_json.py) writes that
reading back into the original layout; the result must parse strictly and equal json-repair's reading, and every key
and value in the damaged text must be in it (json-repair fills a missing value with "": that is a guess, refused).
TOML and YAML (repair_lines.py): the strict parser (tomllib, PyYAML) says where it fails, a local fix of that place
is tried, and so on until it parses; every key and value of the damaged text must be in the result.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from tui.protocol.errors import PathRefused
from tui.refactor.base import Check, FileChange, Outcome, RefactorError
from tui.safety.paths import read_bounded

MAX_BYTES = 5_000_000
MAX_DEPTH = 200  # deeper nesting is refused before any parser sees it (recursion)
FORMATS = {".json": "json", ".json5": "json", ".jsonc": "json", ".toml": "toml", ".yaml": "yaml", ".yml": "yaml"}


def _depth(text: str) -> int:
    depth = deepest = 0
    in_string = ""
    escape = False
    for ch in text:
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == in_string:
                in_string = ""
        elif ch in "\"'":
            in_string = ch
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(0, depth - 1)
    return deepest


def _read(repo: Path, rel: str) -> str:
    try:
        data, size = read_bounded(repo, rel, MAX_BYTES + 1)
    except FileNotFoundError:
        raise RefactorError(f"{rel}: no such file", "Give the path of a JSON, TOML or YAML file in the repository.") from None
    except PathRefused as exc:
        raise RefactorError(f"{rel}: {exc.message}", exc.hint) from None
    except OSError as exc:
        raise RefactorError(f"{rel}: cannot be read ({exc.strerror or exc})") from None
    if size > MAX_BYTES:
        raise RefactorError(f"{rel} is {size} bytes; devagent repairs data files up to {MAX_BYTES} bytes",
                            "Repair a file this large by hand or with a streaming tool.")
    if b"\0" in data:
        raise RefactorError(f"{rel} contains NUL bytes: not a text data file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RefactorError(f"{rel} is not UTF-8 text (byte {exc.start})") from None


def repair_text(text: str, kind: str, rel: str = "<text>") -> tuple[str, str]:
    """(repaired text, engine) for ``kind`` json | toml | yaml; RefactorError when it needs no repair or a guess."""
    if _depth(text) > MAX_DEPTH:
        raise RefactorError(f"{rel}: nested more than {MAX_DEPTH} levels deep; not repaired",
                            "A data file this deep is refused rather than risk the parser's recursion.")
    from tui.safety.parsing import TooDeep

    try:
        if kind == "json":
            from tui.refactor.repair_json import repair_json_text

            return repair_json_text(text, rel)
        from tui.refactor.repair_lines import repair_toml_text, repair_yaml_text

        return repair_toml_text(text, rel) if kind == "toml" else repair_yaml_text(text, rel)
    except TooDeep as exc:  # nested by indentation (YAML), or deeper than the parsed value may be walked
        raise RefactorError(f"{rel}: {exc.reason}; not repaired", exc.hint) from None
    except RecursionError:  # json-repair's own reading of the damaged text recurses per level
        raise RefactorError(f"{rel}: nested too deeply to repair", "Repair it by hand.") from None


def repair_file(repo: Path, rel: str) -> Outcome:
    """The repaired file as an Outcome (one change, a strict-parse check); RefactorError with the place otherwise."""
    kind = FORMATS.get(Path(rel).suffix.lower())
    if kind is None:
        raise RefactorError(f"{rel}: not a JSON, TOML or YAML file (by its name)",
                            f"devagent repairs files ending in {', '.join(sorted(FORMATS))}.")
    text = _read(repo, rel)
    fixed, engine = repair_text(text, kind, rel)
    before, after = text.encode("utf-8"), fixed.encode("utf-8")
    ops = difflib.SequenceMatcher(None, text.splitlines(), fixed.splitlines(), autojunk=False).get_opcodes()
    changed = sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")
    return Outcome("repair", engine, f"repair {rel}: {changed} lines changed, every value kept",
                   [FileChange(rel, before, after)], checks=[Check("parse", True, f"{rel} parses as strict {kind.upper()}"),
                                                             Check("values", True, "every key and value of the damaged "
                                                                   "file is in the repaired one, none added")])
