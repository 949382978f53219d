"""A new test: where it goes and what it looks like are found by program; the model writes one test; each
candidate must run and pass on the code as it is, and the test file must gain a test.

Where: the test file the request names, else the one that goes with the named code (test_x.py for x.py, or
the test file that imports it). Form: the file's imports and a test of the same code already there (or its
first test) as the example to follow. Candidates that also fail on a simple mutant of the code under test
(a flipped comparison, an off-by-one) rank first: they test something.
"""

from __future__ import annotations

import ast
import asyncio
import re
from typing import Any

from tui.engine.pipelines.facts import Facts
from tui.engine.pipelines.job import Job, NotHandled
from tui.engine.pipelines.codetext import code_of
from tui.engine.pipelines.rewrite import CODE_SCHEMA, spliced
from tui.engine.work import trial
from tui.engine.work.index import Definition, RepoIndex, is_test
from tui.engine.work.trial import Candidate
from tui.protocol.events import TurnDone
from tui.safety.parsing import parse_python
from tui.symbols import walk

PROMPT = """A developer asked:
<request>
{request}
</request>

The code to test, {path}:
```{fence}
{code}
```

The test goes into {test_file}, which starts like this:
```{fence}
{head}
```
An existing test there, to follow its form:
```{fence}
{example}
```

Write ONE new test{named} that checks what the request asks, in the same form as the existing test (same
imports, same style{cls}). The test must pass on the code as it is now. Use a new test name.{quotes}
Reply as JSON: {{"code": "<the new test>"}}"""

_TEST_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(test\w*)\s*\(|^\s*(?:it|test)\s*\(\s*(['\"`])(.+?)\2", re.M)


def _head(text: str, limit: int = 25) -> str:
    lines = text.splitlines()
    end = next((i for i, ln in enumerate(lines) if re.match(r"\s*(?:def |class |describe\(|test\(|it\()", ln)),
               min(len(lines), limit))
    return "\n".join(lines[:min(end, limit)])


def _tests_in(index: RepoIndex, rel: str) -> list[Definition]:
    outline = index.outline(rel)
    if outline is None:
        return []
    return [Definition(rel, s) for s in walk(outline.symbols)
            if s.kind in ("function", "method") and s.name.startswith("test")]


def _example(index: RepoIndex, rel: str, target: str) -> Definition | None:
    tests = _tests_in(index, rel)
    mentioning = [d for d in tests if re.search(rf"\b{re.escape(target)}\b", index.source_of(d, 60))]
    return (mentioning or tests or [None])[0]


async def _test_file(job: Job, index: RepoIndex, facts: Facts, target: Definition | None) -> str:
    if facts.test_files:
        return facts.test_files[0]
    if target is not None:
        homes = index.test_files_for(target.path)
        if homes:
            return homes[0]
    tests = index.sources(tests=True)
    if not tests:
        raise NotHandled("the project has no test file to add to")
    schema = {"type": "object", "properties": {"file": {"type": "string", "enum": tests[:60]}}, "required": ["file"]}
    asked = await job.ask.json(f"A developer asked:\n<request>\n{facts.request.strip()[:1200]}\n</request>\n"
                               "Which test file should the new test go into?\n" + "\n".join(f"- {t}" for t in tests[:60])
                               + '\nReply as JSON: {"file": "<one of the files>"}', schema, max_tokens=40,
                               label="which test file")
    chosen = (asked.first or {}).get("file") if isinstance(asked.first, dict) else None
    return chosen if chosen in tests else tests[0]


def quotes_hint(text: str, rel: str) -> str:
    """For a JS file that writes its strings in single quotes, say so: the test is a JSON string, and a double
    quote the model does not escape ends it there (the test arrives cut in two)."""
    if rel.endswith(".py"):
        return ""
    single, double = len(re.findall(r"'[^'\n]*'", text)), len(re.findall(r'"[^"\n]*"', text))
    return " Write strings in single quotes, as this file does." if single > 2 * double else ""


def _user_of(index: RepoIndex, request: str) -> Definition | None:
    """The code a request about an option or a name that is not a definition tests (``ignoreQueryPrefix``): the
    definition outside the tests that uses its code-like words most, found by search."""
    from collections import Counter

    from tui.engine.pipelines.evidence import grep
    from tui.engine.work.index import _codelike
    from tui.symbols.model import enclosing

    uses: Counter[tuple[str, int]] = Counter()
    found: dict[tuple[str, int], Definition] = {}
    for word in {w for w in re.findall(r"[A-Za-z_$][\w$]*", request) if len(w) > 3 and _codelike(w)}:
        for rel, line, _ in grep(index, word, 40, tests=False):
            outline = index.outline(rel)
            sym = enclosing(outline.symbols, line) if outline is not None else None
            if sym is not None and sym.kind in ("function", "method"):
                found[(rel, sym.start)] = Definition(rel, sym)
                uses[(rel, sym.start)] += 1
    return found[uses.most_common(1)[0][0]] if uses else None


def _test_names(code: str) -> list[str]:
    return [m.group(1) or m.group(3) for m in _TEST_DEF.finditer(code)]


def place_test(job: Job, rel: str, text: str, example: Definition | None, code: str) -> dict[str, bytes | None] | None:
    """The test file with the new test added: a Python test through the splicer (into the example's class when
    the example is a method), a JS test appended at the end of the file."""
    names = _test_names(code)
    if not names:
        return None
    taken = set(_test_names(text))
    if rel.endswith(".py"):
        name = names[0]
        if name in taken:
            k = 2
            while f"{name}_{k}" in taken:
                k += 1
            code = re.sub(rf"\bdef\s+{re.escape(name)}\b", f"def {name}_{k}", code, count=1)
            name = f"{name}_{k}"
        cls = example.symbol.qualname.rsplit(".", 1)[0] if example and "." in example.symbol.qualname else ""
        new = spliced(job, rel, text, f"{cls}.{name}" if cls else name, code)
    else:
        if names[0] in taken:  # a name the file has: the new test's title says it is another one
            k = 2
            while f"{names[0]} ({k})" in taken:
                k += 1
            m = next(m for m in _TEST_DEF.finditer(code) if m.group(3) == names[0])
            code = code[:m.start(3)] + f"{names[0]} ({k})" + code[m.end(3):]
        new = text.rstrip("\n") + "\n\n" + code.strip("\n") + "\n"
    return {rel: new.encode()} if new and new != text else None


def mutants(source: str) -> list[tuple[str, str]]:
    """Simple mutants of a Python definition's source: (what changed, the mutated source)."""
    try:
        tree = parse_python(source)
    except (SyntaxError, ValueError, RecursionError):
        return []
    swaps = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
             ast.NotEq: ast.Eq, ast.Add: ast.Sub, ast.Sub: ast.Add}
    out = []
    for node in ast.walk(tree):
        ops = getattr(node, "ops", None) or ([node.op] if isinstance(node, ast.BinOp) else [])
        for i, op in enumerate(ops):
            if type(op) in swaps:
                new = swaps[type(op)]()
                if isinstance(node, ast.BinOp):
                    node.op = new
                else:
                    node.ops[i] = new
                try:
                    out.append((f"{type(op).__name__} -> {type(new).__name__} at line {node.lineno}",
                                ast.unparse(tree)))
                finally:
                    if isinstance(node, ast.BinOp):
                        node.op = op
                    else:
                        node.ops[i] = op
        if len(out) >= 6:
            break
    return out


async def run(job: Job, facts: Facts) -> TurnDone:
    index = await job.index()
    strong = [n for n in facts.symbols if n.strong] or facts.symbols
    target = strong[0].definitions[0] if strong else await asyncio.to_thread(_user_of, index, facts.request)
    rel = await _test_file(job, index, facts, target)
    text = index.text(rel) or ""
    if target is None:  # the request names a test file only: the code it tests is what the file imports most
        raise NotHandled("the request names no code to test", hint=f"the tests are in {rel}")
    example = _example(index, rel, target.symbol.name)
    fence = "python" if rel.endswith(".py") else "js"
    cls = f", inside class {example.symbol.qualname.rsplit('.', 1)[0]}" if example and "." in example.symbol.qualname else ""
    prompt = PROMPT.format(request=facts.request.strip()[:1500], path=target.path, fence=fence,
                           code=index.source_of(target, 50), test_file=rel, head=_head(text),
                           example=index.source_of(example, 30) if example else "(none yet)",
                           named=f" for {target.symbol.name}", cls=cls, quotes=quotes_hint(text, rel))
    scratch = await job.scratch()
    before_run = await job.tests(rel, label="the test file before")
    asked = await job.ask.json(prompt, CODE_SCHEMA, n=job.samples, max_tokens=700, label="the new test")
    cands: list[Candidate] = []
    for code in dict.fromkeys(map(code_of, asked.values)):
        if code:
            changes = place_test(job, rel, text, example, code)
            if changes:
                cands.append(Candidate(changes, f"candidate {len(cands) + 1}", notes=[code]))
    if not cands:
        raise NotHandled("no candidate test could be placed")
    scored: list[tuple[int, Any]] = []
    for cand in cands:
        v = await job.step("try", {"candidate": cand.label, "in": rel}, lambda cand=cand: trial.judge(
            job, scratch, cand, before={rel: text.encode()}, target=rel, suite=False), lambda v: v.line()) \
            if scratch is not None else None
        if v is None or not trial.passed(v):
            continue
        grew = before_run is None or v.target is None or v.target.total > before_run.total
        if not grew:
            continue
        killed = await _kills(job, scratch, target, cand, rel) if rel.endswith(".py") else 0
        uses = bool(re.search(rf"\b{re.escape(target.symbol.name)}\b", cand.notes[0]))
        scored.append((killed * 2 + uses, v))
    if not scored:
        raise NotHandled("no candidate test passed on the code as it is")
    scored.sort(key=lambda kv: kv[0], reverse=True)
    best = scored[0][1]
    note = f"{len(cands)} candidate(s), {len(scored)} ran and passed"
    outcome = await job.propose(best.candidate.changes, f"add a test to {rel} ({best.line()})", warnings=[note])
    if not outcome.applied:
        return job.answer(f"The new test was not added ({outcome.reason or 'rejected'}).")
    return job.answer(f"Added a test for {target.symbol.name} to {rel}; it passes on the current code "
                      f"({best.target.counts() if best.target is not None else 'not run'}).")


async def _kills(job: Job, scratch: Any, target: Definition, cand: Candidate, rel: str) -> int:
    """How many simple mutants of the code under test make the new test file fail (0 when none could be made)."""
    index = await job.index()
    text = index.text(target.path) or ""
    source = "\n".join(text.splitlines()[target.symbol.start - 1:target.symbol.end])
    killed = 0
    for _, mutated in mutants(_dedent(source))[:3]:
        new = spliced(job, target.path, text, target.qualname, mutated)
        if new is None:
            continue
        changes = dict(cand.changes)
        changes[target.path] = new.encode()
        scratch.write(changes)
        try:
            run = await trial.run_tests(job, scratch, rel)
        finally:
            scratch.reset()
        killed += bool(run is not None and not run.ok)
    return killed


def _dedent(source: str) -> str:
    import textwrap

    return textwrap.dedent(source)


def is_test_path(path: str) -> bool:
    return is_test(path)
