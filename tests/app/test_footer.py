"""The status bar shows the focused pane's own keys, for every pane; ctrl+o jumps to the diff and back.

Snapshots (80x24 and 160x48) with the focus in each pane show the footer and the focus cue (the
focused pane's border heavy and in its full colour). Update with --snapshot-update and look at them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len

from tests.app.snapshot_apps.factory import ask, build_app, feed, no_blink, wait_for
from tests.app.snapshots_diff.sample import SAMPLE_DIFF
from tests.conftest import make_repo
from tui.app.keyhints import JUMP_KEY, pane_hints
from tui.app.widgets.agent_pane import AgentPane
from tui.app.widgets.status_bar import StatusBar
from tui.protocol import events as ev
from tui.protocol.proposals import Decision, Proposal

PANES = {"prompt": "#prompt", "agent": "#agent", "queue": "#queue", "diff": "#diff", "files": "#files",
         "output": "#output-log"}
KEY_NAMES = {"⏎": "enter", "^j": "ctrl+j", "^k": "ctrl+k", "↑": "up", "↓": "down", "{": "left_curly_bracket",
             "}": "right_curly_bracket"}
TYPED = {("prompt", "enter"), ("prompt", "ctrl+j")}  # the prompt reads these keys itself (PromptInput._on_key)


def proposals() -> list[Proposal]:
    return [
        Proposal(id="p1", kind="edit", summary="edit calc.py, notes.md", diff=SAMPLE_DIFF, files=["calc.py", "notes.md"],
                 risk="writes-repo", rule="default: ask", sandbox="bwrap", call_id="c1"),
        Proposal(id="p2", kind="command", summary="pytest -q", command="pytest -q", risk="read-only",
                 rule="default: ask", sandbox="bwrap", call_id="c2"),
    ]


async def busy_screen(pilot: Any) -> None:
    """A conversation, two proposals (the first a two-file diff), a finished command in the output pane."""
    app = pilot.app
    feed(app, ev.ServerStatus("connected", "http://127.0.0.1:11434", "qwen2.5-coder:1.5b"),
         ev.SessionStarted("s1", "repo", "qwen2.5-coder:1.5b", "ollama", "bwrap"))
    app.query_one("#agent").add_prompt("tidy calc.py and run the tests")
    feed(app, ev.TextDelta("I will tidy `add` and guard `div`.\n"), ev.TextDone("I will tidy `add` and guard `div`.\n"))
    feed(app, ev.CommandStarted("p0", "git log --oneline -3", "bwrap"), ev.CommandOutput("p0", "1a2b3c4 initial\n"),
         ev.CommandFinished("p0", 0, 0.0))
    for proposal in proposals():
        feed(app, ev.ToolCallStarted(proposal.call_id, "edit_file" if proposal.diff else "run_command",
                                     {"command": proposal.summary}), ev.ProposalCreated(proposal))
        ask(app, proposal)
    await wait_for(pilot, lambda: len(app.main.queue.pending) == 2)
    await wait_for(pilot, lambda: not app.query_one(AgentPane).streaming and
                   "I will tidy `add` and guard `div`." in painted(app), what="the reply painted, as written")
    no_blink(app)
    await pilot.pause(0.2)


def painted(app: Any) -> str:
    """The screen as the compositor paints it now."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def focus_scene(pane: str) -> Any:
    async def scene(pilot: Any) -> None:
        await busy_screen(pilot)
        await wait_for(pilot, lambda: pilot.app.query_one(StatusBar).branch == "main", what="git status")
        pilot.app.query_one(PANES[pane]).focus()
        await pilot.pause(0.2)
    return scene


def footer(app: Any) -> str:
    bar = app.query_one(StatusBar)
    return str(bar.render())


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
@pytest.mark.parametrize("pane", list(PANES))
def test_footer_with_the_focus_in_each_pane(snap_compare: Any, tmp_path: Path, pane: str,
                                            size: tuple[int, int]) -> None:
    if pane == "files" and size[0] < 120:
        pytest.skip("the file list is hidden below 120 columns")
    repo = make_repo(tmp_path / "repo")
    assert snap_compare(build_app(repo), terminal_size=size, run_before=focus_scene(pane))


@pytest.mark.parametrize("pane", list(PANES))
async def test_the_footer_names_the_focused_panes_own_keys(repo: Path, pane: str) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await busy_screen(pilot)
        widget = app.query_one(PANES[pane])
        widget.focus()
        await pilot.pause(0.1)
        hints = pane_hints(widget)
        assert hints, f"{pane} has no KEY_HINTS"
        shown = footer(app)
        for key, label in hints:
            assert f"{key} {label}" in shown, shown
        active = {binding.key for binding in (b.binding for b in app.screen.active_bindings.values())}
        for key, _ in hints:  # every key the footer offers works where the footer offers it
            for part in key.split("/"):
                name = KEY_NAMES.get(part, part)
                assert (pane, name) in TYPED or name in active or any(name in b.split(",") for b in active), \
                    f"{pane}: {part} is not bound"


async def test_the_footer_keeps_every_key_at_80_columns(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await busy_screen(pilot)
        app.query_one("#diff").focus()
        await pilot.pause(0.1)
        shown = footer(app)
        assert cell_len(shown) <= app.query_one(StatusBar).content_size.width, shown  # nothing cut off
        for key in ("space toggle", "n/p hunk", "{/} file", "s split", "S stage"):
            assert f" {key} " in f" {shown} ", shown
        assert "●" in shown and "bwrap" in shown  # the server's health and the sandbox stay visible


@pytest.mark.parametrize("pane", [p for p in PANES if p != "files"])
async def test_every_pane_key_stays_at_80_columns_during_a_turn(repo: Path, pane: str) -> None:
    """A turn waiting for its proposals (esc cancels it), the context meter and a pending count all take room:
    the footer still ends with every one of the focused pane's keys, and nothing is cut off."""
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await busy_screen(pilot)
        app.main.bar.repo_name, app.main.bar.branch = "repo", "main"
        feed(app, ev.ContextUsage(2145, 4096))
        hold = asyncio.Event()
        app.main.run_worker(hold.wait(), group="turn")
        app.main.update_keys()  # as a turn's start does
        widget = app.query_one(PANES[pane])
        widget.focus()
        await wait_for(pilot, lambda: "ctx 2145/4096" in footer(app) and "esc" in footer(app),
                       what="the turn's keys")
        shown = footer(app)
        assert cell_len(shown) <= app.query_one(StatusBar).content_size.width, shown
        words = set(shown.replace("·", " ").replace("│", " ").split())
        for key, _ in pane_hints(widget):
            assert key in words, f"{pane}: {key} missing from {shown!r}"
        assert "bwrap" in shown
        hold.set()


@pytest.mark.parametrize("theme", ["devagent-dark", "devagent-light", "devagent-high-contrast"])
async def test_the_borderless_conversation_shows_its_focus(repo: Path, theme: str) -> None:
    """On a short narrow screen the conversation has no border to make heavy: its background changes instead,
    visibly (Textual's $boost is transparent in a theme that sets its panel colour, as each shipped one does)."""
    app = build_app(repo, git_refresh=False, theme=theme)
    async with app.run_test(size=(80, 24)) as pilot:
        agent = app.query_one("#agent")
        assert agent.styles.border_top[0] in ("", "none")  # no border here: the background is the cue
        app.query_one("#prompt").focus()
        await pilot.pause(0.1)
        unfocused = agent.background_colors[1]
        agent.focus()
        await pilot.pause(0.1)
        focused = agent.background_colors[1]
        distance = sum(abs(a - b) for a, b in zip(focused.rgb, unfocused.rgb))
        assert distance >= 24, (theme, focused.hex, unfocused.hex)


async def test_ctrl_o_jumps_to_the_diff_and_back(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await busy_screen(pilot)
        queue, diff, prompt = app.query_one("#queue"), app.query_one("#diff"), app.query_one("#prompt")
        queue.focus()
        await pilot.press(JUMP_KEY)
        assert diff.has_focus
        assert "space toggle" in footer(app) and "^o" in footer(app)
        await pilot.press(JUMP_KEY)
        assert queue.has_focus  # back where it came from, one key each way
        prompt.focus()
        await pilot.press(*"fix it")
        await pilot.press(JUMP_KEY)  # from the prompt too: ctrl+o is not text
        assert diff.has_focus and prompt.text == "fix it"
        await pilot.press("space")  # the diff's keys act at once
        assert diff.rejected_hunks() == {0}
        await pilot.press(JUMP_KEY)
        assert prompt.has_focus


async def test_ctrl_o_back_goes_to_the_prompt_when_the_pane_left_is_gone(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await busy_screen(pilot)
        app.query_one("#queue").focus()
        await pilot.press(JUMP_KEY)
        for proposal_id in list(app.main.queue.pending):
            app.main.queue.resolve(proposal_id, Decision("reject"))
        await pilot.pause(0.1)  # the queue is empty: hidden on a narrow screen
        await pilot.press(JUMP_KEY)
        assert app.query_one("#prompt").has_focus
