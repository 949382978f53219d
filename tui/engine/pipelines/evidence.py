"""The code that matters for a request, found by program and cut to a token budget.

Named definitions first (their source, numbered as in their file), then the outlines of named files, then,
when the request names nothing the index knows, the definitions around search hits for the words the model
picks (one constrained question). Everything is bounded: the model sees well under 1,000 tokens of code.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any

from tui.engine.pipelines.facts import Facts
from tui.engine.work.index import Definition, RepoIndex, is_test
from tui.symbols import enclosing
from tui.tools.support.common import CHARS_PER_TOKEN

BUDGET = 900  # tokens of code shown with one question


@dataclass
class Evidence:
    parts: list[str] = field(default_factory=list)
    definitions: list[Definition] = field(default_factory=list)
    used: int = 0

    def add(self, text: str, budget: int = BUDGET) -> bool:
        cost = len(text) // CHARS_PER_TOKEN + 1
        if self.used + cost > budget:
            room = (budget - self.used) * CHARS_PER_TOKEN
            if room < 200:
                return False
            text = text[:room].rsplit("\n", 1)[0] + "\n..."
            cost = budget - self.used
        self.parts.append(text)
        self.used += cost
        return True

    def text(self) -> str:
        return "\n\n".join(self.parts)


def numbered(index: RepoIndex, d: Definition, limit: int = 60) -> str:
    text = index.text(d.path) or ""
    lines = text.splitlines()
    sym = d.symbol
    end = sym.end if sym.exact else min(len(lines), sym.start + 30)
    chosen = list(range(sym.start, end + 1))
    if len(chosen) > limit:
        chosen = chosen[:limit // 2] + [-1] + chosen[-limit // 2:]
    out = [f"# {d.path}, {sym.kind} {sym.qualname} (lines {sym.start}-{end})"]
    for n in chosen:
        out.append("    ..." if n < 0 else f"{n:>4}  {lines[n - 1] if n - 1 < len(lines) else ''}")
    return "\n".join(out)


def outline_text(index: RepoIndex, rel: str, limit: int = 40) -> str:
    outline = index.outline(rel)
    if outline is None:
        text = index.text(rel, 20_000)
        return f"# {rel}\n{text[:1500]}" if text else ""
    rows = [f"# {rel}: {outline.lines} lines; {counts(outline.symbols)}"]
    for sym in outline.symbols[:limit]:
        rows.append(f"  {sym.kind} {sym.name} (line {sym.line})")
        for child in sym.children[:12]:
            rows.append(f"    {child.kind} {child.name} (line {child.line})")
    return "\n".join(rows)


def counts(symbols: list) -> str:
    """Exact counts of a file's top-level definitions by kind, public and private (a count is counted)."""
    from collections import Counter

    tally: Counter[str] = Counter()
    for sym in symbols:
        tally[(sym.kind, not sym.name.startswith("_"))] += 1
        for child in sym.children:
            if child.kind == "method":
                tally[("method", not child.name.startswith("_"))] += 1
    parts = []
    for kind in ("function", "class", "method", "constant"):
        pub, priv = tally[(kind, True)], tally[(kind, False)]
        if pub or priv:
            parts.append(f"{pub + priv} {kind}{'s' if pub + priv != 1 else ''} ({pub} public, {priv} private)")
    return "; ".join(parts) or "no definitions"


def gather_code(index: RepoIndex, facts: Facts, budget: int = BUDGET, *, tests: bool = False) -> Evidence:
    ev = Evidence()
    named = [n for n in facts.symbols if n.strong] or facts.symbols[:2]
    if tests:
        named = named + facts.tests
    for n in named[:3]:
        for d in n.definitions[:2]:
            if d in ev.definitions:
                continue
            if ev.add(numbered(index, d), budget):
                ev.definitions.append(d)
    for rel in facts.code_files[:2]:
        if not any(d.path == rel for d in ev.definitions):
            ev.add(outline_text(index, rel), budget)
    return ev


async def search_terms(ask: Any, request: str) -> list[str]:
    schema = {"type": "object", "properties": {"terms": {"type": "array", "items": {"type": "string"},
                                                         "minItems": 1, "maxItems": 3}}, "required": ["terms"]}
    prompt = (f"A developer asks about their code:\n<request>\n{request.strip()[:1500]}\n</request>\n"
              "Which words or identifiers would you search the code for to find the part that matters? Give up "
              "to three exact search terms (an identifier, a string that appears in the code).\n"
              'Reply as JSON: {"terms": ["...", ...]}')
    asked = await ask.json(prompt, schema, max_tokens=60, label="what to search for")
    value = asked.first or {}
    terms = value.get("terms") if isinstance(value, dict) else None
    return [str(t).strip() for t in terms or [] if str(t).strip() and len(str(t).strip()) >= 3][:3]


def grep(index: RepoIndex, term: str, limit: int = 40, tests: bool = True) -> list[tuple[str, int, str]]:
    """(path, line, text) of the term in source files (a fixed string, case-insensitive), tests last."""
    pattern = re.compile(re.escape(term), re.I)
    hits: list[tuple[str, int, str]] = []
    for rel in sorted(index.sources(None if tests else False), key=is_test):
        text = index.text(rel, 400_000) or ""
        if term.lower() not in text.lower():
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if pattern.search(line):
                hits.append((rel, n, line.strip()[:160]))
                if len(hits) >= limit:
                    return hits
    return hits


async def searched(ask: Any, index: RepoIndex, request: str, budget: int = BUDGET, *,
                   tests: bool = True) -> tuple[Evidence, list[str]]:
    """Evidence from a search for the terms the model picks: the definitions that hold the hits."""
    terms = await search_terms(ask, request)
    ev = Evidence()
    for term in terms:
        hits = await asyncio.to_thread(grep, index, term, 40, tests)
        for rel, line, _ in hits:
            outline = index.outline(rel)
            sym = enclosing(outline.symbols, line) if outline is not None else None
            if sym is None:
                continue
            d = Definition(rel, sym)
            if d in ev.definitions:
                continue
            if not ev.add(numbered(index, d, limit=40), budget):
                return ev, terms
            ev.definitions.append(d)
            if len(ev.definitions) >= 4:
                return ev, terms
    return ev, terms
