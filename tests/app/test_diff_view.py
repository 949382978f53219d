"""The diff viewer from the keyboard: hunks, files, accept/reject, side by side, huge diffs, literal text."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from tests.app.snapshots_diff.diff_app import DiffSnapshotApp
from tests.app.snapshots_diff.sample import SAMPLE_DIFF
from tests.conftest import git, make_repo
from tui.app.themes import THEME_VARIABLE_DEFAULTS, install_themes
from tui.app.widgets.diff_view import DiffView
from tui.app.widgets.file_list import FileList
from tui.git.diffs import select_hunks


class ViewApp(App[None]):
    """Only a DiffView, recording the messages it posts."""

    def __init__(self) -> None:
        super().__init__()
        self.toggled: list[tuple[int, bool]] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield DiffView()

    def on_mount(self) -> None:
        install_themes(self, None, None)
        self.query_one(DiffView).focus()

    def on_diff_view_hunk_toggled(self, event: DiffView.HunkToggled) -> None:
        self.toggled.append((event.index, event.accepted))


def row_text(view: DiffView, y: int) -> str:
    return "".join(seg.text for seg in view.render_line(y))


def screen_text(view: DiffView) -> str:
    return "\n".join(row_text(view, y) for y in range(view.scrollable_content_region.height))


async def settle(pilot, view: DiffView) -> None:
    for _ in range(50):
        await pilot.pause()
        if not view.highlight_pending:
            return


@asynccontextmanager
async def opened(diff: str = SAMPLE_DIFF, size: tuple[int, int] = (100, 30), *, mode: str = "proposal",
                 title: str = "t") -> AsyncIterator[tuple[ViewApp, Pilot, DiffView]]:
    """A ViewApp showing ``diff``, settled (highlighting done)."""
    app = ViewApp()
    async with app.run_test(size=size) as pilot:
        view = app.query_one(DiffView)
        view.show_diff(diff, mode=mode, title=title)
        await settle(pilot, view)
        yield app, pilot, view


async def test_hunk_and_file_navigation_keys() -> None:
    async with opened() as (app, pilot, view):
        assert view.hunk_count == 4 and view.current_hunk == 0
        for key, hunk in (("n", 1), ("right_square_bracket", 2), ("n", 3), ("n", 3), ("p", 2), ("left_square_bracket", 1)):
            await pilot.press(key)
            assert view.current_hunk == hunk, key
        await pilot.press("J")
        assert (view.current_file, view.current_hunk) == (1, 2)
        await pilot.press("right_curly_bracket")
        assert (view.current_file, view.current_hunk) == (2, 3)
        await pilot.press("K")
        assert view.current_file == 1
        await pilot.press("left_curly_bracket")
        assert (view.current_file, view.current_hunk) == (0, 0)


async def test_space_toggles_the_current_hunk_and_the_approver_sees_it() -> None:
    async with opened() as (app, pilot, view):
        assert view.accepted_hunks() == {0, 1, 2, 3}
        await pilot.press("n", "space")
        await pilot.pause()
        assert view.accepted_hunks() == {0, 2, 3}
        assert app.toggled == [(1, False)]
        assert "✗ " in screen_text(view) and "0/4" not in str(view.border_subtitle)
        assert "3/4 hunks accepted" in str(view.border_subtitle)
        patch = select_hunks(SAMPLE_DIFF, view.accepted_hunks())
        assert "ZeroDivisionError" not in patch and "import sys" in patch
        await pilot.press("space")
        await pilot.pause()
        assert view.accepted_hunks() == {0, 1, 2, 3}
        assert app.toggled == [(1, False), (1, True)]


async def test_clicking_a_hunk_header_toggles_it() -> None:
    async with opened() as (app, pilot, view):
        header_row = view.index.hunks[1].start  # unified: diff line N is row N
        await pilot.click(DiffView, offset=(8, header_row + 1))  # +1: the border
        await pilot.pause()
        assert view.accepted_hunks() == {0, 2, 3} and view.current_hunk == 1
        await pilot.click(DiffView, offset=(8, header_row + 2))  # a body line selects but does not toggle
        await pilot.pause()
        assert view.accepted_hunks() == {0, 2, 3}


async def test_side_by_side_toggle_pairs_removed_and_added_lines() -> None:
    async with opened(size=(120, 30)) as (app, pilot, view):
        unified = screen_text(view)
        assert not any("return a+b" in ln and "return a + b" in ln for ln in unified.splitlines())
        await pilot.press("s")
        await pilot.pause()
        assert view.side_by_side
        lines = screen_text(view).splitlines()
        assert any("return a+b" in ln and "return a + b" in ln and "│" in ln for ln in lines)
        await pilot.press("n", "space")  # keys keep working in side-by-side
        assert view.accepted_hunks() == {0, 2, 3}
        await pilot.press("s")
        assert not view.side_by_side and view.current_hunk == 1


async def test_markup_and_control_characters_are_shown_literally() -> None:
    diff = SAMPLE_DIFF + (
        "diff --git a/evil.txt b/evil.txt\nindex 1..2 100644\n--- a/evil.txt\n+++ b/evil.txt\n@@ -1 +1 @@\n"
        "-[bold]x[/]\n+\x1b[31mred\x1b[0m \u202eabc [link=http://e.invalid]y[/link]\n"
    )
    async with opened(diff, (120, 60), title="[b]not bold[/b]") as (app, pilot, view):
        text = screen_text(view)
        assert "Markup must stay literal: [bold]x[/] and [red]y[/red]." in text
        assert "-[bold]x[/]" in text
        assert "␛[31mred␛[0m <U+202E>abc [link=http://e.invalid]y[/link]" in text
        assert "\x1b" not in text
        assert view._border_title is not None and view._border_title.plain.endswith("· [b]not bold[/b]")


async def test_modes_are_labelled_differently() -> None:
    app = ViewApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        seen = {}
        for mode in ("proposal", "unstaged", "staged"):
            view.show_diff(SAMPLE_DIFF, mode=mode, title="x")
            await pilot.pause()
            assert view.has_class(f"-{mode}") and view.mode == mode
            seen[mode] = (str(view.border_title), view.styles.border_title_color)
        assert len({title for title, _ in seen.values()}) == 3
        assert len({colour for _, colour in seen.values()}) == 3
        view.clear()
        await pilot.pause()
        assert view.hunk_count == 0 and "No changes" in row_text(view, 0)


async def test_file_list_shows_counts_and_jumps_to_the_file() -> None:
    app = DiffSnapshotApp()
    async with app.run_test(size=(160, 48)) as pilot:
        files = app.query_one(FileList)
        view = app.query_one(DiffView)
        assert files.display and files.option_count == 3
        prompts = [str(files.get_option_at_index(i).prompt) for i in range(3)]
        assert prompts[0].startswith("M calc.py") and "+5" in prompts[0] and "−2" in prompts[0]
        assert prompts[1].startswith("A notes.md") and prompts[2].startswith("D old.txt")
        files.focus()
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        assert view.current_file == 2 and view.has_focus
        await pilot.press("K")
        await pilot.pause()
        assert files.highlighted == 1  # the list follows the viewer


@pytest.fixture
def huge_diff(tmp_path: Path) -> str:
    """A real git diff of about 100k lines: many edited hunks plus a big new file."""
    repo = make_repo(tmp_path / "big", {"src.py": "".join(f"value_{i} = {i}\n" for i in range(40_000))})
    (repo / "src.py").write_text("".join(f"value_{i} = {i * (2 if i % 7 == 0 else 1)}\n" for i in range(40_000)))
    (repo / "new.py").write_text("".join(f"CONST_{i} = '[bold]{i}[/]'\n" for i in range(50_000)))
    git(repo, "add", "-N", "new.py")
    return git(repo, "diff")


async def test_a_100k_line_diff_opens_and_scrolls_to_the_end(huge_diff: str) -> None:
    assert huge_diff.count("\n") > 95_000
    async with opened(huge_diff, mode="unstaged") as (app, pilot, view):
        assert view.virtual_size.height == huge_diff.count("\n")
        await pilot.press("end")
        await settle(pilot, view)
        assert view.scroll_y == view.max_scroll_y > 90_000
        last = screen_text(view).rstrip().splitlines()[-1]
        assert "value_39999 = 39999" in last and "40000 40000" in last  # old and new line numbers
        await pilot.press("pageup", "pageup", "pagedown")
        assert view.scroll_y < view.max_scroll_y
        await pilot.press("J", "up")  # to src.py, then one line up: the end of the 50k-line new file
        await settle(pilot, view)
        first = screen_text(view).splitlines()[0]
        assert "CONST_49999 = '[bold]49999[/]'" in first and "50000" in first
        await pilot.press("s", "end")
        await settle(pilot, view)
        assert "value_39999 = 39999" in screen_text(view)
        await pilot.press("p")
        assert view.current_hunk == view.hunk_count - 2


# -- snapshots: unified with one rejected hunk (every theme), side by side; 80x24 and 160x48 --------------

SIZES = [(80, 24), (160, 48)]


async def _settled(pilot) -> None:
    await settle(pilot, pilot.app.query_one(DiffView))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("theme", ["devagent-dark", "devagent-light", "devagent-high-contrast"])
def test_snapshot_unified_with_a_rejected_hunk(snap_compare, theme: str, size: tuple[int, int]) -> None:
    app = DiffSnapshotApp(theme, rejected=(1,))
    assert snap_compare(app, terminal_size=size, run_before=_settled)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_side_by_side(snap_compare, size: tuple[int, int]) -> None:
    app = DiffSnapshotApp("devagent-dark", side_by_side=True, mode="unstaged")
    assert snap_compare(app, terminal_size=size, run_before=_settled)


WHOLE_FILE_DIFF = """\
diff --git a/img.png b/img.png
index 1111111..2222222 100644
Binary files a/img.png and b/img.png differ
diff --git a/old name.txt b/new name.txt
similarity index 100%
rename from old name.txt
rename to new name.txt
diff --git a/x.py b/x.py
index 1..2 100644
--- a/x.py
+++ b/x.py
@@ -1 +1 @@
-a = 1
+a = 2
"""


@pytest.mark.parametrize("side_by_side", [False, True])
async def test_binary_and_rename_count_as_one_hunk_each(side_by_side: bool) -> None:
    async with opened(WHOLE_FILE_DIFF) as (app, pilot, view):
        if side_by_side:
            await pilot.press("s")
        text = screen_text(view)
        assert "▌ img.png  binary" in text and "▌ old name.txt → new name.txt" in text and "(renamed)" in text
        assert view.hunk_count == 3
        await pilot.press("space", "n", "n", "space")
        assert view.accepted_hunks() == {1}
        assert screen_text(view).splitlines()[0].startswith("✗")  # the file bar carries a whole-file mark
        await pilot.press("p")
        assert view.current_hunk == 1 and view.current_file == 1


# -- paging: rows are ready before the key, and numbers stay right wherever a page lands --------------------

def _mixed_hunk_diff(tmp_path: Path) -> str:
    """One long Python hunk mixing removed, added and context lines (plus a 'no newline' note at the end)."""
    old = "".join(f"def f_{i}(x):\n" if i % 3 else f"# {i}\n" for i in range(3000))
    new = "".join(f"def f_{i}(x, y=0):\n" if i % 5 == 0 else (f"def f_{i}(x):\n" if i % 3 else f"# {i}\n")
                  for i in range(3000))
    repo = make_repo(tmp_path / "mixed", {"m.py": old})
    (repo / "m.py").write_text(new.rstrip("\n"))
    return git(repo, "diff", "-U1000000")


class FrameView(DiffView):
    """Records, for each painted frame, how many visible lines it had to paint without colours."""

    plain_after_paint: list[int] = []

    def render_lines(self, crop):  # type: ignore[no-untyped-def]
        strips = super().render_lines(crop)
        FrameView.plain_after_paint.append(self.highlight_pending)
        return strips


class FrameApp(ViewApp):
    def compose(self) -> ComposeResult:
        yield FrameView()


@pytest.mark.parametrize("side_by_side", [False, True])
async def test_a_page_step_paints_coloured_code_at_once(tmp_path: Path, side_by_side: bool) -> None:
    """The pages around the view are built in idle time: paging never shows code uncoloured first."""
    app = FrameApp()
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(FrameView)
        view.show_diff(_mixed_hunk_diff(tmp_path), mode="unstaged")
        if side_by_side:
            await pilot.press("s")
        await settle(pilot, view)
        for key in ("pagedown", "pagedown", "pagedown", "pageup"):
            await pilot.pause()  # idle time: the neighbouring pages get built
            FrameView.plain_after_paint = []
            await pilot.press(key)
            await pilot.pause()
            assert FrameView.plain_after_paint and FrameView.plain_after_paint[0] == 0, key
        assert view.scroll_y > 0


def _expected_numbers(diff: str) -> dict[str, tuple[int | None, int | None]]:
    """Old and new line number of each body line of the single hunk, keyed by its text (which is unique)."""
    lines = diff.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("@@"))
    old = new = 1
    out: dict[str, tuple[int | None, int | None]] = {}
    for line in lines[start + 1:]:
        if line.startswith("-"):
            out[line] = (old, None)
            old += 1
        elif line.startswith("+"):
            out[line] = (None, new)
            new += 1
        elif line.startswith(" "):
            out[line] = (old, new)
            old, new = old + 1, new + 1
    return out


async def test_line_numbers_stay_right_wherever_a_page_lands(tmp_path: Path) -> None:
    diff = _mixed_hunk_diff(tmp_path)
    expected = _expected_numbers(diff)
    width = len(str(len(expected)))
    checked = 0
    async with opened(diff, size=(100, 30)) as (app, pilot, view):
        for keys in (["pagedown"] * 7, ["end"], ["pageup"] * 3, ["home", "pagedown"], ["down"] * 5):
            await pilot.press(*keys)
            await settle(pilot, view)
            for row in screen_text(view).splitlines():
                gutter, code = row[2:2 + 2 * width + 2], row[2 + 2 * width + 2:].rstrip()
                if code in expected:  # "-code", "+code" and " code" are all distinct
                    assert gutter.split() == [str(n) for n in expected[code] if n is not None], row
                    checked += 1
    assert checked > 100
