"""The Python operations as the worker runs them on the throwaway copy: rename, move, signature, extract.

Each returns a plain dict (it crosses a process boundary as JSON): ``summary``, ``unhandled`` (path:line: why),
``optional`` ({path: text} of the prose part, not written to the copy), ``checks`` and ``reexports``. The files of
the copy are the exact part; the parent reads them back (tui/refactor/scratch.py).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path
from typing import Any

from tui.refactor import pyfind, pymove, pyrope, pysig, pytext
from tui.refactor.pyfind import IDENT, Target
from tui.safety.parsing import parse_python


class OpError(Exception):
    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


def _identifier(name: str, what: str) -> str:
    import keyword

    if not IDENT.match(name or "") or keyword.iskeyword(name):
        raise OpError(f"{name!r} is not a valid Python name for {what}")
    return name


def _all_files(root: Path, skip: set[str]) -> list[str]:
    found = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(p in pyfind.SKIP_DIRS for p in rel.parts[:-1]) or path.is_symlink() or not path.is_file():
            continue
        if rel.as_posix() not in skip:
            found.append(rel.as_posix())
    return found


def _flakes(text: str, rel: str, rename: tuple[str, str] = ("", "")) -> list[tuple[tuple[str, ...], int, str]]:
    """pyflakes' findings as (kind and names, line, message); nothing is run, the text is only parsed. With
    ``rename`` (old, new) the old name reads as the new one, so a finding that only changed names is the same."""
    from pyflakes import checker

    try:
        tree = parse_python(text, rel)
        found = checker.Checker(tree, filename=rel).messages
    except (SyntaxError, ValueError):
        return []
    except (RecursionError, MemoryError):
        return [(("unanalysable",), 0, "too deeply nested to check")]
    old, new = rename
    result = []
    for message in found:
        names = tuple(re.sub(rf"\b{re.escape(old)}\b", new, str(a)) if old else str(a) for a in message.message_args)
        result.append(((type(message).__name__, *names), message.lineno, message.message % message.message_args))
    return result


def _checks(root: Path, before: dict[str, str], reexports: list[str],
            rename: tuple[str, str] = ("", "")) -> list[dict[str, Any]]:
    """parse: every changed Python file still parses; pyflakes: no new undefined name, unused or broken import."""
    changed = [rel for rel in pyfind.python_files(root, set()) if pytext.read(root / rel) != before.get(rel)]
    broken, new = [], []
    exempt = {tuple(r.rsplit(":", 1)) for r in reexports}
    for rel in changed:
        text = pytext.read(root / rel)
        try:
            parse_python(text, rel, limit=None)
        except (SyntaxError, ValueError) as err:
            broken.append(f"{rel}:{getattr(err, 'lineno', 0)}: {getattr(err, 'msg', err)}")
            continue
        except RecursionError:
            broken.append(f"{rel}: too deeply nested to parse")
            continue
        if not rel.endswith(".py"):
            continue
        was = rel if rel in before else re.sub(rf"\b{re.escape(rename[1])}(?=(?:\.pyi?)?$|/)", rename[0], rel) \
            if rename[0] else rel
        old = Counter(kind for kind, _, _ in _flakes(before[was], rel, rename)) if was in before else Counter()
        for kind, line, message in _flakes(text, rel):
            if old[kind] > 0:
                old[kind] -= 1
                continue
            if any(rel == path and re.search(rf"'[\w.]*\b{re.escape(name)}' imported but unused", message)
                   for path, name in exempt):
                continue  # the re-export the move added on purpose
            new.append(f"{rel}:{line}: {message}")
    checks = [{"name": "parse", "ok": not broken,
               "detail": "; ".join(broken[:5]) or f"{len(changed)} changed Python file(s) parse"}]
    checks.append({"name": "pyflakes", "ok": not new,
                   "detail": "; ".join(new[:5]) + (f" (+{len(new) - 5} more)" if len(new) > 5 else "")
                   or "no new undefined names or import problems"})
    return checks


def _collision(root: Path, files: list[str], target: Target, new: str) -> None:
    if target.kind in ("module", "package"):
        base = target.path.rsplit("/", 1)[0] if "/" in target.path else ""
        for candidate in (f"{base}/{new}.py" if base else f"{new}.py", f"{base}/{new}" if base else new):
            if (root / candidate).exists():
                raise OpError(f"{candidate} already exists; renaming {target.module} to {new} would clash with it")
        return
    tree = pyfind.parse(root, target.path)
    if tree is None:
        return
    scope = target.qualname.rsplit(".", 1)[0] if "." in target.qualname else ""
    clashing = [t for t in pyfind.definitions(root, target.path, []) if t.qualname == (f"{scope}.{new}" if scope
                                                                                         else new)]
    if clashing:
        raise OpError(f"{new} is already defined at {clashing[0].where()}; the rename would make the two one name",
                      "Pick another new name, or rename the other definition first.")
    if target.kind in ("function", "class", "variable"):
        for rel in files:
            text = pytext.read(root / rel)
            if target.name not in text or new not in text or rel == target.path:
                continue
            other = pyfind.parse(root, rel)
            if other is not None and {target.name, new} <= pytext.bound(other):
                raise OpError(f"{rel} already has a name {new} besides {target.name}; after the rename the two "
                              "would clash there", "Pick another new name.")


def rename(root: Path, args: dict[str, Any], skip: set[str]) -> dict[str, Any]:
    files = pyfind.python_files(root, skip)
    project = pyrope.open_project(root, sorted(skip))
    roots = [f.path for f in project.get_source_folders()]
    target = _find(root, files, roots, str(args.get("name", "")), str(args.get("within", "")))
    new = _identifier(str(args.get("new_name", "")).strip(), "the new name")
    if new == target.name:
        raise OpError(f"{target.name} is already called {new}")
    _collision(root, files, target, new)
    before = {rel: pytext.read(root / rel) for rel in files}
    unsure: list[str] = []
    description = pyrope.rename(project, target, new, unsure)
    old = target.name
    stub = target.path[:-3] + ".pyi" if target.path.endswith(".py") else ""
    if target.kind in ("module", "package"):
        if stub and (root / stub).is_file():
            (root / stub).rename(root / (stub.rsplit("/", 1)[0] + "/" + new + ".pyi" if "/" in stub else new + ".pyi"))
    elif stub and (root / stub).is_file():
        for twin in pyfind.definitions(root, stub, roots):
            if twin.qualname == target.qualname and twin.kind == target.kind:
                pyrope.rename(pyrope.open_project(root, sorted(skip)), twin, new, unsure)
                break
    files = pyfind.python_files(root, skip)
    top = target.kind in ("function", "class", "variable", "module", "package")
    if top:
        pytext.rename_in_all(root, files, old, new)
    changed = [rel for rel in files if pytext.read(root / rel) != before.get(rel)]
    owner = target.qualname.rsplit(".", 1)[0].rsplit(".", 1)[-1] if target.kind in ("method", "attribute") else ""
    if top or owner:
        pytext.rename_in_doctests(root, sorted(set(changed) | {target.path if target.path.endswith(".py") else
                                                                target.path + "/__init__.py"}), old, new, owner)
    unhandled = unsure + pytext.dynamic_uses(root, files, old)
    if top and target.kind not in ("module", "package"):
        unhandled += pytext.star_users(root, files, target.module, old)
        unhandled += pymove.stale_imports(root, files, target.module, old)
    if target.kind in ("parameter", "local"):
        optional: dict[str, str] = {}
    elif target.kind in ("module", "package"):  # a module's bare name is often a common word: only its paths
        dotted = target.module.rsplit(".", 1)[0] + "." + new if "." in target.module else new
        slashed = target.path.rsplit("/", 1)[0] + "/" + new if "/" in target.path else new
        optional = pytext.mentions(root, _all_files(root, skip), rf"(?<![\w.]){re.escape(target.module)}(?![\w])",
                                   dotted, ((rf"(?<![\w/.]){re.escape(target.path.removesuffix('.py'))}(?=\.py|/)",
                                             slashed),))
    elif owner:
        optional = pytext.mentions(root, _all_files(root, skip), rf"\b{re.escape(owner)}\.{re.escape(old)}\b",
                                   f"{owner}.{new}")
    else:
        optional = pytext.mentions(root, _all_files(root, skip), rf"(?<![\w]){re.escape(old)}(?![\w])", new)
    changed = [rel for rel in pyfind.python_files(root, skip) if pytext.read(root / rel) != before.get(rel)]
    what = f"{target.kind} {target.module}{'.' + target.qualname if target.qualname else ''}"
    return {"summary": f"rename {what} -> {new}", "detail": description, "unhandled": unhandled,
            "optional": optional, "checks": _checks(root, before, [], (old, new)), "target": target.where(),
            "files": changed}


def _find(root: Path, files: list[str], roots: list[str], name: str, within: str,
          kinds: tuple[str, ...] = ()) -> Target:
    try:
        return pyfind.find(root, files, roots, name, within, kinds)
    except pyfind.FindError as err:
        raise OpError(str(err)) from None


def _destination(root: Path, files: list[str], roots: list[str], target: Target, to: str) -> str:
    to = to.strip().strip("/")
    if not to:
        raise OpError("give the module to move to (a path such as pkg/helpers.py or a dotted name pkg.helpers)")
    if to.endswith(".py"):
        rel = to
    else:
        if not all(IDENT.match(p) for p in to.split(".")):
            raise OpError(f"{to!r} is neither a .py path nor a dotted module name")
        known = {pyfind.module_name(f, roots): f for f in files if f.endswith(".py")}
        if to in known:
            rel = known[to]
        else:
            prefix = target.path[: -len(target.module.replace(".", "/") + ".py")] if target.path.endswith(
                target.module.replace(".", "/") + ".py") else ""
            rel = prefix + to.replace(".", "/") + ".py"
    if rel == target.path:
        raise OpError(f"{target.name} is already in {rel}")
    parent = (root / rel).parent
    if not parent.is_dir():
        raise OpError(f"{parent.relative_to(root)}/ does not exist; create the package first, then move into it")
    return rel


def move(root: Path, args: dict[str, Any], skip: set[str]) -> dict[str, Any]:
    files = pyfind.python_files(root, skip)
    project = pyrope.open_project(root, sorted(skip))
    roots = [f.path for f in project.get_source_folders()]
    target = _find(root, files, roots, str(args.get("name", "")), str(args.get("within", "")),
                   ("function", "class", "variable"))
    dest = _destination(root, files, roots, target, str(args.get("to_module", "")))
    tree = pyfind.parse(root, target.path)
    if tree is None:
        raise OpError(f"{target.path} does not parse")
    was_public = pymove.public(tree, target.name)
    existed = (root / dest).exists()
    before = {rel: pytext.read(root / rel) for rel in files}
    description = pyrope.move(project, target, dest)
    new_module = pyrope.module_of(project, dest)
    pymove.restore_imports(root, target.path, before.get(target.path))
    if existed:
        pymove.restore_imports(root, dest, before.get(dest))
    reexports, unhandled = pymove.after_move(root, target.path, dest, new_module, target.name, was_public,
                                             target.module, before.get(dest))
    files = pyfind.python_files(root, skip)
    pymove.merge_imports(root, files, target.name, target.module, new_module)
    pymove.rewrap_imports(root, before, files)
    unhandled += pytext.dynamic_uses(root, files, target.name) + pytext.star_users(root, files, target.module,
                                                                                    target.name)
    old_tree = pyfind.parse(root, target.path)
    if old_tree is not None and target.name not in pytext.bound(old_tree) and \
            re.search(rf">>> .*\b{re.escape(target.name)}\b", pytext.read(root / target.path)):
        unhandled.append(f"{target.path}: doctest examples here use {target.name}, which this module no longer has")
    optional = pytext.mentions(root, _all_files(root, skip),
                               rf"\b{re.escape(target.module)}\.{re.escape(target.name)}\b",
                               f"{new_module}.{target.name}")
    return {"summary": f"move {target.kind} {target.name} from {target.path} to {dest}"
                       + ("" if existed else " (new module)"),
            "detail": description, "unhandled": unhandled, "optional": optional, "reexports": reexports,
            "checks": _checks(root, before, reexports), "target": target.where(), "files": []}


def signature(root: Path, args: dict[str, Any], skip: set[str]) -> dict[str, Any]:
    files = pyfind.python_files(root, skip)
    project = pyrope.open_project(root, sorted(skip))
    roots = [f.path for f in project.get_source_folders()]
    target = _find(root, files, roots, str(args.get("name", "")), str(args.get("within", "")),
                   ("function", "method"))
    how = "add" if args.get("add") else "default" if args.get("default") else ""
    if not how:
        raise OpError("say what to change: add=PARAM=DEFAULT or default=PARAM=VALUE")
    try:
        param, value = pysig.parse_assignment(str(args.get(how)))
        before = {rel: pytext.read(root / rel) for rel in files}
        pysig.change(root, target.path, target.qualname, how, param, value, bool(args.get("keyword_only")))
        stub = target.path[:-3] + ".pyi"
        if (root / stub).is_file():
            pysig.change(root, stub, target.qualname, how, param, value, bool(args.get("keyword_only")), stub=True)
    except pysig.SignatureError as err:
        raise OpError(str(err)) from None
    unhandled = pysig.overrides(root, files, target) if how == "add" else []
    what = f"add parameter {param}={value} to" if how == "add" else f"default of {param} -> {value} in"
    return {"summary": f"{what} {target.kind} {target.module}.{target.qualname}", "detail": "",
            "unhandled": unhandled, "optional": {}, "checks": _checks(root, before, []), "target": target.where(),
            "engine": "LibCST", "files": []}


def extract(root: Path, args: dict[str, Any], skip: set[str]) -> dict[str, Any]:
    files = pyfind.python_files(root, skip)
    rel = str(args.get("path", "")).strip().strip("/")
    if rel not in files:
        raise OpError(f"{rel or '(no path)'} is not a Python file of the repository")
    new = _identifier(str(args.get("new_name", "")).strip(), "the new function")
    try:
        start, end = int(args.get("start", 0)), int(args.get("end", 0))
    except (TypeError, ValueError):
        raise OpError("start and end are line numbers") from None
    tree = pyfind.parse(root, rel)
    if tree is None:
        raise OpError(f"{rel} does not parse")
    if new in pytext.bound(tree):
        raise OpError(f"{rel} already has a name {new}")
    before = {f: pytext.read(root / f) for f in files}
    project = pyrope.open_project(root, sorted(skip))
    try:
        description = pyrope.extract(project, rel, start, end, new)
    except ValueError as err:
        raise OpError(str(err)) from None
    return {"summary": f"extract lines {start}-{end} of {rel} into {new}", "detail": description, "unhandled": [],
            "optional": {}, "checks": _checks(root, before, []), "target": f"{rel}:{start}", "files": []}


OPERATIONS = {"rename": rename, "move": move, "signature": signature, "extract": extract}


def run(root: Path, op: str, args: dict[str, Any], skip: list[str]) -> dict[str, Any]:
    if op not in OPERATIONS:
        raise OpError(f"no Python operation {op!r}", "Operations: " + ", ".join(OPERATIONS))
    from rope.base.exceptions import RefactoringError, RopeError

    try:
        answer = OPERATIONS[op](root, args, set(skip))
    except (RefactoringError, RopeError) as err:
        raise OpError(f"rope refused: {err}", "Nothing was changed.") from None
    answer["ok"] = True
    return answer
