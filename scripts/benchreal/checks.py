"""Checks: what changed on disk (the project's own tests, its code imported, files compared) and what the answer
says (numbers, names, paths; tolerant of phrasing). Each check returns (passed, why)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from benchreal.fixtures import apply_edits, git
from benchreal.spec import Check, Ctx, Edit, Project, Verdict
from benchreal.suite import run_code, run_suite

NUMBER_WORDS = {0: "zero|no|none", 1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
                8: "eight", 9: "nine", 10: "ten", 11: "eleven", 12: "twelve"}
MAX_READ = 1 << 20  # a file the agent wrote is read only if it is a regular file of at most this size


# Answer checks ------------------------------------------------------------------------------------------------

def number_re(n: int) -> str:
    """``n`` as digits (not part of a longer number or a decimal) or as a word."""
    word = NUMBER_WORDS.get(n)
    digits = rf"(?<![\d.,]){n}(?![\d]|[.,]\d)"
    return rf"(?:{digits}|\b(?:{word})\b)" if word else digits


def unchanged(ctx: Ctx) -> bool:
    return git(ctx.repo, "status", "--porcelain") == "" and git(ctx.repo, "rev-parse", "HEAD").strip() == ctx.base


def says(*patterns: str) -> Check:
    """The answer matches every pattern (case-insensitive) and the working tree is untouched."""
    def check(ctx: Ctx) -> Verdict:
        missing = [p for p in patterns if not re.search(p, ctx.run.answer, re.I)]
        if missing:
            return False, f"the answer lacks /{missing[0]}/"
        if not unchanged(ctx):
            return False, "a question changed the working tree"
        return True, "answer right"
    return check


def reports_counts() -> Check:
    """The answer gives the number of passing and failing tests of a real run of the project's suite."""
    def check(ctx: Ctx) -> Verdict:
        counts = run_suite(ctx.fixtures, ctx.project, ctx.repo)
        failing = counts.failed + counts.errors
        for label, n in (("passing", counts.passed), ("failing", failing)):
            if not re.search(number_re(n), ctx.run.answer, re.I):
                return False, f"the answer lacks the {label} count ({n})"
        if not unchanged(ctx):
            return False, "running the suite changed the working tree"
        return True, f"reported {counts.passed} passed, {failing} failing"
    return check


# On-disk checks -----------------------------------------------------------------------------------------------

def read_bounded(path: Path) -> str | None:
    """A file the agent may have written: only a regular file (not a symlink, FIFO or device), size-capped."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_READ:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def changed_files(ctx: Ctx) -> list[str]:
    out = git(ctx.repo, "status", "--porcelain", "--untracked-files=all")
    names = [line[3:].split(" -> ")[-1] for line in out.splitlines()]
    committed = git(ctx.repo, "diff", "--name-only", ctx.base, "HEAD").split()
    return sorted(set(names) | set(committed))


def _is_test(project: Project, name: str) -> bool:
    return any(name == p or name.startswith(p.rstrip("/") + "/") for p in project.suite.test_paths)


def runs(code: str, why: str = "") -> Check:
    """A snippet in the project's interpreter (Python, or node for a JS project) exits 0."""
    def check(ctx: Ctx) -> Verdict:
        ok, last = run_code(ctx.fixtures, ctx.project, ctx.repo, code)
        return (True, why or "the code does it") if ok else (False, f"{why or 'behaviour check'} failed: {last}")
    return check


def suite_passes(*, tests_untouched: bool = False, more_tests: bool = False) -> Check:
    """The project's own suite passes (optionally: no test file edited; more tests than the fixture had)."""
    def check(ctx: Ctx) -> Verdict:
        if tests_untouched:
            edited = [n for n in changed_files(ctx) if _is_test(ctx.project, n)]
            if edited:
                return False, f"a test file was edited: {edited[0]}"
        counts = run_suite(ctx.fixtures, ctx.project, ctx.repo)
        if counts.rc != 0 or counts.failed or counts.errors:
            return False, f"the suite fails ({counts.failed} failed, {counts.errors} errors)"
        if more_tests:
            if ctx.base_total is None or counts.total <= ctx.base_total:
                return False, f"no new test ran ({counts.total} tests; the fixture had {ctx.base_total})"
        return True, f"the suite passes ({counts.passed})"
    return check


def only_tests_changed(ctx: Ctx) -> Verdict:
    others = [n for n in changed_files(ctx) if not _is_test(ctx.project, n)]
    return (False, f"code changed, not only tests: {others[0]}") if others else (True, "only tests changed")


def catches_mutant(mutant: tuple[Edit, ...]) -> Check:
    """New tests that pass on the code as it is and fail once ``mutant`` is applied to the code."""
    def check(ctx: Ctx) -> Verdict:
        ok, why = only_tests_changed(ctx)
        if not ok:
            return ok, why
        ok, why = suite_passes(more_tests=True)(ctx)
        if not ok:
            return ok, why
        originals = {e.path: (ctx.repo / e.path).read_text() for e in mutant}
        try:
            apply_edits(ctx.repo, mutant)
            mutated = run_suite(ctx.fixtures, ctx.project, ctx.repo)
        finally:
            for path, text in originals.items():
                (ctx.repo / path).write_text(text)
        if mutated.rc == 0 and not (mutated.failed or mutated.errors):
            return False, "the tests still pass with the mutant applied"
        return True, "the new test catches the mutant"
    return check


def file_is(path: str, expected: str, *, as_json: bool = False) -> Check:
    """``path`` holds exactly ``expected`` (as text, one final newline optional; or as the same JSON value)."""
    def check(ctx: Ctx) -> Verdict:
        text = read_bounded(ctx.repo / path)
        if text is None:
            return False, f"{path} is missing (or not a regular file under {MAX_READ} bytes)"
        if as_json:
            try:
                same = json.loads(text) == json.loads(expected)
            except ValueError:
                return False, f"{path} is not valid JSON"
        else:
            same = text.replace("\r\n", "\n").rstrip("\n") == expected.rstrip("\n")
        if not same:
            return False, f"{path} is not the expected content"
        others = [n for n in changed_files(ctx) if n != path]
        return (False, f"another file changed: {others[0]}") if others else (True, f"{path} is clean")
    return check


def file_contains(path: str, pattern: str) -> Check:
    def check(ctx: Ctx) -> Verdict:
        text = read_bounded(ctx.repo / path)
        if text is None or not re.search(pattern, text, re.M):
            return False, f"{path} lacks /{pattern}/"
        return True, f"{path} has it"
    return check


def all_of(*checks: Check) -> Check:
    def check(ctx: Ctx) -> Verdict:
        why = ""
        for one in checks:
            ok, why = one(ctx)
            if not ok:
                return ok, why
        return True, why
    return check
