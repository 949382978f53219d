"""Which TypeScript compiler the refactoring engine loads, and node to run it with.

The project's own ``node_modules/typescript`` when it has one (inside the work tree, no symlink out); otherwise
devagent's pinned copy in its cache, installed on first use only with the developer's consent: ``npm ci`` of the
lock file shipped beside this module (the integrity hash pins the tarball), run in the sandbox with the network on for
that one command, into a fresh directory renamed into place when it succeeded.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from tui.protocol.errors import PathRefused
from tui.refactor.base import RefactorError
from tui.safety import hostpath
from tui.safety.parsing import loads_json
from tui.safety.paths import read_bounded

if TYPE_CHECKING:
    from tui.config import Config

PINNED_VERSION = "5.9.3"  # the last 5.x; 6.0 changes defaults (strict, types: []), 7 has no JavaScript API
LOCK_DIR = Path(__file__).with_name("tslock")
INSTALL_TIMEOUT = 300.0
MOVE_NEEDS = (5, 2)  # "Move to file" came with TypeScript 5.2


@dataclass(frozen=True)
class TypeScript:
    package: Path  # the typescript package directory
    version: str
    source: str  # "project" | "pinned"

    @property
    def module(self) -> Path:
        return self.package / "lib" / "typescript.js"

    @property
    def tsc(self) -> Path:
        return self.package / "lib" / "tsc.js"

    def at_least(self, need: tuple[int, int]) -> bool:
        try:
            major, minor = (int(p) for p in self.version.split(".")[:2])
        except ValueError:
            return False
        return (major, minor) >= need


def node() -> str:
    """The node on the developer's PATH (never one inside a repository); RefactorError when there is none."""
    found = hostpath.which("node")
    if not found:
        raise RefactorError("node is not installed: the TypeScript/JavaScript refactorings run the TypeScript compiler "
                            "with node", "Install Node.js (apt-get install nodejs), then try again.")
    return str(Path(found).resolve())


def _version(data: bytes) -> str:
    try:
        meta = loads_json(data, "typescript's package.json")
    except ValueError:
        return ""
    version = meta.get("version") if isinstance(meta, dict) and meta.get("name") == "typescript" else ""
    return version if isinstance(version, str) else ""


def project_typescript(repo: Path) -> TypeScript | None:
    """The project's own typescript package, read as data (a symlink out of the tree or a FIFO is not used)."""
    rel = "node_modules/typescript"
    try:
        data, size = read_bounded(repo, f"{rel}/package.json", 200_000)
        package = Path(os.path.realpath(repo / rel))
        lib, _ = read_bounded(repo, f"{rel}/lib/typescript.js", 1)
    except (OSError, PathRefused):
        return None
    version = _version(data) if size <= 200_000 and lib is not None else ""
    return TypeScript(package, version, "project") if version else None


def cache_root() -> Path:
    """$DEVAGENT_TS_CACHE, else $XDG_CACHE_HOME/devagent/typescript (~/.cache/devagent/typescript)."""
    base = os.environ.get("DEVAGENT_TS_CACHE")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "devagent" / "typescript"


def pinned_typescript() -> TypeScript | None:
    """devagent's pinned copy when it is installed (its package.json says the pinned version)."""
    package = cache_root() / PINNED_VERSION / "node_modules" / "typescript"
    try:
        data = (package / "package.json").read_bytes()
    except OSError:
        return None
    if _version(data) != PINNED_VERSION or not (package / "lib" / "typescript.js").is_file():
        return None
    return TypeScript(package, PINNED_VERSION, "pinned")


def _what() -> str:
    return (f"typescript {PINNED_VERSION} (about 23 MB, from the npm registry, checked against the sha512 in devagent's "
            f"lock file) into {cache_root() / PINNED_VERSION}")


def install_message() -> str:
    """What the developer is asked before the pinned compiler is downloaded: plainly what, from where, to where."""
    return (f"This project has no TypeScript compiler in node_modules. devagent's TypeScript/JavaScript refactorings "
            f"need one: install {_what()}? It runs `npm ci` in the sandbox with the network on for that one command; "
            "nothing is written to your project.")


async def install_pinned(config: "Config", on_output: Callable[[str], None] | None = None) -> TypeScript:
    """``npm ci`` of devagent's lock file in the sandbox (network on), into the cache. Call only after consent."""
    from tui.sandbox.runner import Sandbox

    npm = hostpath.which("npm")
    if not npm:
        raise RefactorError("npm is not installed, so devagent cannot install its TypeScript compiler",
                            "Install npm (apt-get install npm), or add typescript to the project's devDependencies.")
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{PINNED_VERSION}-", dir=root))
    try:
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(LOCK_DIR / name, work / name)
        argv = [str(Path(npm).resolve()), "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error",
                "--update-notifier=false", f"--cache={work / '.npm-cache'}"]
        result = await Sandbox(work, config).run(argv, timeout=INSTALL_TIMEOUT, idle_timeout=INSTALL_TIMEOUT,
                                                 network=True, on_output=on_output)
        if result.exit_code != 0:
            tail = " | ".join(result.output.strip().splitlines()[-3:])
            raise RefactorError(f"installing typescript {PINNED_VERSION} failed ({result.killed or result.exit_code}): "
                                f"{tail}", "Check the network and npm's registry settings, or add typescript to "
                                "the project's devDependencies.")
        shutil.rmtree(work / ".npm-cache", ignore_errors=True)
        target = root / PINNED_VERSION
        if target.exists():
            shutil.rmtree(target)
        os.replace(work, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    found = pinned_typescript()
    if found is None:
        raise RefactorError(f"npm ci finished but typescript {PINNED_VERSION} is not in {root / PINNED_VERSION}")
    return found


async def choose(repo: Path, config: "Config", *, which: str = "auto", need: tuple[int, int] = (0, 0),
                 consent: Callable[[str], bool] | None = None,
                 announce: Callable[[str], None] | None = None) -> TypeScript:
    """The compiler for an operation: the project's (if new enough), else the pinned one (installed only when
    ``consent(install_message())`` says yes; ``announce(what)`` is told when the install starts).
    ``which``: auto | project | pinned."""
    own = project_typescript(repo) if which in ("auto", "project") else None
    if own is not None and own.at_least(need):
        return own
    if which == "project":
        why = f"its typescript is {own.version}, older than {need[0]}.{need[1]}" if own else "it has no typescript"
        raise RefactorError(f"the project's own TypeScript cannot be used: {why}",
                            "Leave the choice to devagent (its pinned TypeScript), or update the project's.")
    pinned = pinned_typescript()
    if pinned is not None:
        return pinned
    if consent is None or not consent(install_message()):
        have = f"typescript {own.version}, older than {need[0]}.{need[1]}" if own else "no typescript in node_modules"
        raise RefactorError(f"no TypeScript compiler to run the refactoring with: the project has {have}, and devagent "
                            f"would need to install {_what()}, which was not allowed; nothing was downloaded",
                            "Allow the install when devagent asks (devagent refactor asks; --yes allows it), or add "
                            "typescript to the project's devDependencies.")
    if announce is not None:
        announce(f"installing typescript {PINNED_VERSION} (npm ci in the sandbox, network on for it)")
    return await install_pinned(config)
