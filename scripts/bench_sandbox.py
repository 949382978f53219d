#!/usr/bin/env python3
"""Overhead of starting a sandboxed `true` (devagent's runner under bwrap) vs a plain subprocess `true`.

Usage: python scripts/bench_sandbox.py [--repeats N] [--warmup N] [--json FILE]
Prints a table (median, min, max in milliseconds and the median ratio). Also
times the runner without bwrap, so the cost of bwrap itself is visible apart
from the runner's own bookkeeping.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Awaitable, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tui.config import Config  # noqa: E402
from tui.sandbox.runner import Sandbox, detect  # noqa: E402


async def _time(fn: Callable[[], Awaitable[object]], warmup: int, repeats: int) -> list[float]:
    for _ in range(warmup):
        await fn()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        await fn()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


async def _plain() -> None:
    proc = await asyncio.create_subprocess_exec("true", stdin=subprocess.DEVNULL)
    await proc.wait()


def _stats(samples: list[float]) -> dict[str, float]:
    return {"median_ms": statistics.median(samples), "min_ms": min(samples), "max_ms": max(samples),
            "n": len(samples)}


async def bench(warmup: int, repeats: int) -> dict[str, object]:
    repo = Path(tempfile.mkdtemp(prefix="devagent-bench-"))
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    results: dict[str, object] = {}
    results["plain subprocess"] = _stats(await _time(_plain, warmup, repeats))
    none_cfg = Config()
    none_cfg.sandbox.mode = "none"
    runner = Sandbox(repo, none_cfg)
    results["runner, no sandbox"] = _stats(await _time(lambda: runner.run(["true"]), warmup, repeats))
    info = detect(Config())
    if info.active:
        sandbox = Sandbox(repo, Config(), info)
        results["runner, bwrap"] = _stats(await _time(lambda: sandbox.run(["true"]), warmup, repeats))
    base = results["plain subprocess"]["median_ms"]  # type: ignore[index]
    for row in results.values():
        row["ratio"] = row["median_ms"] / base  # type: ignore[index]
    return {"sandbox": info.kind, "detail": info.detail, "warmup": warmup, "repeats": repeats, "results": results}


def table(report: dict[str, object]) -> str:
    lines = [f"sandbox: {report['sandbox']}  (warm-up {report['warmup']}, repeats {report['repeats']})",
             f"{'what':<22}{'median ms':>11}{'min ms':>9}{'max ms':>9}{'ratio':>8}"]
    for name, row in report["results"].items():  # type: ignore[union-attr]
        lines.append(f"{name:<22}{row['median_ms']:>11.2f}{row['min_ms']:>9.2f}{row['max_ms']:>9.2f}"
                     f"{row['ratio']:>7.1f}x")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")
    args = parser.parse_args(argv)
    report = asyncio.run(bench(args.warmup, max(1, args.repeats)))
    print(table(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
