"""Options and helpers shared by subcommands."""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path

from tui.git import gitsafe
from tui.protocol.errors import NotARepoError, RepoError


def add_model_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("model")
    group.add_argument("--model", help="model name (default: config, else the first suitable model the server lists)")
    group.add_argument("--host", help="model server URL (default: $OLLAMA_HOST, else http://127.0.0.1:11434)")
    group.add_argument("--backend", choices=["ollama", "openai", "embedded"], help="model backend (default: ollama)")
    group.add_argument("--model-file", metavar="PATH.gguf", help="run this GGUF model with the embedded llama.cpp backend")


def find_repo(start: Path | None = None) -> Path:
    """The work tree root containing ``start`` (default: cwd). Clear errors for no repo and bare repos."""
    start = (start or Path.cwd()).resolve()
    def rev_parse(*args: str) -> subprocess.CompletedProcess[str]:
        try:
            return gitsafe.run_text(start, "rev-parse", *args, timeout=10)
        except FileNotFoundError:
            raise RepoError("git is not installed or not on PATH.",
                            "Install git, then run devagent inside a repository.") from None

    bare = rev_parse("--is-bare-repository")
    if bare.returncode != 0:
        raise NotARepoError(
            f"{start} is not inside a git repository.",
            "Run devagent inside a git work tree (or create one with `git init`).",
        )
    if bare.stdout.strip() == "true":
        raise NotARepoError(
            f"{start} is a bare repository: there is no work tree for devagent to work in.",
            "Clone it (`git clone`) or add a worktree (`git worktree add`), and run devagent there.",
        )
    top = rev_parse("--show-toplevel")
    if top.returncode != 0 or not top.stdout.strip():
        raise NotARepoError(f"{start} is inside a git directory, not a work tree.", "Run devagent from the work tree.")
    return Path(os.path.realpath(top.stdout.strip()))
