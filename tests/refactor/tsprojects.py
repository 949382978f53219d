"""Real TypeScript projects for the refactoring tests: pinned npm tarballs (sha256-checked, cached by
scripts/benchreal/sources.py), laid out as their git checkouts (no build output), with the test dependencies from
the lock file in scripts/benchreal/refactor-ts-env (``npm ci``, cached) hard-linked in as node_modules.

The tarballs lack their repositories' tsconfig.json and jest config: tests/refactor/overlays/NAME has them
(tsconfig-paths: upstream's tsconfig.json; hashids: the equivalent of its beemo-generated config).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from benchreal import sources  # noqa: E402
from benchreal.spec import Source  # noqa: E402

OVERLAYS = Path(__file__).with_name("overlays")
PROJECTS = {
    "tsconfig-paths": (Source("npm", "tsconfig-paths", "4.2.0",
                              "1454d5f923d4330f4b8fb75c004df490ecbdce81cf0757de43351ac3078085c1", "package"),
                       ("lib",)),
    "hashids": (Source("npm", "hashids", "2.3.0", "90ee8e33c319e141082a9e80a8b91c150db09e7e1a4e4ac3594c9407857f63da",
                       "package"), ("cjs", "esm", "dist", "lib", "src/tests-mjs")),
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def make(name: str, where: Path) -> Path:
    """A git work tree of the project at ``where`` (committed), with node_modules; BenchError when it cannot."""
    source, drop = PROJECTS[name]
    archive = sources.fetch(source)
    modules = sources.node_modules("refactor-ts")
    sources.extract(source, archive, where)
    for rel in drop:
        shutil.rmtree(where / rel, ignore_errors=True)
    for overlay in (OVERLAYS / name).iterdir():
        shutil.copy2(overlay, where / overlay.name)
    (where / ".gitignore").write_text("node_modules\n", encoding="utf-8")
    subprocess.run(["cp", "-al", str(modules), str(where / "node_modules")], check=True)
    git(where, "init", "-q")
    git(where, "add", "-A")
    git(where, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm", f"{name} {source.version}")
    return where


def apply(repo: Path, outcome, optional: bool = False) -> None:  # type: ignore[no-untyped-def]
    """Write an Outcome's changes into the work tree, as an approved proposal would."""
    for change in [*outcome.changes, *(outcome.optional if optional else [])]:
        target = repo / change.path
        if change.after is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(change.after)


def run(repo: Path, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The project's own tools after the change, as the developer would run them (trusted pinned code)."""
    return subprocess.run(list(argv), cwd=repo, capture_output=True, text=True, timeout=timeout)
