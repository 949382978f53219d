"""The Python engine: rename, move, signature, extract, each on a throwaway copy, checked, returned as an Outcome.

The repository is copied (tui/refactor/scratch.py); the worker (tui/refactor/pyworker.py: rope and LibCST) runs
in a child process with ``python -I``, bounded in time and memory, inside bubblewrap when it is there, and
changes only the copy; its parse and pyflakes checks come back with it; the project's suite runs on the copy
before and after (tui/refactor/suitecheck.py). Nothing here writes the developer's tree.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from tui.protocol.events import Progress
from tui.refactor.base import Check, FileChange, Outcome, RefactorError
from tui.refactor.scratch import Scratch
from tui.safety.parsing import loads_json

if TYPE_CHECKING:
    from tui.config import Config

OPERATIONS = ("rename", "move", "signature", "extract")
TIMEOUT = 180.0  # seconds for the worker (rope on a large tree)
MEMORY = 3 * 1024 ** 3  # bytes of address space for the worker
OUTPUT_LIMIT = 200_000_000
_CHILD = ("import json, sys; sys.path[:0] = json.loads(sys.argv[1]); "
          "from tui.refactor.pyworker import main; sys.exit(main())")


def _paths(repo: Path) -> list[str]:
    """devagent's own root first, then this process's absolute sys.path minus the working directory and
    anything inside the repository (a PYTHONPATH=src of the developer's must not reach the worker)."""
    root = str(Path(__file__).resolve().parents[2])
    here = os.path.realpath(os.getcwd())
    inside = str(repo) + os.sep

    def foreign(path: str) -> bool:
        real = os.path.realpath(path)
        return real == here or real == str(repo) or real.startswith(inside)

    return [root] + [p for p in sys.path if os.path.isabs(p) and not foreign(p) and p != root]


def _limits() -> None:  # pragma: no cover - runs in the child between fork and exec (no prlimit here)
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    resource.setrlimit(resource.RLIMIT_CPU, (int(TIMEOUT) + 5, int(TIMEOUT) + 10))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _bounded(argv: list[str]) -> tuple[list[str], Callable[[], None] | None]:
    """The limits set by the `prlimit` program (no Python code between fork and exec in a threaded process),
    else by a preexec function."""
    prlimit = shutil.which("prlimit", path="/usr/bin:/bin:/usr/sbin:/sbin")
    if not prlimit:
        return argv, _limits
    cpu = int(TIMEOUT) + 5
    return [prlimit, f"--as={MEMORY}:{MEMORY}", f"--cpu={cpu}:{cpu + 5}", "--core=0:0", "--", *argv], None


def _argv(copy: Path, repo: Path, config: "Config | None") -> tuple[list[str], dict[str, str]]:
    """The worker's command: under bubblewrap (the copy writable, the rest read-only, no network, secrets
    hidden) when it works here, else a plain child; the worker's own guards hold either way."""
    argv = [sys.executable, "-I", "-c", _CHILD, json.dumps(_paths(repo))]
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "HOME": "/nonexistent"}
    if config is None:
        return argv, env
    from tui.safety import hostpath
    from tui.sandbox.profile import bwrap_argv, detect, secret_masks

    if detect(config).kind != "bwrap":
        return argv, env
    bwrap = hostpath.which("bwrap") or "bwrap"
    hidden = sorted({p for p in (sys.prefix, sys.base_prefix, str(Path(__file__).resolve().parents[2]),
                                 *[q for q in sys.path if os.path.isabs(q)])
                     if p.startswith("/tmp/") and os.path.isdir(p)})
    wrapped = bwrap_argv(bwrap, copy, [], network=False, env=env, cwd=copy, masks=secret_masks(config, copy),
                         writable=[], ro_binds=hidden)
    return wrapped + argv, {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def _worker(copy: Path, repo: Path, op: str, args: dict[str, Any], skip: list[str],
            config: "Config | None") -> dict[str, Any]:
    argv, env = _argv(copy, repo, config)
    argv, preexec = _bounded(argv)
    request = json.dumps({"root": str(copy), "repo": str(repo), "op": op, "args": args, "skip": skip})
    try:
        done = subprocess.run(argv, input=request.encode(), capture_output=True, timeout=TIMEOUT, env=env,
                              cwd=str(copy), preexec_fn=preexec, start_new_session=True)
    except subprocess.TimeoutExpired:
        raise RefactorError(f"the Python refactoring engine took longer than {int(TIMEOUT)} s; nothing was changed",
                            "Narrow the change (--in PATH), or make it in your editor.") from None
    except OSError as err:
        raise RefactorError(f"the Python refactoring engine could not start: {err}") from None
    try:
        return dict(loads_json(done.stdout[:OUTPUT_LIMIT].decode("utf-8", "surrogateescape"), "the engine's reply"))
    except (ValueError, TypeError):
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        if done.returncode in (-9, 137) or "MemoryError" in tail[0]:
            raise RefactorError("the Python refactoring engine ran out of memory or time; nothing was changed",
                                "Narrow the change (--in PATH), or make it in your editor.") from None
        raise RefactorError(f"the Python refactoring engine failed: {tail[0][:300]}") from None


def run(op: str, repo: Path, *, config: "Config | None" = None, tests: bool = True,
        on_progress: Callable[[Progress], None] | None = None, **args: Any) -> Outcome:
    """One Python refactoring of the repository at ``repo`` (see docs/refactoring.md), checked in a throwaway
    copy. ``args``: rename: name, new_name, within; move: name, to_module, within; signature: name, add or
    default ("PARAM=VALUE"), keyword_only, within; extract: path, start, end, new_name. RefactorError when it
    cannot be done exactly; the developer's tree is never written."""
    if op not in OPERATIONS:
        raise RefactorError(f"no Python refactoring called {op!r}", "Operations: " + ", ".join(OPERATIONS))
    started = time.monotonic()

    def progress(stage: str, detail: str) -> None:
        if on_progress is not None:
            on_progress(Progress(stage, detail, elapsed=time.monotonic() - started))

    repo = Path(os.path.realpath(repo))
    progress("checking", "copying the work tree")
    with Scratch.create(repo) as scratch:
        skipped = [rel for rel, _ in scratch.left_out]
        progress("checking", f"{op}: rope and LibCST on a copy")
        answer = _worker(scratch.root, repo, op, {k: v for k, v in args.items() if v is not None}, skipped, config)
        if not answer.get("ok"):
            raise RefactorError(str(answer.get("error") or "the refactoring failed"), str(answer.get("hint") or ""))
        changes = scratch.changes()
        if not changes:
            raise RefactorError(f"{answer.get('summary', op)}: nothing to change")
        unhandled = list(answer.get("unhandled") or [])
        unhandled += [f"{rel}: {why}; not analysed" for rel, why in scratch.left_out if rel.endswith((".py", ".pyi"))]
        optional = []
        for rel, text in sorted((answer.get("optional") or {}).items()):
            before = scratch.read(rel)
            if before is not None:
                optional.append(FileChange(rel, before, str(text).encode("utf-8", "surrogateescape")))
        checks = [Check(str(c["name"]), bool(c["ok"]), str(c.get("detail", ""))) for c in answer.get("checks", [])]
        if tests and config is not None:
            progress("testing", "the project's tests, before and after, on the copy")
            from tui.refactor.suitecheck import suite_check

            found = suite_check(repo, scratch.root, changes, config, lambda text: progress("testing", text))
            if found is not None:
                checks.append(found)
    engine = str(answer.get("engine") or "rope")
    if answer.get("engine") == "LibCST":
        engine = f"LibCST {_version('libcst')}"
    places = len(changes)
    summary = f"{answer.get('summary', op)}: {places} file{'s' if places != 1 else ''}"
    return Outcome(operation=op, engine=engine, summary=summary, changes=changes, optional=optional,  # type: ignore[arg-type]
                   unhandled=unhandled, checks=checks)


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "?"


def available() -> bool:
    """Whether rope and LibCST are installed (they are devagent's dependencies; a broken install lacks them)."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("rope", "libcst"))


__all__ = ["run", "available", "OPERATIONS"]
