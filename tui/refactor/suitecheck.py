"""The project's own tests before and after a refactoring, in the throwaway copy, sandboxed like every test run.

The suite is the one devagent would run for the repository (its interpreter chosen from the real tree), pointed
at the copy; the copy's source folders go first on ``PYTHONPATH`` so the copy's code is what is imported even
when the project is installed in editable mode. A suite the repository's own config chose (``tests.command``)
is always asked for before it runs, so it is not run here; the check says so.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from tui.refactor.base import Check, FileChange

if TYPE_CHECKING:
    from tui.config import Config
    from tui.testing.model import TestRun


def _source_roots(copy: Path, cwd: Path) -> list[str]:
    roots = [str(copy / "src")] if (copy / "src").is_dir() else []
    return roots + [str(cwd)] + ([str(copy)] if cwd != copy else [])


def _write(copy: Path, changes: list[FileChange], after: bool) -> None:
    for change in changes:
        data = change.after if after else change.before
        target = copy / change.path
        if data is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


def _failing(run: "TestRun") -> set[str]:
    return {f.test_id for f in run.failures} | ({"(the run)"} if run.exit_code not in (0, None) and not run.failures
                                                 else set())


def _counts(run: "TestRun") -> str:
    return f"{run.passed} passed, {run.failed} failed" + (f", {run.errored} errors" if run.errored else "")


def suite_check(repo: Path, copy: Path, changes: list[FileChange], config: "Config",
                note: Callable[[str], None] | None = None) -> Check | None:
    """Run the suite on the copy without, then with, ``changes`` (the copy holds them when called and after).
    None when the repository has no Python test suite."""
    from tui.testing import detect_suites, plan_run, run_plan

    suites = [s for s in detect_suites(repo, config) if s.kind in ("pytest", "unittest")]
    if not suites:
        return None
    suite = suites[0]
    if "tests.command" in config.repo_set:
        return Check("tests", False, "not run: the repository's own config chose the test command, which is always "
                                     "asked for; run `devagent test` after applying")
    try:
        suite.cwd.relative_to(repo)
    except ValueError:
        return Check("tests", False, f"not run: the suite runs in {suite.cwd}, outside the repository")
    from tui.sandbox.runner import detect
    from tui.sandbox.view import view_sandbox

    if detect(config).kind == "bwrap":  # the copy seen at the repository's own path: an editable install,
        plan = plan_run(suite, "", repo)  # PYTHONPATH=src, a config naming the package all resolve to the copy
        runner, where, base = view_sandbox(repo, copy, config), repo, repo
    else:  # no bubblewrap: the suite runs at the copy's own path
        plan = plan_run(dataclasses.replace(suite, cwd=copy / suite.cwd.relative_to(repo)), "", copy)
        runner, where, base = None, copy, copy
    # The source folders first on PYTHONPATH: a project that is not installed imports from its tree (the copy's).
    plan.env["PYTHONPATH"] = os.pathsep.join(_source_roots(base, base / suite.cwd.relative_to(repo)) + [
        p for p in [os.environ.get("PYTHONPATH", "")] if p])
    timeout = config.limits.command_timeout * 2

    async def both() -> tuple["TestRun", "TestRun"]:
        _write(copy, changes, after=False)
        if note:
            note("running the tests before the change")
        first = await run_plan(plan, where, config, runner=runner, timeout=timeout)
        _write(copy, changes, after=True)
        if note:
            note("running the tests after the change")
        return first, await run_plan(plan, where, config, runner=runner, timeout=timeout)

    try:
        before, after = asyncio.run(both())
    finally:
        _write(copy, changes, after=True)
    if before.status == "not_started" or (before.passed == 0 and before.exit_code not in (0, None)):
        why = before.problem or (before.output_tail.strip().splitlines() or ["it did not run"])[-1]
        return Check("tests", False, f"not run: the suite does not run in a copy of this tree ({why[:200]})")
    new = sorted(_failing(after) - _failing(before))
    detail = f"{suite.name}: before {_counts(before)}; after {_counts(after)}"
    if new:
        detail += "; newly failing: " + ", ".join(new[:5]) + (f" (+{len(new) - 5} more)" if len(new) > 5 else "")
    return Check("tests", not new, detail)
