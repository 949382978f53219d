"""Find how a repo runs its tests: pytest, package.json scripts, go, cargo, make, or the config override."""

from __future__ import annotations

import configparser
import json
import os
import re
import shlex
import subprocess
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

from tui.git.facade import GitRepo
from tui.safety.parsing import TooDeep, loads_json, loads_toml
from tui.safety.paths import read_regular
from tui.protocol.errors import ToolError
from tui.testing.model import Suite
from tui.testing.pysuite import python_suite

if TYPE_CHECKING:
    from tui.config import Config

MARKERS = ("pyproject.toml", "setup.cfg", "pytest.ini", "tox.ini", "package.json", "go.mod", "Cargo.toml", "Makefile",
           "noxfile.py")
_ROOT_TESTS = re.compile(r"^(?:tests?/(?:[^/]+/)*)?(test_[^/]*|[^/]*_test)\.py$")
_PACKAGE_TESTS = re.compile(r"^([A-Za-z_]\w*)/tests?/(?:[^/]+/)*(?:test_[^/]*|[^/]*_test)\.py$")


def has_python_tests(entries: list[str]) -> bool:
    """test_*.py files at the root, in tests/ (any depth), or in a package's own tests/ (toolz/tests/test_x.py,
    toolz being a package: toolz/__init__.py)."""
    known = set(entries)
    return any(_ROOT_TESTS.search(e) or ((m := _PACKAGE_TESTS.match(e)) and f"{m.group(1)}/__init__.py" in known)
               for e in entries)
SKIP_DIRS = {"node_modules", ".venv", "venv", "vendor", "dist", "build", "target", ".git", "__pycache__"}
MAX_DEPTH = 3
PROJECT_FILE_LIMIT = 2_000_000  # bytes of a package.json, pyproject.toml... read
NPM_DEFAULT_TEST = 'echo "Error: no test specified" && exit 1'
SHELL_OPS = re.compile(r"[;&|<>`$()]")


def list_files(repo: Path) -> list[str]:
    """Tracked and untracked-but-not-ignored files (fixtures and new projects may not be committed yet)."""
    try:
        out = GitRepo(repo, timeout=30).run("ls-files", "-co", "--exclude-standard", "-z")
    except (OSError, subprocess.TimeoutExpired):
        return []
    if out.returncode != 0:
        return []
    return [p for p in out.stdout.decode("utf-8", "replace").split("\0") if p]


def _read(path: Path) -> str:
    """A project file's text; "" when missing, a symlink, not a regular file (a FIFO would block) or unreadable."""
    try:
        return read_regular(path, PROJECT_FILE_LIMIT, follow=False).decode("utf-8", "replace")
    except OSError:
        return ""


def _where(prefix: str, name: str) -> str:
    """A project file's path in the repo from its suite prefix (``web:`` -> ``web/package.json``)."""
    return f"{prefix[:-1]}/{name}" if prefix else name


def _pytest_source(d: Path, names: set[str], files_in_dir: list[str], prefix: str = "") -> str:
    if "pytest.ini" in names:
        return "pytest.ini"
    if "pyproject.toml" in names:
        try:
            data = loads_toml(_read(d / "pyproject.toml"), _where(prefix, "pyproject.toml"))
        except tomllib.TOMLDecodeError:
            data = {}
        tool = data.get("tool")
        if isinstance(tool, dict) and "pytest" in tool:
            return "pyproject.toml [tool.pytest.ini_options]"
    for name, section in (("setup.cfg", "tool:pytest"), ("tox.ini", "pytest")):
        if name in names:
            parser = configparser.ConfigParser(interpolation=None)
            try:
                parser.read_string(_read(d / name))
            except configparser.Error:
                continue
            if parser.has_section(section):
                return f"{name} [{section}]"
    if has_python_tests(files_in_dir):
        return "test_*.py files"
    return ""


LOCK_FILES = (("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("bun.lockb", "bun"), ("bun.lock", "bun"),
              ("package-lock.json", "npm"), ("npm-shrinkwrap.json", "npm"))


def _named_manager(d: Path, repo: Path, pkg: dict[str, object]) -> tuple[str, str]:
    """(the package manager the project names, where it says so): package.json's ``packageManager`` field
    (corepack's), else the nearest lock file up to the repo's root; npm when nothing says."""
    field = pkg.get("packageManager")
    if isinstance(field, str) and field.split("@", 1)[0] in ("npm", "pnpm", "yarn", "bun"):
        return field.split("@", 1)[0], f"packageManager {field}"
    cur = d
    while True:
        for lock, manager in LOCK_FILES:
            if (cur / lock).exists():
                rel = (cur / lock).relative_to(repo).as_posix() if cur != d else lock
                return manager, rel
        if cur == repo or cur.parent == cur:
            return "npm", ""
        cur = cur.parent


def choose_manager(d: Path, repo: Path, pkg: dict[str, object], script: str) -> tuple[str, str, str]:
    """(the manager that runs the scripts, one line saying which and why, why none can: "" when one can).

    The one the project names when it is installed here; else npm, which runs the same package.json scripts
    with node_modules/.bin on PATH, unless the scripts themselves call the missing one, or the project keeps
    no node_modules (Yarn Plug'n'Play): then nothing here can run them, and that is said before anything runs."""
    from tui.safety.hostpath import which

    named, where = _named_manager(d, repo, pkg)
    said = f" ({where})" if where else ""
    if named == "npm" or which(named):
        return named, f"runner: {named}{said}", ""
    calls_it = re.search(rf"(?<![\w.-]){re.escape(named)}(?![\w.-])", script)
    plug_n_play = named == "yarn" and any((d / f).exists() for f in (".pnp.cjs", ".pnp.js"))
    if calls_it or plug_n_play or not which("npm"):
        why = (f"its test script calls {named}" if calls_it else
               "it uses Yarn Plug'n'Play (.pnp.cjs, no node_modules), which npm cannot run" if plug_n_play else
               "npm is not installed either")
        return named, f"runner: {named}{said}", f"{named} is not installed here and {why}"
    return "npm", (f"runner: npm, because the project names {named}{said} and {named} is not installed here; "
                   "npm runs the same package.json scripts"), ""


def js_kind(script: str) -> str:
    words = shlex.split(script) if not SHELL_OPS.search(script) else script.split()
    if "vitest" in words or any(w.endswith("/vitest") for w in words):
        return "vitest"
    if "jest" in words or any(w.endswith("/jest") for w in words):
        return "jest"
    if "mocha" in words or any(w.endswith("/mocha") for w in words):
        return "mocha"
    if "node" in words and "--test" in words:
        return "node"
    return "npm"


def _node_suite(d: Path, repo: Path, prefix: str) -> Suite | None:
    try:
        pkg = loads_json(_read(d / "package.json") or "{}", _where(prefix, "package.json"))
    except json.JSONDecodeError:
        return None
    script = (pkg.get("scripts") or {}).get("test") if isinstance(pkg, dict) else None
    if not isinstance(script, str) or not script.strip() or script.strip() == NPM_DEFAULT_TEST:
        return None
    unwrapped = without_missing_wrapper(d, pkg, script)
    if unwrapped is not None:
        argv, wrapper, inner = unwrapped
        return Suite(prefix + js_kind(inner), js_kind(inner), d, argv, f"package.json scripts.test: {script}", "npm",
                     interpreter=f"runner: {argv[0]} ({wrapper}, the coverage tool the test script wraps it in, is not "
                                 "installed: the tests run without it)")
    kind = js_kind(script)
    words = shlex.split(script) if not SHELL_OPS.search(script) else []
    if kind == "node" and words[:1] == ["node"]:  # run node directly so the reporter flag lands where node reads it
        return Suite(prefix + kind, kind, d, words, f"package.json scripts.test: {script}", "npm",
                     interpreter="runner: node (the test script runs node --test)")
    manager, line, missing = choose_manager(d, repo, pkg, script)
    kind = "npm" if kind == "node" else kind  # node behind env vars or a wrapper: parse what it prints
    return Suite(prefix + kind, kind, d, [manager, "test"], f"package.json scripts.test: {script}", manager,
                 interpreter=line, missing=missing)


COVERAGE_WRAPPERS = ("nyc", "c8")


def without_missing_wrapper(d: Path, pkg: dict, script: str) -> tuple[list[str], str, str] | None:
    """(the command the test script runs inside its coverage tool, the tool, that command as text) when the
    script, through ``npm run`` steps, is a coverage tool (nyc, c8) that is not installed around a runner that is
    (``nyc tape 'test/**/*.js'`` with tape in node_modules/.bin): the tests can run, only their coverage cannot."""
    scripts = pkg.get("scripts") or {}
    for _ in range(3):
        step = re.fullmatch(r"\s*npm run (?:--silent |-s )?([\w:.-]+)\s*", script)
        if not step or not isinstance(scripts.get(step.group(1)), str):
            break
        script = scripts[step.group(1)]
    if SHELL_OPS.search(script):
        return None
    try:
        words = shlex.split(script)
    except ValueError:
        return None
    bin_dir = d / "node_modules" / ".bin"
    if len(words) < 2 or words[0] not in COVERAGE_WRAPPERS or (bin_dir / words[0]).exists():
        return None
    rest = words[1:]
    while rest and rest[0].startswith("-"):  # the wrapper's own options (--reporter=text)
        rest = rest[1:]
    if not rest or "/" in rest[0] or not (bin_dir / rest[0]).is_file():
        return None
    return [f"./node_modules/.bin/{rest[0]}", *rest[1:]], words[0], " ".join(rest)


def _has_make_test(d: Path) -> bool:
    return bool(re.search(r"^test\s*:", _read(d / "Makefile"), re.M))


def _fallback(d: Path, names: set[str], prefix: str) -> Suite | None:
    """A Makefile test target, tox or nox: only when nothing more specific was found in that directory."""
    if "Makefile" in names and _has_make_test(d):
        return Suite(prefix + "make", "make", d, ["make", "test"], "Makefile test target")
    if "tox.ini" in names and re.search(r"^\[(tox|testenv)[^\]]*\]", _read(d / "tox.ini"), re.M):
        return Suite(prefix + "tox", "tox", d, ["tox"], "tox.ini")
    if "noxfile.py" in names:
        return Suite(prefix + "nox", "nox", d, ["nox"], "noxfile.py")
    return None


def _suites_in(d: Path, repo: Path, names: set[str], files_in_dir: list[str], cargo_workspace: bool,
               config: "Config | None" = None) -> list[Suite]:
    rel = d.relative_to(repo).as_posix()
    prefix = "" if rel == "." else f"{rel}:"
    found: list[Suite] = []
    source = _pytest_source(d, names, files_in_dir, prefix)
    if source:
        found.append(python_suite(d, repo, prefix, source, files_in_dir, config))
    if "package.json" in names:
        suite = _node_suite(d, repo, prefix)
        if suite:
            found.append(suite)
    if "go.mod" in names:
        found.append(Suite(prefix + "go", "go", d, ["go", "test", "./..."], "go.mod"))
    if "Cargo.toml" in names and not cargo_workspace:
        found.append(Suite(prefix + "cargo", "cargo", d, ["cargo", "test"], "Cargo.toml"))
    fallback = None if found else _fallback(d, names, prefix)
    return found + ([fallback] if fallback else [])


def guess_kind(command: str) -> str:
    words = command.split()
    if "pytest" in words or "pytest" in command.replace("-m pytest", "pytest").split():
        return "pytest"
    if "go" in words and "test" in words:
        return "go"
    if "cargo" in words and "test" in words:
        return "cargo"
    return js_kind(command) if command else "custom"


def override_suite(repo: Path, command: str) -> Suite:
    kind = guess_kind(command)
    if SHELL_OPS.search(command):
        return Suite("custom", "custom" if kind == "npm" else kind, repo, [command], "config tests.command", shell=True)
    return Suite("custom", "custom" if kind == "npm" else kind, repo, shlex.split(command), "config tests.command")


def detect_suites(repo: Path, config: "Config | None" = None) -> list[Suite]:
    """Every suite in the repo, root first. ``config.tests.command`` replaces detection entirely."""
    repo = Path(os.path.realpath(repo))
    if config is not None and config.tests.command.strip():
        return [override_suite(repo, config.tests.command.strip())]
    by_dir: dict[str, list[str]] = {}
    for path in list_files(repo):
        parts = path.split("/")
        if any(p in SKIP_DIRS for p in parts[:-1]):
            continue
        for depth in range(0, min(len(parts) - 1, MAX_DEPTH) + 1):
            by_dir.setdefault("/".join(parts[:depth]), []).append("/".join(parts[depth:]))
    suites: list[Suite] = []
    too_deep: list[TooDeep] = []
    workspace_roots: list[str] = []
    for rel in sorted(by_dir, key=lambda r: (r.count("/") + bool(r), r)):
        entries = by_dir[rel]
        names = {e for e in entries if "/" not in e and e in MARKERS}
        if not names and not (rel == "" and has_python_tests(entries)):
            continue  # root test_*.py files (or a tests/ dir of them) are a pytest suite even without config
        d = repo / rel if rel else repo
        in_workspace = any(rel.startswith(w + "/") or (w == "" and rel) for w in workspace_roots)
        if "Cargo.toml" in names and "[workspace]" in _read(d / "Cargo.toml"):
            workspace_roots.append(rel)
        try:
            suites.extend(_suites_in(d, repo, names, entries, in_workspace, config))
        except TooDeep as exc:  # every such file is named, then nothing runs on a guess
            too_deep.append(exc)
    if too_deep:
        raise ToolError("Test detection stopped: " + "; ".join(e.message for e in too_deep) + ".", too_deep[0].hint)
    return suites


def pick_suite(suites: list[Suite], name: str) -> Suite | None:
    for suite in suites:
        if name in (suite.name, suite.kind) or name.rstrip("/") == suite.name.split(":")[0]:
            return suite
    return None


def suite_for_path(suites: list[Suite], repo: Path, selection: str) -> Suite | None:
    """The suite whose directory holds the file a selection names (the deepest one), if any."""
    head = selection.split("::", 1)[0]
    if not head or not (repo / head).exists():
        return None
    target = (repo / head).resolve()
    holders = [s for s in suites if target == s.cwd or s.cwd in target.parents]
    return max(holders, key=lambda s: len(s.cwd.parts)) if holders else None


def choose_suite(suites: list[Suite], name: str, selection: str = "", repo: Path | None = None) -> Suite:
    """The named suite, the one holding the selected file, or the only one; else an error listing them."""
    if not suites:
        raise ToolError("no test suite found in this repository",
                        "Set tests.command in .devagent.toml, e.g. command = \"pytest -q\".")
    if name:
        suite = pick_suite(suites, name)
        if suite is None:
            raise ToolError(f"no test suite named {name!r}", "Suites: " + ", ".join(s.name for s in suites))
        return suite
    by_path = suite_for_path(suites, repo, selection) if repo is not None and selection else None
    if by_path is not None:
        return by_path
    if len(suites) > 1:
        raise ToolError("this repository has several test suites: " + ", ".join(s.name for s in suites),
                        "Pass suite=NAME.")
    return suites[0]
