"""`devagent acp`: an Agent Client Protocol agent on stdio, for Zed, JetBrains, Neovim and Toad (docs/acp.md)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys

from tui.commands.common import add_model_options

HELP = "an Agent Client Protocol (ACP) agent on stdio for editors: Zed, JetBrains, Neovim, Toad (docs/acp.md)"


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--verbose", action="store_true", help="log the protocol's course to stderr")
    add_model_options(parser)


def run(args: argparse.Namespace) -> int:
    try:
        import acp  # noqa: F401
    except ImportError:
        from tui.protocol.errors import DevagentError

        raise DevagentError("the Agent Client Protocol package is not installed.",
                            "Install it with `pip install agent-client-protocol` (or reinstall devagent).") from None
    logging.basicConfig(stream=sys.stderr, level=logging.INFO if args.verbose else logging.WARNING,
                        format="devagent acp: %(levelname)s %(message)s")
    options = {"model": args.model, "host": args.host, "backend": args.backend, "model_file": args.model_file}
    return asyncio.run(_serve(options))


async def _serve(options: dict[str, object]) -> int:
    from acp.agent.connection import AgentSideConnection

    from tui.acp.server import DevagentAcpAgent
    from tui.acp.transport import StdioTransport, protocol_streams

    reader, writer = protocol_streams()
    transport = StdioTransport(reader, writer)
    agent = DevagentAcpAgent(options)
    transport.on_eof = agent.stop_turns
    conn = AgentSideConnection(agent, transport, listening=False)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        try:
            loop.add_signal_handler(sig, transport.stop)
        except (NotImplementedError, RuntimeError):
            pass
    try:
        await conn.listen()
    finally:
        await agent.shutdown()
        await conn.close()
    return 0
