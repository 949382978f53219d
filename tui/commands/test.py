"""`devagent test [SELECTION]`: run the repo's tests in the sandbox, print live output, the summary and failures."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from tui.commands.common import add_model_options
from tui.safety.literal import visible

HELP = "run the repo's test suite (sandboxed) and summarise failures; exits with the suite's own exit code"


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("selection", nargs="?", default="",
                        help="a test file, a test id (tests/test_x.py::test_y) or a name / -k expression")
    parser.add_argument("--suite", metavar="NAME", help="which suite to run when the repo has several (see --list)")
    parser.add_argument("--all", action="store_true", help="run every detected suite")
    parser.add_argument("--list", action="store_true", help="list the detected suites and exit")
    parser.add_argument("--json", action="store_true", help="print the results as one JSON object (no live output)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS", help="wall-clock limit per suite")
    fix = parser.add_argument_group("fix loop")
    fix.add_argument("--fix", action="store_true",
                     help="while tests fail: ask the model for a fix (you approve each edit), then rerun")
    fix.add_argument("--attempts", type=int, metavar="N", help="fix attempts before giving up (tests.fix_attempts)")
    parser.add_argument("--yes", action="store_true",
                        help="run a test command set by the repo's own config without asking; with --fix: also "
                             "approve what the policy does not deny")
    add_model_options(parser)


def _print_run(run: object) -> None:
    from tui.testing import TestRun

    assert isinstance(run, TestRun)
    print()
    for failure in run.failures:
        where = failure.location()
        print(visible(f"FAIL {failure.test_id}" + (f"  ({where})" if where else "")))  # the repo's names and output
        for line in failure.message.strip().splitlines()[:8]:
            print(f"     {visible(line)}")
    print(run.summary())
    if run.hint:
        print(f"what to do: {run.hint}")


async def _fix(args: argparse.Namespace) -> int:
    """The fix loop from the command line: the same session, approvals and sandbox as `devagent run`."""
    from tui.git.repo import find_repo
    from tui.protocol.proposals import ApproveAll
    from tui.config import load_config
    from tui.protocol.events import FixAttempt
    from tui.headless import StdinLines, TextApprover, TextPrinter
    from tui.engine.session import Session

    repo = find_repo()
    config = load_config(repo)
    printer = TextPrinter()

    def show(event: object) -> None:
        if isinstance(event, FixAttempt):
            if event.state == "fixing":
                print(f"\n== fix attempt {event.attempt}/{event.limit}: {event.failing} failing ==", flush=True)
            else:
                print(f"\n== fix loop stopped: {event.reason} after {event.attempt} attempt(s) ==", flush=True)
        else:
            printer(event)  # type: ignore[arg-type]

    approver = ApproveAll() if args.yes else TextApprover(StdinLines())
    session = await Session.open(repo, config, approver=approver, emit=show, model=args.model, host=args.host,
                                 backend=args.backend, model_file=args.model_file)
    try:
        result = await session.fix_tests(args.selection, args.suite or "", args.attempts)
    finally:
        await session.close()
    last = result.last
    if last is not None:
        _print_run(last)
    if last is None:
        return 1 if result.reason == "declined" else 0  # declined: the tests never ran
    if last.ok:
        return 0
    return last.exit_code if last.exit_code not in (None, 0) else 1


def _confirm_repo_command(command: str) -> bool:
    """The repo's config chose this command: show it literally and ask (no terminal: refuse, say how)."""
    from tui.safety.literal import literal_warnings, visible

    print(f"The repository's config (tests.command) wants to run:\n    {visible(command, True)}", file=sys.stderr)
    for warning in literal_warnings(command, True):
        print(f"  !! {warning}", file=sys.stderr)
    if not sys.stdin.isatty():
        print("devagent: not run; approve it with `devagent test --yes`, or set tests.command in your user config.",
              file=sys.stderr)
        return False
    print("Run it? [y/N] ", end="", file=sys.stderr, flush=True)
    return sys.stdin.readline().strip().lower() in ("y", "yes")


async def _main(args: argparse.Namespace) -> int:
    if args.fix:
        return await _fix(args)
    from tui.git.repo import find_repo
    from tui.config import load_config
    from tui.testing import choose_suite, detect_suites, plan_run, run_plan
    from tui.testing.detect import suite_for_path

    repo = find_repo()
    config = load_config(repo)
    suites = detect_suites(repo, config)
    by_path = suite_for_path(suites, repo, args.selection) if args.selection and not args.suite else None
    if args.list or (len(suites) > 1 and not args.suite and not args.all and by_path is None):
        for suite in suites:
            print(visible(f"{suite.name:<24} {suite.rel(repo):<20} {' '.join(suite.argv)}   ({suite.source})"))
            if suite.interpreter:
                print(f"{'':<24} {suite.interpreter}")
        if args.list:
            return 0
        print("devagent: several test suites; pick one with --suite NAME or run them all with --all", file=sys.stderr)
        return 2
    chosen = suites if args.all and suites else [choose_suite(suites, args.suite or "", args.selection, repo)]
    if "tests.command" in config.repo_set and not args.yes and not _confirm_repo_command(config.tests.command):
        return 1
    runs = []
    exit_code = 0
    for suite in chosen:
        plan = plan_run(suite, args.selection, repo)
        if not args.json:
            if suite.interpreter:
                print(suite.interpreter)
            print(visible(f"$ {plan.command}" + (f"    (in {suite.rel(repo)})" if suite.rel(repo) != "." else "")),
                  flush=True)
        live = None if args.json else (lambda text: (sys.stdout.write(visible(text)), sys.stdout.flush()))
        run = await run_plan(plan, repo, config, on_output=live, timeout=args.timeout)
        runs.append(run)
        if not args.json:
            _print_run(run)
        if run.exit_code != 0 and exit_code == 0:
            exit_code = run.exit_code if run.exit_code is not None else 124
    if args.json:
        print(json.dumps({"runs": [r.to_dict() for r in runs], "exit_code": exit_code}))
    return exit_code


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_main(args))
