"""Test keys: `t` runs the suite through the approval queue and lists the results; `F` runs the fix loop.

A test run is a proposal like any command (session.run_tool("run_tests")): the developer sees
the exact argv, it runs in the sandbox, its output streams into the output pane, and the
structured TestRun comes back for the results list. The fix loop's attempt counter is the
output pane's title (from FixAttempt events); Esc cancels its worker, which stops it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Awaitable

from tui.protocol.errors import DevagentError

if TYPE_CHECKING:
    from tui.app.host import Host


def ready(app: "Host", what: str) -> bool:
    """The engine is open and nothing else runs; otherwise say why (a notification, not an error)."""
    if app.session is None:
        app.notify(f"The engine is still starting: {what} has to wait (see the banner if it failed).",
                   severity="warning")
        return False
    if app._busy():
        app.notify(f"Something is running: escape cancels it, then {what} again.", severity="warning")
        return False
    return True


async def keys_after(app: "Host", work: Awaitable[None]) -> None:
    """Run ``work``; then refresh the status bar's keys (the "esc cancel" hint goes away)."""
    try:
        await work
    finally:
        app.call_later(app._update_keys)


def start_tests(app: "Host", selection: str = "") -> None:
    """`t`: pick the suite (when there are several), queue the run for approval, then list the results."""
    if not ready(app, "the test run"):
        return
    app.run_worker(keys_after(app, _run_tests(app, selection)), name="tests", group="command", exit_on_error=False)
    app._update_keys()


async def _run_tests(app: "Host", selection: str) -> None:
    from tui.app.screens.tests_results import ALL, SuitePickScreen
    from tui.testing import TestRun, detect_suites

    try:
        suites = await asyncio.to_thread(detect_suites, app.repo, app.config)
    except DevagentError as err:
        app.notify(f"{err.message} {err.hint}".strip(), severity="error")
        return
    if not suites:
        app.notify("No test suite found: set tests.command in .devagent.toml.", severity="warning")
        return
    names = [""]
    if len(suites) > 1 and not selection:
        choice = await app.push_screen_wait(SuitePickScreen(suites, app.repo))
        if choice is None:
            return
        names = [s.name for s in suites] if choice == ALL else [choice]
    runs: list[TestRun] = []
    for name in names:
        arguments = {key: value for key, value in (("suite", name), ("selection", selection)) if value}
        result = await app.session.run_tool("run_tests", arguments)
        data = result.data.get("test_run") if result.data else None
        if data is None:
            app.notify(f"tests not run: {result.summary}", severity="warning", timeout=6)
            continue
        runs.append(TestRun.from_dict(data))
    if runs:
        show_results(app, runs)


def show_results(app: "Host", runs: list[Any]) -> None:
    from tui.app.screens.tests_results import TestResultsScreen

    app.push_screen(TestResultsScreen(runs, app.repo))


def start_fix(app: "Host") -> None:
    """`F`: the fix loop (tests -> the model proposes a fix -> you approve -> tests again)."""
    if not ready(app, "the fix loop"):
        return
    if app.server_state != "connected":
        app.notify("The model server is not connected; the fix loop needs it. Trying anyway.", severity="warning")
    app.run_worker(_fix(app), name="fix-loop", group="turn", exit_on_error=False)
    app._update_keys()


async def _fix(app: "Host") -> None:
    from tui.app.widgets.agent_pane import AgentPane

    agent = app.main.query_one(AgentPane)
    agent.add_notice("fix loop: running the tests (escape stops the loop)")
    output = _output(app)
    output.start("fix-loop", "fix loop: tests, fix, tests again", getattr(app.main.query_one("#status"), "sandbox", ""))
    app.main.add_class("-has-output")
    try:
        result = await app.session.fix_tests()
    except DevagentError as err:
        agent.add_notice(f"fix loop: {err.message} {err.hint}".strip(), "error")
        return
    finally:
        output.finish(None, 0.0)
        output.border_title = "Output"
        app.call_later(app._update_keys)
    if result.last is not None:
        show_results(app, [result.last])


def _output(app: "Host") -> Any:
    from tui.app.widgets.output_pane import OutputPane

    return app.main.query_one(OutputPane)


def on_fix_attempt(app: "Host", event: Any) -> None:
    """FixAttempt: the counter in the output pane's title, and a line in the conversation."""
    from tui.app.widgets.agent_pane import AgentPane

    output = _output(app)
    agent = app.main.query_one(AgentPane)
    if event.state == "fixing":
        output.border_title = f"Output · fix attempt {event.attempt}/{event.limit} · esc stops"
        agent.add_notice(f"fix attempt {event.attempt} of {event.limit}: {event.failing} failing test(s)")
    else:
        output.border_title = "Output"
        reasons = {"passed": "the tests pass", "limit": "attempt limit reached", "repeated":
                   "the same failures came back", "declined": "no fix was applied", "cancelled": "cancelled",
                   "not_run": "the tests could not run (see the results)"}
        why = reasons.get(event.reason, event.reason)
        agent.add_notice(f"fix loop stopped after {event.attempt} attempt(s): {why}",
                         "info" if event.reason == "passed" else "warning")
