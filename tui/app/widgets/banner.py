"""The line above the panes: the model server's state while it is not connected, and the last error.

Hidden while it has nothing to say (``-shown`` in app.tcss). All text is literal.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Static

from tui.app.widgets.tool_call_line import one_line


class Banner(Static):
    """Two parts, each replaced on its own: ``server`` (ServerStatus) and ``error`` (the last error)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)
        self.server = ""
        self.error = ""

    def say(self, *, server: str | None = None, error: str | None = None) -> None:
        if server is not None:
            self.server = server
        if error is not None:
            self.error = error
        text = "\n".join(t for t in (self.server, self.error) if t)
        self.update(text)
        self.set_class(bool(text), "-shown")

    def server_state(self, state: str, host: str, detail: str, retry_seconds: float) -> None:
        """The server's state: nothing once connected, else what is wrong and what still works."""
        if state == "connected":
            self.say(server="")
            return
        where = f" at {host}" if host else ""
        detail = one_line(detail, 300) if detail else ""
        self.say(server=(f"Model server {state}{where}: {detail} Retrying every {retry_seconds:g}s (ctrl+r: now). "
                         "Start it with `ollama serve` or set OLLAMA_HOST. Diffs and `!cmd` still work."))
