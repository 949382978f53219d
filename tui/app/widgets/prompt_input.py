"""The prompt: multi-line entry with history.

Keys: enter sends; ctrl+j (or shift+enter where the terminal reports it) inserts a
newline; up on the first line / down on the last line walk the history; ``?`` while it is empty opens the help
(typed anywhere else in a prompt, it is a character). A prompt
starting with ``!`` is the developer's own command (queued through approval and sandbox).
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from tui.app.keymap import hints


class PromptInput(TextArea):
    """TextArea that sends on enter and remembers what was sent."""

    KEY_HINTS = hints("prompt")  # the status bar's keys (tui/app/keymap.py)

    DEFAULT_CSS = """
    PromptInput { height: auto; min-height: 3; max-height: 8; border: round $primary 40%; padding: 0 1; }
    PromptInput:focus { border: round $primary; }
    """

    class Submitted(Message):
        """The developer pressed enter; ``text`` is the whole prompt (stripped)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, history: list[str] | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("soft_wrap", True)
        kwargs.setdefault("show_line_numbers", False)
        kwargs.setdefault("tab_behavior", "focus")
        super().__init__("", **kwargs)
        self.border_title = "Prompt"
        self.sent: list[str] = list(history or [])
        self._position = len(self.sent)
        self._draft = ""

    async def _on_key(self, event: events.Key) -> None:
        """Enter and ctrl+j before TextArea's handler, which Textual calls next unless the default is prevented."""
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.submit()
            return
        if event.key in ("ctrl+j", "shift+enter"):
            event.stop()
            event.prevent_default()
            self.insert("\n")
        if event.key == "question_mark" and not self.text:  # nothing typed yet: the help a newcomer asks for
            event.stop()
            event.prevent_default()
            await self.run_action("app.help")

    def submit(self) -> None:
        text = self.text.strip()
        if not text:
            return
        if not self.sent or self.sent[-1] != text:
            self.sent.append(text)
        self._position = len(self.sent)
        self._draft = ""
        self.clear()
        self.post_message(self.Submitted(text))

    def action_cursor_up(self, select: bool = False) -> None:
        if not select and self.cursor_location[0] == 0 and self._position > 0:
            if self._position == len(self.sent):
                self._draft = self.text
            self._position -= 1
            self._show(self.sent[self._position])
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        last_row = self.document.line_count - 1
        if not select and self.cursor_location[0] == last_row and self._position < len(self.sent):
            self._position += 1
            self._show(self.sent[self._position] if self._position < len(self.sent) else self._draft)
            return
        super().action_cursor_down(select)

    def _show(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)
