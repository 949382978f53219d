"""Round three, class 8: memory is bounded per command, and `review --staged` is bounded on a huge staged file.

Nothing bounded a sandboxed command's memory: one command could take all of the machine's. Each attack has an
approved command take memory a different way, under `limits.memory_mb = 200` in the developer's config: one
process, several processes each under any per-process limit, files on the sandbox's private /tmp (a tmpfs:
its pages are memory), and a shared anonymous mapping (which RLIMIT_DATA does not count). The whole devagent
run sits in a test-owned memory cgroup far above the bound where the machine has one, so a failing bound
cannot take the machine. Defended: the command does not get the memory, and devagent says plainly that the
command hit the memory bound. The last attack stages a large file and measures `devagent review --staged`'s
peak resident memory (it read the staged diff whole: 3 GB for a 300 MB file).
"""

from __future__ import annotations

import contextlib
import os
import sys
import uuid
from pathlib import Path
from typing import Iterator

import pytest

from tests.attacks.harness import SECRET, Attack, run_bounded
from tests.attacks.policy_kit import hostile_repo, of_type, run_call, run_measured
from tests.conftest import git
from tests.ollama_server import Reply, ScriptedOllama
from tui.config import Config
from tui.sandbox.runner import detect

pytestmark = pytest.mark.skipif(not detect(Config()).active, reason="needs a working bubblewrap")
MB = 1024 * 1024

ONE_PROCESS = "b = bytearray(700 * 2**20)\nfor i in range(0, len(b), 4096): b[i] = 1\nprint('ALLOCATED')\n"
MANY_PROCESSES = ("import os\nkids = []\nfor _ in range(5):\n    pid = os.fork()\n    if pid == 0:\n"
                  "        b = bytearray(120 * 2**20)\n        for i in range(0, len(b), 4096): b[i] = 1\n"
                  "        import time; time.sleep(2); os._exit(0)\n    kids.append(pid)\n"
                  "codes = [os.waitpid(p, 0)[1] for p in kids]\nprint('ALLOCATED' if not any(codes) else 'FAILED', codes)\n")
TMPFS = ("import os\nchunk = b'x' * 2**20\nfor n in range(7):\n    with open(f'/tmp/fill{n}', 'wb') as f:\n"
         "        for _ in range(100): f.write(chunk)\nprint('ALLOCATED')\n")
SHARED_MAP = ("import mmap\nm = mmap.mmap(-1, 700 * 2**20)\nfor i in range(0, len(m), 4096): m[i] = 1\n"
              "print('ALLOCATED')\n")


@contextlib.contextmanager
def memory_net(limit: int = 3 * 1024 * MB) -> Iterator[list[str]]:
    """A test-owned memory cgroup (v1 or v2) the devagent under test runs in; [] where none can be made."""
    made: Path | None = None
    for base in (Path("/sys/fs/cgroup/memory"), Path("/sys/fs/cgroup")):
        own = ""
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            ident, controllers, path = line.split(":", 2)
            if (base.name == "memory" and "memory" in controllers.split(",")) or (base.name == "cgroup" and ident == "0"):
                own = path
        try:
            candidate = base / own.lstrip("/") / f"devagent-test-net-{uuid.uuid4().hex[:8]}"
            candidate.mkdir()
        except OSError:
            continue
        for name in ("memory.limit_in_bytes", "memory.max"):
            with contextlib.suppress(OSError):
                (candidate / name).write_text(str(limit))
        made = candidate
        break
    try:
        yield ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', str(made / "cgroup.procs")] if made else []
    finally:
        if made is not None:
            with contextlib.suppress(OSError):
                made.rmdir()


TAKERS = {"one_process": ONE_PROCESS, "many_processes": MANY_PROCESSES, "tmpfs": TMPFS, "shared_map": SHARED_MAP}


@pytest.fixture(scope="module")
def taken(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict, str]]:
    """One `devagent run --yes --json` whose model runs each taker in turn: (command_finished, tool output) by name."""
    root = tmp_path_factory.mktemp("memory")
    repo = hostile_repo(root / "r", {f"{name}.py": code for name, code in TAKERS.items()})
    user = root / "user.toml"
    user.write_text(f"[limits]\nmemory_mb = 200\n[model]\nmax_steps = {len(TAKERS) + 4}\npipelines = \"off\"\n")
    attack = Attack(repo)
    with ScriptedOllama() as server, memory_net() as net:
        server.push(*[Reply(tool_calls=[run_call(f"python3 {name}.py")]) for name in TAKERS], Reply("done"))
        env = {**os.environ, "DEVAGENT_API_KEY": SECRET, "OLLAMA_HOST": server.url, "DEVAGENT_CONFIG": str(user)}
        run = run_bounded([*net, sys.executable, "-m", "tui", "run", "--yes", "--json", "go"], repo, env, "", 150)
    attack.check(run, allow_rc=(0,))
    finished = of_type(run, "command_finished")
    outputs = [e.get("output", "") for e in of_type(run, "tool_result") if e.get("name") == "run_command"]
    assert len(finished) == len(outputs) == len(TAKERS), (finished, outputs)
    return dict(zip(TAKERS, zip(finished, outputs)))


@pytest.mark.parametrize("name", sorted(TAKERS))
def test_a_command_takes_memory(taken: dict[str, tuple[dict, str]], name: str) -> None:
    """one process; several processes each under a per-process limit; files on the sandbox's private /tmp; a
    shared anonymous mapping."""
    finished, output = taken[name]
    assert "ALLOCATED" not in output, output
    assert finished["killed"] == "memory" or "memory" in output, (finished, output)
    assert "limits.memory_mb" in output, output  # said plainly, with the setting


def test_review_of_a_huge_staged_file_has_bounded_memory(tmp_path: Path) -> None:
    repo = hostile_repo(tmp_path / "r", {})
    line = "value = 'abcdefghijklmnopqrstuvwxyz0123456789' * 2\n"
    with (repo / "data.py").open("w") as fh:
        for _ in range(120 * MB // len(line)):
            fh.write(line)
    git(repo, "add", "data.py")
    attack = Attack(repo)
    run, peak_kib = run_measured(repo, "review", "--staged", "--no-model", "--no-interactive", timeout=180)
    attack.check(run)
    assert peak_kib < 250 * 1024, f"peak {peak_kib // 1024} MiB"
    assert "data.py" in run.stdout, run.stdout[-500:]  # the big file is named (skipped or reviewed), not dropped
