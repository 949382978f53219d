"""TypeScript/JavaScript refactorings by the TypeScript compiler's language service.

``run(op, repo, **args)`` copies the work tree into a scratch directory, runs devagent's driver (tsdriver.js) with
node inside the sandbox (network off, the work tree and the compiler read-only, a time and heap limit), writes the
engine's result into the copy, checks it there (every changed file parses; ``tsc --noEmit`` where the project
type-checks; the project's tests where it has them) and returns an Outcome. The work tree is never written.

Operations and their arguments (names, not code):

- ``rename``: ``old`` (a function, class, method as ``Class.method``, variable, type; or a module's path such as
  ``src/util.ts``), ``new`` (the new name or path), ``path`` (limit the search to a file or directory), ``line``.
- ``move``: ``name``, ``to`` (a module path, new or existing), ``path`` (the module it is in, when ambiguous).
- ``signature``: ``name``, ``add`` (``"name = default"`` or ``"name: type = default"``, added last) and/or
  ``default`` (``"param=value"``, the new default of an existing parameter), ``path``.
- ``extract``: ``path``, ``start``, ``end`` (1-based lines, inclusive), ``name`` (the new function).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from tui.protocol.errors import PathRefused
from tui.protocol.events import Progress
from tui.refactor import tscheck, tsenv, tsscratch
from tui.refactor.base import Check, FileChange, Outcome, RefactorError
from tui.refactor.tsprose import prose_changes, public_entries
from tui.safety.parsing import loads_json
from tui.safety.paths import read_bounded

if TYPE_CHECKING:
    from tui.config import Config

DRIVER = Path(__file__).with_name("tsdriver.js")
DRIVER_TIMEOUT = 180.0
HEAP_MB = 2048
RESULT_LIMIT = 200_000_000
OPS = ("rename", "move", "signature", "extract")


def _arg(args: dict[str, Any], *names: str, default: Any = "") -> Any:
    for name in names:
        if args.get(name) not in (None, ""):
            return args[name]
    return default


def _request(op: str, args: dict[str, Any], scratch: tsscratch.Scratch) -> dict[str, Any]:
    """The driver's arguments from the developer's (or the model's) names; RefactorError for what is missing."""
    where = str(_arg(args, "path", "in_path", "inside")).strip().strip("/")
    if op == "rename":
        old, new = str(_arg(args, "old", "name")), str(_arg(args, "new", "new_name"))
        if not old or not new:
            raise RefactorError("rename needs the old and the new name", "devagent refactor rename OLD NEW [--in PATH]")
        module = old in scratch.files and old.endswith(tsscratch.SOURCE_SUFFIXES)
        return {"name": old, "new_name": new, "module": module, "path": where, "line": int(_arg(args, "line", default=0))}
    if op == "move":
        name, to = str(_arg(args, "name", "old")), str(_arg(args, "to", "target")).strip()
        if not name or not to:
            raise RefactorError("move needs a name and a target module", "devagent refactor move NAME --to MODULE")
        if not to.endswith(tsscratch.SOURCE_SUFFIXES):
            raise RefactorError(f"{to} is not a TypeScript/JavaScript module path", "Give the file, e.g. src/util.ts.")
        return {"name": name, "to": _inside(to), "path": where, "entries": public_entries(scratch.work, scratch.files)}
    if op == "signature":
        name, add, default = str(_arg(args, "name")), str(_arg(args, "add")), str(_arg(args, "default"))
        if not name or not (add or default):
            raise RefactorError("signature needs a function and a change",
                                'devagent refactor signature NAME --add "flag = false" | --default "param=value"')
        pair = None
        if default:
            param, sep, value = default.partition("=")
            if not sep or not param.strip() or not value.strip():
                raise RefactorError(f"{default!r} is not param=value", 'e.g. --default "timeout=30"')
            pair = [param.strip(), value.strip()]
        return {"name": name, "add": add, "default": pair, "path": where}
    if op == "extract":
        path, name = str(_arg(args, "path")), str(_arg(args, "name", "new_name", "new"))
        try:
            start, end = int(_arg(args, "start")), int(_arg(args, "end", "start"))
        except ValueError:
            raise RefactorError("extract needs whole line numbers", "devagent refactor extract PATH START END NAME") from None
        if not path or not name:
            raise RefactorError("extract needs a file, a line range and a name", "devagent refactor extract PATH START END NAME")
        return {"path": _inside(path), "start": start, "end": end, "new_name": name}
    raise RefactorError(f"unknown TypeScript operation {op!r}", f"One of: {', '.join(OPS)}.")


def _inside(rel: str) -> str:
    norm = os.path.normpath(rel.replace("\\", "/")).replace(os.sep, "/")
    if norm.startswith(("../", "/")) or norm == ".." or ".git" in norm.split("/") or "node_modules" in norm.split("/"):
        raise RefactorError(f"{rel} is not a path inside the project", "Give a path relative to the repository.")
    return norm


def _tsconfig(scratch: tsscratch.Scratch) -> str:
    for name in ("tsconfig.json", "jsconfig.json"):
        if name in scratch.files:
            return name
    return ""


def _read_result(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            data = fh.read(RESULT_LIMIT + 1)
    except OSError:
        return {}
    if len(data) > RESULT_LIMIT:
        raise RefactorError("the TypeScript engine's answer is too large")
    try:
        result = loads_json(data, "the TypeScript engine's answer")
    except ValueError:
        return {}
    return result if isinstance(result, dict) else {}


def _text(value: Any) -> bytes | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise RefactorError("the TypeScript engine gave a malformed answer")
    return value.encode("utf-8", "surrogateescape")


def _before(repo: Path, rel: str) -> bytes | None:
    try:
        data, size = read_bounded(repo, rel, tsscratch.MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return None
    except (OSError, PathRefused) as exc:
        raise RefactorError(f"{rel}: {exc}") from None
    if size > tsscratch.MAX_FILE_BYTES:
        raise RefactorError(f"{rel} is too large to change ({size} bytes)")
    return data


def _changes(repo: Path, result: dict[str, Any], key: str, base: dict[str, bytes | None]) -> list[FileChange]:
    found: list[FileChange] = []
    entries = result.get(key) or {}
    if not isinstance(entries, dict):
        raise RefactorError("the TypeScript engine gave a malformed answer")
    for rel, text in sorted(entries.items()):
        rel = _inside(rel)
        before = base[rel] if rel in base else _before(repo, rel)
        after = _text(text)
        if before != after:
            found.append(FileChange(rel, before, after))
    return found


def _summary(op: str, args: dict[str, Any], changes: list[FileChange], places: int) -> str:
    what = {"rename": f"rename {args.get('name')} -> {args.get('new_name')}",
            "move": f"move {args.get('name')} -> {args.get('to')}",
            "signature": f"signature of {args.get('name')}" + (f": add {args['add']}" if args.get("add") else "")
            + (f": {args['default'][0]} defaults to {args['default'][1]}" if args.get("default") else ""),
            "extract": f"extract {args.get('path')}:{args.get('start')}-{args.get('end')} -> {args.get('new_name')}"}[op]
    return f"{what}: {len(changes)} files, {places} places"


async def run_async(op: str, repo: Path, *, config: "Config | None" = None,
                    consent: Callable[[str], bool] | None = None, typescript: str = "auto", checks: bool = True,
                    tests: bool = True, on_progress: Callable[[Progress], None] | None = None,
                    **args: Any) -> Outcome:
    """One operation (see the module's docstring for ``args``). RefactorError when it cannot be done exactly.

    ``consent(message)`` is asked before devagent's pinned TypeScript is downloaded (None: never download);
    ``typescript``: auto | project | pinned; ``checks``/``tests``: run tsc and the suite in the scratch copy.
    """
    from tui.config import load_config
    from tui.sandbox.runner import Sandbox

    repo = Path(os.path.realpath(repo))
    config = config or load_config(repo)
    started = time.monotonic()

    def progress(stage: str, detail: str) -> None:
        if on_progress is not None:
            on_progress(Progress(stage, detail, elapsed=time.monotonic() - started))

    node = tsenv.node()
    ts = await tsenv.choose(repo, config, which=typescript, need=tsenv.MOVE_NEEDS if op == "move" else (0, 0),
                            consent=consent, announce=lambda what: progress("running", what))
    progress("checking", "copying the work tree")
    scratch = await asyncio.to_thread(tsscratch.make, repo, list(config.sandbox.mask))
    try:
        request = _request(op, args, scratch)
        shutil.copyfile(DRIVER, scratch.top / "tsdriver.js")
        result_path = scratch.top / "result.json"
        tsconfig = _tsconfig(scratch)
        body = {"typescript": str(ts.module), "root": str(scratch.work), "files": scratch.sources, "op": op,
                "args": request, "tsconfig": tsconfig, "result": str(result_path)}
        (scratch.top / "request.json").write_text(json.dumps(body), encoding="utf-8")
        sandbox = Sandbox(scratch.top, config, read_only=(str(repo), str(ts.package), *map(str, scratch.node_modules)))
        progress("checking", f"TypeScript {ts.version}: {op}")
        run = await sandbox.run([node, f"--max-old-space-size={HEAP_MB}", str(scratch.top / "tsdriver.js"),
                                 str(scratch.top / "request.json")], timeout=DRIVER_TIMEOUT,
                                idle_timeout=DRIVER_TIMEOUT, cwd=scratch.work)
        result = _read_result(result_path)
        if not result:
            why = run.killed or f"exit {run.exit_code}"
            tail = " | ".join(run.output.strip().splitlines()[-3:])
            raise RefactorError(f"the TypeScript engine did not answer ({why}): {tail}",
                                "It runs in the sandbox with a time and memory limit; a very large project may need "
                                "the refactoring done in one package at a time.")
        if not result.get("ok"):
            raise RefactorError(str(result.get("error") or "the TypeScript engine failed"), str(result.get("hint") or ""))
        changes = _changes(repo, result, "changes", {})
        if not changes:
            raise RefactorError(f"{op}: the engine found nothing to change", "Check the name and --in PATH.")
        after = {c.path: c.after for c in changes}
        optional = _changes(repo, result, "optional", after)
        if op == "rename" and not request["module"]:
            optional += prose_changes(repo, scratch.files, request["name"].split(".")[-1], request["new_name"],
                                      {c.path for c in changes} | {c.path for c in optional})
        unhandled = [str(u) for u in result.get("unhandled") or []]
        unhandled += [s for s in scratch.skipped if s.split(":", 1)[0].endswith(tsscratch.SOURCE_SUFFIXES)]
        engine = f"TypeScript {ts.version} language service ({'the project' if ts.source == 'project' else 'devagent'}'s)"
        outcome = Outcome(op, engine, _summary(op, request, changes, int(result.get("places") or 0)), changes,  # type: ignore[arg-type]
                          optional, unhandled)
        parse = result.get("parse") or []
        outcome.checks.append(Check("parse", not parse, "; ".join(f"{p.get('path')}:{p.get('line')}: {p.get('message')}"
                                                                 for p in parse[:5]) or f"{len(changes)} files parse"))
        if checks:
            for change in changes:
                scratch.write(change.path, change.after)
            if tsconfig and ts.source == "project" and tsconfig == "tsconfig.json":
                progress("checking", "tsc --noEmit")
                outcome.checks.append(await tscheck.tsc(sandbox, scratch, ts, node, tsconfig, changes))
            if tests:
                progress("testing", "the project's tests")
                found = await tscheck.tests(sandbox, scratch, config, changes)
                if found is not None:
                    outcome.checks.append(found)
        return outcome
    finally:
        await asyncio.to_thread(scratch.close)


def run(op: str, repo: Path, **args: Any) -> Outcome:
    """``run_async`` for callers without an event loop (a worker thread, the command line)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run_async(op, repo, **args))
    raise RefactorError("tui.refactor.ts.run was called inside an event loop", "Await run_async there instead.")

