"""Test keys: `t` runs the suite through the approval queue and lists the results; `F` runs the fix loop.

A test run is a proposal like any command (session.run_tool("run_tests")): the developer sees
the exact argv, it runs in the sandbox, its output streams into the output pane, and the
structured TestRun comes back for the results list. The fix loop's attempt counter is the
output pane's title (the main screen's FixAttempt handler); Esc cancels its worker, which stops it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Awaitable

from tui.protocol.errors import DevagentError

if TYPE_CHECKING:
    from tui.app.screens.main import MainScreen


def ready(screen: "MainScreen", what: str) -> bool:
    """The engine is open and nothing else runs; otherwise say why (a notification, not an error)."""
    if screen.session is None:
        screen.notify(f"The engine is still starting: {what} has to wait (see the banner if it failed).",
                   severity="warning")
        return False
    if screen.busy():
        screen.notify(f"Something is running: escape cancels it, then {what} again.", severity="warning")
        return False
    return True


async def keys_after(screen: "MainScreen", work: Awaitable[None]) -> None:
    """Run ``work``; then refresh the status bar's keys (the "esc cancel" hint goes away)."""
    try:
        await work
    finally:
        screen.call_later(screen.update_keys)


def start_tests(screen: "MainScreen", selection: str = "") -> None:
    """`t`: pick the suite (when there are several), queue the run for approval, then list the results."""
    if not ready(screen, "the test run"):
        return
    screen.run_worker(keys_after(screen, _run_tests(screen, selection)), name="tests", group="command",
                      exit_on_error=False)
    screen.update_keys()


async def _run_tests(screen: "MainScreen", selection: str) -> None:
    from tui.app.screens.tests_results import ALL, SuitePickScreen
    from tui.testing import TestRun, detect_suites

    try:
        suites = await asyncio.to_thread(detect_suites, screen.repo, screen.config)
    except DevagentError as err:
        screen.notify(f"{err.message} {err.hint}".strip(), severity="error")
        return
    if not suites:
        screen.notify("No test suite found: set tests.command in .devagent.toml.", severity="warning")
        return
    names = [""]
    if len(suites) > 1 and not selection:
        choice = await screen.app.push_screen_wait(SuitePickScreen(suites, screen.repo))
        if choice is None:
            return
        names = [s.name for s in suites] if choice == ALL else [choice]
    runs: list[TestRun] = []
    for name in names:
        arguments = {key: value for key, value in (("suite", name), ("selection", selection)) if value}
        result = await screen.session.run_tool("run_tests", arguments)
        data = result.data.get("test_run") if result.data else None
        if data is None:
            screen.notify(f"tests not run: {result.summary}", severity="warning", timeout=6)
            continue
        runs.append(TestRun.from_dict(data))
    if runs:
        show_results(screen, runs)


def show_results(screen: "MainScreen", runs: list[Any]) -> None:
    from tui.app.screens.tests_results import TestResultsScreen

    screen.app.push_screen(TestResultsScreen(runs, screen.repo))


def start_fix(screen: "MainScreen") -> None:
    """`F`: the fix loop (tests -> the model proposes a fix -> you approve -> tests again)."""
    if not ready(screen, "the fix loop"):
        return
    if screen.server_state != "connected":
        screen.notify("The model server is not connected; the fix loop needs it. Trying anyway.", severity="warning")
    screen.run_worker(_fix(screen), name="fix-loop", group="turn", exit_on_error=False)
    screen.update_keys()


async def _fix(screen: "MainScreen") -> None:
    agent, output = screen.agent, screen.output
    agent.add_notice("fix loop: running the tests (escape stops the loop)")
    output.start("fix-loop", "fix loop: tests, fix, tests again", screen.bar.sandbox)
    screen.add_class("-has-output")
    try:
        result = await screen.session.fix_tests()
    except DevagentError as err:
        agent.add_notice(f"fix loop: {err.message} {err.hint}".strip(), "error")
        return
    finally:
        output.finish(None, 0.0)
        output.border_title = "Output"
        screen.call_later(screen.update_keys)
    if result.last is not None:
        show_results(screen, [result.last])
