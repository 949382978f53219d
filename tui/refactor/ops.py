"""One entry for every refactoring: picks the engine by file type and returns its Outcome.

Python (``.py``/``.pyi``): tui/refactor/py.py (rope, LibCST). TypeScript and JavaScript (``.ts .tsx .js .jsx .mjs
.cjs``): ``tui.refactor.ts.run`` (the TypeScript language service). Data files: ``tui.refactor.repair.repair_file``.
The other engines are imported when first needed, so a missing one is said plainly, never a traceback.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from tui.refactor.base import Outcome, RefactorError

if TYPE_CHECKING:
    from tui.config import Config
    from tui.protocol.events import Progress

OPERATIONS = ("rename", "move", "signature", "extract", "repair")
PY_SUFFIXES = (".py", ".pyi")
TS_SUFFIXES = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")


def _lazy(module: str, function: str, what: str) -> Callable[..., Outcome]:
    try:
        found = importlib.import_module(module)
    except ImportError as err:
        if err.name and not module.startswith(err.name) and err.name != module:
            raise RefactorError(f"{what} could not load: {err}") from None
        raise RefactorError(f"{what} is not available yet in this version of devagent",
                            "Nothing was changed.") from None
    fn = getattr(found, function, None)
    if fn is None:
        raise RefactorError(f"{what} is not available yet in this version of devagent", "Nothing was changed.")
    return fn  # type: ignore[no-any-return]


def _paths(args: dict[str, Any]) -> list[str]:
    return [str(args[k]) for k in ("path", "within", "to_module", "name") if args.get(k)]


def _grep_languages(repo: Path, name: str) -> set[str]:
    """Which languages' files mention ``name`` as a word (git grep over tracked and untracked files)."""
    from tui.git.facade import GitRepo

    found = set()
    for language, suffixes in (("python", PY_SUFFIXES), ("typescript", TS_SUFFIXES)):
        out = GitRepo(repo, timeout=30).run("grep", "-l", "-w", "-F", "--untracked", "-e", name, "--",
                                            *[f"*{s}" for s in suffixes])
        if out.returncode == 0 and out.stdout.strip():
            found.add(language)
    return found


def engine_for(repo: Path, op: str, args: dict[str, Any]) -> str:
    """python | typescript | data: from the paths the arguments name, else from where the name occurs."""
    if op == "repair":
        return "data"
    for path in _paths(args):
        if path.endswith(TS_SUFFIXES):
            return "typescript"
        if path.endswith(PY_SUFFIXES):
            return "python"
    within = str(args.get("within") or "")
    name = str(args.get("name") or "").split(".")[-1]
    if not name:
        return "python"
    languages = _grep_languages(repo / within if within else repo, name)
    if languages == {"typescript"}:
        return "typescript"
    if len(languages) > 1:
        raise RefactorError(f"{args.get('name')} appears in both Python and TypeScript/JavaScript files",
                            "Say which with --in PATH (the tool's `path`): a file or directory of one language.")
    return "python"


def _ts_arguments(args: dict[str, Any]) -> dict[str, Any]:
    """The TypeScript engine's names for the same arguments: ``path`` is where the name is (the file itself for
    extract), ``to`` the module a move goes to."""
    ts = {k: v for k, v in args.items() if v is not None and k not in ("within", "to_module", "keyword_only")}
    if args.get("within"):
        ts["path"] = args["within"]
    if args.get("to_module"):
        ts["to"] = args["to_module"]
    return ts


def run(op: str, repo: Path, *, config: "Config | None" = None, tests: bool = True,
        on_progress: "Callable[[Progress], None] | None" = None,
        consent: "Callable[[str], bool] | None" = None, **args: Any) -> Outcome:
    """The refactoring ``op`` with ``args`` (see tui/refactor/py.py for the names), by the engine for its files.
    ``consent(message)`` is asked before the TypeScript engine downloads its pinned compiler (None: it never does).
    Call it from a thread (the engines run their own event loop), e.g. ``asyncio.to_thread``."""
    if op not in OPERATIONS:
        raise RefactorError(f"no refactoring called {op!r}", "Operations: " + ", ".join(OPERATIONS))
    engine = engine_for(repo, op, args)
    if engine == "data":
        repair = _lazy("tui.refactor.repair", "repair_file", "Repairing data files")
        return repair(repo, str(args.get("path") or args.get("name") or ""))
    if engine == "typescript":
        ts_run = _lazy("tui.refactor.ts", "run", "The TypeScript/JavaScript refactoring engine")
        return ts_run(op, repo, config=config, tests=tests, on_progress=on_progress, consent=consent,
                      **_ts_arguments(args))
    from tui.refactor import py

    return py.run(op, repo, config=config, tests=tests, on_progress=on_progress, **args)
