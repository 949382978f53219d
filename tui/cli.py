"""Argument parsing; picks a front end. Imports stay lazy: `devagent --help` must not load the engine."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Sequence

from tui import __version__
from tui.commands import COMMANDS

DESCRIPTION = "devagent: a local-model agent that works inside your git repository, with you approving every change."


def _app_parser() -> argparse.ArgumentParser:
    from tui.commands.common import add_model_options

    parser = argparse.ArgumentParser(
        prog="devagent",
        description=DESCRIPTION,
        epilog="Subcommands: " + ", ".join(COMMANDS) + ". Run `devagent SUBCOMMAND --help` for each.",
    )
    parser.add_argument("--version", action="version", version=f"devagent {__version__}")
    parser.add_argument("prompt", nargs="?", help="start the TUI with this prompt already sent")
    parser.add_argument("--resume", nargs="?", const="latest", metavar="ID", help="continue a session (default: the latest)")
    parser.add_argument("--theme", help="theme name (see themes/)")
    add_model_options(parser)
    return parser


def _sub_parser(name: str) -> tuple[argparse.ArgumentParser, object]:
    module = importlib.import_module(f"tui.commands.{COMMANDS[name]}")
    parser = argparse.ArgumentParser(prog=f"devagent {name}", description=getattr(module, "HELP", ""))
    module.register(parser)  # type: ignore[attr-defined]
    return parser, module


def _usage_with_commands() -> str:
    lines = [DESCRIPTION, "", "usage: devagent [PROMPT] [options]        start the full-screen app", ""]
    lines.append("subcommands:")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"tui.commands.{COMMANDS[name]}")
            lines.append(f"  {name:<12} {getattr(module, 'HELP', '')}")
        except ImportError:
            continue
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from tui.protocol.errors import DevagentError
    from tui.safety import hostpath

    try:  # before anything is looked up on PATH: never a program from the work tree (or a relative entry)
        hostpath.distrust(os.getcwd())
    except OSError:  # the directory devagent started in is gone
        hostpath.distrust()
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        if args_list and args_list[0] in COMMANDS:
            parser, module = _sub_parser(args_list[0])
            args = parser.parse_args(args_list[1:])
            return int(module.run(args) or 0)  # type: ignore[attr-defined]
        if args_list[:1] in (["-h"], ["--help"]):
            _app_parser().print_help()
            print()
            print(_usage_with_commands().split("\n\n", 2)[2])
            return 0
        args = _app_parser().parse_args(args_list)
        from tui.app.launch import launch

        return int(launch(args) or 0)
    except DevagentError as err:
        print(f"devagent: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("devagent: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _closed_pipe()
    except Exception as exc:  # noqa: BLE001 - a bug: say so in one line, keep the details in a file
        return _internal_error(exc)


def _closed_pipe() -> int:
    """The reader went away (`devagent ... | head`): stop quietly, as a shell tool does (128 + SIGPIPE)."""
    import os

    try:  # Python flushes stdout again on exit: point it at /dev/null so that flush cannot fail too
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 141


def _internal_error(exc: BaseException) -> int:
    import time
    import traceback

    from tui.config import state_dir

    detail = "".join(traceback.format_exception(exc))
    where = "(could not write a crash log)"
    try:
        path = state_dir() / f"crash-{time.strftime('%Y%m%d-%H%M%S')}.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(detail)
        where = f"details in {path}"
    except OSError:
        pass
    print(f"devagent: internal error: {type(exc).__name__}: {exc} — {where}. Please report it.", file=sys.stderr)
    return 70
