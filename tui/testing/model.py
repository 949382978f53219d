"""The structures a test run turns into: what the CLI prints, the TUI lists and the model reads."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_VOLATILE = re.compile(r"0x[0-9a-fA-F]+|\b\d+(?:\.\d+)?\s*(?:ms|s|sec|seconds)\b")


@dataclass
class Suite:
    """One way the repo runs its tests (a monorepo has several)."""

    name: str  # "pytest", "web:jest", ... what --suite matches
    kind: str  # pytest | unittest | jest | vitest | node | go | cargo | make | tox | nox | npm | custom
    cwd: Path  # absolute directory the command runs in
    argv: list[str]  # the base command, without selection or report flags
    source: str = ""  # why we think so ("pyproject.toml [tool.pytest.ini_options]")
    manager: str = ""  # npm | pnpm | yarn for package.json suites
    shell: bool = False  # argv[0] is a shell command line (config override with operators)
    interpreter: str = ""  # Python suites: which interpreter and why, one line ("python: .venv/bin/python (...)")
    start: str = ""  # unittest: the discovery start directory
    missing: str = ""  # why its runner cannot start, known before running (no interpreter found)

    def rel(self, repo: Path) -> str:
        try:
            rel = self.cwd.relative_to(repo).as_posix()
        except ValueError:
            return str(self.cwd)
        return rel or "."

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["cwd"] = str(self.cwd)
        return data


@dataclass
class Failure:
    test_id: str
    file: str = ""  # repo-relative when known
    line: int | None = None
    message: str = ""
    kind: str = "failed"  # failed | error
    trace: str = ""  # the runner's traceback of the failure, bounded: its frames localise the fault

    def location(self) -> str:
        if not self.file:
            return ""
        return f"{self.file}:{self.line}" if self.line else self.file


@dataclass
class TestRun:
    __test__ = False  # not a pytest class

    suite: str
    passed: int = 0
    failed: int = 0
    errored: int = 0
    skipped: int = 0
    duration: float = 0.0
    exit_code: int | None = None
    failures: list[Failure] = field(default_factory=list)
    output_tail: str = ""
    command: str = ""
    killed: str = ""  # "" | timeout | idle | cancelled | killed | processes
    parsed_from: str = ""  # junit | unittest | tap | go-json | jest-json | cargo | summary | none
    status: str = "ran"  # ran | collection_error | not_started | no_tests | no_counts | killed (testing/diagnose.py)
    problem: str = ""  # when it did not simply run: the first error line
    hint: str = ""  # and what to do about it
    interpreter: str = ""  # the Python used and why (one line), for Python suites

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.failed and not self.errored and not self.killed and \
            self.status in ("ran", "")

    @property
    def ran(self) -> bool:
        """The counts mean something: tests were collected and run (maybe with some that did not collect)."""
        return self.status in ("ran", "") or (self.status == "collection_error" and self.total > self.errored)

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errored + self.skipped

    def failure_set(self) -> frozenset[tuple[str, str]]:
        """What identifies "the same failures again" for the fix loop (addresses and timings ignored)."""
        found = frozenset((f.test_id, _VOLATILE.sub("#", f.message.strip())[:500]) for f in self.failures)
        return found | ({("", self.problem)} if self.problem else frozenset())

    def counts(self) -> str:
        parts = [f"{self.passed} passed", f"{self.failed} failed"]
        if self.errored:
            parts.append(f"{self.errored} errors")
        if self.skipped:
            parts.append(f"{self.skipped} skipped")
        return ", ".join(parts)

    def summary(self) -> str:
        """One line; a run that did not get to its tests says so instead of "0 passed, 0 failed"."""
        tail = f" in {self.duration:.1f}s (exit {self.exit_code})"
        if self.status == "killed" or (self.killed and self.status in ("ran", "")):
            return f"{self.suite}: {self.counts()}{tail} [killed: {self.killed}]"
        if self.status == "collection_error":
            rest = f"; {self.counts()}" if self.ran else ""
            return f"{self.suite}: tests could not be collected: {self.problem}{rest}{tail}"
        if self.status in ("not_started", "no_tests", "no_counts"):
            return f"{self.suite}: did not run: {self.problem}{tail}"
        return f"{self.suite}: {self.counts()}{tail}"

    def _head(self) -> str:
        failing = self.failed + self.errored
        if self.status == "collection_error":
            head = f"RESULT: the tests could not be collected: {self.problem}."
            if self.ran:
                head += f" Of the tests that were collected: {self.counts()}."
            return head
        if self.status in ("not_started", "no_counts", "no_tests"):
            return f"RESULT: the tests did not run: {self.problem}. No test passed or failed."
        if self.status == "killed":
            return f"RESULT: the test run was stopped ({self.killed}) before it finished; counts so far: {self.counts()}."
        # Spelled out first: small models misread "2 passed, 1 failed".
        # Both counts in words: asked "how many pass and how many fail", a small model repeats this line.
        skipped = f", {self.skipped} skipped" if self.skipped else ""
        return (f"RESULT: {failing} of {self.total} tests FAILED. {self.passed} passed{skipped}." if failing
                else f"RESULT: all {self.passed} tests passed{skipped}.")

    def to_model_text(self, max_chars: int = 4000) -> str:
        """The verdict (or why there is none) and what to do, then failures, then as much output tail as fits."""
        head = self._head()
        if self.status in ("ran", "", "killed"):
            head += f" ({self.summary()})"
            if self.parsed_from in ("summary", "none"):
                head += " [counts read from the output summary]"
        lines = [head]
        if self.hint:
            lines.append(f"What to do: {self.hint}")
        for f in self.failures:
            loc = f.location()
            msg = f.message.strip()
            if len(msg) > 600:
                msg = msg[:600] + " ..."
            lines.append(f"FAIL {f.test_id}" + (f" ({loc})" if loc else "") + (f"\n  {msg}" if msg else ""))
        if self.interpreter:
            lines.append(self.interpreter)
        text = "\n".join(lines)
        if len(text) > max_chars:
            return text[: max(0, max_chars - 20)] + "\n... (truncated)"
        room = max_chars - len(text) - 30
        quiet = self.parsed_from in ("summary", "none") or not self.ran
        if room > 200 and self.output_tail and (not self.failures or quiet):
            tail = self.output_tail[-room:]
            text += "\n--- output tail ---\n" + tail
        return text

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["ok"] = self.ok
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TestRun":
        names = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in names}
        values["failures"] = [Failure(**f) for f in values.get("failures", [])]
        return cls(**values)
