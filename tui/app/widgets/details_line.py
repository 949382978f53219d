"""devagent's own notes of one request, on one collapsed line of the conversation.

The conversation is the developer's: the request, tool lines, proposals, results, the answer. What devagent
says to or about the model (a retry, a correction, the reply as the model wrote it with its raw tool call, a
checkpoint ref, a connection message) is a ``Detail`` event: it is kept here, one line per request, which
says how many there are and expands (click, or ctrl+l for the latest) to show each, literally. The session
store keeps them all (the transcript).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.reactive import reactive
from textual.widgets import Static

from tui.safety.literal import visible

KINDS = {  # kind -> (one, several), as the collapsed line counts them
    "model-note": ("note to the model", "notes to the model"),
    "retry": ("retry", "retries"),
    "raw-call": ("reply as written", "replies as written"),
    "checkpoint": ("checkpoint", "checkpoints"),
    "connection": ("connection message", "connection messages"),
    "other": ("note", "notes"),
}
SHOWN_CHARS = 2000  # of one detail when expanded; the transcript keeps the whole text


def counted(kinds: list[str]) -> str:
    """'2 notes to the model, 1 retry' for the kinds in first-seen order."""
    order = list(dict.fromkeys(kinds))
    parts = []
    for kind in order:
        one, several = KINDS.get(kind, KINDS["other"])
        count = kinds.count(kind)
        parts.append(f"{count} {one if count == 1 else several}")
    return ", ".join(parts)


class DetailsLine(Static):
    """Reactive ``expanded``: collapsed, one line with the counts; expanded, every detail below it."""

    DEFAULT_CSS = """
    DetailsLine { height: auto; padding: 0 1; color: $text-muted; }
    DetailsLine:hover { background: $boost; }
    """

    expanded: reactive[bool] = reactive(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)
        self.items: list[tuple[str, str]] = []  # (kind, text), in order

    def add(self, text: str, kind: str) -> None:
        self.items.append((kind if kind in KINDS else "other", text))
        self._show()

    def toggle(self) -> None:
        self.expanded = not self.expanded

    def watch_expanded(self) -> None:
        self._show()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.toggle()

    def _show(self) -> None:
        summary = counted([kind for kind, _ in self.items])
        head = Text(f"{'▾' if self.expanded else '▸'} devagent's details: {summary}", style="italic")
        head.append(f"  ({'click or ctrl+l: hide' if self.expanded else 'click or ctrl+l: show'})", style="dim")
        if self.expanded:
            for kind, text in self.items:
                shown = text if len(text) <= SHOWN_CHARS else \
                    text[:SHOWN_CHARS] + f"… ({len(text) - SHOWN_CHARS} more characters in the transcript)"
                head.append(f"\n  {KINDS[kind][0]}: ", style="bold")
                head.append(visible(shown).replace("\n", "\n    "))
        self.update(head)
