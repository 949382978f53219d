"""`devagent serve`: the full app in a browser, on 127.0.0.1 only, behind a token printed once."""

from __future__ import annotations

import argparse
import asyncio
import signal
import socket
import sys

from tui.commands.common import add_model_options

HELP = "the full app in your browser (127.0.0.1 only, a token in the URL; needs `pip install 'devagent[serve]'`)"


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--resume", nargs="?", const="latest", metavar="ID", help="continue a recorded session")
    parser.add_argument("--theme", help="theme name (see themes/)")
    add_model_options(parser)


def _app_args(args: argparse.Namespace) -> list[str]:
    out: list[str] = []
    for name in ("resume", "theme", "model", "host", "backend", "model_file"):
        value = getattr(args, name, None)
        if value:
            out += [f"--{name.replace('_', '-')}", str(value)]
    return out


def run(args: argparse.Namespace) -> int:
    from tui.protocol.errors import DevagentError

    try:
        import aiohttp  # noqa: F401
        import textual_serve  # noqa: F401
    except ImportError:
        raise DevagentError("`devagent serve` needs textual-serve, which is not installed.",
                            "Install it with `pip install 'devagent[serve]'` "
                            "(or `pip install textual-serve`).") from None
    if not 0 <= args.port < 65536:
        raise DevagentError(f"--port {args.port} is not a port number", "Give 1-65535, or 0 for a free one.")
    from tui.git.repo import find_repo

    repo = find_repo()
    return asyncio.run(_serve(args, repo))


async def _serve(args: argparse.Namespace, repo: object) -> int:
    from aiohttp import web

    from tui.protocol.errors import DevagentError
    from tui.serve.guard import Guard, new_token
    from tui.serve.server import make_app
    from tui.serve.shared_app import SharedApp, app_argv

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", args.port))
    except OSError as exc:
        sock.close()
        raise DevagentError(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror}",
                            "Pick another --port, or 0 for a free one.") from None
    guard = Guard(new_token(), sock.getsockname()[1])
    shared = SharedApp(app_argv(_app_args(args)), repo)  # type: ignore[arg-type]
    runner = web.AppRunner(make_app(guard, shared, f"devagent — {repo}"), access_log=None, handle_signals=False)
    await runner.setup()
    await web.SockSite(runner, sock).start()
    print(f"devagent serve: open http://127.0.0.1:{guard.port}{guard.prefix}\n"
          "  (this URL is the key: whoever has it can drive devagent in this repository; Ctrl+C stops)", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):
            pass
    waiters = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(shared.exited.wait())]
    app_quit = False
    try:
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        app_quit = shared.exited.is_set()  # the app quit by itself (stopping it below sets this too)
    finally:
        for waiter in waiters:
            waiter.cancel()
        await shared.stop()
        await runner.cleanup()
    print("devagent serve: the app has exited" if app_quit else "devagent serve: stopped", file=sys.stderr)
    return 0
