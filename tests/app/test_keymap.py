"""One table of actions and keys (tui/app/keymap.py): the bindings, the palette, the help screen and the
README / docs/tui.md tables agree with it, and every action it names exists and runs."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from tests.app.snapshot_apps.factory import EDIT_DIFF, ask, build_app, wait_for
from tui.app.app import DevagentApp
from tui.app.keymap import ACTIONS, listed, markdown_table
from tui.app.screens.help import KEYS
from tui.app.widgets.approval_queue import ApprovalQueue
from tui.app.widgets.diff_view import DiffView
from tui.protocol.proposals import Proposal

ROOT = Path(__file__).resolve().parents[2]
OWNERS = {"app": DevagentApp, "queue": ApprovalQueue, "diff": DiffView}
# Textual's key names as the help screen writes them
SHOWN = {"question_mark": "?", "right_curly_bracket": "}", "left_curly_bracket": "{", "ctrl+o": "ctrl+o",
         "f1": "F1", "f2": "F2", "f3": "F3"}


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("keys_table", ROOT / "scripts" / "keys_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_and_docs_tables_are_the_generated_ones() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "keys_table.py"), "--check"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    script = _script()
    readme = (ROOT / "README.md").read_text()
    assert "| anywhere | `ctrl+k` | kill the running command |" in readme
    edited = readme.replace("| anywhere | `ctrl+k` | kill the running command |", "| anywhere | `ctrl+x` | kill |")
    assert script.rewritten(edited, markdown_table()) == readme  # a hand edit is what the check finds


def test_every_action_in_the_table_exists_on_its_owner() -> None:
    for action in ACTIONS:
        if action.owner:
            name = action.action.split("(")[0]
            assert callable(getattr(OWNERS[action.owner], f"action_{name}", None)), f"{action.owner}: {name}"


def test_every_shown_binding_is_on_the_help_screen() -> None:
    help_keys = {part.strip() for _, shown, _ in KEYS for part in shown.split(" / ")}
    assert KEYS == [(a.where, a.shown, a.what) for a in listed()]
    for owner in OWNERS.values():
        for binding in owner.BINDINGS:
            first = binding.key.split(",")[0]
            if binding.show:
                assert SHOWN.get(first, first) in help_keys, f"{owner.__name__}: {binding.key} is not in the help"


async def test_the_palette_runs_each_action_on_its_owner(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(160, 48)) as pilot:
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert {a.palette for a in ACTIONS if a.palette} <= set(commands)

        async def run(title: str) -> None:
            await commands[title].callback()
            await pilot.pause()

        await wait_for(pilot, lambda: len(app.theme_names) > 1, what="the theme files")
        before = app.theme
        await run("Next theme")  # an app action
        assert app.theme != before
        ask(app, Proposal(id="d1", kind="edit", summary="edit app.py", diff=EDIT_DIFF, files=["app.py"]))
        await wait_for(pilot, lambda: app.main.diff.diff_for == "d1")
        view = app.query_one(DiffView)
        await run("Diff: unified / side by side")  # the diff view's own action
        assert view.side_by_side
        await run("Focus prompt")
        assert app.focused is not None and app.focused.id == "prompt"
        await run("Open proposal")  # the queue's action, on the highlighted proposal
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ProposalScreen")
