"""Checks: what changed on disk (the project's own tests, its code imported, files compared) and what the answer
says (numbers, names, paths; tolerant of phrasing). Each check returns (passed, why)."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from benchreal.fixtures import Fixtures, apply_edits, git
from benchreal.spec import Check, Ctx, Edit, Project, Verdict

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
NUMBER_WORDS = {0: "zero|no|none", 1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
                8: "eight", 9: "nine", 10: "ten", 11: "eleven", 12: "twelve"}


@dataclass
class Counts:
    """A suite run as the harness saw it: tests (or tape assertions) passed / failed / errored, and the tail."""

    passed: int
    failed: int
    errors: int
    rc: int
    tail: str

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errors


class Harness:
    """The fixture builder plus the project's own test command, shared by every check of a run."""

    fixtures: Fixtures | None = None

    @classmethod
    def suite_argv(cls, project: Project, repo: Path, extra: tuple[str, ...] = ()) -> list[str]:
        assert cls.fixtures is not None
        venv = cls.fixtures.venv_dir(project)
        words = [w.replace("{python}", str(venv / "bin" / "python")).replace("{bin}", str(venv / "bin"))
                 .replace("{repo}", str(repo)) for w in project.suite.argv]
        return [*words, *extra]

    @classmethod
    def run_suite(cls, project: Project, repo: Path, extra: tuple[str, ...] = ()) -> Counts:
        assert cls.fixtures is not None
        try:
            out = subprocess.run(cls.suite_argv(project, repo, extra), cwd=repo, capture_output=True, text=True,
                                 timeout=300, env=cls.fixtures.check_env(project, repo), stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return Counts(0, 0, 1, -1, "the suite timed out")
        text = ANSI.sub("", out.stdout + "\n" + out.stderr)
        passed, failed, errors = parse_counts(project.suite.parser, text)
        return Counts(passed, failed, errors, out.returncode, text.strip()[-400:])

    @classmethod
    def python(cls, project: Project, repo: Path, code: str) -> tuple[bool, str]:
        assert cls.fixtures is not None
        if project.env.layout == "node":
            argv = ["node", "-e", code]
        else:
            argv = [str(cls.fixtures.python(project)), "-c", code]
        out = subprocess.run(argv, cwd=repo, capture_output=True, text=True, timeout=120,
                             env=cls.fixtures.check_env(project, repo), stdin=subprocess.DEVNULL)
        lines = (out.stderr or out.stdout).strip().splitlines()
        return out.returncode == 0, (lines[-1] if lines else "")[:200]


def parse_counts(parser: str, text: str) -> tuple[int, int, int]:
    def num(pattern: str) -> int:
        found = re.findall(pattern, text, re.M)
        return int(found[-1]) if found else 0

    if parser == "pytest":
        return num(r"(\d+) passed"), num(r"(\d+) failed"), num(r"(\d+) errors?\b")
    if parser == "unittest":
        ran = num(r"Ran (\d+) tests?")
        failed, errors = num(r"failures=(\d+)"), num(r"errors=(\d+)")
        return ran - failed - errors, failed, errors
    return num(r"^# pass\s+(\d+)"), num(r"^# fail\s+(\d+)"), 0 if re.search(r"^# (ok|fail)", text, re.M) else 1


# Answer checks ------------------------------------------------------------------------------------------------

def number_re(n: int) -> str:
    """``n`` as digits (not part of a longer number or a decimal) or as a word."""
    word = NUMBER_WORDS.get(n)
    digits = rf"(?<![\d.,]){n}(?![\d]|[.,]\d)"
    return rf"(?:{digits}|\b(?:{word})\b)" if word else digits


def unchanged(ctx: Ctx) -> bool:
    return git(ctx.repo, "status", "--porcelain") == "" and git(ctx.repo, "rev-parse", "HEAD").strip() == ctx.base


def says(*patterns: str, unless: str = "") -> Check:
    """The answer matches every pattern (case-insensitive), not ``unless``, and the working tree is untouched."""
    def check(ctx: Ctx) -> Verdict:
        missing = [p for p in patterns if not re.search(p, ctx.run.answer, re.I)]
        if missing:
            return False, f"the answer lacks /{missing[0]}/"
        if unless and re.search(unless, ctx.run.answer, re.I):
            return False, f"the answer says /{unless}/"
        if not unchanged(ctx):
            return False, "a question changed the working tree"
        return True, "answer right"
    return check


def reports_counts() -> Check:
    """The answer gives the number of passing and failing tests of a real run of the project's suite."""
    def check(ctx: Ctx) -> Verdict:
        counts = Harness.run_suite(ctx.project, ctx.repo)
        failing = counts.failed + counts.errors
        for label, n in (("passing", counts.passed), ("failing", failing)):
            if not re.search(number_re(n), ctx.run.answer, re.I):
                return False, f"the answer lacks the {label} count ({n})"
        if not unchanged(ctx):
            return False, "running the suite changed the working tree"
        return True, f"reported {counts.passed} passed, {failing} failing"
    return check


# On-disk checks -----------------------------------------------------------------------------------------------

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
        ok, last = Harness.python(ctx.project, ctx.repo, code)
        return (True, why or "the code does it") if ok else (False, f"{why or 'behaviour check'} failed: {last}")
    return check


def suite_passes(*, tests_untouched: bool = False, more_tests: bool = False) -> Check:
    """The project's own suite passes (optionally: no test file edited; more tests than the fixture had)."""
    def check(ctx: Ctx) -> Verdict:
        if tests_untouched:
            edited = [n for n in changed_files(ctx) if _is_test(ctx.project, n)]
            if edited:
                return False, f"a test file was edited: {edited[0]}"
        counts = Harness.run_suite(ctx.project, ctx.repo)
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
            mutated = Harness.run_suite(ctx.project, ctx.repo)
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
        target = ctx.repo / path
        if not target.is_file():
            return False, f"{path} is missing"
        text = target.read_text(encoding="utf-8", errors="replace")
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
        target = ctx.repo / path
        if not target.is_file() or not re.search(pattern, target.read_text(errors="replace"), re.M):
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
