"""Candidates checked before anyone sees them: static checks on the host (parsing, pyflakes; nothing runs),
then code and tests in the sandboxed throwaway copy (scratch.py).

A check never trusts a candidate's claim: it runs what the candidate would leave behind. The verdicts are
ranked by what they prove (parses < imports < the targeted test passes < the suite is no worse), smallest
change first among equals.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from tui.engine.work.scratch import Scratch
from tui.protocol.events import Progress
from tui.safety.parsing import loads_json, parse_python

CODE_TIMEOUT = 30.0
SUITE_TIMEOUT = 240.0


@dataclass
class Candidate:
    changes: dict[str, bytes | None]  # path -> new bytes (None: deleted)
    label: str = ""  # shown in what was tried ("candidate 2")
    notes: list[str] = field(default_factory=list)

    def key(self) -> str:
        h = hashlib.sha256()
        for rel in sorted(self.changes):
            h.update(rel.encode() + b"\0" + (self.changes[rel] or b"<deleted>") + b"\0")
        return h.hexdigest()[:16]

    def size(self, before: dict[str, bytes | None]) -> int:
        import difflib

        total = 0
        for rel, new in self.changes.items():
            old = (before.get(rel) or b"").decode("utf-8", "replace").splitlines()
            total += sum(1 for ln in difflib.unified_diff(old, (new or b"").decode("utf-8", "replace").splitlines(),
                                                          lineterm="", n=0) if ln[:1] in "+-" and ln[:3] not in ("+++", "---"))
        return total


@dataclass
class Ran:
    """A snippet run in the copy: exit code (None: killed), output, and whether it ran at all."""

    exit_code: int | None
    output: str
    killed: str = ""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.killed


@dataclass
class Verdict:
    candidate: Candidate
    problems: list[str] = field(default_factory=list)  # parse errors, new pyflakes problems: the candidate is out
    target: Any = None  # TestRun of the targeted tests (or a Ran of the check snippet)
    suite: Any = None  # TestRun of the whole suite
    notes: list[str] = field(default_factory=list)
    unrun: str = ""  # why the suite did not run for it although its checks passed (the turn's time ran out)
    asserts: dict[int, bool] = field(default_factory=dict)  # the check's asserts, graded (graded.py)

    @property
    def static_ok(self) -> bool:
        return not self.problems

    def line(self) -> str:
        if self.problems:
            return f"{self.candidate.label}: {self.problems[0]}"
        bits = []
        for name, run in (("target", self.target), ("suite", self.suite)):
            if run is None:
                continue
            if getattr(run, "killed", "") == "budget":
                bits.append(f"{name} cut short (time budget)")
                continue
            if getattr(run, "status", "") in IDLE:
                bits.append(f"{name} did not run" + (f" ({run.problem[:120]})" if getattr(run, "problem", "") else ""))
                continue
            why = f" ({run.counts()})" if hasattr(run, "counts") else "" if _ok(run) else error_line(run.output)
            bits.append(f"{name} {'passed' if _ok(run) else 'failed'}{why}")
        if self.unrun:
            bits.append("no suite result (time budget)")
        return f"{self.candidate.label}: " + ("; ".join(bits) or "parses")


def error_line(output: str) -> str:
    """': <the error a failed snippet ended with>' (its last line naming an error, else its last line), short."""
    lines = [line.strip() for line in (output or "").splitlines() if line.strip()]
    named = [line for line in lines if re.search(r"\w*(?:Error|Exception)\b", line) and not line.startswith("at ")
             and not line.startswith("File ")]  # a stack frame names where, not what
    last = (named or lines or [""])[-1]
    return f": {last[:160]}" if last else ""


def _ok(run: Any) -> bool:
    return bool(run is not None and run.ok)


def static_problems(rel: str, before: bytes | None, after: bytes | None, repo: Any) -> list[str]:
    """Problems visible without running anything: a Python file that stops parsing or gains undefined names,
    a JS file that stops parsing (node --check in its own sandbox), a JSON file that stops loading."""
    if after is None:
        return []
    text = after.decode("utf-8", "replace")
    if rel.endswith((".py", ".pyi")):
        try:
            parse_python(text, rel)
        except SyntaxError as err:
            return [f"{rel} line {err.lineno}: {err.msg}"]
        except (ValueError, RecursionError) as err:
            return [f"{rel}: {err}"]
        from tui.tools.support.pycheck import new_problems

        return [p for p in new_problems(before, after, rel, repo) if "undefined name" in p or "syntax" in p.lower()]
    if rel.endswith((".js", ".cjs", ".mjs")):
        from tui.tools.support.jscheck import breaks_js

        broken = breaks_js(repo, rel, before.decode("utf-8", "replace") if before is not None else None, text)
        return [f"{rel}: {broken}"] if broken else []
    if rel.endswith(".json"):
        try:
            loads_json(text, rel)
        except (ValueError, RecursionError) as err:
            return [f"{rel}: not valid JSON ({err})"]
    return []


async def run_code(job: Any, scratch: Scratch, code: str, *, language: str = "python",
                   timeout: float = CODE_TIMEOUT) -> Ran:
    """Run a snippet in the copy, sandboxed (the project's interpreter for Python, node for JS: ``module`` for an
    ES module package; ``typescript`` through the project's compiler, tsrun.py)."""
    box = scratch.sandbox(job.config, getattr(job.ctx.sandbox, "info", None))
    if box is None:
        return Ran(None, "no sandbox to run it in", "sandbox")
    if language == "python":
        from tui.projenv import find_python

        interp = await asyncio.to_thread(find_python, job.repo, job.config)
        if not interp.found:
            return Ran(None, f"no Python interpreter for this project: {interp.why}", "python")
        argv = [interp.python, "-B", "-c", code]
    else:
        from tui.safety import hostpath

        node = hostpath.which("node")
        if not node:
            return Ran(None, "node is not installed", "node")
        if language == "typescript":
            from tui.engine.work.tsrun import program

            argv = [node, "-e", program(code)]
        else:
            argv = [node, "--input-type=module", "-e", code] if language == "module" else [node, "-e", code]
    budget = job.budget
    if not budget.fits("code", 1.0):
        return Ran(None, budget.skip("not run"), "budget")
    limit = budget.timeout(timeout)
    job.emit(Progress("running", _waited("code in the throwaway copy", budget, limit)))
    result = await box.run(argv, timeout=limit, idle_timeout=limit)
    budget.measure("code", float(getattr(result, "duration", 0.0) or 0.0))
    killed = "budget" if result.killed == "timeout" and limit < timeout else result.killed
    return Ran(result.exit_code, result.output, killed)


async def run_tests(job: Any, scratch: Scratch, selection: str = "", timeout: float = SUITE_TIMEOUT) -> Any:
    """The project's own tests (all, or ``selection``) in the copy; a TestRun (tui.testing). None when there is
    nothing to run: no sandbox for the copy, no suite in the project (``job.no_suite`` then says so), or no time
    left in the turn for a run like the last one (``job.budget`` says so). A run the turn's deadline cut short is
    killed and says ``killed: budget``."""
    from tui.protocol.errors import ToolError
    from tui.testing import run_tests as run

    box = scratch.sandbox(job.config, getattr(job.ctx.sandbox, "info", None))
    if box is None:
        return None
    kind = f"tests:{selection}"
    if not job.budget.fits(kind):
        job.budget.skip(f"the tests {selection} were not run" if selection else "the whole suite was not run")
        return None
    limit = job.budget.timeout(timeout)
    job.emit(Progress("testing", _waited(f"the tests {selection}" if selection else "the whole suite", job.budget,
                                         limit)))
    try:
        ran = await run(job.repo, job.config, selection, runner=box, timeout=limit)
    except ToolError as err:  # no suite found, or none chosen: nothing to run, which is not a failure
        job.no_suite = f"{err.message} {err.hint}".strip()
        return None
    job.budget.measure(kind, ran.duration)
    if ran.killed == "timeout" and limit < timeout:
        ran.killed = "budget"
        job.budget.skip("the whole suite did not finish" if not selection else f"the tests {selection} did not finish")
    return ran


def _waited(what: str, budget: Any, limit: float) -> str:
    """The wait line of a run: what runs and, when the turn's time budget bounds it, for how long at most."""
    return f"{what} (at most {limit:.0f} s: the turn's time budget)" if budget.bounded and budget.left() <= limit \
        else what


async def run_suite(job: Any, scratch: Scratch, verdict: Verdict) -> Verdict:
    """The whole suite with ``verdict``'s candidate, when the turn has time for it (the last suite run predicts
    this one); otherwise ``verdict.unrun`` says why it did not run, or did not finish."""
    if not job.budget.fits("tests:"):
        verdict.unrun = job.budget.skip("the whole suite was not run")
        return verdict
    scratch.write(verdict.candidate.changes)
    try:
        run = await run_tests(job, scratch, "")
    finally:
        scratch.reset()
    if run is None and not job.no_suite:
        verdict.unrun = job.budget.skip("the whole suite was not run")
    elif run is not None and run.killed == "budget":
        verdict.unrun = job.budget.skip("the whole suite did not finish")
    else:
        verdict.suite = run
    return verdict


async def judge(job: Any, scratch: Scratch, candidate: Candidate, *, before: dict[str, bytes | None],
                target: str | None = None, check: str | None = None, language: str = "python",
                suite: bool = True) -> Verdict:
    """One candidate through the checks: static on the host, then (in the copy) the ``check`` snippet or the
    ``target`` test selection, then the suite. Stops at the first failing stage (later ones would say nothing)."""
    verdict = Verdict(candidate)
    for rel, new in candidate.changes.items():
        verdict.problems += await asyncio.to_thread(static_problems, rel, before.get(rel), new, job.repo)
    if verdict.problems:
        return verdict
    scratch.write(candidate.changes)
    try:
        if check:
            from tui.engine.work import graded

            verdict.target = await run_code(job, scratch, graded.graded(check, language), language=language)
            verdict.asserts = graded.results(verdict.target.output)
            if not verdict.target.ok:
                return verdict
        elif target is not None:
            verdict.target = await run_tests(job, scratch, target)
            if verdict.target is None and not job.no_suite:  # no time left to run them: not tried, not passed
                verdict.problems.append(job.budget.skip("not tried"))
            if not _ok(verdict.target):
                return verdict
    finally:
        scratch.reset()
    return await run_suite(job, scratch, verdict) if suite else verdict


def rank(verdicts: list[Verdict], before: dict[str, bytes | None], baseline: Any = None) -> list[Verdict]:
    """Best first: passes static checks, then the target, then the suite (or fails no more tests than the
    ``baseline`` run did), then the smallest change."""
    def failing(run: Any) -> int:
        return (run.failed + run.errored) if run is not None and getattr(run, "ran", False) else 10**6

    base = failing(baseline) if baseline is not None else 0

    def score(v: Verdict) -> tuple[int, int, int, int]:
        if not v.static_ok:
            return (0, 0, 0, -v.candidate.size(before))
        target = 1 if v.target is None or _ok(v.target) else 0
        suite = 0 if v.suite is None else (2 if _ok(v.suite) else 1 if failing(v.suite) <= base else 0)
        return (1, target, suite, -v.candidate.size(before))

    return sorted(verdicts, key=score, reverse=True)


def passed(verdict: Verdict, baseline: Any = None) -> bool:
    """Whether a verdict proves its candidate: static checks, the target, and a suite no worse than before."""
    if not verdict.static_ok or (verdict.target is not None and not _ok(verdict.target)):
        return False
    if verdict.suite is None or _ok(verdict.suite):
        return True
    if idle_suite(verdict.suite, baseline):
        return True
    if baseline is None or not getattr(verdict.suite, "ran", False):
        return False
    return verdict.suite.failed + verdict.suite.errored <= baseline.failed + baseline.errored


def idle_suite(suite: Any, baseline: Any) -> bool:
    """The suite could not start, found no tests or printed no counts, with the candidate exactly as before it (a
    runner missing from the environment: ``nyc: command not found``; same exit code): it says nothing of the
    candidate, for or against."""
    status = getattr(suite, "status", "")
    return baseline is not None and status in IDLE and getattr(baseline, "status", "") == status and \
        getattr(baseline, "exit_code", None) == getattr(suite, "exit_code", None)


IDLE = ("not_started", "no_tests", "no_counts")
