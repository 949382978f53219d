"""Class 4: devagent must not be hung or bloated by what it reads on the host, and checkpoints must cope with
whatever a command leaves in the work tree (FIFOs, huge sparse files, nested repositories with no commit).

A read of a FIFO blocks in a system call (Esc cannot help), so each hang attack runs with a short limit: the
harness kills devagent and reports the hang. Memory attacks run devagent under an address-space limit far
below the planted file's size: reading it whole fails there, a bounded read does not notice.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tests.attacks.harness import SECRET, Attack, Run, call, devagent, run_bounded
from tests.attacks.hostile import fifo, sparse
from tests.conftest import git, make_repo
from tests.ollama_server import Reply, ScriptedOllama

HANG = 25  # seconds: devagent answers these in one or two; a blocked read never does
MEMORY_LIMIT = 2 << 30  # devagent's address space in the memory attacks
HUGE = 6 << 30  # the planted file: three times the limit, no disk used (a hole)


def limited(repo: Path, server: ScriptedOllama, prompt: str, *calls: dict) -> Run:
    """`devagent run --yes --json` with RLIMIT_AS at MEMORY_LIMIT (set in the child, then exec)."""
    server.push(*[Reply(tool_calls=[c]) for c in calls], Reply("done"))
    boot = (f"import os, resource, sys; resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT})); "
            "os.execv(sys.executable, [sys.executable, '-m', 'tui', *sys.argv[1:]])")
    env = {**os.environ, "OLLAMA_HOST": server.url, "DEVAGENT_API_KEY": SECRET}
    return run_bounded([sys.executable, "-c", boot, "run", "--yes", "--json", prompt], repo, env, "", 90)


def test_read_file_on_a_fifo(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    fifo(repo / "data.txt")
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "read it", call("read_file", path="data.txt"), timeout=HANG)
    attack.check(run, allow_rc=(0,))
    assert "not a regular file" in run.stdout


def test_write_and_edit_proposals_on_a_fifo(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    fifo(repo / "out.txt")
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "write it", call("write_file", path="out.txt", content="x\n"),
                           call("edit_file", path="out.txt", old="", new="y"), timeout=HANG)
    attack.check(run, allow_rc=(0,))
    assert (repo / "out.txt").is_fifo()


def test_a_prompt_naming_a_fifo(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "notes.md").symlink_to("pipe.md")
    fifo(repo / "pipe.md")
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "summarise notes.md and pipe.md", timeout=HANG)
    attack.check(run, allow_rc=(0,))


def test_repo_map_on_a_tracked_file_replaced_by_a_fifo(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo", {"lib.py": "def f():\n    pass\n", "README.md": "# r\n"})
    (repo / "lib.py").unlink()
    fifo(repo / "lib.py")
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "hello", call("write_file", path="new.txt", content="x\n"), timeout=HANG)
    attack.check(run, allow_rc=(0,))
    assert any(e["type"] == "checkpoint" for e in run.events()), run.stdout[-2000:]  # a FIFO cannot stop them


def test_read_file_on_a_huge_sparse_file(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    sparse(repo / "big.log", HUGE)
    attack = Attack(repo)
    run = limited(repo, ollama_server, "read big.log", call("read_file", path="big.log"))
    attack.check(run, allow_rc=(0,))
    result = next(e for e in run.events() if e["type"] == "tool_result")
    assert str(HUGE) in result["output"]  # answered (a binary file of that size), without reading it all


def test_write_file_over_a_huge_sparse_file(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    sparse(repo / "big.py", HUGE)
    git(repo, "config", "core.bigFileThreshold", "1m")
    attack = Attack(repo)
    run = limited(repo, ollama_server, "rewrite", call("write_file", path="big.py", content="x = 1\n"),
                  call("edit_file", path="big.py", old="start", new="begin"))
    attack.check(run, allow_rc=(0,))
    assert "too large" in run.stdout


def test_empty_nested_repo_does_not_stop_checkpoints_or_undo(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "go", call("run_command", command="git init -q sub"),
                           call("write_file", path="notes.txt", content="hi\n"))
    assert (repo / "sub" / ".git").is_dir()
    found = run.events()
    checkpoints = [e for e in found if e["type"] == "checkpoint"]
    assert len(checkpoints) == 2, [e for e in found if e["type"] == "notice"]
    assert "sub/" in json.dumps(checkpoints[-1])  # said: the nested repository is not covered
    undo = devagent(repo, "undo", "--yes")
    attack.check(run, undo, allow_rc=(0,))
    assert not (repo / "notes.txt").exists()


def test_a_tracked_file_replaced_by_a_fifo_does_not_stop_checkpoints(tmp_path: Path,
                                                                   ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "go", call("run_command", command="rm README.md && mkfifo README.md"),
                           call("write_file", path="notes.txt", content="hi\n"), timeout=HANG)
    found = run.events()
    assert len([e for e in found if e["type"] == "checkpoint"]) == 2, [e for e in found if e["type"] == "notice"]
    attack.check(run, allow_rc=(0,))


def test_devagent_test_with_fifo_project_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"test_a.py": "def test_a():\n    pass\n"})
    for name in ("package.json", "pyproject.toml", "Makefile", "setup.cfg"):
        fifo(repo / name)
    attack = Attack(repo)
    run = devagent(repo, "test", "--list", timeout=HANG)
    attack.check(run)


def test_devagent_scaffold_with_fifo_project_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"demo/__init__.py": ""})
    for name in ("package.json", "pyproject.toml", "go.mod"):
        fifo(repo / name)
    attack = Attack(repo)
    run = devagent(repo, "scaffold", "module", "text_utils", timeout=HANG)
    attack.check(run)


def test_test_report_swapped_for_a_fifo(tmp_path: Path) -> None:
    conftest = ("import os\n\ndef pytest_unconfigure(config):\n    path = getattr(config.option, 'xmlpath', None)\n"
                "    if path:\n        os.remove(path)\n        os.mkfifo(path)\n")
    repo = make_repo(tmp_path / "repo", {"conftest.py": conftest, "test_t.py": "def test_x():\n    assert True\n"})
    attack = Attack(repo)
    run = devagent(repo, "test", timeout=60)
    attack.check(run)
    assert "1 passed" in run.stdout


def test_hook_status_and_install_with_a_fifo_hook(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    git(repo, "config", "core.hooksPath", ".githooks")
    fifo(repo / ".githooks" / "pre-commit")
    attack = Attack(repo)
    runs = [devagent(repo, "hook", "status", timeout=HANG), devagent(repo, "hook", "install", timeout=HANG)]
    attack.check(*runs)
    assert (repo / ".githooks" / "pre-commit").is_fifo()


def test_memory_limit_is_real() -> None:
    """The memory attacks mean something: under the same limit, reading the huge file whole fails."""
    code = (f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT}))\n"
            f"try:\n    bytearray({HUGE})\nexcept MemoryError:\n    raise SystemExit(7)\n")
    done = run_bounded([sys.executable, "-c", code], Path.cwd(), {}, "", 30)
    assert done.rc == 7


def test_a_command_that_writes_a_huge_text_file(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """The diff of what a command changed is git output the repo sizes: devagent reads what it shows, no more."""
    repo = make_repo(tmp_path / "repo")
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "go", call("run_command", command="seq 1 6000000 > big.txt && echo hi > s.txt"))
    assert (repo / "big.txt").stat().st_size > 40_000_000, run.stdout[-1000:]
    attack.check(run, allow_rc=(0,))
    result = next(e for e in run.events() if e["type"] == "tool_result" and e["name"] == "run_command")
    assert len(result["diff"]) < 5_000_000 and len(run.stdout) < 12_000_000
    assert "big.txt" in result["diff"] and "s.txt" in result["diff"]  # the big file is named, shown as binary
