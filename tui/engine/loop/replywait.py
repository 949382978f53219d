"""One model reply's waits as Progress events: reading the prompt (the server's own counts when it reports them,
llama.cpp does; else the estimate), then writing the reply (tokens so far). On a CPU the first can take minutes
with nothing else moving, so the latest is sent again every few seconds while nothing new arrives (a front end
that prints lines, JSON or an editor's thoughts, sees the time go on); writing is reported at most once a second.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable

from tui.protocol.events import Progress

HEARTBEAT = 5.0  # seconds: the latest Progress again when nothing newer was sent
WRITING_EVERY = 1.0  # seconds between two reports of the tokens written


class ReplyProgress:
    """``with ReplyProgress(emit, estimate) as waits:`` around one streamed reply; ``waits.chunk(c)`` per chunk."""

    def __init__(self, emit: Callable[[Any], None], estimate: int = 0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.emit, self.estimate, self.clock = emit, estimate, clock
        self.stage = "reading"
        self.began = self.last = clock()
        self.read: tuple[int, int] | None = None
        self.written = 0
        self._beat: asyncio.Task[None] | None = None

    def __enter__(self) -> "ReplyProgress":
        self._send()
        self._beat = asyncio.get_running_loop().create_task(self._heartbeat())
        return self

    def __exit__(self, *exc: object) -> None:
        if self._beat is not None:
            self._beat.cancel()
            self._beat = None

    def chunk(self, chunk: Any) -> None:
        reading = getattr(chunk, "reading", None)
        if reading is not None:
            if self.stage == "reading" and reading != self.read:
                self.read = reading
                self._send()
            return
        if not (chunk.text or chunk.tool_calls):
            return
        if self.stage == "reading":
            self.stage, self.began = "writing", self.clock()
        self.written += 1  # a streamed chunk is one token on llama.cpp and Ollama
        if self.written == 1 or self.clock() - self.last >= WRITING_EVERY:
            self._send()

    def progress(self) -> Progress:
        elapsed = self.clock() - self.began
        if self.stage == "writing":
            return Progress("writing", done=self.written, elapsed=elapsed)
        if self.read is not None:
            return Progress("reading", done=self.read[0], total=self.read[1], elapsed=elapsed)
        return Progress("reading", detail=f"about {self.estimate:,} tokens" if self.estimate else "", elapsed=elapsed)

    def _send(self) -> None:
        self.last = self.clock()
        self.emit(self.progress())

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(max(0.05, HEARTBEAT - (self.clock() - self.last)))
            if self.clock() - self.last >= HEARTBEAT:
                self._send()
