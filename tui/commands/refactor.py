"""`devagent refactor rename|move|signature|extract|repair ...`: an exact change by a refactoring engine, shown as
a diff and applied on approval (y/n/e/q, or `--yes`), after a checkpoint. Prose and strings that mention the old
name come after, as a separate proposal you may decline.

Exit codes: 0 applied; 1 declined or not applied; 2 the change cannot be made exactly (the message says why and
where); 3 not a git repository; 130 stopped (q, Ctrl+C).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

HELP = "rename / move / change a signature / extract / repair, exactly, with a refactoring engine (diff, then y/n)"


def register(parser: argparse.ArgumentParser) -> None:
    parser.epilog = ("Exit codes: 0 applied, 1 declined or not applied, 2 cannot be done exactly (the message says why "
                     "and where), 3 not a git repository, 130 stopped. Details: docs/refactoring.md")
    sub = parser.add_subparsers(dest="operation", required=True, metavar="OPERATION")
    rename = sub.add_parser("rename", help="rename a function, class, method, variable or module everywhere")
    rename.add_argument("old", help="func, Class, Class.method, CONSTANT, pkg.module or pkg/mod.py")
    rename.add_argument("new", help="the new name")
    move = sub.add_parser("move", help="move a function, class or variable to another module; importers updated")
    move.add_argument("name")
    move.add_argument("--to", required=True, metavar="MODULE", help="pkg/helpers.py or pkg.helpers (new or existing)")
    sig = sub.add_parser("signature", help="add a parameter with a default, or change a default")
    sig.add_argument("name", help="func or Class.method")
    how = sig.add_mutually_exclusive_group(required=True)
    how.add_argument("--add", metavar="PARAM=DEFAULT", help="a new parameter; existing calls keep working")
    how.add_argument("--default", metavar="PARAM=VALUE", help="a parameter's new default")
    sig.add_argument("--keyword-only", action="store_true", help="--add: make the new parameter keyword-only")
    extract = sub.add_parser("extract", help="lines START..END of PATH become the function NAME")
    extract.add_argument("path")
    extract.add_argument("start", type=int)
    extract.add_argument("end", type=int)
    extract.add_argument("new", metavar="NAME")
    repair = sub.add_parser("repair", help="repair a JSON / TOML / YAML file's syntax, keeping every value")
    repair.add_argument("path", metavar="FILE")
    for each in (rename, move, sig, extract, repair):
        if each in (rename, move, sig):
            each.add_argument("--in", dest="within", metavar="PATH", help="the file or directory the name is in")
        each.add_argument("--yes", action="store_true", help="approve without asking (both parts)")
        each.add_argument("--no-mentions", action="store_true",
                          help="do not offer the optional part (prose and strings that mention the old name)")
        each.add_argument("--no-tests", action="store_true", help="do not run the project's tests on the copy")


def tool_arguments(args: argparse.Namespace) -> dict[str, Any]:
    op = args.operation
    within = getattr(args, "within", None)
    if op == "rename":
        return {"operation": "rename", "name": args.old, "new_name": args.new, "path": within}
    if op == "move":
        return {"operation": "move", "name": args.name, "to_module": args.to, "path": within}
    if op == "signature":
        return {"operation": "add_parameter" if args.add else "change_default", "name": args.name,
                "value": args.add or args.default, "keyword_only": args.keyword_only or None, "path": within}
    if op == "extract":
        return {"operation": "extract", "path": args.path, "value": f"{args.start}-{args.end}",
                "new_name": args.new}
    return {"operation": "repair", "path": args.path}


async def _decide(approver: Any, proposal: Any) -> Any:
    from tui.protocol.proposals import Decision

    if approver is None:
        from tui.headless import show_proposal

        show_proposal(proposal, sys.stdout)
        print(proposal.summary)
        return Decision("approve", by="yes-flag")
    print(proposal.summary)
    return await approver.decide(proposal)


async def _main(args: argparse.Namespace) -> int:
    from tui.commands.common import print_event
    from tui.config import load_config
    from tui.git.repo import find_repo
    from tui.headless import StdinLines, TextApprover
    from tui.protocol.errors import ToolError
    from tui.tools.base import ToolContext
    from tui.tools.refactor import SPEC

    repo = find_repo()
    config = load_config(repo)
    ctx = ToolContext(repo=repo, config=config, emit=print_event)
    ctx.extras["refactor_tests"] = not args.no_tests
    loop = asyncio.get_running_loop()
    lines = None if args.yes else StdinLines()
    approver = None if lines is None else TextApprover(lines)

    def consent(message: str) -> bool:
        """Asked from the engine's thread before a download the TypeScript engine needs (--yes: granted)."""
        print(message, file=sys.stderr)
        if lines is None:
            return True
        print("Download it? [y/N] ", end="", file=sys.stderr, flush=True)
        answer = asyncio.run_coroutine_threadsafe(lines.readline(), loop).result()
        return (answer or "").strip().lower() in ("y", "yes")

    ctx.extras["refactor_consent"] = consent
    assert SPEC.propose and SPEC.execute
    code = 0
    for part in ("exact", "optional"):
        arguments = tool_arguments(args) if part == "exact" else {"operation": "mentions"}
        try:
            proposal = await SPEC.propose(ctx, {k: v for k, v in arguments.items() if v is not None})
        except ToolError as err:
            if part == "optional":
                break
            print(f"devagent: {err.message}", file=sys.stderr)
            if err.hint:
                print(err.hint, file=sys.stderr)
            return 2
        decision = await _decide(approver, proposal)
        if decision.action == "stop":
            print("stopped; nothing more applied")
            return 130
        if not decision.approved:
            print("declined; nothing written" if part == "exact" else "the optional part was left out")
            if part == "exact":
                return 1
            break
        result = await SPEC.execute(ctx, proposal, decision)
        if part == "exact" and result.ok and result.data.get("report"):
            print(result.data["report"])
        print(result.summary)
        if not result.ok:
            print(result.output, file=sys.stderr)
        if not result.ok:
            code = 1
            break
        if part == "exact" and (args.no_mentions or "optional_files" not in result.data):
            break
    return code


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_main(args))
