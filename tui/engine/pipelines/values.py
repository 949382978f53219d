"""Values a request replaces: where the value lives and the swap made by program.

"Raise the default parameterLimit from 1000 to 2000", "join with ';' instead of '&'": the request gives the old
value and the new one. The line that gives the old value to a name the request uses (or, quoted, to any key) is
found by search, in whichever definition holds it (often not the one the request names: a re-export, the
function that reads it); when exactly one line of that definition holds exactly one of the two values, the value
is replaced there by program: a mechanical edit is not the model's to retype.
"""

from __future__ import annotations

import re

from tui.engine.pipelines import evidence
from tui.engine.work.index import Definition, RepoIndex

_LITERAL = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?!\w|\.\d)|'([^'\n]{1,40})'|\"([^\"\n]{1,40})\"")


def valued(index: RepoIndex, request: str) -> list[Definition]:
    """The definitions holding a line where a code-like name the request uses stands with a value it gives ("the
    default parameterLimit from 1000 to 2000" → ``parameterLimit: 1000,`` inside ``defaults``): where that value
    lives, which may not be the definition the request names (a re-export, the function that reads it)."""
    from tui.engine.work.index import _codelike
    from tui.symbols.model import enclosing

    words = set(re.findall(r"[A-Za-z_$][\w$]*", request))
    values = {next((g for g in m.groups() if g), m.group(0)) for m in _LITERAL.finditer(request)}
    if not values:
        return []
    found: list[Definition] = []
    quoted = {v for m in _LITERAL.finditer(request) for v in m.groups() if v}
    for v in sorted(quoted):  # a quoted value given to some key ("';' by default instead of '&'" → delimiter: '&')
        for rel, line, text in evidence.grep(index, v, 40, tests=False):
            if re.search(r"[\w$]['\"]?\s*[:=]\s*(['\"])" + re.escape(v) + r"\1", text):
                words.add(next(iter(re.findall(r"([\w$]+)['\"]?\s*[:=]\s*['\"]" + re.escape(v), text)), ""))
    for name in sorted(w for w in words if len(w) > 3):
        coded = _codelike(name)
        for rel, line, text in evidence.grep(index, name, 40, tests=False):
            if not _holds(text, name, coded, values):
                continue
            outline = index.outline(rel)
            sym = enclosing(outline.symbols, line) if outline is not None else None
            if sym is not None and Definition(rel, sym) not in found:
                found.append(Definition(rel, sym))
    return found


def _holds(text: str, name: str, coded: bool, values: set[str]) -> bool:
    """The line gives ``name`` one of the ``values``: beside it for a code-like name (parameterLimit), as its
    key or assignment for a plain word (``delimiter: '&'``, ``digits=1``)."""
    key = rf"(?<![\w$]){re.escape(name)}(?![\w$])"
    if not re.search(key, text):
        return False
    for v in values:
        val = rf"(?<![\w.]){re.escape(v)}(?!\w|\.\d)" if re.match(r"[\w-]", v) else re.escape(v)
        if (coded and re.search(val, text)) or re.search(key + r"['\"]?\s*[:=]\s*['\"]?" + val, text):
            return True
    return False


def value_swap(text: str, d: Definition, request: str) -> str | None:
    """The file with the one value the request replaces put in place by program, when the request gives exactly
    two values (1000 and 2000; '&' and ';') and one line of the definition gives the one to a key or name the
    request uses (or a code-like name beside it): a mechanical edit is not the model's to retype."""
    request = in_digits(request)
    found = [(m.group(0), next((g for g in m.groups() if g), None)) for m in _LITERAL.finditer(request)]
    values = list(dict.fromkeys(inner if inner is not None else raw for raw, inner in found))
    quoted = {inner for _, inner in found if inner is not None}
    if len(values) != 2:
        return None
    from tui.engine.work.index import _codelike

    words = set(re.findall(r"[A-Za-z_$][\w$]*", request))
    lines = text.split("\n")
    hits = []
    for i in range(d.symbol.start - 1, min(d.symbol.end, len(lines))):
        present = [v for v in values if any(_holds(lines[i], w, _codelike(w), {v}) for w in words if len(w) > 3)
                   or v in quoted and re.search(r"[\w$]['\"]?\s*[:=]\s*(['\"])" + re.escape(v) + r"\1", lines[i])]
        if len(present) == 1:
            hits.append((i, present[0]))
    if len(hits) != 1:
        hits = _default_hits(lines, d, values) if re.search(r"\bdefault", request, re.I) else []
    if len(hits) != 1:
        return None
    i, old = hits[0]
    new = next(v for v in values if v != old)
    token = rf"(?<![\w.]){re.escape(old)}(?!\w|\.\d)" if re.match(r"[\w-]", old) else rf"(?<=['\"]){re.escape(old)}(?=['\"])"
    if len(re.findall(token, lines[i])) != 1:
        return None
    lines[i] = re.sub(token, lambda _m: new, lines[i])
    return "\n".join(lines)


_NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}


def in_digits(request: str) -> str:
    """Numbers written as words ("four significant digits instead of three") as digits."""
    return re.sub(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", lambda m: _NUMBER_WORDS[m.group(1).lower()], request,
                  flags=re.I)


def _default_hits(lines: list[str], d: Definition, values: list[str]) -> list[tuple[int, str]]:
    """"... by default instead of 3": the one parameter of the definition's signature whose default is one of the
    two values (``precision: int = 3``), when the request names no parameter."""
    hits = []
    for i in range(d.symbol.start - 1, min(d.symbol.end, len(lines))):
        for v in values:
            if re.search(rf"[\w$]\s*(?::[^=,()]*)?=\s*{re.escape(v)}(?=\s*[,)])", lines[i]):
                hits.append((i, v))
        if re.search(r"\)\s*(?:->[^:]*)?:\s*(?:#.*)?$|\)\s*\{", lines[i]):  # the end of the signature
            break
    return hits
