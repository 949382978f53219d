"""`devagent review --staged`: check the staged diff before a commit (the pre-commit hook runs this)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import IO, TYPE_CHECKING

from tui.safety.literal import visible

if TYPE_CHECKING:
    from tui.config import Config
    from tui.git.repo import Repo
    from tui.git.review import ReviewResult

HELP = "review the staged diff: deterministic checks, then a time-boxed model review; exit 1 on blocking findings"

EPILOG = """\
Checks: conflict markers, likely secrets and keys, large or binary files, debug
leftovers, `git diff --cached --check`, Python/JSON/TOML that does not parse; then
a model review (within review.model_budget seconds) when a server answers. No
server is not an error. In a terminal it asks you to approve, reject or unstage
hunks (exit 0 approve, 1 reject). Without a terminal (CI, GUI git clients) it
never asks: it prints the findings and exits 1 only for blocking findings
(review.blocking, default: errors)."""

HOW_TO_REVIEW = ("Review interactively: run `devagent review --staged` in a terminal, fix or unstage, "
                 "then commit again (`git commit --no-verify` skips the review).")


def register(parser: argparse.ArgumentParser) -> None:
    from tui.commands.common import add_model_options

    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--staged", action="store_true", default=True,
                        help="review what is staged (the default and, for now, the only mode)")
    parser.add_argument("--no-model", action="store_true", help="deterministic checks only")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON; never asks")
    parser.add_argument("--no-interactive", action="store_true", help="never ask, even in a terminal")
    parser.add_argument("--hook", action="store_true", help=argparse.SUPPRESS)  # run from the pre-commit hook
    add_model_options(parser)


class Tty:
    """The controlling terminal as a small text stream (a terminal is not seekable, so no "r+" file)."""

    def __init__(self, fd: int) -> None:
        self._in = os.fdopen(fd, "r", encoding="utf-8", errors="replace")
        self._out = os.fdopen(os.dup(fd), "w", encoding="utf-8", errors="replace")

    def write(self, text: str) -> int:
        return self._out.write(text)

    def flush(self) -> None:
        self._out.flush()

    def readline(self) -> str:
        self._out.flush()
        return self._in.readline()

    def close(self) -> None:
        self._out.close()
        self._in.close()

    def __enter__(self) -> "Tty":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_tty() -> Tty | None:
    """The controlling terminal, if there is one (a hook's stdin is not a terminal, but /dev/tty may be)."""
    try:
        return Tty(os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY))
    except OSError:
        return None


async def _review(repo: "Repo", config: "Config", args: argparse.Namespace) -> "ReviewResult":
    from tui.git.review import review_staged

    if args.no_model:
        return await review_staged(repo, config)
    from tui.llm.factory import make_backend

    config.model.retries = 0  # the review has its own budget; a missing server should cost one refused connect
    backend = make_backend(config, backend=args.backend, host=args.host, model_file=args.model_file)
    try:
        return await review_staged(repo, config, backend=backend, model=args.model or config.model.name or None)
    finally:
        await backend.close()


def _print(result: "ReviewResult", out: "IO[str] | Tty") -> None:
    for f in result.findings:
        out.write(visible(f.render()) + "\n")
    if not result.findings:
        out.write("No findings.\n")
    out.write(f"({result.model_status})\n")
    out.flush()


def _interactive(repo: "Repo", config: "Config", result: "ReviewResult", tty: Tty) -> int:
    from tui.git.diffs import DiffIndex
    from tui.protocol.errors import DevagentError
    from tui.git.review import ReviewResult, deterministic

    while True:
        _print(result, tty)
        blocking = result.blocking(config)
        if blocking:
            tty.write(f"{len(blocking)} blocking finding(s).\n")
        tty.write("[a]pprove the commit / [r]eject it / [d]iff / [u]nstage hunks: ")
        tty.flush()
        answer = tty.readline()
        if not answer:
            return 1
        choice = answer.strip().lower()[:1]
        if choice == "a":
            return 0
        if choice == "r":
            tty.write("Commit rejected; your staged changes are untouched.\n")
            return 1
        staged = repo.diff_staged()
        if choice == "d":
            tty.write(visible(staged))
        elif choice == "u":
            idx = DiffIndex.from_text(staged)
            for h in idx.hunks:
                tty.write(visible(f"  {h.index + 1:>3}  {h.file}  {h.header or '(whole file)'}") + "\n")
            tty.write("Hunks to unstage (numbers separated by spaces, empty = none): ")
            tty.flush()
            picked = {int(t) - 1 for t in tty.readline().split() if t.isdigit()}
            picked &= set(range(len(idx.hunks)))
            if picked:
                try:
                    repo.unstage_hunks(staged, picked)
                except DevagentError as err:  # e.g. `git commit -a` holds index.lock while its hooks run
                    tty.write(f"Cannot unstage here: {err.message}\nReject, unstage, then commit again.\n")
                    continue
                tty.write(f"Unstaged {len(picked)} hunk(s); they stay in your working tree.\n")
                result = ReviewResult(deterministic(repo, repo.diff_staged(), config), result.model_status)


def run(args: argparse.Namespace) -> int:
    from tui.git.repo import find_repo
    from tui.config import load_config
    from tui.git.repo import Repo

    repo = Repo(find_repo())
    config = load_config(repo.root)
    result = asyncio.run(_review(repo, config, args))
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
        return 1 if result.blocking(config) else 0
    if args.hook and result.model_status == "nothing staged":
        return 0
    tty = None if (args.no_interactive or os.environ.get("DEVAGENT_COMMIT")) else open_tty()
    if tty is not None:
        with tty:
            tty.write("devagent review of the staged changes\n")
            screen = _screen_review(repo, config, result)
            return screen if screen is not None else _interactive(repo, config, result, tty)
    _print(result, sys.stdout)
    blocking = result.blocking(config)
    if blocking:
        print(f"devagent: {len(blocking)} blocking finding(s); the commit is stopped.", file=sys.stderr)
        print(HOW_TO_REVIEW, file=sys.stderr)
        return 1
    if result.findings:
        print(HOW_TO_REVIEW)
    return 0


def _screen_review(repo: "Repo", config: "Config", result: "ReviewResult") -> int | None:
    """The full-screen review; None = use the line prompt (``DEVAGENT_REVIEW_UI=prompt``, or no TUI installed)."""
    if os.environ.get("DEVAGENT_REVIEW_UI", "tui") != "tui":
        return None
    try:
        from tui.app.screens.review_screen import run_review_app
    except ImportError:
        return None
    return int(run_review_app(repo, config, result))
