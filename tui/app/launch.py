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


def launch(args: argparse.Namespace) -> int:
    from tui.git.repo import find_repo

    repo = find_repo(Path.cwd())
    config = load_config(repo)
    from tui.app.app import DevagentApp

    app = DevagentApp(
        repo, config, prompt=getattr(args, "prompt", None), session_factory=open_session,
        session_options=session_options(args), theme=getattr(args, "theme", None),
    )
    result = app.run()
    return int(app.return_code or result or 0)  # return_code is non-zero when the app crashed
