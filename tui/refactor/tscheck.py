"""The checks a TypeScript/JavaScript refactoring gets in its scratch copy before it is shown.

``tsc --noEmit`` (the project's own compiler and tsconfig) and the project's test suite (tui.testing), both in the
sandbox. When either fails after the change, the same check runs on the unchanged copy: the check passes when the
change added no error and no failing test, and says what was already failing.

When the project has no declaration files of its own (``*.d.ts``), tsc runs with ``--skipLibCheck``: the only
declaration files are then node_modules' and the standard library's, which a change to the project's code does not
touch, and checking them again is most of tsc's time (about 22 s of 27 s on a small project with @types/node).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Awaitable, Callable

from tui.refactor.base import Check, FileChange

if TYPE_CHECKING:
    from tui.config import Config
    from tui.refactor.tsenv import TypeScript
    from tui.refactor.tsscratch import Scratch
    from tui.sandbox.runner import Sandbox

TSC_TIMEOUT = 300.0
_DECLARATION = (".d.ts", ".d.mts", ".d.cts")
_TSC_ERROR = re.compile(r"^(?P<file>[^\s(][^(]*)\((?P<line>\d+),(?P<col>\d+)\): error (?P<code>TS\d+): (?P<msg>.*)$", re.M)


def _swap(scratch: "Scratch", changes: list[FileChange], after: bool) -> None:
    for change in changes:
        scratch.write(change.path, change.after if after else change.before)


async def _both(scratch: "Scratch", changes: list[FileChange], run: Callable[[], Awaitable[tuple[bool, object]]]
                ) -> tuple[tuple[bool, object], tuple[bool, object] | None]:
    """Run a check on the changed copy; when it fails, again on the unchanged one (then the changed copy is back)."""
    after = await run()
    if after[0]:
        return after, None
    _swap(scratch, changes, after=False)
    try:
        before = await run()
    finally:
        _swap(scratch, changes, after=True)
    return after, before


def _errors(output: str) -> Counter[str]:
    """tsc's errors without their line numbers (a change moves lines): file, code and message."""
    return Counter(f"{m['file'].strip()}: {m['code']}: {m['msg'].strip()}" for m in _TSC_ERROR.finditer(output))


def _declarations(paths: list[str]) -> bool:
    return any(p.endswith(_DECLARATION) for p in paths)


async def tsc(sandbox: "Sandbox", scratch: "Scratch", ts: "TypeScript", node: str, tsconfig: str,
              changes: list[FileChange]) -> Check:
    skip = not _declarations(scratch.sources) and not _declarations([c.path for c in changes])
    argv = [node, str(ts.tsc), "--noEmit", "--pretty", "false", "-p", tsconfig, *(["--skipLibCheck"] if skip else [])]
    shown = f"tsc --noEmit -p {tsconfig}" + (" --skipLibCheck" if skip else "")

    async def once() -> tuple[bool, object]:
        result = await sandbox.run(argv, timeout=TSC_TIMEOUT, idle_timeout=TSC_TIMEOUT, cwd=scratch.work)
        if result.killed:
            return False, f"tsc did not finish ({result.killed})"
        return result.exit_code == 0, _errors(result.output) if _TSC_ERROR.search(result.output) else result.output

    after, before = await _both(scratch, changes, once)
    if before is None:
        return Check("tsc", True, f"{shown}: no errors")
    if not isinstance(after[1], Counter):
        return Check("tsc", False, f"{shown} failed: {str(after[1]).strip()[-300:]}")
    old = before[1] if isinstance(before[1], Counter) else Counter()
    new = after[1] - old
    if not new:
        return Check("tsc", True, f"{shown}: {sum(after[1].values())} errors, all there before the change too")
    listed = "; ".join(list(new)[:4])
    return Check("tsc", False, f"{shown}: {sum(new.values())} new errors: {listed}")


async def tests(sandbox: "Sandbox", scratch: "Scratch", config: "Config", changes: list[FileChange]) -> Check | None:
    """The project's suite on the changed copy (None when it has no suite devagent can find)."""
    from tui.protocol.errors import DevagentError
    from tui.testing.detect import choose_suite, detect_suites
    from tui.testing.run import plan_run, run_plan

    try:
        suite = choose_suite(detect_suites(scratch.work, config), "", "", scratch.work)
    except DevagentError:
        return None
    plan = plan_run(suite, "", scratch.work)
    shown = " ".join(suite.argv)

    async def once() -> tuple[bool, object]:
        run = await run_plan(plan, scratch.work, config, runner=sandbox)
        return run.ok, (run, {f.test_id for f in run.failures})

    after, before = await _both(scratch, changes, once)
    run, failing = after[1]  # type: ignore[misc]
    counts = f"{run.passed} passed, {run.failed} failed" + (f", {run.errored} errors" if run.errored else "")
    if before is None:
        return Check("tests", True, f"{shown}: {counts}")
    if run.killed:
        return Check("tests", False, f"{shown}: stopped ({run.killed})")
    old_run, old_failing = before[1]  # type: ignore[misc]
    added = failing - old_failing
    if not before[0] and not added and run.failed <= old_run.failed and run.errored <= old_run.errored:
        return Check("tests", True, f"{shown}: {counts}; the same failed before the change")
    detail = run.problem or "; ".join(sorted(added)[:4]) or run.output_tail.strip()[-300:]
    return Check("tests", False, f"{shown}: {counts} ({detail})")
