"""Keys a newcomer finds: help from anywhere (F1; `?` while the prompt is empty), copying the selection, the last
answer and its code blocks (keys and palette entries, through the terminal's clipboard), a footer shortened by
priority (labels kept, least useful hints dropped first), file names never broken across lines, and counts in
words that agree with their number.

Seen: focus starts in the prompt, so `?` (which the welcome line names) typed a character; no copy action in
help or the palette; the footer cut to "│ ^o · ?"; "changed 1 files"."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len

from tests.app.snapshot_apps.factory import build_app, feed, wait_for
from tui.app.keyhints import KeyHints
from tui.app.screens.help import HelpScreen
from tui.app.widgets.prompt_input import PromptInput
from tui.app.widgets.status_bar import StatusBar
from tui.protocol import events as ev
from tui.protocol.words import plural

ANSWER = ("Add the import, then call it:\n\n```python\nimport math\n```\n\nand the test:\n\n"
          "```python\ndef test_root():\n    assert math.isqrt(16) == 4\n```\n\nThat is all for `__init__.py`.")


def rows(app: Any) -> list[str]:
    """The screen as text, one string per row."""
    return ["".join(segment.text for segment in strip) for strip in app.screen._compositor.render_strips()]


async def test_f1_opens_the_help_from_anywhere_and_question_mark_from_an_empty_prompt(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = app.query_one(PromptInput)
        prompt.focus()
        await pilot.press("question_mark")  # nothing typed yet: the help a newcomer asks for
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="? opens the help")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))
        prompt.focus()
        for key in "why":
            await pilot.press(key)
        await pilot.press("question_mark")  # inside a sentence it is a character
        assert prompt.text == "why?" and not isinstance(app.screen, HelpScreen)
        await pilot.press("f1")  # F1: the help, whatever has the focus and whatever is typed
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="F1 opens the help")
        help_text = "\n".join(rows(app))
        for line in ("F1 / ?", "copy the last answer", "copy the selected text"):
            assert line in help_text, line
        await pilot.press("escape")
        app.query_one("#diff").focus()
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="F1 from the diff")


async def test_copy_the_last_answer_and_its_code_blocks(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f2")
        await wait_for(pilot, lambda: any("No answer to copy yet" in str(n.message) for n in app._notifications))
        feed(app, ev.TurnStarted(1, "add a test"), ev.TextDelta(ANSWER), ev.TextDone(ANSWER),
             ev.TurnDone(reason="complete", text=ANSWER))
        await wait_for(pilot, lambda: app.main.last_answer == ANSWER)
        await pilot.press("f2")
        await wait_for(pilot, lambda: app.clipboard == ANSWER, what="F2 copies the answer as the model wrote it")
        await pilot.press("f3")
        await wait_for(pilot, lambda: app.clipboard == "def test_root():\n    assert math.isqrt(16) == 4\n",
                       what="F3: the last code block")
        await pilot.press("f3")
        await wait_for(pilot, lambda: app.clipboard == "import math\n", what="F3 again: the one before")
        said = [str(n.message) for n in app._notifications]
        assert any("Copied code block 1 of 2 (python) (1 line) to the clipboard." == s for s in said), said


async def test_copy_the_selection_with_ctrl_c_and_from_the_palette(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = app.query_one(PromptInput)
        prompt.load_text("src/more_itertools/__init__.py")
        prompt.focus()
        prompt.select_all()
        await pilot.press("ctrl+c")
        assert app.clipboard == "src/more_itertools/__init__.py"
        app.copy_to_clipboard("")
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        for title in ("Copy the selected text", "Copy the last answer", "Copy a code block"):
            assert title in commands, title
        await commands["Copy the selected text"].callback()
        assert app.clipboard == "src/more_itertools/__init__.py"


FACT_SETS = {
    "long model, AGENTS.md share": dict(model="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                                        context="ctx 2073/4096 (AGENTS.md 212)"),
    "short": dict(model="qwen", context="ctx 900/4096"),
}


@pytest.mark.parametrize("width", [160, 120, 100, 80])
@pytest.mark.parametrize("facts", list(FACT_SETS))
async def test_the_footer_is_shortened_by_priority_never_to_bare_keys(repo: Path, width: int, facts: str) -> None:
    """Whatever the width: nothing cut off, what matters now and the prompt's first keys keep their labels, the
    app's keys are either labelled or gone (never "^o · ?"), and help stays from 100 columns up."""
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(width, 30)) as pilot:
        bar = app.query_one(StatusBar)
        bar.model, bar.context, bar.server, bar.sandbox, bar.branch = (
            FACT_SETS[facts]["model"], FACT_SETS[facts]["context"], "connected", "bwrap", "main")
        app.query_one(PromptInput).focus()
        await pilot.pause(0.1)
        bar.hints = KeyHints((("esc", "cancel"),), bar.hints.pane, bar.hints.app, (("2 pending", "(tab: the queue)"),))
        await pilot.pause(0.1)
        shown = str(bar.render())
        assert cell_len(shown) <= bar.content_size.width, shown
        keys = shown.split("  │ ", 1)[1]
        assert keys.startswith("esc cancel │ ⏎ send"), shown
        for key, label in bar.hints.app:
            assert f"{key} {label}" in keys or not re.search(rf"(^|[ │·]){re.escape(key)}($|[ │·])", keys), \
                f"{key} without its label: {shown!r}"
        if width >= 100:
            assert "? help" in keys, shown


async def test_file_names_are_never_broken_across_lines(repo: Path) -> None:
    """Tool lines and notices wrap between words, so a path moves whole to the next line at any width."""
    path = "src/more_itertools/__init__.py"
    for width in (80, 93, 100, 117, 160):
        app = build_app(repo, git_refresh=False)
        async with app.run_test(size=(width, 40)) as pilot:
            feed(app, ev.ToolCallStarted("c1", "edit_file", {"path": path, "old": "", "new": "x"}),
                 ev.ToolCallFinished("c1", "edit_file", True, f"changed 1 file: {path} (+1 -0); the static check of "
                                     f"{path} passed, and so did the one of {path}"),
                 ev.Notice(f"checking the change: running the tests that import {path} and {path} again"))
            await pilot.pause(0.3)
            screen = rows(app)
            assert sum(row.count(path) for row in screen) >= 5, "\n".join(screen)
            for row in screen:
                text = row.strip("│╭╮╰╯─ ▂▃▄▅▆▇█")
                for cut in range(8, len(path)):
                    assert not text.endswith(path[:cut]) and not text.startswith(path[cut:]) or path in text, \
                        f"{width}: {path} broken at {cut}: {row!r}"


def test_counted_words_agree_with_their_number() -> None:
    assert [plural(n, "file") for n in (0, 1, 2, 1320)] == ["0 files", "1 file", "2 files", "1,320 files"]
    assert plural(1, "match", "matches") == "1 match" and plural(3, "match", "matches") == "3 matches"
