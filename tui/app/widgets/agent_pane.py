"""The conversation: prompts, streamed replies (shown literally), tool-call lines and notices.

Streaming follows DESIGN.md: tokens are buffered and shown at most once per frame. Text arriving asks
the reply for one paint; the reply takes in everything buffered when the screen paints (Textual's own
frame, at most 60 a second), so an idle pane costs nothing and a token waits for one paint only. Each
reply is one Line-API widget (reply_block.py) that renders finished lines once and re-renders only the
growing tail.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.widgets import Static

from tui.app.keymap import hints

from tui.app.widgets.tool_call_line import ToolCallLine, visible

if TYPE_CHECKING:
    from tui.app.widgets.details_line import DetailsLine
    from tui.app.widgets.reply_block import Reply

__all__ = ["AgentPane", "Reply"]


def __getattr__(name: str) -> Any:
    """``Reply`` (the reply widget) is imported with the first reply: the first frame shows none."""
    if name == "Reply":
        return _reply_class()
    raise AttributeError(name)


def _reply_class() -> type[Reply]:
    from tui.app.widgets.reply_block import Reply

    return Reply


class AgentPane(VerticalScroll):
    """Conversation view. Public methods are called by the app's event handlers only."""

    KEY_HINTS = hints("agent")  # the status bar's keys (tui/app/keymap.py)

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
        self._calls: dict[str, ToolCallLine] = {}
        self._keyed: dict[str, Static] = {}  # notice key -> the line showing it
        self._request: Static | None = None  # the current request's prompt line (its details line goes below)
        self._details: DetailsLine | None = None  # the current request's details (or the session's, before one)
        self._counting = False  # a call after the next paint will count what it showed
        self.tokens_received = 0
        self.tokens_shown = 0  # tokens handed to the reply widgets (painted on the next frame)
        self.tokens_painted = 0  # tokens on screen: a screen refresh happened after they were shown
        self._welcome_gone = False

    def show_welcome(self) -> None:
        """The welcome line, right after the first frame (which it has no part in: the pane anchors to the end
        after that frame's layout); never once the conversation began."""
        if not self._welcome_gone and not self.query("#welcome"):
            self.mount(Static("Ask for something below and press enter. `!cmd` runs your own command. "
                              "Press ? for every key.", id="welcome", markup=False))

    def on_mount(self) -> None:
        self.border_title = "Conversation"
        self.anchor()

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        """The layout that is running sets the conversation's new height: Textual's own would ask for a second
        layout of the whole screen each time a reply grows (the virtual size is a layout reactive)."""
        return super()._size_updated(size, virtual_size, container_size, layout=False)

    # conversation items -------------------------------------------------
    def _remove_welcome(self) -> None:
        self._welcome_gone = True
        for widget in self.query("#welcome"):
            widget.remove()

    def add_prompt(self, prompt: str) -> None:
        self._remove_welcome()
        self.end_reply()
        self._request, self._details = Static(Text("› " + visible(prompt)), classes="prompt"), None
        self.mount(self._request)

    def add_detail(self, text: str, kind: str) -> None:
        """One of devagent's own notes: on the request's collapsed details line, right below the request (made
        with the first note; before any request, the session's line)."""
        line = self._details
        if line is None or not line.is_attached:
            from tui.app.widgets.details_line import DetailsLine  # with the first note

            line = self._details = DetailsLine()
            request = self._request
            if request is not None and request.is_attached:
                self.mount(line, after=request)
            else:  # above the welcome line while it is there
                welcome = self.query("#welcome")
                self.mount(line, before=welcome.first()) if welcome else self.mount(line)
        line.add(text, kind)

    def toggle_details(self) -> bool:
        """Expand or collapse the latest details line; False when there is none."""
        from tui.app.widgets.details_line import DetailsLine

        lines = list(self.query(DetailsLine))
        if not lines:
            return False
        lines[-1].toggle()
        return True

    def add_notice(self, message: str, level: str = "info", key: str = "") -> None:
        """A notice line; one with the ``key`` of an earlier notice replaces that one's text in place (progress)."""
        shown = self._keyed.get(key) if key else None
        if shown is not None and shown.is_attached:
            shown.update(Text(visible(message)))
            shown.set_classes(f"notice -{level}")
            return
        self._remove_welcome()
        self.end_reply()
        line = Static(Text(visible(message)), classes=f"notice -{level}")
        if key:
            self._keyed[key] = line
        self.mount(line)

    def add_tokens(self, text: str) -> None:
        """Buffer streamed text; it reaches the screen on the next frame."""
        self.tokens_received += 1
        if self._reply is None:
            self._remove_welcome()
            self._reply = _reply_class()()
            self.mount(self._reply)
        self._reply.add(visible(text))  # hidden characters become escapes before rendering
        self.tokens_shown = self.tokens_received
        if not self._counting:  # the next paint shows them
            self._counting = True
            self.call_after_refresh(self._painted)

    def finish_reply(self, text: str, shown: str) -> None:
        """The model's message ``text`` is complete; ``shown`` is it without the tool calls written into it
        (they get their own lines): the reply shows only that, or goes when nothing else was said."""
        reply = self._reply
        if reply is not None and shown != text and reply.text == text:
            if shown.strip():
                reply.show_only(shown)
            else:
                reply.pending.clear()
                reply.remove()
        self.end_reply()

    def end_reply(self) -> None:
        """The current message is finished: the next text starts a new reply block."""
        if self._reply is not None:
            self._reply.settle()
        self._reply = None

    @property
    def streaming(self) -> bool:
        """True while some received text is not painted yet."""
        return self.tokens_painted < self.tokens_received

    @property
    def flushes(self) -> int:
        """Times a reply took in buffered text (a render of its tail each): fewer than the tokens received."""
        return sum(reply.takes for reply in self.query(_reply_class()))

    def _painted(self) -> None:
        """A paint happened: the text a reply took in by then is on screen; what it still buffers, next time."""
        self._counting = False
        if any(reply.pending for reply in self.query(_reply_class())):
            self._counting = True
            self.call_after_refresh(self._painted)
            return
        self.tokens_painted = self.tokens_shown

    # tool calls -----------------------------------------------------------
    def add_tool_call(self, call_id: str, name: str, arguments: dict[str, Any]) -> ToolCallLine:
        self._remove_welcome()
        self.end_reply()
        line = ToolCallLine(call_id, name, arguments)
        widest = max([len(name), *(other.name_width for other in self._calls.values())])
        line.name_width = widest
        if any(other.name_width < widest for other in self._calls.values()):
            for other in self._calls.values():  # the name column grows for every line, so they stay aligned
                other.name_width = widest
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
