#!/usr/bin/env python3
"""Benchmark the diff viewer on a huge diff, against baselines run in the same process.

Generates a git diff of about 100k lines (1M with --big) in a temporary repo,
then measures, inside ``App.run_test`` with animations off:
  * index: DiffIndex.from_text alone;
  * open: from ``show_diff()`` to the first painted frame, and to the frame where syntax colours settled
    (highlighting gets a few ms per frame; lines beyond that are painted plain and coloured next frame);
  * page-down steps at the end of the diff (first frame: median and worst; settled), unified and side by side,
    the viewer mounted in its DiffFrame as the app mounts it;
  * peak Python memory (tracemalloc) of indexing plus both layouts, measured separately;
and baselines: ``git diff --color=always > file`` and ``batcat -l diff --color=always``
(skipped with a note when bat is missing), and a bare ``ScrollView`` paging the same number of rows.
The viewer and the bare view run in three interleaved rounds (10 steps each with --quick, 20 without),
so a change of load on a shared machine falls on both; medians are over every step. Prints a table
with ratios.

    python scripts/bench_diff.py [--big] [--quick] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from textual.app import App, ComposeResult  # noqa: E402
from rich.segment import Segment  # noqa: E402
from textual.geometry import Region, Size  # noqa: E402
from textual.scroll_view import ScrollView  # noqa: E402
from textual.strip import Strip  # noqa: E402

from tui.app.themes import THEME_VARIABLE_DEFAULTS, install_themes  # noqa: E402
from tui.app.widgets.diff_frame import DiffFrame  # noqa: E402
from tui.app.widgets.diff_view import DiffView  # noqa: E402
from tui.git.diffs import DiffIndex  # noqa: E402

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid", "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, check=True, capture_output=True,
                          text=True).stdout


def make_repo(root: Path, target_lines: int) -> Path:
    """A repo whose working-tree diff has about ``target_lines`` lines: edited Python files plus one new file."""
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    per_file = 5000
    files = max(1, (target_lines * 3 // 4) // (per_file + per_file // 8))
    for f in range(files):
        body = "".join(f"def func_{f}_{i}(x):  # line {i}\n    return x * {i}\n" for i in range(per_file // 2))
        (repo / f"mod_{f:03d}.py").write_text(body)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    for f in range(files):
        path = repo / f"mod_{f:03d}.py"
        lines = path.read_text().split("\n")
        for i in range(0, len(lines) - 1, 8):
            lines[i] = lines[i].replace("(x):", "(x, y=0):")
        path.write_text("\n".join(lines))
    current = len(git(repo, "diff").split("\n"))
    extra = max(0, target_lines - current)
    (repo / "generated.py").write_text("".join(f"VALUE_{i} = {i}  # [bold]not markup[/]\n" for i in range(extra)))
    git(repo, "add", "-N", "generated.py")
    return repo


class BenchView(DiffView):
    """Records when each frame of this widget finished painting (render_lines really ran)."""

    frames: list[float] = []

    def render_lines(self, crop: Region) -> list[Strip]:
        strips = super().render_lines(crop)
        BenchView.frames.append(time.perf_counter())
        return strips


class BareView(ScrollView):
    """The floor: a ScrollView painting one fixed line per row (Textual's own cost of a page step)."""

    def render_line(self, y: int) -> Strip:
        row = y + round(self.scroll_y)
        return Strip([Segment(f"{row:>7} + plain text of a diff line, no colours ".ljust(150))], 150)

    def render_lines(self, crop: Region) -> list[Strip]:
        strips = super().render_lines(crop)
        BenchView.frames.append(time.perf_counter())
        return strips


class BareApp(App[None]):
    def compose(self) -> ComposeResult:
        yield BareView()


async def measure_bare(rows: int, steps: int) -> list[float]:
    """Ms per page-down of BareView: the baseline for the viewer's page step."""
    app = BareApp()
    async with app.run_test(size=(160, 50)) as pilot:
        view = app.query_one(BareView)
        view.virtual_size = Size(150, rows)
        view.scroll_to(y=rows - (steps + 2) * view.size.height, animate=False, immediate=True)
        await pilot.pause()
        times = []
        for _ in range(steps):
            start = time.perf_counter()
            view.action_page_down()
            BenchView.frames = []
            for _ in range(20):
                await pilot.pause()
                if BenchView.frames:
                    break
            times.append((BenchView.frames[0] - start) * 1000 if BenchView.frames else float("nan"))
    return times


class BenchApp(App[None]):
    """The viewer as the app mounts it: inside its DiffFrame (the frame draws the border, not each page step)."""

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        with DiffFrame():
            yield BenchView()

    def on_mount(self) -> None:
        install_themes(self, None, None)


async def _paint_after(pilot, view: BenchView, start: float) -> tuple[float, float]:
    """Seconds from ``start`` to the first painted frame, and to the frame where syntax colours settled."""
    BenchView.frames = []
    for _ in range(200):
        await pilot.pause()
        if BenchView.frames and not view.highlight_pending:
            break
    if not BenchView.frames:
        return float("nan"), float("nan")
    return BenchView.frames[0] - start, BenchView.frames[-1] - start


async def measure_view(text: str, steps: int) -> dict[str, Any]:
    """Open, toggle and page timings of one app: seconds as floats, each page step's ms in lists."""
    app = BenchApp()
    out: dict[str, Any] = {}
    async with app.run_test(size=(160, 50)) as pilot:
        view = app.query_one(BenchView)
        view.focus()
        await pilot.pause()
        start, cpu = time.perf_counter(), time.process_time()
        view.show_diff(text, mode="unstaged", title="bench")
        out["show_diff_s"] = time.perf_counter() - start
        out["open_first_frame_s"], out["open_settled_s"] = await _paint_after(pilot, view, start)
        out["open_cpu_s"] = time.process_time() - cpu
        for layout in ("unified", "side_by_side"):
            if layout == "side_by_side":
                start = time.perf_counter()
                view.side_by_side = True
                out["sbs_toggle_s"] = (await _paint_after(pilot, view, start))[0]
            view.scroll_to(y=max(0, view.virtual_size.height - (steps + 2) * view.size.height),
                           animate=False, immediate=True)
            await _paint_after(pilot, view, time.perf_counter())
            first, settled, cpu_ms = [], [], []
            for _ in range(steps):
                start, cpu = time.perf_counter(), time.process_time()
                view.action_page_down()
                a, b = await _paint_after(pilot, view, start)
                cpu_ms.append((time.process_time() - cpu) * 1000)
                first.append(a * 1000)
                settled.append(b * 1000)
            out[f"{layout}_page_cpu_ms"], out[f"{layout}_page_ms"], out[f"{layout}_page_settled_ms"] = \
                cpu_ms, first, settled
    return out


def merge_rounds(rounds: list[dict[str, Any]]) -> dict[str, float]:
    """Medians over rounds (open times) and over every page step of every round (ms), plus the worst step."""
    out: dict[str, float] = {}
    for key, value in rounds[0].items():
        if isinstance(value, list):
            values = [v for r in rounds for v in r[key]]
            out[f"{key}_median"] = statistics.median(values)
            if key.endswith("_page_ms"):
                out[f"{key}_max"] = max(values)
        else:
            out[key] = statistics.median(r[key] for r in rounds)
    return out


def measure_memory(text: str) -> float:
    """Peak Python allocations (MiB) while indexing and laying out the diff, measured apart (tracemalloc is slow)."""
    from tui.app.widgets.diff_layout import Layout

    tracemalloc.start()
    lines = text.split("\n")
    layout = Layout(lines, DiffIndex.from_text(text))
    layout.build_side_by_side()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return peak


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--big", action="store_true", help="also measure a 1,000,000-line diff")
    parser.add_argument("--quick", action="store_true", help="fewer page steps, 100k only")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    sizes = [100_000] + ([1_000_000] if args.big and not args.quick else [])
    steps, rounds = (10, 3) if args.quick else (20, 3)
    results: dict[str, dict[str, float | str]] = {}
    bat = shutil.which("batcat") or shutil.which("bat")
    with tempfile.TemporaryDirectory(prefix="devagent-bench-") as tmp:
        for size in sizes:
            root = Path(tmp) / str(size)
            root.mkdir()
            repo = make_repo(root, size)
            text = git(repo, "diff")
            row: dict[str, float | str] = {"lines": text.count("\n")}
            row["git_color_s"] = timed(lambda: subprocess.run(
                f"git diff --color=always > {root / 'colored.diff'}", shell=True, cwd=repo, env=GIT_ENV, check=True))
            if bat:
                (root / "plain.diff").write_text(text)
                row["bat_s"] = timed(lambda: subprocess.run(
                    [bat, "-l", "diff", "--color=always", "--paging=never", str(root / "plain.diff")],
                    stdout=subprocess.DEVNULL, check=True))
            else:
                row["bat_s"] = "skipped: batcat not installed (apt-get install bat)"
            row["index_s"] = timed(lambda: DiffIndex.from_text(text))
            views, bare = [], []
            for _ in range(rounds):  # interleaved: a change of load on a shared machine hits both alike
                views.append(asyncio.run(measure_view(text, steps)))
                bare += asyncio.run(measure_bare(int(row["lines"]), steps))
            row.update(merge_rounds(views))
            row["bare_scrollview_page_ms_median"] = statistics.median(bare)
            row["peak_index_layout_mib"] = measure_memory(text)
            row["diff_text_mib"] = len(text) / 2**20
            row["process_peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            results[str(size)] = row
    print_table(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


def print_table(results: dict[str, dict[str, float | str]]) -> None:
    for size, row in results.items():
        print(f"\n== {int(row['lines']):,} diff lines ==")
        git_s = float(row["git_color_s"])
        for key, value in row.items():
            if key == "lines":
                continue
            if isinstance(value, str):
                print(f"  {key:28} {value}")
                continue
            ratio = ""
            if key.endswith("_s") and key != "git_color_s":
                ratio = f"  ({value / git_s:.2f}x git diff --color)"
            elif key.endswith("page_ms_median") and "bare" not in key:
                ratio = f"  ({value / float(row['bare_scrollview_page_ms_median']):.2f}x bare ScrollView)"
            unit = "" if "_ms" in key or key.endswith("_mib") else " s"
            print(f"  {key:28} {value:10.3f}{unit}{ratio}")


if __name__ == "__main__":
    raise SystemExit(main())
