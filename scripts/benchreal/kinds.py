"""Task builders for the kinds whose check always has the same form, so the task data reads as data."""

from __future__ import annotations

from benchreal.checks import all_of, file_contains, file_is, reports_counts, runs, says, suite_passes
from benchreal.spec import Edit, Half, Reference, Task, Write


def question(id: str, half: Half, kind: str, prompt: str, *patterns: str, answer: str, wrong: str) -> Task:
    """A read-only question: the answer must match every pattern; ``wrong`` is a plausible answer that must not."""
    return Task(id, half, kind, prompt, says(*patterns), Reference(answer=answer, wrong=wrong))


def suite_counts(id: str, half: Half, prompt: str, plant: str, *, answer: str, wrong: str) -> Task:
    """Run the suite (a planted bug makes some tests fail) and report how many pass and fail."""
    return Task(id, half, "run_suite", prompt, reports_counts(), Reference(answer=answer, wrong=wrong), (plant,))


def fix_bug(id: str, half: Half, prompt: str, plant: str, *fix: Edit) -> Task:
    """The planted bug makes the project's tests fail; they must pass afterwards with no test file edited."""
    return Task(id, half, "fix_bug", prompt, suite_passes(tests_untouched=True), Reference(edits=fix), (plant,))


def clean_data(id: str, half: Half, prompt: str, plant: str, path: str, expected: str, *,
               as_json: bool = False) -> Task:
    """A planted messy data file, to be cleaned in place to exactly ``expected`` (nothing else changed)."""
    return Task(id, half, "clean_data", prompt, file_is(path, expected, as_json=as_json),
                Reference(edits=(Write(path, expected),)), (plant,))


def code_change(id: str, half: Half, kind: str, prompt: str, code: str, why: str, *edits: Edit, suite: bool = True,
                test_file: str = "", test_mentions: str = "") -> Task:
    """A change judged by running ``code`` against it, then (``suite``) the project's own tests; with
    ``test_file``, that file must mention ``test_mentions`` and the suite must run more tests than before."""
    checks = [runs(code, why)]
    if test_file:
        checks.append(file_contains(test_file, test_mentions))
    if suite:
        checks.append(suite_passes(more_tests=bool(test_file)))
    return Task(id, half, kind, prompt, all_of(*checks), Reference(edits=edits))
