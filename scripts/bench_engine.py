#!/usr/bin/env python3
"""Engine round trip: one read-only tool call and the answer, through the whole engine, vs. the raw client.

devagent: ``Session.run_turn`` from start to TurnDone for a 2-request turn (the scripted server answers
instantly (TCP_NODELAY set on its sockets) with a native ``read_file`` call, then with a short answer): proposal, tool run, store writes,
context fitting, events. Baseline: the very same two /api/chat request bodies the engine sent, replayed
with ``ollama.AsyncClient`` alone. Engine overhead = difference of the medians; target under 20 ms.

    python scripts/bench_engine.py [--quick] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import isolate_env, no_nagle, scenario, small_repo, table, write_json  # noqa: E402

TITLE = "Engine round trip (1 tool call)"
FILES = {"app.py": "def add(a, b):\n    return a + b\n", "README.md": "# demo\n"}


async def _engine_once(repo: Path, server: Any) -> tuple[float, list[dict[str, Any]]]:
    from tests.ollama_server import Reply
    from tui.protocol.proposals import ApproveAll
    from tui.config import load_config
    from tui.engine.session import Session

    events: list[Any] = []
    session = await Session.open(repo, load_config(repo), approver=ApproveAll(), emit=events.append,
                                 host=server.url)
    try:
        await session.connect()
        first = len(server.requests)
        server.push(Reply(tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}]),
                    Reply("It adds two numbers."))
        start = time.perf_counter()
        done = await session.run_turn("what does app.py do?")
        elapsed = time.perf_counter() - start
    finally:
        await session.close()
    if done.reason != "complete" or len(server.requests) - first != 2:
        raise RuntimeError(f"the engine turn did not go as scripted: {done.reason}, "
                           f"{len(server.requests) - first} requests")
    return elapsed, server.requests[first:first + 2]


async def _raw_once(url: str, bodies: list[dict[str, Any]], server: Any) -> float:
    import ollama

    from tests.ollama_server import Reply

    client = ollama.AsyncClient(host=url)
    await client.list()  # connection set up, like the engine's connect()
    server.push(Reply(tool_calls=[{"name": "read_file", "arguments": {"path": "app.py"}}]),
                Reply("It adds two numbers."))
    start = time.perf_counter()
    for body in bodies:
        stream = await client.chat(model=body["model"], messages=body["messages"], tools=body.get("tools"),
                                   stream=True, options=body.get("options"), format=body.get("format"),
                                   keep_alive=body.get("keep_alive"))
        async for _chunk in stream:
            pass
    elapsed = time.perf_counter() - start
    await client._client.aclose()
    return elapsed


async def _measure(repeats: int) -> tuple[list[float], list[float]]:
    from tests.ollama_server import ScriptedOllama

    no_nagle()
    with tempfile.TemporaryDirectory(prefix="devagent-bench-engine-") as tmp, ScriptedOllama() as server:
        isolate_env(Path(tmp))
        repo = small_repo(Path(tmp) / "repo", FILES)
        _, bodies = await _engine_once(repo, server)  # warm-up, and the exact requests to replay
        await _raw_once(server.url, bodies, server)
        dev: list[float] = []
        base: list[float] = []
        for _ in range(repeats):
            elapsed, bodies = await _engine_once(repo, server)
            dev.append(elapsed)
            base.append(await _raw_once(server.url, bodies, server))
    return dev, base


def bench(quick: bool) -> list[dict[str, Any]]:
    repeats = 8 if quick else 30
    dev, base = asyncio.run(_measure(repeats))
    return [scenario("engine_round_trip", TITLE, dev, base,
                     baseline_name="the same 2 /api/chat requests with ollama.AsyncClient alone",
                     target="overhead <= 20 ms (issue 31)", target_ok=lambda r: r["overhead"] <= 0.020,
                     notes="overhead = devagent median - baseline median (see 'overhead' in the JSON)")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    results = bench(args.quick)
    print(table(results))
    row = results[0]
    print(f"engine overhead: {row['overhead'] * 1000:.1f} ms per 2-request turn")
    if args.json:
        write_json(args.json, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
