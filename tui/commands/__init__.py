"""Subcommands. Each module exports ``HELP`` (one line), ``register(parser)`` and ``run(args) -> int``.

cli.py imports only the module of the subcommand being run, so startup stays fast.
"""

# name -> module (under tui.commands)
COMMANDS: dict[str, str] = {
    "run": "run",
    "doctor": "doctor",
    "review": "review",
    "commit": "commit",
    "undo": "undo",
    "checkpoints": "checkpoints",
    "hook": "hook",
    "test": "test",
    "scaffold": "scaffold",
    "refactor": "refactor",
    "models": "models",
    "acp": "acp",
    "serve": "serve",
}
