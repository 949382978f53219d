"""The real JS test runners (jest, vitest, mocha) and pnpm, for tests that run them: installed once per machine
with `npm ci` from tests/node_tools' lock file (exact versions; about 10 s and 86 MB), into a cache outside any
test repo. A test project gets its own ``node_modules`` as hard links to that copy (``cp -al``: no data copied,
and whatever a runner writes there, a cache file, stays in the test's repo).

Without npm, or when the registry cannot be reached, the tests that need them skip and say why.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "node_tools"
RUNNERS = ("jest", "vitest", "mocha", "pnpm")


def cache_dir() -> Path:
    lock = (SOURCE / "package-lock.json").read_bytes() + (SOURCE / "package.json").read_bytes()
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "devagent-tests"
    return base / f"node-tools-{hashlib.sha256(lock).hexdigest()[:12]}"


def _complete(home: Path) -> bool:
    return all((home / "node_modules" / ".bin" / name).exists() for name in RUNNERS)


def install() -> Path:
    """The installed tools' directory (its node_modules/.bin has every runner); skips the test when impossible."""
    home = cache_dir()
    if _complete(home):
        return home
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the real JS runners cannot be installed here")
    home.parent.mkdir(parents=True, exist_ok=True)
    with open(home.parent / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another test process may be installing the same tools
        if _complete(home):
            return home
        work = home.with_name(home.name + f".part-{os.getpid()}")
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        for name in ("package.json", "package-lock.json"):
            shutil.copy(SOURCE / name, work / name)
        try:
            out = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=work,
                                 capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            out = None
        if out is None or out.returncode != 0 or not _complete(work):
            shutil.rmtree(work, ignore_errors=True)
            pytest.skip("could not install the JS runners with npm ci (no registry?): "
                        + ((out.stderr or out.stdout)[-300:] if out else "timed out"))
        shutil.rmtree(home, ignore_errors=True)
        work.rename(home)
    return home


def add_node_modules(repo: Path, tools: Path) -> None:
    """The runners in ``repo/node_modules`` (hard links), ignored by git as a real project's would be."""
    subprocess.run(["cp", "-al", str(tools / "node_modules"), str(repo / "node_modules")], check=True)
    ignore = repo / ".gitignore"
    ignore.write_text((ignore.read_text() if ignore.exists() else "") + "node_modules/\n")


def path_without(*programs: str, extra: Path | None = None) -> str:
    """PATH with no directory that holds one of ``programs`` (a machine without pnpm, say); ``extra`` first."""
    kept = [d for d in os.environ.get("PATH", "").split(os.pathsep)
            if d and not any(os.path.exists(os.path.join(d, p)) for p in programs)]
    return os.pathsep.join(([str(extra)] if extra else []) + kept)


def bin_with(folder: Path, tools: Path, *programs: str) -> Path:
    """A directory holding only ``programs`` from the installed tools (to put one of them on PATH)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in programs:
        (folder / name).symlink_to(tools / "node_modules" / ".bin" / name)
    return folder
