"""`devagent run PROMPT`: the agent without a screen (text, or JSON lines for editors and web front ends)."""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import time

from tui.commands.common import add_model_options

HELP = "run the agent headless: stream the answer, ask y/n/e/q for every proposal (or --json / --yes)"

EXIT_BY_REASON = {"complete": 0, "limit": 0, "stopped": 0, "cancelled": 130, "error": 4}


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("prompt", nargs="?", help="what to ask the agent")
    parser.add_argument("--json", action="store_true",
                        help="JSON lines: events on stdout, decisions on stdin (docs/protocol.md)")
    parser.add_argument("--yes", action="store_true",
                        help="approve every proposal the policy does not deny (for scripts; deny rules still hold)")
    parser.add_argument("--resume", nargs="?", const="latest", metavar="ID",
                        help="continue a recorded session (default: the latest)")
    parser.add_argument("--sessions", action="store_true", help="list recorded sessions of this repo and exit")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also print devagent's details on stderr: what it told the model, retries, the "
                             "model's replies as written (raw tool calls), checkpoint refs")
    add_model_options(parser)


def run(args: argparse.Namespace) -> int:
    from tui.protocol.errors import DevagentError
    from tui.protocol.events import ErrorEvent

    try:
        return asyncio.run(_main(args))
    except DevagentError as err:
        if args.json:
            print(json.dumps(ErrorEvent(err.message, err.hint, source="startup").to_dict()), flush=True)
            return err.exit_code
        raise


def _list_sessions() -> int:
    from tui.git.repo import find_repo
    from tui.engine.session import git_common_dir
    from tui.engine.session.store import Store, default_store_path

    store = Store(default_store_path(git_common_dir(find_repo())))
    rows = store.sessions()
    if not rows:
        print("no recorded sessions in this repository")
    for row in rows:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row.updated))
        print(f"{row.id}  {when}  {row.model or '-':<24} {row.title[:60]}")
    return 0


async def _main(args: argparse.Namespace) -> int:
    from tui.git.repo import find_repo
    from tui.protocol.proposals import ApproveAll
    from tui.config import load_config
    from tui.protocol.errors import DevagentError, ModelError
    from tui.protocol.events import ErrorEvent
    from tui.headless import JsonApprover, JsonPrinter, StdinLines, TextApprover, TextPrinter
    from tui.engine.session import Session

    if args.sessions:
        return _list_sessions()
    if not args.prompt:
        raise DevagentError("no prompt given", 'Usage: devagent run "what does this repo do?"')
    repo = find_repo()
    config = load_config(repo)
    printer = JsonPrinter() if args.json else TextPrinter(verbose=args.verbose)
    lines = StdinLines()
    if args.yes:
        approver = ApproveAll()
    elif args.json:
        approver = JsonApprover(lines, printer)
    else:
        approver = TextApprover(lines)
    session = await Session.open(repo, config, approver=approver, emit=printer, resume=args.resume,
                                 model=args.model, host=args.host, backend=args.backend, model_file=args.model_file)
    if isinstance(approver, JsonApprover):
        approver.start()
    loop = asyncio.get_running_loop()
    task = loop.create_task(session.run_turn(args.prompt))
    try:
        loop.add_signal_handler(signal.SIGINT, task.cancel)
    except (NotImplementedError, RuntimeError):
        pass
    try:
        done = await task
        return EXIT_BY_REASON.get(done.reason, 1)
    except asyncio.CancelledError:
        print("\ndevagent: cancelled", file=sys.stderr)
        return 130
    except ModelError as err:
        printer(ErrorEvent(err.message, err.hint, err.retryable, source="model"))
        return err.exit_code
    finally:
        try:
            loop.remove_signal_handler(signal.SIGINT)
        except (NotImplementedError, RuntimeError):
            pass
        await session.close()
