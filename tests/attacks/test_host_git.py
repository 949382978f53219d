"""Class 1: devagent's own git calls (on the host) must never run what the repository configures.

The payloads live where an approved command or a cloned repo can put them: a nested repository's own
.git/config (core.fsmonitor, a clean filter, an include of a FIFO), often in the directory of a registered
but uninitialised submodule, and in-repo hooks when the developer's config points core.hooksPath there.
Each attack drives a real devagent entry point and checks that no marker appeared on the host.
"""

from __future__ import annotations

from pathlib import Path

from tests.attacks.harness import Attack, call, devagent, git_digest
from tests.attacks.hostile import (commit_all, fifo, filter_payload, nested_repo, register_submodule,
                                   repo_with_submodule)
from tests.conftest import git, make_repo
from tests.ollama_server import ScriptedOllama


def planted(tmp_path: Path, *, kind: str = "fsmonitor") -> tuple[Path, Attack]:
    """A clone with an uninitialised submodule whose directory now holds a repository with a payload."""
    repo = make_repo(tmp_path / "repo")
    sub = nested_repo(repo / "sub")
    register_submodule(repo, "sub")  # the commit the superproject records is the one checked out
    attack = Attack(repo)
    if kind == "fsmonitor":
        git(sub, "config", "core.fsmonitor", attack.markers.shell())
    else:
        filter_payload(sub, attack.markers.shell())
    return repo, attack


def test_a_command_turns_a_submodule_dir_into_a_repo_with_fsmonitor(tmp_path: Path,
                                                                    ollama_server: ScriptedOllama) -> None:
    repo = repo_with_submodule(tmp_path / "repo")
    attack = Attack(repo)
    make = f"git init -q sub && git -C sub config core.fsmonitor '{attack.markers.shell()}'"
    run = attack.run_agent(ollama_server, "set up sub", call("run_command", command=make),
                           call("write_file", path="notes.txt", content="hi\n"))
    assert (repo / "sub" / ".git").is_dir(), run.stdout[-2000:]  # the command really ran (in the sandbox)
    attack.check(run, allow_rc=(0,))
    assert (repo / "notes.txt").read_text() == "hi\n"


def test_read_only_git_status_tool(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo, attack = planted(tmp_path)
    run = attack.run_agent(ollama_server, "what changed?", call("git_status"))
    attack.check(run, allow_rc=(0,))


def test_read_only_git_diff_tool(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo, attack = planted(tmp_path)
    (repo / "README.md").write_text("# changed\n")
    run = attack.run_agent(ollama_server, "show the diff", call("git_diff"))
    attack.check(run, allow_rc=(0,))
    assert "changed" in run.stdout


def test_session_start_repo_map(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo, attack = planted(tmp_path)
    (repo / "app.py").write_text("def add(a, b):\n    return b + a\n")
    run = attack.run_agent(ollama_server, "hello")
    attack.check(run, allow_rc=(0,))


def test_clean_filter_of_a_nested_repo_through_the_checkpoint(tmp_path: Path,
                                                              ollama_server: ScriptedOllama) -> None:
    repo, attack = planted(tmp_path, kind="filter")
    run = attack.run_agent(ollama_server, "write it", call("write_file", path="notes.txt", content="hi\n"))
    attack.check(run, allow_rc=(0,))
    assert (repo / "notes.txt").read_text() == "hi\n"


def test_search_and_list_files_tools(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo, attack = planted(tmp_path, kind="filter")
    run = attack.run_agent(ollama_server, "find add", call("search", pattern="add"), call("list_files"))
    attack.check(run, allow_rc=(0,))


def test_undo(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    sub = nested_repo(repo / "sub")
    register_submodule(repo, "sub")
    first = Attack(repo).run_agent(ollama_server, "edit", call("write_file", path="app.py", content="x = 1\n"))
    assert first.rc == 0, first.stderr
    attack = Attack(repo)
    git(sub, "config", "core.fsmonitor", attack.markers.shell())
    run = devagent(repo, "undo", "--yes")
    attack.check(run, allow_rc=(0,))
    assert "return a + b" in (repo / "app.py").read_text()


def test_checkpoints_listing_and_review(tmp_path: Path) -> None:
    repo, attack = planted(tmp_path, kind="filter")
    (repo / "new.py").write_text("x = 1\n")
    git(repo, "add", "new.py")
    runs = [devagent(repo, "checkpoints"), devagent(repo, "review", "--staged", "--no-model")]
    attack.check(*runs)


def test_the_developers_commit_runs_no_nested_config(tmp_path: Path) -> None:
    repo, attack = planted(tmp_path)
    (repo / "new.py").write_text("x = 1\n")
    git(repo, "add", "new.py")
    run = devagent(repo, "commit", "--yes", "-m", "add new.py", "--no-model")
    attack.before = git_digest(repo)  # the commit itself moves the branch: only what ran is checked here
    attack.check(run, allow_rc=(0,))
    assert git(repo, "log", "-1", "--format=%s").strip() == "add new.py"


def test_devagent_test_detection(tmp_path: Path) -> None:
    """The host side of `devagent test` is its detection (the run itself is sandboxed)."""
    repo, attack = planted(tmp_path, kind="filter")
    (repo / "test_app.py").write_text("from app import add\n\ndef test_add():\n    assert add(1, 2) == 3\n")
    run = devagent(repo, "test", "--list")
    attack.check(run, allow_rc=(0,))
    assert "pytest" in run.stdout


def test_in_repo_hooks_dir_reference_transaction(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """The developer's own config points core.hooksPath into the repo (a common setup); a command plants a
    hook there. Only the developer's commits may run hooks, never devagent's own ref updates."""
    repo = make_repo(tmp_path / "repo")
    git(repo, "config", "core.hooksPath", ".githooks")
    attack = Attack(repo)
    hooks = " && ".join(f"printf '#!/bin/sh\\n{attack.markers.shell()}\\n' > .githooks/{name} && "
                        f"chmod +x .githooks/{name}" for name in ("reference-transaction", "post-index-change"))
    run = attack.run_agent(ollama_server, "hooks", call("run_command", command="mkdir -p .githooks && " + hooks),
                           call("write_file", path="notes.txt", content="hi\n"))
    assert (repo / ".githooks" / "reference-transaction").exists(), run.stdout[-2000:]
    undo = devagent(repo, "undo", "--yes")
    attack.check(run, undo, allow_rc=(0,))


def test_nested_config_including_a_fifo_cannot_hang_devagent(tmp_path: Path,
                                                             ollama_server: ScriptedOllama) -> None:
    repo = repo_with_submodule(tmp_path / "repo")
    sub = nested_repo(repo / "sub")
    fifo(tmp_path / "pipe")
    git(sub, "config", "include.path", str(tmp_path / "pipe"))
    commit_all(repo, "nothing new")
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "write", call("write_file", path="notes.txt", content="hi\n"), timeout=45)
    attack.check(run, allow_rc=(0,))


async def test_the_apps_status_refresh(tmp_path: Path) -> None:
    from tests.app.snapshot_apps.factory import build_app, wait_for
    from tui.app.widgets.status_bar import StatusBar

    repo, attack = planted(tmp_path, kind="filter")
    (repo / "README.md").write_text("# changed\n")
    app = build_app(repo, git_refresh=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.query_one(StatusBar).dirty > 0, what="the status refresh")
        app.main.diff.refresh_repo()
        await pilot.pause(0.5)
    attack.check()
