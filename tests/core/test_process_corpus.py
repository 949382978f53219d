"""Process corpus: commands that never end, ignore SIGTERM, detach, flood output, wait on a TTY or fork a lot.

Each must end within its limit with zero processes left (found by a marker in
their argv) and bounded devagent memory, under bwrap and without a sandbox.
"""

from __future__ import annotations

import asyncio
import os
import resource
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tui.config import Config
from tui.sandbox.runner import CommandResult, Sandbox, SandboxInfo, detect
from tui.sandbox.output import LIVE_BATCH_CAP

GUARD = 60.0  # hang guard only; the real limits are a second or two


def _config(mode: str) -> Config:
    cfg = Config()
    cfg.sandbox.mode = mode
    cfg.limits.command_timeout = 30
    cfg.limits.idle_timeout = 30
    cfg.limits.grace = 0.5
    cfg.limits.output_cap = 100_000
    return cfg


def _modes() -> list[str]:
    modes = ["none"]
    if detect(_config("auto")).active:
        modes.insert(0, "bwrap")
    return modes


def leftovers(marker: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(f"{pid}: {cmdline}")
    return found


async def no_leftovers(marker: str) -> list[str]:
    """Processes still carrying ``marker`` after a short settle (SIGKILLed processes vanish asynchronously)."""
    end = time.monotonic() + 5
    while (found := leftovers(marker)) and time.monotonic() < end:
        await asyncio.sleep(0.1)
    return found


@dataclass
class Case:
    name: str
    command: str
    expect_killed: str  # "" = ends by itself
    kw: dict


def corpus(tag: str, flood: bool) -> list[Case]:
    """``tag`` is a unique fraction put into every sleep/sh argv so leftovers can be found.

    The 1 GB flood runs once (in the first mode): the output path is the same in both modes.
    """
    s = f"300.{tag}"
    cases = [
        Case("never-exits", f"sleep {s}", "timeout", {"timeout": 1}),
        Case("cleans-up-on-sigterm", f"trap 'echo bye; exit 0' TERM; echo start; sleep {s} & wait", "timeout",
             {"timeout": 1}),
        Case("ignores-sigterm", f"sh -c 'trap \"\" TERM; while :; do sleep 0.2; done' m{tag}", "timeout",
             {"timeout": 1}),
        Case("python-ignores-sigterm", "python3 -c 'import signal, time; signal.signal(signal.SIGTERM, "
             f"signal.SIG_IGN); time.sleep(300)' m{tag}", "timeout", {"timeout": 1}),
        Case("setsid-double-fork", f"(setsid sh -c 'sleep {s}; echo late' m{tag} &); echo parent-done", "", {}),
        Case("setsid-holder-timeout", f"setsid sh -c 'sleep {s}' m{tag} & sleep {s}", "timeout", {"timeout": 1}),
        Case("nohup-background", f"nohup sleep {s} >/dev/null 2>&1 & echo bg", "", {}),
        Case("idle-output", f"echo start; sleep {s}", "idle", {"idle_timeout": 1}),
        Case("waits-on-tty", f"cat /dev/tty; read line; echo read-rc=$?; sleep 0.{tag}", "", {}),
        Case("forks-many", f"for i in $(seq 40); do sleep {s} & done; wait", "timeout", {"timeout": 1}),
    ]
    if flood:
        cases.append(Case("prints-1gb", "yes devagent | head -c 1G", "", {"timeout": 50}))
    return cases


def _sandbox(repo: Path, mode: str) -> Sandbox:
    cfg = _config(mode)
    info = detect(cfg)
    assert info.kind == mode, info.detail
    return Sandbox(repo, cfg, info)


@pytest.mark.parametrize("mode", _modes())
async def test_process_corpus_ends_everything(repo: Path, mode: str) -> None:
    tag = str(secrets.randbelow(10**6)).zfill(6)
    sandbox = _sandbox(repo, mode)
    cases = corpus(tag, flood=mode == _modes()[0])
    batches: dict[str, list[int]] = {c.name: [] for c in cases}
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    async def one(case: Case) -> tuple[Case, CommandResult]:
        def sink(text: str, name: str = case.name) -> None:
            batches[name].append(len(text))
        return case, await sandbox.run(case.command, on_output=sink, **case.kw)

    results = await asyncio.wait_for(asyncio.gather(*(one(c) for c in cases)), GUARD)
    peak_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for case, result in results:
        assert result.killed == case.expect_killed, (case.name, result)
    by_name = {case.name: result for case, result in results}
    assert by_name["setsid-double-fork"].output.startswith("parent-done")
    assert "read-rc=1" in by_name["waits-on-tty"].output
    assert by_name["cleans-up-on-sigterm"].output == "start\nbye\n"  # SIGTERM first, so it can clean up
    assert await no_leftovers(tag) == []
    if "prints-1gb" not in by_name:
        return
    big = by_name["prints-1gb"]
    assert big.exit_code == 0 and big.dropped_bytes > 1_000_000_000 - 200_000
    assert len(big.output.encode()) < 100_000 + 200 and "bytes of output dropped" in big.output
    assert max(batches["prints-1gb"]) <= LIVE_BATCH_CAP + 200, "live output must be capped per batch"
    assert len(batches["prints-1gb"]) <= big.duration * 20 + 3, "live output is batched at most ~20 times a second"
    assert (peak_after - peak_before) < 300_000, "devagent's memory must stay bounded (ru_maxrss is in KiB)"


@pytest.mark.parametrize("mode", _modes())
async def test_cancel_kills_whole_tree(repo: Path, mode: str) -> None:
    tag = str(secrets.randbelow(10**6)).zfill(6)
    sandbox = _sandbox(repo, mode)
    task = asyncio.create_task(sandbox.run(f"sleep 300.{tag} & setsid sleep 301.{tag} & sleep 302.{tag}"))
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, GUARD)
    assert await no_leftovers(tag) == []


@pytest.mark.parametrize("mode", _modes())
async def test_kill_all_stops_every_running_command(repo: Path, mode: str) -> None:
    tag = str(secrets.randbelow(10**6)).zfill(6)
    sandbox = _sandbox(repo, mode)
    tasks = [asyncio.create_task(sandbox.run(f"sh -c 'trap \"\" TERM; sleep 300.{tag}' m{tag}")) for _ in range(3)]
    await asyncio.sleep(0.5)
    sandbox.kill_all()
    results = await asyncio.wait_for(asyncio.gather(*tasks), GUARD)
    assert [r.killed for r in results] == ["killed"] * 3
    assert all(r.exit_code is None for r in results)
    assert await no_leftovers(tag) == []


async def test_without_bwrap_the_info_is_loud(repo: Path) -> None:
    info = detect(_config("none"))
    assert info == SandboxInfo("none", False, info.detail)
    assert "SANDBOX OFF" in info.detail and "approval" in info.detail
