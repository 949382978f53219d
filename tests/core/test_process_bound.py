"""limits.max_processes holds against real fork bombs, as root too (RLIMIT_NPROC does not bind root).

Each bomb runs in a child process inside a test-owned pids cgroup (a net far above devagent's own
limit), so the machine survives even if the bound under test failed; without one, a gentle bomb
(a short sleep before each fork) is used instead.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from tests.attacks.policy_kit import pids_net
from tui.sandbox.pids import detect_bound

REAL_BOMB = "bash -c 'f(){ f & f & wait; }; f'"  # every copy waits for its children: it never ends by itself
GENTLE_BOMB = "bash -c 'f(){ sleep 0.05; f & f & wait; }; f'"

SCRIPT = textwrap.dedent("""
    import asyncio, json, os, sys
    from pathlib import Path
    from tui.config import Config
    from tui.sandbox.runner import Sandbox
    from tui.sandbox.pids import PidsBound
    repo, mode, command, limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    cfg = Config()
    cfg.limits.max_processes, cfg.limits.command_timeout = limit, 20
    bound = PidsBound("watchdog") if mode == "watchdog" else None
    result = asyncio.run(Sandbox(Path(repo), cfg, bound=bound).run(command))
    print(json.dumps({"killed": result.killed, "code": result.exit_code, "seconds": result.duration,
                      "tail": result.output[-300:]}))
""")


def _run(repo: Path, mode: str, command: str, limit: int = 64, net_limit: int = 1500) -> dict[str, object]:
    with pids_net(net_limit) as net:
        if net is None and command == REAL_BOMB:
            command = GENTLE_BOMB
        argv = [*(net or []), sys.executable, "-c", SCRIPT, str(repo), mode, command, str(limit)]
        out = subprocess.run(argv, capture_output=True, text=True, timeout=90,
                             env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _leftovers() -> list[str]:
    bound = detect_bound()
    if bound.parent is None:
        return []
    return [p.name for p in bound.parent.glob("devagent-run-*")]


@pytest.mark.skipif(detect_bound().kind != "cgroup", reason="no pids cgroup devagent may create here")
def test_a_fork_bomb_is_stopped_by_the_pids_cgroup(repo: Path) -> None:
    result = _run(repo, "auto", REAL_BOMB)
    assert result["killed"] == "processes" and "limits.max_processes" in str(result["tail"]), result
    assert float(result["seconds"]) < 10  # type: ignore[arg-type]
    assert _leftovers() == []
    # Its first copy exits at once, and the sandbox's init with it, which takes the rest down: on a quiet machine
    # that can happen before 64 copies exist. Whichever comes first, it ends quickly and leaves nothing behind.
    quick = _run(repo, "auto", "f(){ f & f & }; f")
    assert float(quick["seconds"]) < 10 and _leftovers() == [], quick  # type: ignore[arg-type]
    assert quick["killed"] in ("", "processes"), quick


def test_a_fork_bomb_is_stopped_by_the_watchdog(repo: Path) -> None:
    result = _run(repo, "watchdog", REAL_BOMB, net_limit=500)
    assert result["killed"] == "processes", result
    assert float(result["seconds"]) < 15  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["auto", "watchdog"])
def test_many_processes_below_the_limit_are_fine(repo: Path, mode: str) -> None:
    result = _run(repo, mode, "for i in $(seq 20); do sleep 0.5 & done; wait; echo ok", limit=64)
    assert result["killed"] == "" and result["code"] == 0 and "ok" in str(result["tail"]), result


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv") or not shutil.which("prlimit"),
                    reason="needs root (to become an unprivileged user) and setpriv/prlimit")
def test_unprivileged_users_get_rlimit_nproc_inside_the_user_namespace(monkeypatch: pytest.MonkeyPatch) -> None:
    """For a non-root devagent, RLIMIT_NPROC set inside bwrap's user namespace counts only the command's
    processes. The argv is devagent's own; only the uid build() sees is stood in for (the run is real, as nobody)."""
    from tui.config import Config
    from tui.sandbox.runner import Sandbox
    from tui.sandbox.pids import PidsBound
    from tui.sandbox.profile import DEFAULT_PATH, bwrap_argv

    work = Path(tempfile.mkdtemp(prefix="devagent-nproc-", dir="/var/tmp"))
    try:
        os.chmod(work, 0o755)
        cfg = Config()
        cfg.limits.max_processes = 20
        sandbox = Sandbox(work, cfg, bound=PidsBound("watchdog"))
        monkeypatch.setattr(os, "geteuid", lambda: 65534)
        inner = sandbox._nproc(["bash", "-c", "f(){ f & f & wait; }; f"])
        monkeypatch.undo()
        assert inner[:2] == [shutil.which("prlimit"), "--nproc=20:20"]
        argv = bwrap_argv(shutil.which("bwrap") or "bwrap", work, [], network=False, env={"PATH": DEFAULT_PATH},
                          cwd=work, masks=[], writable=[]) + inner
        with pids_net(300) as net:
            if net is None:
                pytest.skip("no pids cgroup for the safety net")
            current = Path(net[3]).parent / "pids.current"
            proc = subprocess.Popen([*net, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *argv],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            peak, end = 0, time.monotonic() + 2
            while time.monotonic() < end:
                peak = max(peak, int(current.read_text()))
                time.sleep(0.01)
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        assert 5 < peak <= 20 + 3, peak  # the command's 20, plus bwrap, its init and the net's shell
    finally:
        shutil.rmtree(work, ignore_errors=True)
