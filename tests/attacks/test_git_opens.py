"""Files git opens by name, left behind by an approved command, must not hang or break devagent's own git.

git opens ``.gitignore`` and ``.gitattributes`` in every directory it walks and ``.gitmodules`` and
``.mailmap`` at the top, and blocks forever on a FIFO; it reads ``.gitmodules`` through a symlink (to
``/proc/self/fd/1``: its own output pipe), and refuses to add any tree holding a symlinked ``.gitmodules``.
Found by this suite: a `mkfifo sub/.gitignore` made every later host git call run into its time limit
(4.5 minutes for one write_file), the edit was applied without a checkpoint, and `devagent run` then
crashed with a TimeoutError. A nested repository's HEAD or config as a FIFO (or a symlink to git's own output
pipe) hung `git status`, `ls-files` and `add -A` the same way. The runner now removes such entries after every
command (tui/sandbox/leftovers.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.attacks.harness import Attack, call, devagent
from tests.attacks.hostile import repo_with_submodule
from tests.conftest import make_repo
from tests.ollama_server import ScriptedOllama

HANG = 60  # seconds for the whole run: one blocked git call alone took 120

PLANTS = {
    "fifo-gitignore-in-a-subdir": ("mkdir -p sub && mkfifo sub/.gitignore", "sub/.gitignore"),
    "fifo-gitattributes": ("mkfifo .gitattributes", ".gitattributes"),
    "fifo-mailmap": ("mkfifo .mailmap", ".mailmap"),
    "fifo-gitmodules": ("rm .gitmodules && mkfifo .gitmodules", ".gitmodules"),
    "gitmodules-symlink-to-own-pipe": ("rm .gitmodules && ln -s /proc/self/fd/1 .gitmodules", ".gitmodules"),
    "gitmodules-symlink-in-a-subdir": ("mkdir -p lib && ln -s ../README.md lib/.gitmodules", "lib/.gitmodules"),
    "fifo-renamed-into-place": ("mkfifo p && mkdir -p a/b && mv p a/b/.gitignore", "a/b/.gitignore"),
    "nested-repo-head-fifo": ("git init -q sub && rm sub/.git/HEAD && mkfifo sub/.git/HEAD", "sub/.git/HEAD"),
    "nested-repo-config-fifo": ("git init -q sub && rm sub/.git/config && mkfifo sub/.git/config", "sub/.git/config"),
    "nested-repo-config-symlink-to-own-pipe": ("git init -q sub && ln -sf /proc/self/fd/1 sub/.git/config",
                                               "sub/.git/config"),
    "gitfile-to-a-git-dir-with-a-fifo-head": ("mkdir -p sub g/refs g/objects && echo 'gitdir: ../g' > sub/.git && "
                                              "mkfifo g/HEAD", "g/HEAD"),
}


@pytest.mark.parametrize("name", sorted(PLANTS))
def test_a_command_leaves_a_file_git_opens_by_name(tmp_path: Path, ollama_server: ScriptedOllama, name: str) -> None:
    command, planted = PLANTS[name]
    repo = repo_with_submodule(tmp_path / "repo") if "gitmodules" in command and "lib/" not in command \
        else make_repo(tmp_path / "repo")
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "go", call("run_command", command=command),
                           call("write_file", path="notes.txt", content="hi\n"), call("git_status"),
                           call("git_log"), call("list_files"), timeout=HANG)
    undo = devagent(repo, "undo", "--yes", timeout=HANG)
    attack.check(run, undo, allow_rc=(0,))
    events = run.events()
    checkpoints = [e for e in events if e["type"] == "checkpoint"]
    assert len(checkpoints) == 2, [e for e in events if e["type"] == "notice"]  # the edit had its checkpoint
    command_result = next(e for e in events if e["type"] == "tool_result" and e["name"] == "run_command")
    assert f"removed {planted}" in command_result["output"], command_result["output"]
    assert not (repo / planted).is_symlink() and not (repo / planted).is_fifo()
    assert not (repo / "notes.txt").exists()  # undo gave back the tree before the edit


def test_a_regular_gitignore_is_left_alone(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "go", call("run_command", command="mkdir -p d && echo '*.log' > d/.gitignore "
                                                     "&& ln -s d/.gitignore .gitattributes"), timeout=HANG)
    attack.check(run, allow_rc=(0,))
    assert (repo / "d" / ".gitignore").read_text() == "*.log\n" and (repo / ".gitattributes").is_symlink()
