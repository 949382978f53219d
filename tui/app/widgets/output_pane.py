"""Live output of running commands and test runs.

Output arrives in batches (CommandOutput events) and is buffered again here, reaching
the Log at most 20 times a second; the Log keeps only the last ``max_lines`` lines.
The header shows the command literally, elapsed time and the kill key. The Log itself is mounted
after the first frame (``ensure_log``).
"""

from __future__ import annotations

import time
from typing import Any, Callable

from typing import TYPE_CHECKING

from rich.text import Text
from textual.containers import Vertical
from textual.widgets import Static

from tui.app.keymap import hints

if TYPE_CHECKING:
    from textual.widgets import Log

from tui.app.widgets.tool_call_line import one_line, visible

FLUSH = 1 / 20


class OutputPane(Vertical):
    """Header + bounded Log. ``running`` is True between CommandStarted and CommandFinished."""

    KEY_HINTS = hints("output")  # the status bar's keys (tui/app/keymap.py)

    DEFAULT_CSS = """
    OutputPane { height: 1fr; }
    OutputPane #output-header { height: 1; padding: 0 1; background: $boost; }
    OutputPane Log { height: 1fr; background: $surface; scrollbar-background: $surface; }
    """

    def __init__(self, max_lines: int = 5000, clock: Callable[[], float] = time.monotonic, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_lines = max_lines
        self.clock = clock
        self.running = False
        self.command_id = ""
        self.command = ""
        self._started = 0.0
        self._status = "no command yet"
        self._buffer: list[str] = []
        self._log: Log | None = None
        self.lines_written = 0

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static("", id="output-header", markup=False)

    def ensure_log(self) -> Log:
        """The Log, mounted on first use: the app asks for it right after the first frame, which an empty
        log has no part in (its module and widget cost a few milliseconds of startup)."""
        if self._log is None:
            from tui.app.widgets.output_log import OutputLog

            self._log = log = OutputLog(max_lines=self.max_lines, auto_scroll=True, id="output-log")
            self.mount(log)
            log.call_after_refresh(log.scroll_end, animate=False)  # lines written before it had a size
        return self._log

    def on_mount(self) -> None:
        self.border_title = "Output"
        self.set_interval(FLUSH, self._flush, name="output-flush")
        self.set_interval(0.5, self._tick, name="output-elapsed")
        self._render_header()

    @property
    def log_widget(self) -> Log:
        return self.ensure_log()

    def start(self, command_id: str, command: str, sandbox: str) -> None:
        self._flush()
        self.running = True
        self.command_id = command_id
        self.command = command
        self._started = self.clock()
        self._status = f"running in {sandbox} · ctrl+k kills"
        self.log_widget.write_line(f"$ {one_line(command, 400)}")
        self._render_header()

    def write(self, text: str) -> None:
        self._buffer.append(visible(text))

    def finish(self, exit_code: int | None, duration: float, killed: str = "", dropped: int = 0) -> None:
        if not self.running:
            return  # already marked (e.g. cancelled from the keyboard before the engine reported)
        self._flush()
        self.running = False
        parts = [f"exit {exit_code}" if exit_code is not None else "no exit code", f"{duration:.1f}s"]
        if killed:
            parts.append(f"killed ({killed})")
        if dropped:
            parts.append(f"{dropped} bytes of output dropped")
        self._status = " · ".join(parts)
        self.log_widget.write_line(f"[{self._status}]")
        self._render_header()

    def cancelled(self) -> None:
        """Esc cancelled the task running the command: say so now, without waiting for the engine."""
        if self.running:
            self.finish(None, self.clock() - self._started, "cancelled")

    def _flush(self) -> None:
        if not self._buffer:
            return
        text = "".join(self._buffer)
        self._buffer.clear()
        lines = text.splitlines()
        self.lines_written += len(lines)
        self.log_widget.write_lines(lines)

    def _tick(self) -> None:
        if self.running:
            self._render_header()

    def _render_header(self) -> None:
        header = Text()
        if self.command:
            header.append(one_line(self.command, 80), style="bold")
            header.append("  ")
        if self.running:
            header.append(f"{self.clock() - self._started:.0f}s · ")
        header.append(self._status)
        self.query_one("#output-header", Static).update(header)
