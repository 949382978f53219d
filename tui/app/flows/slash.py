"""Prompt commands that need no model: `/scaffold KIND NAME [--dir D]`, `/refactor ...` and `/test [SELECTION]`.

Any other text starting with "/" goes to the model as usual (a prompt may begin with a path).
`/scaffold` is a proposal in the queue like any edit; after approval the new test can be run with `T`.
`/refactor` (rename, move, signature, extract, repair; the words of `devagent refactor`) is one too: the exact change
first, then, once it is applied, the optional prose-and-strings part as a second proposal.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.app.screens.main import MainScreen

USAGE = "/scaffold KIND NAME [--dir D]   (KIND: component, page, route, module, widget, package)"
_offered: dict[int, str] = {}  # id(screen) -> the test file the last approved scaffold created


def handle(screen: "MainScreen", text: str) -> bool:
    """True when ``text`` was a prompt command (handled here); False sends it to the model."""
    word = text.split(maxsplit=1)[0] if text.strip() else ""
    if word not in ("/scaffold", "/test", "/refactor"):
        return False
    from tui.app.flows.tests import start_tests

    try:
        parts = shlex.split(text)
    except ValueError as err:
        screen.notify(f"{word}: {err}", severity="error")
        return True
    if word == "/test":
        start_tests(screen, " ".join(parts[1:]))
        return True
    if word == "/refactor":
        return _start_refactor(screen, text, parts[1:])
    arguments = _scaffold_arguments(parts[1:])
    if arguments is None:
        screen.notify(f"usage: {USAGE}", severity="warning", timeout=8)
        return True
    return _start(screen, text, "scaffold", _scaffold(screen, arguments))


def _start(screen: "MainScreen", text: str, name: str, work: Any) -> bool:
    """Run a prompt command's work as the screen's command (the prompt shown, its keys while it runs)."""
    from tui.app.flows.tests import keys_after, ready
    from tui.app.widgets.agent_pane import AgentPane

    if not ready(screen, f"the {name}"):
        work.close()
        return True
    screen.query_one(AgentPane).add_prompt(text)
    screen.run_worker(keys_after(screen, work), name=name, group="command", exit_on_error=False)
    screen.update_keys()
    return True


def _scaffold_arguments(words: list[str]) -> dict[str, Any] | None:
    positional: list[str] = []
    options: dict[str, str] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--dir" and i + 1 < len(words):
            options["dir"] = words[i + 1]
            i += 2
            continue
        if word.startswith("--dir="):
            options["dir"] = word.split("=", 1)[1]
        elif word.startswith("-"):
            return None
        else:
            positional.append(word)
        i += 1
    if len(positional) != 2:
        return None
    return {"kind": positional[0], "name": positional[1], **({"options": options} if options else {})}


async def _scaffold(screen: "MainScreen", arguments: dict[str, Any]) -> None:
    result = await screen.session.run_tool("scaffold", arguments)
    if not result.ok:
        screen.notify(f"scaffold: {result.summary}", severity="warning", timeout=8)
        return
    test = str((result.data or {}).get("test_selection") or "")
    if test:
        _offered[id(screen)] = test
        screen.notify(f"Files written. New test {test}: press T to run it.", timeout=15)
    else:
        screen.notify("Files written.", timeout=4)
    screen.diff.refresh_repo()


def _start_refactor(screen: "MainScreen", text: str, words: list[str]) -> bool:
    from tui.protocol.errors import ToolError
    from tui.tools.refactor import words_arguments

    try:
        arguments = {k: v for k, v in words_arguments(words).items() if v is not None}
    except ToolError as err:
        screen.notify(err.message, severity="warning", timeout=10)
        return True
    return _start(screen, text, "refactor", _refactor(screen, arguments))


async def _refactor(screen: "MainScreen", arguments: dict[str, Any]) -> None:
    screen.notify("Refactoring on a copy of the tree (engine, checks, the tests before and after)…", timeout=6)
    result = await screen.session.run_tool("refactor", arguments)
    if not result.ok:
        screen.notify(f"refactor: {result.summary}", severity="warning", timeout=10)
        return
    screen.diff.refresh_repo()
    if (result.data or {}).get("optional_files"):
        more = await screen.session.run_tool("refactor", {"operation": "mentions"})
        if more.ok:
            screen.diff.refresh_repo()
    screen.notify("Refactoring applied.", timeout=4)


def run_offered_test(screen: "MainScreen") -> None:
    """`T`: run the test the last approved scaffold created."""
    from tui.app.flows.tests import start_tests

    test = _offered.get(id(screen))
    if not test:
        screen.notify("No new test to run yet (`/scaffold` offers one); t runs the whole suite.", timeout=4)
        return
    start_tests(screen, test)
