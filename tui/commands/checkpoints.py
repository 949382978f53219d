"""`devagent checkpoints`: list the saved working-tree checkpoints, newest first, with what each covered."""

from __future__ import annotations

import argparse
import json
import time

from tui.safety.literal import visible

HELP = "list checkpoints (newest first) with their label, age and the files each one changed"


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


def run(args: argparse.Namespace) -> int:
    from tui.git.repo import find_repo
    from tui.git import checkpoints

    cps = checkpoints.list_checkpoints(find_repo(), args.session)[: max(args.limit, 0)]
    if args.json:
        print(json.dumps([{"name": c.short, "ref": c.ref, "sha": c.sha, "label": c.label, "created": c.created,
                           "session": c.session_id, "files": c.files, "not_covered": c.not_covered} for c in cps],
                         indent=2))
        return 0
    if not cps:
        print("No checkpoints yet. devagent takes one before every approved edit and command.")
        return 0
    now = time.time()
    for pos, c in enumerate(cps, 1):
        files = ", ".join(c.files[:4]) + (f" +{len(c.files) - 4} more" if len(c.files) > 4 else "")
        print(f"{pos:>3}  {c.short:<28} {_age(now - c.created):>9}  {visible(c.label)}")  # names a command chose:
        print(f"     {len(c.files)} file(s) changed: {visible(files) or '-'}")  # hidden characters shown as escapes
        if c.not_covered:
            print(f"     not covered: {visible('; '.join(c.not_covered))}")
    print("Restore one with `devagent undo NAME` (shows the diff first). Ignored files are not covered.")
    return 0
