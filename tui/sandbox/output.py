"""Command output: keep the head and tail within a byte cap, stream live batches at most 20 times a second.

A command printing a gigabyte must cost bounded memory and must not starve
the event loop: only the kept bytes are stored, and each live batch is capped
too (the live view is for watching, the result carries head + tail).
"""

from __future__ import annotations

import asyncio
import codecs
import time
from typing import Callable

FLUSH_INTERVAL = 0.05  # seconds: at most 20 batches a second
LIVE_BATCH_CAP = 64 * 1024  # bytes shown live per batch; the rest of that batch is summarised


class OutputBuffer:
    def __init__(self, cap: int, on_output: Callable[[str], None] | None, loop: asyncio.AbstractEventLoop) -> None:
        cap = max(cap, 2)
        self.head_cap = cap // 2
        self.tail_cap = cap - self.head_cap
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0
        self.total = 0
        self.last_data = time.monotonic()
        self._on_output = on_output
        self._loop = loop
        self._pending = bytearray()
        self._skipped = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._last_flush = 0.0
        self._timer: asyncio.TimerHandle | None = None

    def add(self, data: bytes) -> None:
        self.last_data = time.monotonic()
        self.total += len(data)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += data[:room]
            rest = data[room:]
        else:
            rest = data
        if rest:
            self.tail += rest
            excess = len(self.tail) - self.tail_cap
            if excess > 0:
                del self.tail[:excess]
                self.dropped += excess
        if self._on_output is not None:
            self._queue_live(data)

    def _queue_live(self, data: bytes) -> None:
        room = LIVE_BATCH_CAP - len(self._pending)
        if room > 0:
            self._pending += data[:room]
        self._skipped += max(0, len(data) - max(room, 0))
        now = time.monotonic()
        if now - self._last_flush >= FLUSH_INTERVAL:
            self.flush()
        elif self._timer is None:
            self._timer = self._loop.call_later(FLUSH_INTERVAL - (now - self._last_flush), self.flush)

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._on_output is None or not (self._pending or self._skipped):
            return
        text = self._decoder.decode(bytes(self._pending))
        if self._skipped:
            self._decoder.reset()
            text += f"\n[... {self._skipped} bytes not shown live ...]\n"
        self._pending.clear()
        self._skipped = 0
        self._last_flush = time.monotonic()
        if text:
            self._on_output(text)

    def close(self) -> None:
        self.flush()
        tail = self._decoder.decode(b"", final=True)
        if tail and self._on_output is not None:
            self._on_output(tail)

    def text(self) -> str:
        head = self.head.decode("utf-8", "replace")
        if not self.dropped:
            return (self.head + self.tail).decode("utf-8", "replace")
        return (head + f"\n[... {self.dropped} bytes of output dropped (kept the first {len(self.head)} and the "
                f"last {len(self.tail)}) ...]\n" + self.tail.decode("utf-8", "replace"))
