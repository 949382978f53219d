"""Deterministic app builders shared by the pilot and snapshot tests.

A fixed clock, no cursor blink, the isolated config from tests/conftest.py, and
engine events fed as messages (never timing) so the screen is the same every run.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable

from tui.app.app import DevagentApp
from tui.app.launch import open_session
from tui.app.messages import ApprovalRequested, EngineEvent
from tui.protocol import events as ev
from tui.protocol.proposals import Proposal
from tui.config import load_config


def build_app(repo: Path, *, server_url: str | None = None, theme: str | None = None, prompt: str | None = None,
              git_refresh: bool = True) -> DevagentApp:
    """The real app. With ``server_url`` it opens a real Session against that (scripted) server."""
    config = load_config(repo)
    app = DevagentApp(
        repo, config, prompt=prompt, theme=theme, clock=lambda: 100.0, git_refresh=git_refresh,
        session_factory=open_session if server_url else None,
        session_options={"host": server_url} if server_url else None,
    )
    app.retry_seconds = 0.3
    return app


def no_blink(app: DevagentApp) -> None:
    from textual.widgets import TextArea

    for area in app.query(TextArea):
        area.cursor_blink = False
    if isinstance(app, DevagentApp) and app.screen_stack and not app.main.complete:  # its prompt: after the first frame
        app.call_after_refresh(no_blink, app)


def feed(app: DevagentApp, *events: ev.Event) -> None:
    for event in events:
        app.post_message(EngineEvent(event))


def ask(app: DevagentApp, proposal: Proposal) -> asyncio.Future[Any]:
    """Queue ``proposal`` as the TUI approver would; the future gets the Decision."""
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    app.post_message(ApprovalRequested(proposal, future))
    return future


async def wait_for(pilot: Any, predicate: Callable[[], object], timeout: float = 15.0, what: str = "") -> None:
    """Pause until ``predicate()`` is true; the timeout is only a hang guard."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what or predicate}")
        await pilot.pause(0.05)


EDIT_DIFF = """diff --git a/app.py b/app.py
--- a/app.py
+++ b/app.py
@@ -1,2 +1,3 @@
+import math
 def add(a, b):
     return a + b
"""

COMMIT_PROPOSAL = dict(id="p3", kind="commit", summary="Add math import", message="Add math import\n",
                       risk="writes-repo", rule="default: ask", sandbox="none")


def sample_proposals() -> list[Proposal]:
    return [
        Proposal(id="p1", kind="command", summary="pytest -q", command="pytest -q", risk="read-only",
                 policy="ask", rule="default: ask", sandbox="bwrap", call_id="c1"),
        Proposal(id="p2", kind="edit", summary="edit app.py (+1 -0)", diff=EDIT_DIFF, files=["app.py"],
                 risk="writes-repo", rule="default: ask", sandbox="none", call_id="c2"),
        Proposal(id="p4", kind="command", summary="rm -rf build", command="rm -rf build", risk="destructive",
                 rule="repo: ask rm", sandbox="bwrap", call_id="c3",
                 warnings=["deletes files: build/"]),
        Proposal(**COMMIT_PROPOSAL),
    ]


STREAM_TEXT = [
    "Here is the plan:\n\n",
    "1. Read `app.py`\n2. Add a test\n\n",
    "```python\ndef test_add():\n    assert add(1, 2) == 3\n```\n\n",
    "Now I will run the tests with [bold]pytest[/bold] ",
]


LABEL_CALLS = [("c1", "read_file", {"path": "app.py"}), ("c2", "commit", {"message": "Add math import"}),
               ("c3", "run_command", {"command": "pytest -q"}),
               ("c4", "search_and_replace_in_all_files", {"pattern": "TODO"})]  # a name a model made up
LABEL_PROPOSALS = [
    Proposal(id="q1", kind="edit", summary="edit app.py (+1 -0)", risk="writes-repo"),
    Proposal(id="q2", kind="command", summary="pytest -q", command="pytest -q", risk="read-only"),
    Proposal(id="q3", kind="scaffold", summary="component Button (3 files)", risk="writes-repo"),
    Proposal(id="q4", kind="python", summary="print(1)", code="print(1)", risk="shell-exec"),
]


async def show_labels(pilot: Any) -> None:
    """Tool-call lines and queued proposals whose labels differ in length (one longer than the cap)."""
    app = pilot.app
    feed(app, *(ev.ToolCallStarted(call_id, name, args) for call_id, name, args in LABEL_CALLS))
    for proposal in LABEL_PROPOSALS:
        ask(app, proposal)
    await wait_for(pilot, lambda: len(app.main.queue.pending) == len(LABEL_PROPOSALS)
                   and len(app.query("ToolCallLine")) == len(LABEL_CALLS))
    await pilot.pause(0.1)
