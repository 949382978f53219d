"""The benchmark's data model: pinned sources, planted changes, tasks, projects and what a check sees.

Task data lives in one module per project (``tasks_*.py``) as plain values, so a task's half, kind, prompt,
check and reference solution can be read (and reviewed) in one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Literal

from bench_common import Outcome

if TYPE_CHECKING:
    from benchreal.fixtures import Fixtures

Half = Literal["tune", "heldout", "dev", "fresh", "new"]
HALVES: tuple[Half, ...] = ("tune", "heldout", "dev", "fresh", "new")  # report order
# Halves nobody tuning the agent may see the details of: the console and --json carry only pass/fail and
# seconds for them, their transcripts go to OUT/<half>/ only. "new" is the untouched half of issue 29, written
# on five projects nobody here had used, by someone who had seen no transcripts (benchreal/tasks_new_*.py).
HIDDEN_HALVES: frozenset[str] = frozenset({"heldout", "fresh", "new"})
# The kinds of the first four halves, and the work kinds users bring (issue 29) that the "new" half uses.
OLD_KINDS = ("behaviour", "where", "count", "one_line", "add_method", "add_test", "fix_bug", "clean_data",
             "run_suite", "multi_step")
NEW_KINDS = ("question", "fix", "change", "add_test", "refactor", "data_file", "docs", "history", "run_suite",
             "scaffold")
KINDS = tuple(dict.fromkeys(OLD_KINDS + NEW_KINDS))


@dataclass(frozen=True)
class Source:
    """One pinned upstream release: a PyPI sdist or an npm tarball, checked against its sha256."""

    registry: Literal["pypi", "npm"]
    name: str
    version: str
    sha256: str
    top: str  # the archive's top directory ("cachetools-5.5.0", "package")
    drop: tuple[str, ...] = ()  # build leftovers that a git checkout would not have (glob patterns)
    released: str = ""  # the date of the fixture's first commit (ISO 8601; default: now), before planted history

    @property
    def filename(self) -> str:
        if self.registry == "npm":
            return f"{self.name}-{self.version}.tgz"
        return f"{self.name}-{self.version}.tar.gz"


@dataclass(frozen=True)
class Replace:
    """Replace the one occurrence of ``old`` in ``path`` by ``new`` (more or none is an authoring error)."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Write:
    """Write ``text`` to ``path`` (a new file, or all of an existing one)."""

    path: str
    text: str


@dataclass(frozen=True)
class ReplaceAll:
    """Replace every occurrence of ``old`` in ``path`` by ``new`` (none is an authoring error)."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Cut:
    """Move the text of ``path`` from ``start`` (included) up to ``end`` (excluded) to the end of ``to``."""

    path: str
    start: str
    end: str
    to: str


@dataclass(frozen=True)
class Append:
    """Add ``text`` at the end of ``path``."""

    path: str
    text: str


Edit = Replace | ReplaceAll | Cut | Write | Append


@dataclass(frozen=True)
class Plant:
    """A fixture change a task needs, committed on top of the upstream tree with a developer-like message."""

    name: str
    message: str
    edits: tuple[Edit, ...]
    author: str = ""  # "Name <email>" of the commit (default: the bench's); history questions may ask who
    date: str = ""  # its author and committer date (ISO 8601; default: now)


@dataclass
class Ctx:
    """What a check gets: the task's repo, the project and its environment, what the agent did and said."""

    repo: Path
    project: "Project"
    fixtures: "Fixtures"
    run: Outcome
    base: str  # the fixture's HEAD commit: what "changed" is measured against
    base_total: int | None = None  # how many tests the fixture's suite ran (for "a new test was added")


Verdict = tuple[bool, str]
Check = Callable[[Ctx], Verdict]


@dataclass(frozen=True)
class Reference:
    """A known-good solution: edits to apply and the answer to give; ``wrong`` is an answer that must fail, and
    ``wrong_edits`` a plausible but wrong change (applied to the untouched fixture) that must fail too."""

    edits: tuple[Edit, ...] = ()
    answer: str = ""
    wrong: str = ""
    wrong_edits: tuple[Edit, ...] = ()


@dataclass(frozen=True)
class Task:
    id: str
    half: Half
    kind: str
    prompt: str
    check: Check
    reference: Reference
    plants: tuple[str, ...] = ()

    @property
    def counts_tests(self) -> bool:
        """Whether the check needs the untouched fixture's test count (taken before the agent runs)."""
        return self.kind in ("add_test", "multi_step", "scaffold")


@dataclass(frozen=True)
class Suite:
    """How the harness runs a project's own tests (the same way its developers do) and reads the counts."""

    argv: tuple[str, ...]  # words; "{python}" and "{bin}" are the project environment's interpreter and bin dir
    parser: Literal["pytest", "unittest", "tape", "jest", "mocha"]
    test_paths: tuple[str, ...]  # where the tests live (a task that must not edit tests checks these)


@dataclass(frozen=True)
class Env:
    """The project's own environment as its developer has it.

    ``layout``: "repo-venv" (a git-ignored .venv/ in the repo, project installed editable), "active-venv" (a
    virtualenv outside the repo, activated: VIRTUAL_ENV and PATH), "pythonpath" (the project is not installed:
    PYTHONPATH=src, the test tools on PATH from a virtualenv's bin/), "node" (node_modules/ from npm).
    """

    layout: Literal["repo-venv", "active-venv", "pythonpath", "node"]
    packages: tuple[str, ...] = ()  # pinned wheels (exact versions) installed into the virtualenv
    editable: bool = False
    where: Literal["tmp", "cache"] = "tmp"  # an outside virtualenv: under the run's work dir or the bench cache


@dataclass
class Project:
    name: str
    shape: str
    why: str
    source: Source
    env: Env
    suite: Suite
    plants: dict[str, Plant]
    tasks: list[Task] = field(default_factory=list)
