#!/usr/bin/env python3
"""Repo status: devagent's status + diff refresh vs. ``git status --porcelain=v2`` + ``git diff --numstat``.

devagent's side is the app's own refresh (tui.app.worktree.tree_state: status counts, the unstaged
and the staged diff as full text, the three git processes run concurrently), timed end to end.

The repo (50,000 tracked files, 200 modified; 5,000/50 with --quick) is built once under
/tmp/devagent-bench-cache and reused: ``git fast-import`` writes the history in one stream and
``git read-tree -u`` checks the files out; a rebuild happens only when the cached repo is not in
the expected state.

    python scripts/bench_repo.py [--quick] [--json FILE] [--files N] [--modified N]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import GIT_ENV, measure_pair, scenario, table, write_json  # noqa: E402

CACHE = Path("/tmp/devagent-bench-cache")
TITLE = "Repo status + diff refresh"


def _git(repo: Path, *args: str, input: bytes | None = None) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, input=input, capture_output=True, check=True)
    return proc.stdout.decode()


def _content(i: int) -> bytes:
    return (f'"""Module {i}."""\n\n\ndef f_{i}(x):\n    return x + {i}\n' + "# filler line\n" * (i % 7)).encode()


def _path(i: int) -> str:
    return f"src/pkg_{i // 500:03d}/sub_{(i // 50) % 10}/mod_{i:05d}.py"


def _fast_import_stream(files: int) -> bytes:
    parts = [b"commit refs/heads/main\n", b"committer bench <bench@example.invalid> 1700000000 +0000\n",
             b"data 14\ninitial import\n"]
    for i in range(files):
        data = _content(i)
        parts.append(b"M 100644 inline %s\ndata %d\n%s\n" % (_path(i).encode(), len(data), data))
    parts.append(b"\n")
    return b"".join(parts)


def _expected_dirty(repo: Path, modified: int) -> bool:
    try:
        out = _git(repo, "status", "--porcelain=v1", "-uno")
    except (subprocess.CalledProcessError, FileNotFoundError, NotADirectoryError):
        return False
    return len(out.splitlines()) == modified


def build_repo(files: int, modified: int) -> Path:
    """The cached benchmark repo: ``files`` tracked, the first ``modified`` of every 250th touched."""
    repo = CACHE / f"status-{files}-{modified}"
    if (repo / ".git").is_dir() and _expected_dirty(repo, modified):
        return repo
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "fast-import", "--quiet", input=_fast_import_stream(files))
    _git(repo, "read-tree", "-u", "--reset", "main")
    _git(repo, "symbolic-ref", "HEAD", "refs/heads/main")
    step = max(1, files // modified)
    for i in range(0, step * modified, step):
        with open(repo / _path(i), "ab") as fh:
            fh.write(b"changed = True\n")
    time.sleep(1.1)  # past the racy-git window, so status need not re-hash every file
    _git(repo, "update-index", "-q", "--refresh")
    if not _expected_dirty(repo, modified):
        raise RuntimeError(f"the benchmark repo {repo} did not come out with {modified} modified files")
    return repo


def bench(quick: bool, files: int | None = None, modified: int | None = None) -> list[dict[str, Any]]:
    import asyncio

    from tui.app.worktree import tree_state
    from tui.git.repo import Repo

    files = files or (5_000 if quick else 50_000)
    modified = modified or (50 if quick else 200)
    started = time.perf_counter()
    repo_path = build_repo(files, modified)
    build_s = time.perf_counter() - started
    repo = Repo(repo_path)

    def devagent() -> None:
        # What the app runs on every refresh: status counts, the unstaged and the staged diff (concurrently).
        asyncio.run(tree_state(repo_path))

    def baseline() -> None:
        for args in (["git", "status", "--porcelain=v2"], ["git", "diff", "--numstat"]):
            subprocess.run(args, cwd=repo_path, stdout=subprocess.DEVNULL, check=True)

    repeats = 5 if quick else 15
    dev, base = measure_pair(devagent, baseline, repeats)
    st = repo.status()
    notes = (f"{files:,} tracked files, {len(st.unstaged)} modified; repo build/reuse {build_s:.1f}s "
             f"(cached in {CACHE})")
    return [scenario("repo_status", TITLE, dev, base, baseline_name="git status --porcelain=v2 + git diff --numstat",
                     target="ratio <= 1.3", target_ok=lambda r: r["ratio"] <= 1.3, notes=notes,
                     extra={"files": files, "modified": len(st.unstaged)})]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="5,000 files, 50 modified, 5 repeats")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--files", type=int)
    parser.add_argument("--modified", type=int)
    args = parser.parse_args()
    results = bench(args.quick, args.files, args.modified)
    print(table(results))
    if args.json:
        write_json(args.json, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
