"""Real projects for the TypeScript/JavaScript refactoring tests: pinned npm tarballs (sha256-checked, cached by
scripts/benchreal/sources.py), laid out as their git checkouts (no build output), with their test dependencies from a
lock file in scripts/benchreal/NAME-env (``npm ci``, cached) hard-linked in as node_modules.

- tsconfig-paths 4.2.0 (TypeScript, functions over nine modules; jest + ts-jest) and ml-random 1.0.1 (TypeScript, a
  class, an overloaded default-exported function, type modules re-exported by ``export *``; jest + babel), both with
  ``typescript`` in node_modules: the engine uses the project's own compiler and ``tsc`` checks the change.
- minimist 1.2.8 (plain JavaScript; tape) with no typescript anywhere: the engine needs devagent's pinned compiler.

The tarballs lack their repositories' configuration: tests/refactor/overlays/NAME has upstream's files (tsconfig.json,
jest.config.js, babel.config.js). Where upstream's ``test`` script also lints or measures coverage with tools the
fixture does not install, ``scripts.test`` is upstream's own test command alone (``Project.test``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from benchreal import sources  # noqa: E402
from benchreal.spec import Source  # noqa: E402

OVERLAYS = Path(__file__).with_name("overlays")


@dataclass(frozen=True)
class Project:
    source: Source
    env: str  # scripts/benchreal/ENV-env holds the lock file of its test dependencies
    drop: tuple[str, ...] = ()  # build output a git checkout does not have
    test: str = ""  # package.json scripts.test when upstream's runs linters or coverage too


PROJECTS = {
    "tsconfig-paths": Project(Source("npm", "tsconfig-paths", "4.2.0",
                                     "1454d5f923d4330f4b8fb75c004df490ecbdce81cf0757de43351ac3078085c1", "package"),
                              "refactor-ts", ("lib",)),
    # upstream's test script is `test-only` (jest --coverage), then eslint, prettier and tsc
    "ml-random": Project(Source("npm", "ml-random", "1.0.1",
                                "87cd5078ee88c0e9d21bba2bdfe8a2539a36e99fad3a20d386e07736a75f0505", "package"),
                         "refactor-ts", ("lib", "lib-esm"), test="jest"),
    # upstream's test script is `tests-only` (nyc tape 'test/**/*.js'), with eslint before and aud after
    "minimist": Project(Source("npm", "minimist", "1.2.8",
                               "350a76c115b393c19d24654834261e5dc9f0e8cc5e08f3937fa80140f3e4ce83", "package"),
                        "refactor-js", test="tape 'test/**/*.js'"),
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def make(name: str, where: Path) -> Path:
    """A git work tree of the project at ``where`` (committed), with node_modules; BenchError when it cannot."""
    project = PROJECTS[name]
    archive = sources.fetch(project.source)
    modules = sources.node_modules(project.env)
    sources.extract(project.source, archive, where)
    for rel in project.drop:
        shutil.rmtree(where / rel, ignore_errors=True)
    overlay = OVERLAYS / name
    for path in overlay.iterdir() if overlay.is_dir() else ():
        shutil.copy2(path, where / path.name)
    if project.test:
        meta = json.loads((where / "package.json").read_text(encoding="utf-8"))
        meta["scripts"]["test"] = project.test
        (where / "package.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    (where / ".gitignore").write_text("node_modules\n", encoding="utf-8")
    subprocess.run(["cp", "-al", str(modules), str(where / "node_modules")], check=True)
    git(where, "init", "-q")
    git(where, "add", "-A")
    git(where, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm",
        f"{name} {project.source.version}")
    return where


def after(outcome, path: str) -> str:  # type: ignore[no-untyped-def]
    """The text a proposal gives ``path`` (its exact part)."""
    by_path = {c.path: c for c in outcome.changes}
    data = by_path[path].after
    assert data is not None, f"{path} is deleted by the proposal"
    return data.decode("utf-8")
