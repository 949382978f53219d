"""The outline as the model sees it: counted, one line per class, bounded.

A header carries the exact counts (``2 classes, 60 functions (12 tests), 3 constants``) so
"how many" needs no full read, even when the lists below are cut to the budget. Overloads,
property getter/setter pairs and TS overload signatures are listed once, marked.
"""

from __future__ import annotations

from tui.symbols.model import Outline, Symbol, groups

MAX_CHARS = 3200  # the whole outline; the agent's tool-output budget is 4,000 characters
MAX_LINE = 900  # one class line or one list line
KIND_ORDER = ["class", "interface", "type", "enum", "function", "constant", "const", "definition"]
MARK_ORDER = ["property", "property with setter", "get", "set", "static", "class", "abstract", "async", "arrow",
              "generator", "exported", "default", "private"]
PLURAL = {"class": "classes", "interface": "interfaces", "type": "types", "enum": "enums", "function": "functions",
          "constant": "constants", "const": "consts", "method": "methods", "field": "fields"}


def _count(n: int, kind: str) -> str:
    return f"{n} {kind if n == 1 else PLURAL.get(kind, kind + 's')}"


def _count_split(names: list[str], kind: str) -> str:
    """``9 functions (8 public, 1 private)``: a question about "public" ones needs no counting by hand."""
    text = _count(len(names), kind)
    special = sum(n.startswith("__") and n.endswith("__") for n in names)
    private = sum(n.startswith(("_", "#")) for n in names) - special
    if not special and not private:
        return text
    parts = [f"{len(names) - special - private} public"] + ([f"{special} special __x__"] if special else []) + \
        ([f"{private} private"] if private else [])
    return f"{text} ({', '.join(parts)})"


def _mark_list(group: list[Symbol]) -> list[str]:
    """'3 overloads', 'property', 'async', 'exported' ... for a group of same-named definitions."""
    marks: list[str] = []
    overloads = sum("overload" in s.marks or "signature" in s.marks for s in group)
    if overloads:
        marks.append(f"{overloads} overload{'s' if overloads > 1 else ''}")
    seen = {m for s in group for m in s.marks} - {"overload", "signature", "pattern"}
    if "property" in seen and ({"setter", "deleter"} & seen):
        seen = (seen - {"setter", "deleter", "getter", "property"}) | {"property with setter"}
    marks.extend(m for m in MARK_ORDER if m in seen)
    return marks


def _marks(group: list[Symbol]) -> str:
    marks = _mark_list(group)
    return f" ({', '.join(marks)})" if marks else ""


def _fit(items: list[str], head: str, limit: int = MAX_LINE) -> str:
    """``head`` and as many ``items`` as fit in ``limit`` characters, with how many were left out."""
    line = head
    for index, item in enumerate(items):
        sep = "" if index == 0 else ", "
        if len(line) + len(sep) + len(item) > limit:
            return f"{line}, … {len(items) - index} more"
        line += sep + item
    return line


def _item(group: list[Symbol], with_end: bool) -> str:
    first, last = group[0], group[-1]
    span = f"{first.start}-{last.end}" if with_end and last.end > first.start else f"{first.start}"
    return f"{first.name} {span}{_marks(group)}"


def _title(group: list[Symbol], counts: list[str]) -> str:
    sym = group[0]
    details = ", ".join(_mark_list(group) + counts)
    return f"{sym.kind} {sym.qualname} (lines {sym.start}-{group[-1].end}{'; ' + details if details else ''})"


def _class_lines(sym: Symbol, depth: int = 0) -> list[str]:
    members = groups(sym.children)
    methods = [g for g in members if g[0].kind == "method"]
    fields = [g for g in members if g[0].kind == "field"]
    nested = [g[0] for g in members if g[0].kind == "class"]
    counts = [_count_split([g[0].name for g in methods], "method")] + ([_count(len(fields), "field")] if fields else []) + \
        ([_count(len(nested), "class")] if nested else [])
    pad = "  " * depth
    head = pad + _title([sym], counts)
    lines = [_fit([_item(g, False) for g in methods], head + ": ") if methods else head]
    if fields:
        lines.append(_fit([f"{g[0].name} {g[0].start}" for g in fields], f"{pad}  fields: "))
    for child in nested:
        lines.extend(_class_lines(child, depth + 1))
    return lines


def header(outline: Outline) -> str:
    tops = groups(outline.symbols)
    names: dict[str, list[str]] = {}
    for group in tops:
        names.setdefault(group[0].kind, []).append(group[0].name)
    parts = [_count_split(names[k], k) if k in ("function", "class") else _count(len(names[k]), k)
             for k in KIND_ORDER if names.get(k)]
    if outline.language == "js":  # "how many does lib/utils.js export": the count of what is exported
        exported = {k: sum(1 for g in tops if g[0].kind == k and any("exported" in s.marks for s in g))
                    for k in KIND_ORDER if names.get(k)}
        parts = [f"{part} ({exported[k]} exported)" if exported[k] and len(names[k]) > 1 else part
                 for part, k in zip(parts, [k for k in KIND_ORDER if names.get(k)])]
    tests = sum(1 for g in tops if g[0].kind == "function" and g[0].name.startswith("test"))
    tests += sum(1 for g in tops if g[0].kind == "class" for m in groups(g[0].children)
                 if m[0].kind == "method" and m[0].name.startswith("test"))
    text = f"{outline.path}: {outline.lines} lines; " + (", ".join(parts) if parts else "no definitions found")
    if tests:
        text += f" ({_count(tests, 'test')})"
    if outline.language == "pattern":
        text += "; found by pattern (start lines only)"
    if outline.error:
        text += f"; note: {outline.error}"
    return text


def render(outline: Outline, limit: int = MAX_CHARS) -> str:
    """The whole outline text, at most ``limit`` characters (the header is always whole)."""
    lines = [header(outline)]
    tops = groups(outline.symbols)
    if outline.language == "pattern":
        lines.append(_fit([f"{g[0].kind} {g[0].name} {g[0].start}" for g in tops], "definitions: ", limit))
    for group in tops if outline.language != "pattern" else []:
        if group[0].kind in ("class", "interface", "enum") and group[0].children:
            lines.extend(_class_lines(group[0]))
        elif group[0].kind in ("class", "interface", "enum", "type"):
            lines.append(_title(group, []))
    for kind, title in (("function", "functions"), ("constant", "constants"), ("const", "consts")):
        chosen = [g for g in tops if g[0].kind == kind] if outline.language != "pattern" else []
        if chosen:
            items = [_item(g, True) if kind == "function" else f"{g[0].name} {g[0].start}" + (
                f" (methods {' '.join(c.name for c in g[0].children)})" if g[0].children else "") for g in chosen]
            lines.append(_fit(items, f"{title} ({len(chosen)}): "))
    out, used = [], 0
    for index, line in enumerate(lines):
        if used + len(line) + 1 > limit and index:
            out.append(f"[... {len(lines) - index} more lines; outline(path, symbol=NAME) shows one definition]")
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(out)
