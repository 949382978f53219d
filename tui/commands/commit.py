"""`devagent commit`: propose a message from the staged diff, let the developer accept/edit/regenerate, commit."""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import subprocess
import sys
from typing import TYPE_CHECKING

from tui.safety.literal import literal_warnings, visible


if TYPE_CHECKING:
    from tui.config import Config
    from tui.git.repo import Repo

HELP = "commit the staged changes with a message written from the staged diff (asks first; hooks run)"

EPILOG = """\
Only what is staged is committed, and only the staged diff is shown to the model.
The repo's hooks run and their output is shown; a refused commit keeps your
message in .git/devagent/COMMIT_MSG. Without a terminal, pass --yes (or -m).
Hooks kept in the work tree (husky and the like) that changed since devagent
last saw them are shown and asked for first (--accept-hooks: run them).
Exit codes: 0 committed, 1 refused by a hook or declined, 3 repo problem."""


def register(parser: argparse.ArgumentParser) -> None:
    from tui.commands.common import add_model_options

    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("-m", "--message", metavar="MSG", help="use this message instead of generating one")
    parser.add_argument("--yes", "-y", action="store_true", help="commit without asking (for scripts)")
    parser.add_argument("--no-verify", action="store_true",
                        help="skip the repo's pre-commit and commit-msg hooks (only when you really mean it)")
    parser.add_argument("--accept-hooks", action="store_true",
                        help="run hooks in the work tree that changed since devagent last saw them (shown first)")
    parser.add_argument("--no-model", action="store_true", help="do not ask a model; use the plain file-list message")
    add_model_options(parser)


async def propose(repo: "Repo", config: "Config", args: argparse.Namespace, staged: str) -> str:
    from tui.git import commitmsg

    subjects = repo.recent_subjects(10)
    if args.no_model:
        return commitmsg.fallback_message(staged, subjects)
    from tui.llm.factory import make_backend

    backend = make_backend(config, backend=args.backend, host=args.host, model_file=args.model_file)
    try:
        message, source = await commitmsg.generate_with_source(backend, staged, subjects,
                                                               model=args.model or config.model.name or None)
    finally:
        await backend.close()
    print(f"(message from {source})")
    return message


def _edit(repo: "Repo", message: str) -> str:
    path = repo.devagent_dir() / "COMMIT_EDITMSG"
    path.write_text(message + "\n\n# Lines starting with # are dropped. An empty message cancels.\n")
    editor = repo.editor() or os.environ.get("EDITOR", "vi")
    subprocess.run(f"{editor} {shlex.quote(str(path))}", shell=True, check=False)
    lines = [ln for ln in path.read_text().splitlines() if not ln.startswith("#")]
    return "\n".join(lines).strip()


def _show(message: str) -> None:
    print("Commit message:")  # the model's text, shown literally (what you approve is what is committed)
    print("".join(f"  | {visible(ln)}\n" for ln in message.splitlines()), end="")
    for warning in literal_warnings(message):
        print(f"!! {warning}")


async def _main(args: argparse.Namespace) -> int:
    from tui.git.repo import find_repo
    from tui.config import load_config
    from tui.git.diffs import DiffIndex
    from tui.protocol.errors import RepoError
    from tui.git.repo import Repo

    repo = Repo(find_repo())
    repo.ensure_writable()
    config = load_config(repo.root)
    staged = repo.diff_staged()
    if not staged.strip():
        raise RepoError("Nothing is staged, so there is nothing to commit.",
                        "Stage changes first (`git add PATH`, or approve staging in devagent).")
    interactive = sys.stdin.isatty()
    if not (args.yes or interactive):
        raise RepoError("devagent commit needs your approval, and there is no terminal to ask on.",
                        "Run it in a terminal, or pass --yes to commit without asking.")
    for f in DiffIndex.from_text(staged).files:
        print(f"  {f.status:<9} {visible(f.path)}")
    message = args.message or await propose(repo, config, args, staged)
    while not args.yes:
        _show(message)
        answer = input("Commit? [y]es / [e]dit / [r]egenerate / [n]o: ").strip().lower()[:1]
        if answer == "y":
            break
        if answer == "e":
            message = _edit(repo, message) or message
        elif answer == "r":
            message = await propose(repo, config, args, staged)
        elif answer in ("n", "q"):
            print("Not committed; nothing changed.")
            return 1
    if args.yes:
        _show(message)
    if not args.no_verify and not _hooks_agreed(repo, args, interactive):
        return 1
    result = repo.commit(message, no_verify=args.no_verify)
    if result.output.strip():
        print(visible(result.output.rstrip()))
    if not result.ok:
        print("devagent: the commit was refused (see the hook output above).", file=sys.stderr)
        return 1
    print(f"Committed {result.sha[:12] if result.sha else ''}.")
    return 0


def _hooks_agreed(repo: "Repo", args: argparse.Namespace, interactive: bool) -> bool:
    """Hooks the work tree controls that changed since the session began: shown, and run only when agreed."""
    from tui.git import hookwatch

    changes = hookwatch.changed(repo)
    if not changes:
        return True
    err = hookwatch.refusal(changes)
    print(visible(err.message))
    if args.accept_hooks or (interactive and not args.yes and
                             input("Run these hooks and commit? [y/N]: ").strip().lower()[:1] == "y"):
        hookwatch.accept(repo)
        return True
    print(f"Not committed; nothing changed. {err.hint}", file=sys.stderr)
    return False


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_main(args))
    except EOFError:
        print("\nNot committed; nothing changed.")
        return 1
