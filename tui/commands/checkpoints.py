"""`devagent checkpoints`: the saved working-tree checkpoints, newest first, by what each one covered.

A checkpoint is the working tree just before the step its label names. Each line says what changed after it
(up to the next newer checkpoint, or up to now for the newest) and what restoring it would change now.
"""

from __future__ import annotations

import argparse
import json
import time

from tui.safety.literal import visible

HELP = "list checkpoints (newest first): label, age, what changed after each, what restoring it changes now"


def register(parser: argparse.ArgumentParser) -> None:
    parser.epilog = ("Checkpoints cover tracked and untracked files that are not ignored. "
                     "Restore one with `devagent undo NAME`.")
    parser.add_argument("--session", metavar="ID", help="only this session's checkpoints")
    parser.add_argument("--json", action="store_true", help="print them as a JSON list")
    parser.add_argument("-n", "--limit", type=int, default=30, metavar="N", help="show at most N (default 30)")


def _age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "just now"


def _files(names: list[str], shown: int = 4) -> str:
    from tui.git.undoplan import plural

    listed = ", ".join(names[:shown]) + (f" +{len(names) - shown} more" if len(names) > shown else "")
    return f"{plural(len(names), 'file')} ({visible(listed)})"  # names a command chose: hidden characters escaped


def run(args: argparse.Namespace) -> int:
    from tui.git import checkpoints
    from tui.git.repo import Repo, find_repo
    from tui.git.undoplan import changed_between

    repo = Repo(find_repo())
    every = checkpoints.list_checkpoints(repo)  # "after" runs to the next newer one, whichever session took it
    shown = [c for c in every if not args.session or c.session_id == args.session][: max(args.limit, 0)]
    if not shown:
        if args.json:
            print("[]")
        else:
            print("No checkpoints yet. devagent takes one before every approved edit and command.")
        return 0
    now = checkpoints.snapshot_tree(repo)
    newer = {c.sha: (every[i - 1].tree if i else now) for i, c in enumerate(every)}
    after = changed_between(repo, [(c.tree, newer[c.sha]) for c in shown])
    differs = checkpoints.restoring_changes(repo, [c.tree for c in shown], now)
    if args.json:
        print(json.dumps([{"name": c.short, "ref": c.ref, "sha": c.sha, "label": c.label, "created": c.created,
                           "session": c.session_id, "changed_after": a, "restoring_changes": d, "files": c.files,
                           "not_covered": c.not_covered, "saved": c.saved}
                          for c, a, d in zip(shown, after, differs)], indent=2))
        return 0
    clock = time.time()
    for pos, (c, a, d) in enumerate(zip(shown, after, differs), 1):
        print(f"{pos:>3}  {c.short:<28} {_age(clock - c.created):>9}  {visible(c.label)}")
        then = f"then {_files(a)} changed" if a else "then no file changed"
        restoring = f"restoring it changes {_files(d)}" if d else "the working tree equals it"
        print(f"     {then}{' (up to now)' if c is every[0] else ''}; {restoring}")
        if c.saved:
            print(f"     also holds what an undo replaced, saved first: {visible(', '.join(c.saved[:4]))}")
        if c.not_covered:
            print(f"     not covered: {visible('; '.join(c.not_covered))}")
    print("Restore one with `devagent undo NAME` (shows the diff first). Ignored files are not covered.")
    return 0
