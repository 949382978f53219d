"""`devagent scaffold KIND NAME`: new files the way this repo writes them, shown as a diff, written on approval."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui.config import Config

HELP = "create a component/page/route/module/widget/package following the repo's conventions (diff, then y/n)"


def register(parser: argparse.ArgumentParser) -> None:
    from tui.scaffold import KINDS

    parser.add_argument("kind", choices=KINDS, help="what to create")
    parser.add_argument("name", help="e.g. Button, settings, text_utils, StatusBar, shapes")
    parser.add_argument("--dir", metavar="D", help="put the files under this repo directory instead of the usual place")
    parser.add_argument("--yes", action="store_true", help="approve without asking")
    parser.add_argument("--run-tests", action="store_true", help="run the new test after writing the files")


def _ask(question: str) -> bool:
    print(question, end=" ", flush=True)
    answer = sys.stdin.readline()
    if not answer:
        print()
        return False
    return answer.strip().lower() in ("y", "yes")


async def _run_new_test(repo: Path, config: Config, selection: str) -> int:
    from tui.protocol.errors import ToolError
    from tui.testing import choose_suite, detect_suites, plan_run, run_plan

    try:
        suite = choose_suite(detect_suites(repo, config), "", selection, repo)
    except ToolError as err:
        print(f"not running the new test: {err.message}; run it with: devagent test --suite NAME {selection}")
        return 0
    plan = plan_run(suite, selection, repo)
    print(f"$ {plan.command}", flush=True)
    run = await run_plan(plan, repo, config, on_output=lambda t: (sys.stdout.write(t), sys.stdout.flush()))
    print("\n" + run.summary())
    return run.exit_code or 0


async def _main(args: argparse.Namespace) -> int:
    from tui.commands.common import print_event
    from tui.git.repo import find_repo
    from tui.protocol.proposals import Decision
    from tui.config import load_config
    from tui.tools.base import ToolContext
    from tui.tools.scaffold import SPEC

    repo = find_repo()
    config = load_config(repo)
    ctx = ToolContext(repo=repo, config=config, emit=print_event)
    arguments = {"kind": args.kind, "name": args.name, "options": {"dir": args.dir} if args.dir else {}}
    assert SPEC.propose and SPEC.execute
    proposal = await SPEC.propose(ctx, arguments)
    sys.stdout.write(proposal.diff or "")
    print(proposal.summary)
    if not args.yes and not _ask("Write these files? [y/N]"):
        print("nothing written")
        return 1
    result = await SPEC.execute(ctx, proposal, Decision("approve", by="yes-flag" if args.yes else "user"))
    print(result.summary)
    if not result.ok:
        print(result.output, file=sys.stderr)
        return 1
    test_file = result.data.get("test_selection", "")
    if test_file and args.run_tests:
        return await _run_new_test(repo, config, test_file)
    if test_file:
        print(f"run the new test with: devagent test {test_file}")
    return 0


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_main(args))
