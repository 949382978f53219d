"""One tool call inline in the conversation: name, literal arguments, state and a one-line result.

Also where widgets get the literal-text helpers (from tui.safety.literal, shared with every front end):
model text and commands are shown as plain rich Text (never markup), hidden characters as escapes.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from tui.safety.literal import literal_warnings, visible

__all__ = ["ToolCallLine", "describe_arguments", "literal_warnings", "one_line", "visible"]

STATES = ("running", "waiting", "approved", "rejected", "failed", "done")
_ICONS = {"running": "⟳", "waiting": "?", "approved": "✓", "rejected": "✗", "failed": "!", "done": "✓"}


def one_line(text: str, limit: int = 200, command: bool = False) -> str:
    """A literal single line: newlines shown as ⏎, escapes visible, cut at ``limit``."""
    line = visible(text, command).replace("\n", " ⏎ ")
    return line if len(line) <= limit else line[: limit - 1] + "…"


LABEL_MAX = 20  # a longer label (a tool name the model made up) is cut with an ellipsis


def label_cell(label: str, width: int) -> str:
    """``label`` as a column ``width`` wide followed by two spaces: cut with … when longer, never run on."""
    width = min(max(width, 1), LABEL_MAX)
    cut = label if len(label) <= width else label[: width - 1] + "…"
    return f"{cut:<{width}}  "


def describe_arguments(name: str, arguments: dict[str, Any]) -> str:
    """The most telling argument of a call, literally (the command, the path), else compact JSON."""
    for key in ("command", "cmd", "path", "message", "query", "pattern"):
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return value
    import json

    try:
        return json.dumps(arguments, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return str(arguments)


class ToolCallLine(Static):
    """A tool call with its state.

    Reactives: ``state`` (one of STATES) and ``result`` (a one-line summary).
    """

    DEFAULT_CSS = """
    ToolCallLine { height: auto; padding: 0 1; color: $text-muted; }
    ToolCallLine.-running { color: $accent; }
    ToolCallLine.-waiting { color: $warning; }
    ToolCallLine.-approved, ToolCallLine.-done { color: $success; }
    ToolCallLine.-rejected, ToolCallLine.-failed { color: $error; }
    """

    state: reactive[str] = reactive("running")
    result: reactive[str] = reactive("")
    name_width: reactive[int] = reactive(0)  # the name column: the longest name in the conversation

    def __init__(self, call_id: str, name: str, arguments: dict[str, Any], **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)
        self.call_id = call_id
        self.tool_name = name
        self.arguments = arguments
        self.proposal_id = ""
        self.set_reactive(ToolCallLine.name_width, len(name))

    def on_mount(self) -> None:
        self._refresh_text()

    def watch_state(self, old: str, new: str) -> None:
        self.remove_class(f"-{old}")
        self.add_class(f"-{new}")
        self._refresh_text()

    def watch_result(self) -> None:
        self._refresh_text()

    def watch_name_width(self) -> None:
        self._refresh_text()

    def _refresh_text(self) -> None:
        text = Text()
        text.append(f"{_ICONS.get(self.state, '·')} ", style="bold")
        text.append(label_cell(one_line(self.tool_name, LABEL_MAX), self.name_width), style="bold")
        text.append(one_line(describe_arguments(self.tool_name, self.arguments), 120))
        text.append(f"  [{self.state}]")
        if self.result:
            text.append("\n  → ")
            text.append(one_line(self.result, 160))
        self.update(text)
