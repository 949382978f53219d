"""Label columns fit their longest label: tool names in the conversation, kinds in the approval queue.
A label never runs into its text (a name longer than the column's cap is cut with … and a gap kept)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.snapshot_apps.factory import LABEL_PROPOSALS, build_app, show_labels
from tui.app.widgets.approval_queue import ApprovalQueue
from tui.app.widgets.tool_call_line import LABEL_MAX, ToolCallLine
from tui.protocol.proposals import Decision

def text_starts(lines: list[str], texts: list[str]) -> list[int]:
    return [line.index(text) for line, text in zip(lines, texts)]


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_tool_names_form_one_column_that_never_runs_into_the_arguments(repo: Path,
                                                                              size: tuple[int, int]) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=size) as pilot:
        await show_labels(pilot)
        lines = [str(line.render()).split("\n")[0] for line in app.query(ToolCallLine)]
        starts = text_starts(lines, ["app.py", "Add math import", "pytest -q", "TODO"])
        assert len(set(starts)) == 1, lines  # the arguments start in one column
        assert all(line[start - 2:start] == "  " for line, start in zip(lines, starts))  # a gap after the name
        assert "search_and_replace_in_all_files" not in lines[3] and "…" in lines[3]
        assert starts[0] == len("✓ ") + LABEL_MAX + 2  # the column is as wide as the longest (capped) name


async def test_the_kind_column_fits_the_longest_kind_pending(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await show_labels(pilot)
        queue = app.query_one(ApprovalQueue)
        firsts = [str(queue.get_option_at_index(i).prompt).split("\n")[0] for i in range(queue.option_count)]
        starts = text_starts(firsts, [p.summary for p in LABEL_PROPOSALS])
        assert starts == [len("SCAFFOLD") + 2] * len(LABEL_PROPOSALS), firsts
        app.main.queue.resolve("q3", Decision("reject"))
        await pilot.pause(0.1)
        firsts = [str(queue.get_option_at_index(i).prompt).split("\n")[0] for i in range(queue.option_count)]
        assert [f.index(s) for f, s in zip(firsts, ["edit app.py", "pytest -q", "print(1)"])] == \
            [len("COMMAND") + 2] * 3  # the column shrinks to the longest kind left
