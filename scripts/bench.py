#!/usr/bin/env python3
"""devagent's benchmark suite: every scenario next to a real baseline measured in the same run.

Each scenario is a script in scripts/ run as its own process with ``--json FILE`` (and ``--quick``),
so a crash, a hang or a missing script becomes a "skipped: reason" row, never the end of the suite.
The merged results carry the machine they were measured on.

    python scripts/bench.py [--quick] [--json FILE] [--only NAME[,NAME]]

Targets are for humans; the suite exits 0 whatever the figures (CI runs ``--quick`` to keep it working).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import machine, markdown, scenario, skipped, table  # noqa: E402

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Script:
    name: str  # what --only selects
    file: str
    title: str  # for a skip row
    quick_timeout: float
    full_timeout: float
    full_flags: tuple[str, ...] = ()  # passed in full mode when the script's --help offers them
    quick_fallback: tuple[str, ...] = ()  # passed in quick mode when the script has no --quick
    quick_skip: str = ""  # skip in --quick mode, with this reason


SCRIPTS = [
    Script("tui", "bench_tui.py", "Cold start / streaming / idle memory", 120, 400),  # 11 first frames even quick
    Script("diff", "bench_diff.py", "Big diff first paint", 50, 600, full_flags=("--big",)),
    Script("repo", "bench_repo.py", "Repo status + diff refresh", 40, 300),
    Script("sandbox", "bench_sandbox.py", "Sandboxed `true` vs plain", 30, 120,
           quick_fallback=("--repeats", "10")),
    Script("engine", "bench_engine.py", "Engine round trip (1 tool call)", 30, 180),
    Script("model", "bench_model.py", "Real model tasks", 0, 900,
           quick_skip="real-model scenarios are not part of --quick"),
    Script("firstrun", "bench_firstrun.py", "First token after start / prompt cache (real model)", 0, 1500,
           quick_skip="real-model scenarios are not part of --quick"),
]


def _short(text: str, limit: int = 160) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return (lines[-1] if lines else "")[:limit]


def _help(path: Path) -> str:
    try:
        return subprocess.run([sys.executable, str(path), "--help"], capture_output=True, text=True,
                              timeout=30, cwd=HERE.parent).stdout
    except (subprocess.TimeoutExpired, OSError):
        return ""


def _mode_flags(spec: Script, path: Path, quick: bool) -> list[str]:
    """--quick when the script has it (else its fallback flags); in full mode the optional extras it offers."""
    if quick and not spec.quick_fallback:
        return ["--quick"]
    helptext = _help(path)
    if quick:
        return ["--quick"] if "--quick" in helptext else \
            [f for f in spec.quick_fallback if not f.startswith("--") or f in helptext]
    return [f for f in spec.full_flags if f in helptext]


def run_script(spec: Script, quick: bool) -> tuple[list[dict[str, Any]], float]:
    """Run one scenario script; its rows, or one skip row saying why there are none."""
    path = HERE / spec.file
    if not path.exists():
        return [skipped(spec.name, spec.title, f"scripts/{spec.file} is missing")], 0.0
    if quick and spec.quick_skip:
        return [skipped(spec.name, spec.title, spec.quick_skip)], 0.0
    timeout = spec.quick_timeout if quick else spec.full_timeout
    with tempfile.TemporaryDirectory(prefix="devagent-bench-") as tmp:
        out = Path(tmp) / "result.json"
        argv = [sys.executable, str(path), "--json", str(out)]
        argv += _mode_flags(spec, path, quick)
        started = time.perf_counter()
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=HERE.parent,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return [skipped(spec.name, spec.title, f"did not finish within {timeout:.0f}s")], timeout
        elapsed = time.perf_counter() - started
        if proc.returncode != 0 and not out.exists():
            why = _short(proc.stderr) or _short(proc.stdout) or f"exit code {proc.returncode}"
            return [skipped(spec.name, spec.title, f"failed: {why}")], elapsed
        try:
            data = json.loads(out.read_text())
        except (OSError, ValueError) as exc:
            return [skipped(spec.name, spec.title, f"no usable --json output ({exc})")], elapsed
    rows = normalize(spec, data)
    for row in rows:
        row.setdefault("script", spec.file)
    return rows or [skipped(spec.name, spec.title, "the script reported no scenarios")], elapsed


# -- merging other scripts' results -----------------------------------------------------------------------


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value) else None


def _complete(row: dict[str, Any], spec: Script) -> dict[str, Any]:
    """Fill the keys the table needs into a row written in bench_common's format."""
    base = {"name": spec.name, "title": spec.title, "unit": "s", "target": "", "notes": "", "skipped": None,
            "devagent": None, "baseline": None, "ratio": None, "overhead": None, "target_met": None, "extra": {}}
    return {**base, **row}


def _first(m: dict[str, Any], *keys: str) -> float | None:
    return next((_num(m.get(k)) for k in keys if _num(m.get(k)) is not None), None)


def _from_diff(data: dict[str, Any]) -> list[dict[str, Any]]:
    """bench_diff.py's own shape: {size: {lines, open_first_frame_s | open_s, git_color_s, bat_s, page ms, ...}}."""
    rows = []
    for size, m in data.items():
        opened = _first(m, "open_first_frame_s", "open_s") if isinstance(m, dict) else None
        if opened is None:
            continue
        lines = int(m.get("lines", 0) or 0)
        git_s, bat_s = _num(m.get("git_color_s")), _num(m.get("bat_s"))
        facts = [f"{k}={m[k]:.3g}" for k in ("open_settled_s", "index_s", "open_cpu_s", "peak_index_layout_mib",
                                              "diff_text_mib", "process_peak_rss_mib") if _num(m.get(k)) is not None]
        rows.append(scenario(f"diff_open_{size}", f"Diff first paint, {lines:,} lines", [opened],
                             [git_s] if git_s else None, baseline_name="git diff --color=always > file",
                             target="ratio <= 3", target_ok=lambda r: r["ratio"] is not None and r["ratio"] <= 3,
                             notes=", ".join(facts), extra=m))
        if bat_s:
            rows.append(scenario(f"diff_vs_bat_{size}", f"Diff first paint vs bat, {lines:,}", [opened],
                                 [bat_s], baseline_name="batcat -l diff --color=always",
                                 target="faster than bat", target_ok=lambda r: r["ratio"] < 1))
        page = _first(m, "unified_page_ms_median", "unified_page_median_ms")
        if page is not None:
            worst = _first(m, "unified_page_ms_max", "unified_page_max_ms") or page
            bare = _num(m.get("bare_scrollview_page_ms_median"))
            rows.append(scenario(f"diff_page_{size}", f"Page-down at end, {lines:,} lines",
                                 # median, min-max shown as median-worst; the ratio is of the medians
                                 [page / 1000, page / 1000, worst / 1000], [bare / 1000] if bare else None,
                                 baseline_name="bare Textual ScrollView page-down", target="< 16 ms per step",
                                 target_ok=lambda r: r["devagent"]["max"] < 0.016,
                                 notes="the script's median and worst step (as min-max)"))
    return rows


def _stats_row(stats: dict[str, Any]) -> list[float]:
    """A {median_ms, min_ms, max_ms, n} summary as a sample list with the same median, min and max."""
    med, lo, hi = (float(stats[k]) / 1000 for k in ("median_ms", "min_ms", "max_ms"))
    n = int(stats.get("n", 3))
    return [lo, hi] + [med] * max(1, n - 2)


def _from_sandbox(data: dict[str, Any]) -> list[dict[str, Any]]:
    """bench_sandbox.py's own shape: {sandbox, results: {"plain subprocess": {median_ms, ...}, ...}}."""
    res = data.get("results") or {}
    plain = res.get("plain subprocess")
    if not isinstance(plain, dict):
        return []
    rows = []
    for key, name, title in (("runner, bwrap", "sandbox_bwrap", "Sandboxed `true` (bwrap)"),
                             ("runner, no sandbox", "sandbox_runner", "Runner without sandbox, `true`")):
        stats = res.get(key)
        if not isinstance(stats, dict):
            continue
        row = scenario(name, title, _stats_row(stats), _stats_row(plain), baseline_name="plain subprocess `true`",
                       target="overhead < 20 ms", target_ok=lambda r: r["overhead"] < 0.020,
                       notes=f"sandbox: {data.get('sandbox')}; median/min/max from the script's summary")
        row["devagent"]["repeats"] = int(stats.get("n", 0))
        rows.append(row)
    return rows


def _generic(spec: Script, data: Any) -> list[dict[str, Any]]:
    """Unknown shape: keep the figures, as notes, so nothing measured is lost."""
    flat: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, sub in value.items():
                walk(f"{prefix}.{key}" if prefix else str(key), sub)
        elif _num(value) is not None or isinstance(value, str):
            flat[prefix] = value

    walk("", data)
    notes = ", ".join(f"{k}={v:.4g}" if _num(v) is not None else f"{k}={v}" for k, v in list(flat.items())[:12])
    return [_complete({"notes": notes, "extra": flat}, spec)]


def normalize(spec: Script, data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict) and isinstance(data.get("scenarios"), list):
        return [_complete(r, spec) for r in data["scenarios"] if isinstance(r, dict)]
    adapters = {"diff": _from_diff, "sandbox": _from_sandbox}
    if isinstance(data, dict) and spec.name in adapters:
        rows = adapters[spec.name](data)
        if rows:
            return rows
    return _generic(spec, data)


def show_saved(path: Path, as_markdown: bool) -> int:
    data = json.loads(path.read_text())
    info = data.get("machine", {})
    rows = []
    for row in data.get("scenarios", []):  # rows kept in a foreign shape are read again with today's adapters
        spec = next((s for s in SCRIPTS if s.name == row.get("name")), None)
        if spec and row.get("devagent") is None and row.get("extra") and not row.get("skipped"):
            nested: dict[str, Any] = {}
            for key, value in row["extra"].items():
                head, _, rest = key.partition(".")
                nested.setdefault(head, {})[rest] = value
            rows.extend(normalize(spec, nested))
        else:
            rows.append(row)
    print(f"{data.get('mode', '?')} run on {info.get('cpu')}, {info.get('cores')} cores, {info.get('ram_gib')} GiB, "
          f"Python {info.get('python')}, textual {info.get('textual')}, {info.get('git')}; {data.get('seconds')}s")
    print(markdown(rows) if as_markdown else table(rows))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="fewer repeats, smaller inputs, no 1M-line diff, no real model (under 2 minutes)")
    parser.add_argument("--json", type=Path, help="write every result and the machine description here")
    parser.add_argument("--markdown", action="store_true", help="also print the results as a Markdown table")
    parser.add_argument("--from-json", type=Path, metavar="FILE",
                        help="do not measure: print the table of an earlier --json FILE")
    parser.add_argument("--only", help="comma-separated scenario scripts: " + ",".join(s.name for s in SCRIPTS))
    args = parser.parse_args()
    if args.from_json:
        return show_saved(args.from_json, args.markdown)
    wanted = set(args.only.split(",")) if args.only else None
    results: list[dict[str, Any]] = []
    timings: dict[str, float] = {}
    started = time.perf_counter()
    for spec in SCRIPTS:
        if wanted and spec.name not in wanted:
            continue
        print(f"-- {spec.name} ({spec.file}) ...", file=sys.stderr, flush=True)
        rows, elapsed = run_script(spec, args.quick)
        results.extend(rows)
        timings[spec.name] = round(elapsed, 1)
    total = time.perf_counter() - started
    info = machine()
    print(f"\ndevagent benchmarks ({'quick' if args.quick else 'full'}) on {info['cpu']}, {info['cores']} cores, "
          f"{info['ram_gib']} GiB, Python {info['python']}, textual {info['textual']}; {total:.0f}s\n")
    print(table(results))
    if args.markdown:
        print("\n" + markdown(results))
    if args.json:
        args.json.write_text(json.dumps({"machine": info, "mode": "quick" if args.quick else "full",
                                         "seconds": round(total, 1), "script_seconds": timings,
                                         "scenarios": results}, indent=2, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
