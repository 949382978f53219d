"""Test runs in the TUI: pick a suite, list a run's counts and failures, open a failure at its line.

TestResultsScreen lists failures (enter opens one: the file's diff when it has one, else the
file around the failing line, read-only). SuitePickScreen asks which suite when there are several.
All text is literal (test ids and messages come from the code under test).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static, TextArea
from textual.widgets.option_list import Option

from tui.app.widgets.tool_call_line import one_line, visible
from tui.protocol.errors import DevagentError

ALL = "*all*"


def failure_label(failure: Any) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("✗ " if failure.kind == "failed" else "! ", style="bold red")
    text.append(visible(failure.test_id), style="bold")
    if failure.location():
        text.append(f"  {visible(failure.location())}")
    message = one_line(failure.message, 160) if failure.message else ""
    if message:
        text.append(f"  {message}", style="dim")
    return text


def runs_header(runs: list[Any]) -> Text:
    text = Text()
    for run in runs:
        style = "bold green" if run.ok else "bold red"
        text.append(("PASS " if run.ok else "FAIL ") + visible(run.summary()) + "\n", style=style)
        for extra in (f"what to do: {run.hint}" if getattr(run, "hint", "") else "", getattr(run, "interpreter", "")):
            if extra:
                text.append("     " + visible(extra) + "\n", style="dim")
    return text


class _Modal(ModalScreen[Any]):
    DEFAULT_CSS = """
    _Modal { align: center middle; }
    _Modal > Vertical { width: 95%; height: 90%; border: thick $primary; background: $surface; padding: 0 1; }
    _Modal Static { height: auto; }
    _Modal OptionList { height: 1fr; }
    _Modal TextArea { height: 1fr; }
    _Modal DiffView { height: 1fr; }
    """
    BINDINGS = [Binding("escape,q", "close", "Close")]

    def action_close(self) -> None:
        self.dismiss(None)


class SuitePickScreen(_Modal):
    """Returns a suite name, ALL for every suite, or None."""

    def __init__(self, suites: list[Any], repo: Path) -> None:
        super().__init__()
        self.suites = suites
        self.repo = repo

    def compose(self) -> ComposeResult:
        options = [Option(Text(f"{s.name}   ({s.rel(self.repo)}: {s.source or s.kind})"), id=s.name)
                   for s in self.suites]
        options.append(Option(Text("all suites, one after the other"), id=ALL))
        with Vertical() as box:
            box.border_title = "Which test suite? — enter runs · escape cancels"
            yield OptionList(*options, id="suites")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


class TestResultsScreen(_Modal):
    """Counts per run, then every failure; enter opens the highlighted one."""

    __test__ = False  # not a pytest class

    def __init__(self, runs: list[Any], repo: Path) -> None:
        super().__init__()
        self.runs = runs
        self.repo = repo
        self.failures = [f for run in runs for f in run.failures]

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Test results — enter opens a failure · escape closes"
            yield Static(runs_header(self.runs), id="results-summary")
            if self.failures:
                yield OptionList(*(Option(failure_label(f), id=str(i)) for i, f in enumerate(self.failures)),
                                 id="failures")
            else:
                yield Static(self._no_failures(), id="no-failures", markup=False)

    def _no_failures(self) -> str:
        if all(run.ok for run in self.runs):
            return "Every test passed."
        tail = "\n".join(run.output_tail[-1500:] for run in self.runs if not run.ok)
        return "No failure could be located; the end of the output:\n" + visible(tail)

    def on_mount(self) -> None:
        for options in self.query(OptionList):
            options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.open_failure(self.failures[int(event.option.id or 0)])

    @work(exclusive=True, group="open-failure", exit_on_error=False)
    async def open_failure(self, failure: Any) -> None:
        if not failure.file:
            self.notify("This failure has no file location.", severity="warning")
            return

        diff, content = await file_view(self.repo, failure.file)
        if diff is None and content is None:
            self.notify(f"{failure.file} is not in the repository.", severity="warning")
            return
        await self.app.push_screen(FailureFileScreen(failure, diff, content))


class FailureFileScreen(_Modal):
    """The failing file: its diff (jumped to the hunk nearest the line) or its text at the line."""

    def __init__(self, failure: Any, diff: str | None, content: str | None) -> None:
        super().__init__()
        self.failure = failure
        self.diff = diff
        self.content = content

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = f"{one_line(self.failure.location(), 80)} — escape goes back"
            yield Static(failure_label(self.failure), id="failure-line")
            if self.diff:
                from tui.app.widgets.diff_view import DiffView

                yield Static("This file has uncommitted changes: its diff, at the hunk nearest the failing line.",
                             markup=False)
                yield DiffView(id="failure-diff")
            else:
                yield TextArea(self.content or "", read_only=True, show_line_numbers=True, soft_wrap=False,
                               id="failure-text")

    def on_mount(self) -> None:
        line = max(1, int(self.failure.line or 1))
        if self.diff:
            from tui.app.widgets.diff_view import DiffView

            view = self.query_one(DiffView)
            view.show_diff(self.diff, mode="unstaged", title=self.failure.file)
            if view.index is not None:
                view.jump_to_hunk(nearest_hunk(view.index, line))
            view.focus()
        else:
            area = self.query_one(TextArea)
            area.move_cursor((line - 1, 0), center=True)
            area.focus()


async def file_view(repo: Path, path: str) -> tuple[str | None, str | None]:
    """(the file's working-tree diff or None, its text or None) for opening a failure."""
    from tui.safety.paths import read_bounded, resolve_in_repo
    from tui.git.repo import Repo

    def read() -> tuple[str | None, str | None]:
        try:
            target = resolve_in_repo(repo, path)
        except DevagentError:
            return None, None
        git = Repo(repo)
        diff = (git.diff_worktree([path]) or git.diff_staged([path])) if target.exists() else ""
        if diff.strip():
            return diff, None
        try:
            return None, read_bounded(repo, path, 2_000_000)[0].decode("utf-8", "replace")
        except (OSError, DevagentError):
            return None, None

    return await asyncio.to_thread(read)


def nearest_hunk(index: Any, line: int) -> int:
    """The hunk holding ``line`` of the new file, else the closest one (0 when unknown)."""
    best, distance = 0, None
    for i in range(len(index.hunks)):
        hunk = index.hunks[i]
        if hunk.whole_file:
            continue
        if hunk.new_start <= line < hunk.new_start + max(hunk.new_len, 1):
            return i
        gap = min(abs(line - hunk.new_start), abs(line - hunk.new_start - hunk.new_len))
        if distance is None or gap < distance:
            best, distance = i, gap
    return best
