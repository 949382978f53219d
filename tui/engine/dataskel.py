"""The starting code for "clean this JSON (or CSV) file in place", built from the request and the file's own keys
(or header).

A 1.5B model given a skeleton with a gap ("# ... change data here ...") sends it back unchanged; given
a CSV skeleton whose lines each do one cleaning step, it keeps the ones it needs. So the JSON skeleton
is made of such lines too, and only the steps the request names are in it: trimming strings,
dropping entries whose named field is missing or empty, dropping duplicates (whole entries, or by a
named field), sorting by a named field. The field names are the file's own keys that the request uses.
The file's indentation and its final newline are kept.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from tui.safety.parsing import TooDeep, loads_json
from tui.tools.run_command import SKELETON_GAP

MAX_BYTES = 2_000_000


def _data_file(repo: Path, path: str) -> Path | None:
    """The repository's data file to read on the host: inside the work tree in every path component (no symlink
    out, no git dir), a regular file (never a FIFO's wait), not too big; None otherwise."""
    import os
    import stat

    from tui.protocol.errors import PathRefused
    from tui.safety.paths import resolve_in_repo

    try:
        if (repo / path).is_symlink():
            return None
        full = resolve_in_repo(repo, path)
        info = os.stat(full)
    except (PathRefused, OSError):
        return None
    return full if stat.S_ISREG(info.st_mode) and info.st_size <= MAX_BYTES else None


def _keys(data: object) -> list[str]:
    """The keys of the entries of a list of objects (or of the first list of objects one level down)."""
    if isinstance(data, dict):
        inner = next((v for v in data.values() if isinstance(v, list) and v and isinstance(v[0], dict)), None)
        data = inner if inner is not None else [data]
    if not isinstance(data, list):
        return []
    return list(dict.fromkeys(k for entry in data if isinstance(entry, dict) for k in entry))


def _entries(data: object) -> str:
    """The expression that holds the entries in the loaded ``data``."""
    if isinstance(data, dict):
        key = next((k for k, v in data.items() if isinstance(v, list) and v and isinstance(v[0], dict)), None)
        if key is not None:
            return f"data[{key!r}]"
    return "data"


def _named(prompt: str, keys: list[str], pattern: str) -> str:
    """The key the request names next to ``pattern`` ("no url", "url is missing", "duplicate names")."""
    for key in sorted(keys, key=len, reverse=True):
        k = re.escape(key)
        if re.search(rf"(?:{pattern})\W+(?:\w+\W+)?{k}s?\b|\b{k}s?\W+(?:\w+\W+)?(?:{pattern})", prompt, re.I):
            return key
    return ""


# Sorting a column of numbers as text puts 10 before 9 (fresh held-out: "sort the rows by count, highest
# first" became an ascending sort of strings); numbers sort as numbers, "highest first" descending.
SORT_KEY = ("def sort_key(value):  # numbers as numbers (10 after 9), then text\n    try:\n"
            "        return (0, float(value), '')\n    except (TypeError, ValueError):\n        return (1, 0.0, str(value))")
_DESCENDING = re.compile(r"\b(?:highest|largest|biggest|most|greatest|newest|latest)\s+first\b|\bdescending\b|"
                         r"\bin\s+reverse\b|\breversed?\s+order\b", re.I)


def _sort_step(items: str, key: str, order: str, prompt: str) -> str:
    """The sort line of a skeleton: ``items`` sorted by the lambda ``key``, highest first when the request says so."""
    down = bool(_DESCENDING.search(prompt))
    return f"{items}.sort(key={key}{', reverse=True' if down else ''})  # sorted by {order}" + \
        (", highest first" if down else "")


class _Asked(NamedTuple):
    """The cleaning steps a request names, on the file's own field or column names ('' when not named)."""
    strip: bool
    empty: str  # the field whose empty entries go
    dedup: bool
    by: str  # the field duplicates are judged by
    order: str  # the field to sort by


BLANK_ROWS = re.compile(r"\b(?:blank|empty)\s+(?:rows?|lines?|entries|records?)\b", re.I)


def _asked(prompt: str, names: list[str]) -> _Asked:
    dedup = bool(re.search(r"\bduplicat\w*|\bdedup\w*|\bunique\b", prompt, re.I))
    rows_aside = BLANK_ROWS.sub(" ", prompt)  # "trim each value, drop empty lines": no column is "empty" there
    return _Asked(bool(re.search(r"\b(?:trim\w*|strip\w*|whitespace|spaces?)\b", prompt, re.I)),
                  _named(rows_aside, names, r"no|without|missing|empty|blank|lacks?|null"), dedup,
                  _named(prompt, names, r"duplicat\w*|same|unique") if dedup else "",
                  _named(prompt, names, r"sort\w*\b.{0,60}?\bby|order\w*\b.{0,60}?\bby"))


def json_skeleton(repo: Path | None, path: str, prompt: str) -> str:
    data: object = None
    indent = 2
    newline = True
    if repo is not None:
        full = _data_file(repo, path)
        try:
            if full is not None:
                text = full.read_text(encoding="utf-8")
                data = loads_json(text, path)
                found = re.search(r"\n( +)\S", text)
                indent = len(found.group(1)) if found else 2
                newline = text.endswith("\n")
        except TooDeep as exc:
            return f"devagent did not read {path} ({exc.reason}), so there is no starting code for it."
        except (OSError, ValueError):
            data = None
    keys = _keys(data)
    items = _entries(data)
    asked = _asked(prompt, keys)
    steps: list[str] = []
    if asked.strip:
        steps += ["def trimmed(v):  # every string, at any depth, without the whitespace around it",
                  "    if isinstance(v, str):", "        return v.strip()",
                  "    if isinstance(v, list):", "        return [trimmed(x) for x in v]",
                  "    if isinstance(v, dict):", "        return {k: trimmed(x) for k, x in v.items()}",
                  "    return v", "data = trimmed(data)"]
    empty, by, order = asked.empty, asked.by, asked.order
    if empty:
        steps.append(f"{items} = [e for e in {items} if str(e.get({empty!r}) or '').strip()]  "
                     f"# drop entries whose {empty} is missing or empty")
    if asked.dedup:
        if by:
            steps += ["seen = set()", f"{items} = [e for e in {items} if not (e.get({by!r}) in seen or "
                      f"seen.add(e.get({by!r})))]  # drop entries whose {by} came before, keep the first"]
        else:
            steps += ["kept = []", f"for e in {items}:  # drop entries equal to an earlier one, keep the first",
                      "    if e not in kept:", "        kept.append(e)", f"{items} = kept"]
    if order:
        steps.append(_sort_step(items, f"lambda e: sort_key(e.get({order!r}, ''))", order, prompt))
        steps.insert(0, SORT_KEY)
    body = "\n".join(steps) if steps else SKELETON_GAP
    end = "\n    print(file=f)  # the final newline" if newline else ""
    intro = ("Start from this code, made of the steps the request names (check each against the request; add a step "
             "it needs that is missing):" if steps else "Start from this code:")
    return (f"{intro}\nimport json\npath = {path!r}\nwith open(path, encoding='utf-8') as f:\n    data = json.load(f)\n"
            f"{body}\nwith open(path, 'w', encoding='utf-8') as f:\n"
            f"    json.dump(data, f, indent={indent}, ensure_ascii=False){end}")


def _csv_head(repo: Path | None, path: str) -> tuple[list[str], str]:
    """(the header's column names, the file's line ending) of a CSV file; ([], "\\n") when unreadable."""
    import csv
    import io

    if repo is None:
        return [], "\n"
    full = _data_file(repo, path)
    if full is None:
        return [], "\n"
    try:
        raw = full.read_bytes()
    except OSError:
        return [], "\n"
    text = raw.decode("utf-8", "replace")
    ending = "\r\n" if "\r\n" in text else "\n"
    delimiter = "\t" if path.lower().endswith(".tsv") else ","
    first = next(csv.reader(io.StringIO(text), delimiter=delimiter), [])
    return [c.strip() for c in first], ending


def csv_skeleton(repo: Path | None, path: str, prompt: str) -> str:
    """The CSV counterpart of json_skeleton: one line per step the request names, on the header's own column
    names (itsdangerous probe, outside the benchmark: given every step at once, the model ran them all and left
    the rows "whose name is empty" in). The file's own line ending is kept (csv writes \\r\\n by default, which
    changed every line of a \\n file)."""
    columns, ending = _csv_head(repo, path)
    delimiter = ", delimiter=chr(9)" if path.lower().endswith(".tsv") else ""  # no backslash to mis-escape
    asked = _asked(prompt, columns)
    empty, by, order = asked.empty, asked.by, asked.order
    steps: list[str] = []
    if asked.strip:
        steps += ["header = [v.strip() for v in header]",
                  "body = [[v.strip() for v in row] for row in body]  # strip every value"]
    if BLANK_ROWS.search(prompt):  # first: a blank line is a row of no columns, which the steps below index
        steps.append("body = [row for row in body if any(v.strip() for v in row)]  # drop blank rows")
    if empty:
        steps.append(f"body = [row for row in body if col(row, {empty!r}).strip()]  # drop rows whose {empty} is empty")
    for word, method in (("lower", "lower"), ("upper", "upper")):
        column = _named(prompt, columns, rf"{word}[- ]?cas\w*|{word}cas\w*|in {word} case")
        if column:
            steps.append(f"i = header.index({column!r})")
            steps.append(f"body = [row[:i] + [row[i].{method}()] + row[i + 1:] for row in body]  # {column} in {word} case")
    if asked.dedup:
        if by:
            steps += ["seen = set()", f"body = [row for row in body if not (col(row, {by!r}) in seen or "
                      f"seen.add(col(row, {by!r})))]  # drop rows whose {by} came before, keep the first"]
        else:
            steps.append("body = [list(r) for r in dict.fromkeys(map(tuple, body))]  # drop duplicate rows, keep the first")
    if order:
        steps.append(_sort_step("body", f"lambda row: sort_key(col(row, {order!r}))", order, prompt))
        steps.insert(0, SORT_KEY)
    end = "" if ending == "\r\n" else ", lineterminator=chr(10)"
    intro = ("Start from this code, made of the steps the request names (check each against the request; add a step "
             "it needs that is missing; rows are lists of strings; keep the header first):" if steps else
             "Start from this code (rows are lists of strings; keep the header first and the rows' order unless "
             "asked to sort):")
    if any("col(row" in step for step in steps):  # a short row (a stray space, a missing field) is no IndexError
        steps.insert(0, "def col(row, name):  # the row's value in that column ('' when the row is short)\n"
                        "    i = header.index(name)\n    return row[i] if i < len(row) else ''")
    body = "\n".join(steps) if steps else SKELETON_GAP
    return (f"{intro}\nimport csv\npath = {path!r}\nwith open(path, newline='') as f:\n"
            f"    rows = list(csv.reader(f{delimiter}))\nheader, body = rows[0], rows[1:]\n{body}\n"
            f"with open(path, 'w', newline='') as f:\n    csv.writer(f{delimiter}{end}).writerows([header] + body)")
