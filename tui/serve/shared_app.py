"""One app process shared by every page: textual-serve's AppService, attached to many websockets.

Output goes to every attached page; input from any page goes to the app. A page that attaches later
gets the terminal modes the app set at start and a full repaint (a resize away and back), so a
reloaded page or a second tab shows the running session as it is.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

log = logging.getLogger("devagent.serve")

# What the web driver writes once at start (alternate screen, mouse reporting, hidden cursor, bracketed
# paste): a page attaching later needs it before the repaint.
PREAMBLE = ("\x1b[?1049h\x1b[?1000h\x1b[?1003h\x1b[?1015h\x1b[?1006h\x1b[?25l\x1b[?2004h").encode()
STOP_SECONDS = 10.0  # the app's time to quit cleanly before it is killed
REPAINT_PAUSE = 0.15  # seconds between the two resizes of a forced repaint (the app coalesces faster ones)


class _Service(AppService):
    """AppService that runs argv (no shell) in the repo; the interpreter with -P, so the repo is not on sys.path."""

    def __init__(self, argv: list[str], cwd: Path, **kwargs: Any) -> None:
        super().__init__(" ".join(argv), **kwargs)
        self.argv, self.cwd = argv, cwd

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Any:
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=self._build_environment(width=width, height=height), cwd=self.cwd)
        assert process.stdin is not None
        self._stdin = process.stdin
        return process


class SharedApp:
    """The one running app and the pages attached to it."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.pages: set[Any] = set()
        self.exited = asyncio.Event()
        self.size = (80, 24)
        self._service = _Service(argv, cwd, write_bytes=self._to_pages, write_str=self._to_pages_str,
                                 close=self._app_exited, download_manager=DownloadManager())
        self._started = False
        self._lock = asyncio.Lock()

    async def attach(self, page: Any, width: int, height: int) -> None:
        async with self._lock:
            self.pages.add(page)
            self.size = (width, height)
            if not self._started:
                self._started = True
                await self._service.start(width, height)
                task = self._service._task
                if task is not None:
                    task.add_done_callback(lambda _t: self.exited.set())
                return
        await page.send_bytes(PREAMBLE)
        await self._service.set_terminal_size(width, max(1, height - 1))
        await asyncio.sleep(REPAINT_PAUSE)
        await self._service.set_terminal_size(width, height)

    def detach(self, page: Any) -> None:
        """The page went away; the app (and its session) keeps running for the next one."""
        self.pages.discard(page)

    async def input(self, envelope: list[Any]) -> None:
        kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
        if kind == "stdin" and isinstance(data, str):
            await self._service.send_bytes(data.encode("utf-8"))
        elif kind == "resize" and isinstance(data, dict):
            width, height = data.get("width"), data.get("height")
            if isinstance(width, int) and isinstance(height, int) and 0 < width < 1000 and 0 < height < 1000:
                self.size = (width, height)
                await self._service.set_terminal_size(width, height)
        elif kind in ("focus", "blur"):
            await (self._service.focus() if kind == "focus" else self._service.blur())

    async def _to_pages(self, data: bytes) -> None:
        for page in list(self.pages):
            try:
                await page.send_bytes(data)
            except (ConnectionError, RuntimeError) as exc:
                log.info("dropping a page: %s", exc)
                self.pages.discard(page)

    async def _to_pages_str(self, text: str) -> None:
        for page in list(self.pages):
            try:
                await page.send_str(text)
            except (ConnectionError, RuntimeError):
                self.pages.discard(page)

    async def _app_exited(self) -> None:
        for page in list(self.pages):
            try:
                await page.close()
            except (ConnectionError, RuntimeError):
                pass
        self.pages.clear()
        self.exited.set()

    async def stop(self) -> None:
        if self._started and not self.exited.is_set():
            try:
                await asyncio.wait_for(self._service.stop(), STOP_SECONDS)
            except asyncio.TimeoutError:
                log.warning("the app did not quit in %ss; killing it", STOP_SECONDS)
        process = self._service._process
        if process is not None and process.returncode is None:
            process.kill()
            await process.wait()


def app_argv(app_args: list[str]) -> list[str]:
    import sys

    return [sys.executable, "-P", "-m", "tui", *app_args]

