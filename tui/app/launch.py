"""`devagent` with no subcommand: find the repo, load config, build the app, run it.

Errors are DevagentError (cli.py prints them). The engine is imported by the app's
worker after the first frame, never here.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.config import load_config

if TYPE_CHECKING:
    import argparse


async def open_session(app: Any) -> Any:
    """The default session factory: a real Session driven by this app."""
    from tui.engine.session import Session

    return await Session.open(app.repo, app.config, approver=app.make_approver(), emit=app.emit,
                              **app.session_options)


def session_options(args: argparse.Namespace) -> dict[str, Any]:
    names = ("resume", "model", "host", "backend", "model_file")
    return {name: getattr(args, name) for name in names if getattr(args, name, None)}


def check_options(config: Any, options: dict[str, Any]) -> int:
    """The model options of the command line, checked before the app opens: 0 when they work, else the exit code
    after the error `devagent run` prints for them (a configuration error is raised, as it is there)."""
    import asyncio

    from tui.engine.session.modelcheck import check_model_options
    from tui.protocol.errors import ModelError

    chosen = {k: v for k, v in options.items() if k in ("model", "host", "backend", "model_file")}
    if not chosen:
        return 0
    try:
        asyncio.run(check_model_options(config, **chosen))
    except ModelError as err:
        from tui.headless import TextPrinter
        from tui.protocol.events import ErrorEvent

        TextPrinter()(ErrorEvent(err.message, err.hint, err.retryable, source="model"))
        return err.exit_code
    return 0


def launch(args: argparse.Namespace) -> int:
    from tui.git.repo import find_repo

    repo = find_repo(Path.cwd())
    config = load_config(repo)
    failed = check_options(config, session_options(args))
    if failed:
        return failed
    from tui.app.app import DevagentApp

    app = DevagentApp(
        repo, config, prompt=getattr(args, "prompt", None), session_factory=open_session,
        session_options=session_options(args), theme=getattr(args, "theme", None),
    )
    result = app.run()
    return int(app.return_code or result or 0)  # return_code is non-zero when the app crashed
