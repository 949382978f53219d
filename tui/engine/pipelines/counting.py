"""A count by program: "how many options does the defaults object have" is the number of its keys, listed (a model
reading the object said 11 of 17); "how many methods does LRUCache define" is the number of methods in the
class's own body, listed (a snippet counted ``LRUCache.__dict__``: 10)."""

from __future__ import annotations

import ast
import re
from typing import Any

from tui.engine.pipelines.facts import Facts
from tui.engine.pipelines.job import Job
from tui.engine.work.index import RepoIndex
from tui.protocol.events import TurnDone

def entries(index: RepoIndex, d: Any) -> list[str] | None:
    """The top-level entries of a definition that is an object, dict or array literal (a JS ``var defaults =
    {...}``, a Python ``DEFAULTS = {...}``): keys, or the elements' first words; None for anything else."""
    source = "\n".join((index.text(d.path) or "").splitlines()[d.symbol.start - 1:d.symbol.end])
    if d.path.endswith(".py"):
        from tui.safety.parsing import parse_python

        try:
            tree = parse_python(source)
        except (SyntaxError, ValueError, RecursionError):
            return None
        node = tree.body[0] if len(tree.body) == 1 else None
        value = getattr(node, "value", None) if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if isinstance(value, ast.Dict):
            return [ast.unparse(k) if k is not None else "**" for k in value.keys]
        if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            return [ast.unparse(e)[:40] for e in value.elts]
        return None
    from tui.symbols.jsscan import scan

    found = scan(source)
    toks = found.tokens
    eq = next((i for i, t in enumerate(toks) if t.text == "="), None)
    if eq is None or eq + 1 >= len(toks) or toks[eq + 1].text not in ("{", "[") or eq + 1 not in found.match:
        return None
    start, end = eq + 1, found.match[eq + 1]
    out, first, depth = [], True, 0
    for t in toks[start + 1:end]:
        if first and depth == 0:
            out.append(t.text.strip("'\"`"))
            first = False
        if t.text in ("{", "[", "("):
            depth += 1
        elif t.text in ("}", "]", ")"):
            depth -= 1
        elif t.text == "," and depth == 0:
            first = True
    return out


_HOW_MANY = re.compile(r"^\s*how many\b", re.I)
_MEMBERS = re.compile(r"^\s*how many\s+(?:\w+\s+){0,2}?methods\b", re.I)


def members(index: RepoIndex, d: Any) -> list[str] | None:
    """The methods a class defines itself (in its own body: not inherited, not nested deeper); None when ``d`` is
    not a class."""
    if d.symbol.kind == "class":
        prefix = d.qualname + "."
        return [x.qualname[len(prefix):] for x in index.definitions([d.path])
                if x.symbol.kind == "method" and x.qualname.startswith(prefix) and "." not in x.qualname[len(prefix):]]
    return None


async def counted(job: Job, facts: Facts) -> TurnDone | None:
    """"How many … does <a named object, dict or array> have": counted by program, its entries listed."""
    if not _HOW_MANY.match(facts.request):
        return None
    index = await job.index()
    member = _MEMBERS.match(facts.request)
    for n in facts.symbols:
        d = n.definitions[0]
        items = members(index, d) if member else entries(index, d)
        if items:
            async def nothing() -> None:
                return None

            lines = f"{d.symbol.start}-{d.symbol.end}"
            await job.step("read_file", {"path": d.path, "lines": lines}, nothing, lambda _: f"lines {lines}")
            what = "methods of its own (counted in its body; inherited ones are not)" if member else "entries (counted)"
            return job.answer(f"{d.qualname} ({d.path}:{d.symbol.line}) has {len(items)} {what}: {', '.join(items)}.")
    return None
