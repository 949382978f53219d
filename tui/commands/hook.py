"""`devagent hook install|uninstall|status`: the pre-commit review hook (and, optionally, message suggestions)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

HELP = "install, remove or inspect devagent's pre-commit hook (chains any hook already there)"

EPILOG = """\
install     add a pre-commit hook that runs `devagent review --staged`; an existing
            hook is kept as <hook>.devagent-orig and still runs first.
            --commit-msg also adds prepare-commit-msg, which pre-fills the editor
            with a message written from the staged diff.
            A hook owned by a hook manager (pre-commit, husky, lefthook) is refused
            unless you pass --force; users of the pre-commit framework add devagent
            to .pre-commit-config.yaml instead (see docs/git-workflow.md).
uninstall   remove devagent's hooks and put back exactly what was there.
status      say what is installed and where (core.hooksPath and worktrees respected)."""


def register(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("action", choices=["install", "uninstall", "status", "suggest"], metavar="ACTION",
                        help="install | uninstall | status")
    parser.add_argument("args", nargs="*", help=argparse.SUPPRESS)  # suggest: MSGFILE [SOURCE [SHA]]
    parser.add_argument("--force", action="store_true", help="chain a hook that a hook manager owns")
    parser.add_argument("--commit-msg", action="store_true",
                        help="also install prepare-commit-msg (message suggestions in the commit editor)")


def run(args: argparse.Namespace) -> int:
    from tui.git.repo import find_repo
    from tui.git import hooks
    from tui.git.repo import Repo

    repo = Repo(find_repo())
    if args.action == "suggest":
        return suggest(repo, args.args)
    if args.action == "install":
        for line in hooks.install(repo, force=args.force, commit_msg=args.commit_msg):
            print(line)
        print("The next `git commit` runs `devagent review --staged`.")
        return 0
    if args.action == "uninstall":
        for line in hooks.uninstall(repo):
            print(line)
        return 0
    print(f"hooks directory: {hooks.hooks_dir(repo)}")
    for st in hooks.status(repo):
        print(f"  {st.name:<20} {st.state:<10} {st.detail}")
    return 0


def suggest(repo: "object", argv: list[str]) -> int:
    """prepare-commit-msg: put a suggested message above git's comments. Never blocks the commit."""
    from tui.git import commitmsg
    from tui.config import load_config
    from tui.git.repo import Repo

    assert isinstance(repo, Repo)
    if not argv or (len(argv) > 1 and argv[1] in ("message", "merge", "squash", "commit", "template")):
        return 0
    path = Path(argv[0])
    try:
        existing = path.read_text()
        if any(ln.strip() and not ln.startswith("#") for ln in existing.splitlines()):
            return 0  # the developer (or a template) already wrote something
        staged = repo.diff_staged()
        if not staged.strip():
            return 0
        config = load_config(repo.root)
        config.model.retries = 0  # a suggestion is not worth waiting for retries
        from tui.llm.factory import make_backend

        async def make() -> str:
            backend = make_backend(config)
            try:
                return await commitmsg.generate(backend, staged, repo.recent_subjects(10),
                                                model=config.model.name or None, timeout=config.review.model_budget)
            finally:
                await backend.close()

        message = asyncio.run(make())
        path.write_text(message + "\n" + existing)
    except Exception as exc:  # noqa: BLE001 - a suggestion must never stop a commit
        print(f"devagent: no message suggestion ({exc})", file=sys.stderr)
    return 0
