"""TOML and YAML repair: the strict parser (tomllib, PyYAML) says on which line it fails; devagent tries the local
fixes of that line's known slips, keeps the first that lets the parse get further, and repeats until the file parses.

Fixes never write a value: they add a closing quote or bracket at the end of a line, quote a bare string, put a
missing ``=``/``:`` space or comma, drop a trailing comma, turn tab indentation into spaces or align a line with the
siblings it was meant to line up with (refused when two indentations are as likely). The result must parse strictly,
and every string in it must be text the damaged file already had.
"""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from typing import Any, Callable

from tui.refactor.base import RefactorError
from tui.safety.parsing import loads_toml, yaml_documents

MAX_ROUNDS = 200
Fix = Callable[[list[str], int], "list[str] | None"]


def _refuse(rel: str, line: int, why: str) -> RefactorError:
    return RefactorError(f"{rel}:{line}: {why}; not repaired (it would have to guess)",
                         "Fix that line by hand; devagent repairs syntax only where every value is certain.")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [*_strings(k), *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _replace(lines: list[str], i: int, new: str) -> list[str] | None:
    return None if new == lines[i] else lines[:i] + [new] + lines[i + 1:]


def _close_quote(lines: list[str], i: int) -> list[str] | None:
    body, nl = lines[i].rstrip("\r\n"), lines[i][len(lines[i].rstrip("\r\n")):]
    for q in ('"', "'"):
        if body.count(q) % 2 == 1 and body.rstrip().endswith(q) is False:
            return _replace(lines, i, body.rstrip() + q + nl)
    return None


def _with_line(regex: str, repl: str) -> Fix:
    pattern = re.compile(regex)
    return lambda lines, i: _replace(lines, i, pattern.sub(repl, lines[i], count=1))


# -- TOML ----------------------------------------------------------------------------------------------------------------
_TOML_ERR = re.compile(r"\(at line (\d+), column (\d+)\)")
_BARE_VALUE = re.compile(r"^(\s*[\w.\"'-]+\s*=\s*)([^\s\"'\[{#][^#\n]*?)(\s*(?:#.*)?)$")


def _toml_bare(lines: list[str], i: int) -> list[str] | None:
    body, nl = lines[i].rstrip("\r\n"), lines[i][len(lines[i].rstrip("\r\n")):]
    m = _BARE_VALUE.match(body)
    if not m or re.fullmatch(r"[+-]?[\d_.eE:TZ+-]+|true|false|inf|nan", m.group(2)):
        return None
    if m.group(2) in ("True", "False"):
        return _replace(lines, i, m.group(1) + m.group(2).lower() + m.group(3) + nl)
    return _replace(lines, i, f'{m.group(1)}"{m.group(2)}"{m.group(3)}{nl}')


TOML_FIXES: list[Fix] = [
    _with_line(r"^([ \t]*[\w.\"'-]+)[ \t]*:[ \t]+", r"\1 = "),  # key: value
    _with_line(r"^([ \t]*\[\[[^\]\n#]+?)[ \t]*(#.*)?$", r"\1]]"),  # [[array-table
    _with_line(r"^([ \t]*\[[^\]\n#]+?)[ \t]*(#.*)?$", r"\1]"),  # [table
    _close_quote,
    _toml_bare,
    _with_line(r",(\s*[}\]])", r"\1"),  # a trailing comma in an inline table or array
    _with_line(r"([\"'\d])(\s+)(?=[\"'\d])", r"\1,\2"),  # a comma missing between two array items
]


def _toml_error(text: str) -> tuple[int, str] | None:
    try:
        loads_toml(text)
    except tomllib.TOMLDecodeError as exc:
        m = _TOML_ERR.search(str(exc))
        return (int(m.group(1)) if m else 1), str(exc)
    return None


def repair_toml_text(text: str, rel: str) -> tuple[str, str]:
    return _loop(text, rel, "TOML", _toml_error, lambda t: loads_toml(t), TOML_FIXES, f"tomllib (Python "
                 f"{__import__('sys').version.split()[0]}) + line fixes")


# -- YAML ----------------------------------------------------------------------------------------------------------------
def _yaml_error(text: str) -> tuple[int, str] | None:
    import yaml

    try:
        yaml_documents(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        return (mark.line + 1 if mark else 1), str(exc).replace("\n", " ")
    except yaml.YAMLError as exc:
        return 1, str(exc)
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _yaml_tabs(lines: list[str], i: int) -> list[str] | None:
    """Tab indentation as spaces, at the tab width that keeps each tab-indented line under the key above it."""
    if not any(ln.startswith("\t") for ln in lines):
        return None
    for width in (4, 8, 2):
        changed = [re.sub(r"^[\t ]+", lambda m: m.group(0).expandtabs(width), ln) if ln.startswith("\t") else ln
                   for ln in lines]
        nested = all(_indent(changed[k]) > _indent(changed[k - 1]) for k in range(1, len(lines))
                     if lines[k].startswith("\t") and changed[k - 1].rstrip().endswith(":"))
        if nested:
            return changed
    return None


def _yaml_align(lines: list[str], i: int) -> list[str] | None:
    """Move a line to the nearest indentation used by the lines above it (one candidate only)."""
    for j in (i, i - 1):
        if j < 1 or not lines[j].strip() or lines[j].lstrip().startswith("#"):
            continue
        own = _indent(lines[j])
        above = [ln for ln in lines[:j] if ln.strip() and not ln.lstrip().startswith("#")]
        block = next((k for k in range(len(above) - 1, -1, -1) if _indent(above[k]) == 0), 0)
        levels = {_indent(ln) for ln in above[block:]}  # the levels of the top-level block the line is in
        if own in levels or not levels:
            continue
        best = min(abs(lv - own) for lv in levels)
        near = [lv for lv in levels if abs(lv - own) == best]
        if len(near) != 1 or best > 2:
            raise _refuse("", j + 1, "an indentation between two levels")
        return _replace(lines, j, " " * near[0] + lines[j].lstrip(" "))
    return None


def _yaml_colon(lines: list[str], i: int) -> list[str] | None:
    for j in (i, i - 1):
        if 0 <= j < len(lines):
            new = re.sub(r"^(\s*(?:- )?[\w.-]+):(?=[^\s/:])", r"\1: ", lines[j], count=1)
            if new != lines[j]:
                return _replace(lines, j, new)
    return None


def _yaml_quote_any(lines: list[str], i: int) -> list[str] | None:
    for j in range(min(i, len(lines) - 1), max(-1, i - 30), -1):
        fixed = _close_quote(lines, j)
        if fixed is not None:
            return fixed
    return None


YAML_FIXES: list[Fix] = [_yaml_tabs, _yaml_colon, _yaml_align, _yaml_quote_any]


def repair_yaml_text(text: str, rel: str) -> tuple[str, str]:
    return _loop(text, rel, "YAML", _yaml_error, lambda t: yaml_documents(t), YAML_FIXES,
                 f"PyYAML {version('PyYAML')} + line fixes")


# -- the loop ------------------------------------------------------------------------------------------------------------
def _loop(text: str, rel: str, name: str, error: Callable[[str], "tuple[int, str] | None"], load: Callable[[str], Any],
          fixes: list[Fix], engine: str) -> tuple[str, str]:
    first = error(text)
    if first is None:
        raise RefactorError(f"{rel} is already valid {name}; nothing to repair")
    lines = text.splitlines(keepends=True)
    found = first
    for _ in range(MAX_ROUNDS):
        if found is None:
            break
        line = min(max(found[0], 1), max(len(lines), 1))
        progress = None
        for fix in fixes:
            try:
                candidate = fix(lines, line - 1)
            except RefactorError as exc:
                raise RefactorError(f"{rel}:{exc.message.split(':', 2)[1]}:{exc.message.split(':', 2)[2]}",
                                    exc.hint) from None
            if candidate is None:
                continue
            after = error("".join(candidate))
            changed = next((k for k, (a, b) in enumerate(zip(lines, candidate)) if a != b), len(lines))
            if after is None or after[0] > found[0] or after[1] != found[1] and after[0] > changed:
                progress = (candidate, after)
                break
        if progress is None:
            raise _refuse(rel, line, f"{name} error no known slip explains ({found[1].split(' (at')[0][:120]})")
        lines, found = progress
    fixed = "".join(lines)
    if error(fixed) is not None:
        raise _refuse(rel, found[0] if found else 1, f"still not valid {name} after {MAX_ROUNDS} fixes")
    invented = [s for s in _strings(load(fixed)) if s and s not in text]
    if invented:
        raise RefactorError(f"{rel}: the repair would produce {invented[0]!r}, which the file does not contain",
                            "Fix it by hand.")
    return fixed, engine
