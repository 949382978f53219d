"""The conversation: prompts, streamed replies (Markdown), tool-call lines and notices.

Streaming follows DESIGN.md: tokens are buffered and flushed at most once per frame;
``Markdown.append`` re-parses only the last (growing) block, so finished blocks are
rendered once and stay frozen. A flush never starts while the previous one runs, so
a slow terminal coalesces more tokens per frame instead of building a backlog.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static

from tui.app.widgets.tool_call_line import ToolCallLine, visible

FRAME = 1 / 30


class Reply(Markdown):
    """One model message; grows by batched appends while streaming."""

    DEFAULT_CSS = """
    Reply { margin: 0 0 1 0; padding: 0 1; background: transparent; }
    """

    def __init__(self) -> None:
        super().__init__("")
        self.pending: list[str] = []
        self.flushing = False

    def flush(self) -> bool:
        """Append everything buffered in one go; False when there was nothing to do."""
        if not self.pending or self.flushing or not self.is_mounted:
            return False
        chunk = "".join(self.pending)
        self.pending.clear()
        self.flushing = True

        async def run() -> None:
            try:
                await self.append(chunk)
            finally:
                self.flushing = False

        self.run_worker(run(), group="flush", exit_on_error=False)
        return True


class AgentPane(VerticalScroll):
    """Conversation view. Public methods are called by the app's event handlers only."""

    DEFAULT_CSS = """
    AgentPane { height: 1fr; }
    AgentPane .prompt { margin: 1 0 0 0; padding: 0 1; color: $text; background: $boost; text-style: bold; }
    AgentPane .notice { padding: 0 1; color: $text-muted; }
    AgentPane .notice.-warning { color: $warning; }
    AgentPane .notice.-error { color: $error; }
    AgentPane #welcome { padding: 1 2; color: $text-muted; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._reply: Reply | None = None
        self._dirty: set[Reply] = set()
        self._calls: dict[str, ToolCallLine] = {}
        self.tokens_received = 0
        self.flushes = 0

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static(
            "Ask for something below and press enter. `!cmd` runs your own command. "
            "Press ? for every key.", id="welcome", markup=False,
        )

    def on_mount(self) -> None:
        self.anchor()
        self.set_interval(FRAME, self._flush, name="token-flush")

    # conversation items -------------------------------------------------
    def _remove_welcome(self) -> None:
        for widget in self.query("#welcome"):
            widget.remove()

    def add_prompt(self, prompt: str) -> None:
        self._remove_welcome()
        self.end_reply()
        self.mount(Static(Text("› " + visible(prompt)), classes="prompt"))

    def add_notice(self, message: str, level: str = "info") -> None:
        self._remove_welcome()
        self.end_reply()
        self.mount(Static(Text(visible(message)), classes=f"notice -{level}"))

    def add_tokens(self, text: str) -> None:
        """Buffer streamed text; it reaches the screen on the next frame."""
        self.tokens_received += 1
        if self._reply is None:
            self._remove_welcome()
            self._reply = Reply()
            self.mount(self._reply)
        self._reply.pending.append(text)
        self._dirty.add(self._reply)

    def end_reply(self) -> None:
        """The current message is finished: the next text starts a new reply block."""
        self._reply = None

    @property
    def streaming(self) -> bool:
        return any(reply.pending or reply.flushing for reply in self._dirty)

    def _flush(self) -> None:
        for reply in list(self._dirty):
            if reply.flush():
                self.flushes += 1
            elif not reply.pending and not reply.flushing and reply is not self._reply:
                self._dirty.discard(reply)

    # tool calls -----------------------------------------------------------
    def add_tool_call(self, call_id: str, name: str, arguments: dict[str, Any]) -> ToolCallLine:
        self._remove_welcome()
        self.end_reply()
        line = ToolCallLine(call_id, name, arguments)
        self._calls[call_id] = line
        self.mount(line)
        return line

    def tool_call(self, call_id: str) -> ToolCallLine | None:
        return self._calls.get(call_id)

    def tool_call_for_proposal(self, proposal_id: str) -> ToolCallLine | None:
        for line in self._calls.values():
            if line.proposal_id == proposal_id:
                return line
        return None
