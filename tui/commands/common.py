"""Options and helpers shared by subcommands."""

from __future__ import annotations

import argparse


def add_model_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("model")
    group.add_argument("--model", help="model name (default: config, else the first suitable model the server lists)")
    group.add_argument("--host", help="model server URL (default: $OLLAMA_HOST, else http://127.0.0.1:11434)")
    group.add_argument("--backend", choices=["ollama", "openai", "embedded"], help="model backend (default: ollama)")
    group.add_argument("--model-file", metavar="PATH.gguf", help="run this GGUF model with the embedded llama.cpp backend")


def print_event(event: object) -> None:
    """What a proposal-applying command (scaffold, refactor) shows of the engine's events, on stderr."""
    import sys

    from tui.protocol.events import Checkpointed, Notice, Progress

    if isinstance(event, Notice):
        print(f"devagent: {event.message}", file=sys.stderr)
    elif isinstance(event, Checkpointed):
        print(f"checkpoint {event.ref} ({event.label}); undo with `devagent undo`", file=sys.stderr)
    elif isinstance(event, Progress):
        print(f"devagent: {event.detail}…", file=sys.stderr, flush=True)
