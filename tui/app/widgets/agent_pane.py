"""The conversation: prompts, streamed replies (Markdown), tool-call lines and notices.

Streaming follows DESIGN.md: tokens are buffered and flushed at most once per frame.
A reply is a column of frozen blocks plus one live block: when a flush completes a
Markdown block (a blank line outside a code fence), that text is rendered once into its
own Static and never touched again; only the growing tail is re-rendered per frame.
Rendering uses rich's Markdown (one widget per frozen chunk, not a widget per element),
imported on the first reply, so nothing heavy loads before the first frame.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from tui.app.widgets.tool_call_line import ToolCallLine, visible

FRAME = 1 / 30
_FENCES = ("```", "~~~")


def finished_prefix(text: str, start: int) -> int:
    """End of the last complete Markdown block in ``text[start:]`` (``start`` is outside any fence)."""
    cut = start
    in_fence: str | None = None
    pos = start
    previous_blank = False
    for line in text[start:].splitlines(keepends=True):
        pos += len(line)
        if not line.endswith("\n"):
            break  # a partial line never ends a block
        stripped = line.strip()
        if in_fence:
            if stripped.startswith(in_fence):
                in_fence = None
                cut = pos  # a closed fence is a finished block
            continue
        fence = next((f for f in _FENCES if stripped.startswith(f)), None)
        if fence:
            in_fence = fence
            continue
        if not stripped and not previous_blank:
            cut = pos
        previous_blank = not stripped
    return cut


def render_markdown(text: str, code_theme: str = "monokai") -> Any:
    """A rich Markdown renderable: literal text (no console markup), highlighted code blocks."""
    from rich.markdown import Markdown

    return Markdown(text, code_theme=code_theme, hyperlinks=False)


class MarkdownLines(Widget):
    """Markdown blocks rendered to cached lines per width (line API: only visible lines are painted).

    Frozen text is a list of finished blocks, each rendered once per width; appending a block
    renders only that block. The live block is a single small text re-rendered per frame, and
    asks for a new layout only when its height changes, so most frames repaint just this widget.
    """

    DEFAULT_CSS = """
    MarkdownLines { height: auto; }
    """

    def __init__(self, text: str, code_theme: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.blocks: list[str] = [text] if text else []
        self.code_theme = code_theme
        self._width = 0
        self._rendered: list[list[Strip]] = []  # per block, at self._width
        self._flat: list[Strip] = []  # all lines, in order

    @property
    def text(self) -> str:
        return "".join(self.blocks)

    def _render_block(self, text: str, width: int) -> list[Strip]:
        console = self.app.console
        lines = console.render_lines(render_markdown(text, self.code_theme), console.options.update_width(width),
                                     pad=True)
        return [Strip(line, width) for line in lines]

    def _lines(self, width: int) -> list[Strip]:
        width = max(1, width)
        if width != self._width:
            self._width, self._rendered, self._flat = width, [], []
        while len(self._rendered) < len(self.blocks):
            block = self._render_block(self.blocks[len(self._rendered)], width)
            self._rendered.append(block)
            self._flat.extend(block)
        return self._flat

    def append_block(self, text: str) -> None:
        """Add a finished block; only it is rendered."""
        self.blocks.append(text)
        self.refresh(layout=True)

    def set_text(self, text: str) -> None:
        """Replace everything (the live block)."""
        before = len(self._flat) if self._rendered else -1
        self.blocks = [text] if text else []
        self._rendered, self._flat = [], []
        width = self.content_size.width
        after = len(self._lines(width)) if width else -2
        self.refresh(layout=before != after)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        lines = self._lines(width)
        line = lines[y] if 0 <= y < len(lines) else Strip.blank(width)
        return line.apply_style(self.rich_style)


class Reply(Vertical):
    """One model message: one widget of frozen blocks plus one live block (the unfinished tail)."""

    DEFAULT_CSS = """
    Reply { height: auto; margin: 0 0 1 0; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.source = ""
        self.pending: list[str] = []
        self.frozen = 0  # characters of source already in frozen blocks
        self._theme: str | None = None
        self._frozen = MarkdownLines("", "monokai", classes="frozen")
        self._live = MarkdownLines("", "monokai", classes="live")

    def compose(self):  # type: ignore[no-untyped-def]
        yield self._frozen
        yield self._live

    @property
    def blocks(self) -> int:
        return len(self._frozen.blocks)

    def _code_theme(self) -> str:
        """The theme's syntax colours, looked up once per reply (computing CSS variables is not free)."""
        if self._theme is None:
            self._theme = self.app.get_css_variables().get("syntax-theme", "monokai")
        return self._theme

    @property
    def flushing(self) -> bool:
        return False

    def flush(self) -> bool:
        """Render everything buffered in one go; False when there was nothing to do."""
        if not self.pending or not self.is_mounted:
            return False
        self.source += "".join(self.pending)
        self.pending.clear()
        theme = self._code_theme()
        cut = finished_prefix(self.source, self.frozen)
        if cut > self.frozen:
            self._frozen.code_theme = theme
            self._frozen.append_block(self.source[self.frozen:cut])
            self.frozen = cut
        self._live.code_theme = theme
        self._live.set_text(self.source[self.frozen:])
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
