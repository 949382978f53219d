"""Programs devagent starts on the host are never looked up in the work tree.

A developer who activated the project's own virtualenv has ``REPO/.venv/bin`` first on PATH; others keep a
relative entry (``.``, ``node_modules/.bin``, an empty one, which means the current directory: the repo). An
approved command then writes ``git``, ``bwrap``, ``pgrep`` or ``git-lfs`` there, and devagent's next
checkpoint, status or sandbox start ran it on the host (found by this suite: markers in /etc as root).
devagent's own PATH leaves those entries out (tui/safety/hostpath.py); commands still get the developer's.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.attacks.harness import Attack, call, devagent
from tests.conftest import make_repo
from tests.ollama_server import Reply, ScriptedOllama

PROGRAMS = ("git", "bwrap", "pgrep", "ps", "git-lfs", "true", "node", "prlimit")


def plant(where: str, payload: str) -> str:
    """A command that writes a wrapper for each host program into ``where``: payload, then the real one."""
    return (f"mkdir -p {where} && for p in {' '.join(PROGRAMS)}; do "
            f"printf '#!/bin/sh\\n%s\\nexec /usr/bin/'$p' \"$@\"\\n' '{payload}' > {where}/$p; "
            f"chmod +x {where}/$p; done")


def venv(repo: Path) -> Path:
    env = repo / ".venv"
    (env / "bin").mkdir(parents=True)
    (env / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (env / "bin" / "python3").symlink_to("/usr/bin/python3")
    return env


@pytest.mark.parametrize("entry", ["venv", ".", "node_modules/.bin", ""],
                         ids=["activated-venv", "dot", "relative-node-bin", "empty-entry"])
def test_programs_planted_on_path_never_run_on_the_host(tmp_path: Path, ollama_server: ScriptedOllama,
                                                        entry: str) -> None:
    repo = make_repo(tmp_path / "repo")
    env: dict[str, str] = {}
    if entry == "venv":
        env["VIRTUAL_ENV"] = str(venv(repo))
        where, env["PATH"] = ".venv/bin", f"{repo}/.venv/bin:{os.environ['PATH']}"
    else:
        where, env["PATH"] = entry or ".", f"{entry}:{os.environ['PATH']}"
    attack = Attack(repo)
    ollama_server.push(Reply(tool_calls=[call("run_command", command=plant(where, attack.markers.shell()))]),
                       Reply(tool_calls=[call("write_file", path="notes.txt", content="hi\n")]),
                       Reply(tool_calls=[call("write_file", path="app.js", content="module.exports = 1;\n")]),
                       Reply(tool_calls=[call("run_command", command="git status --short")]),
                       Reply(tool_calls=[call("git_status")]), Reply("done"))
    run = devagent(repo, "run", "--yes", "--json", "go", url=ollama_server.url, env=env, timeout=90)
    assert (repo / where / "git").is_file(), run.stdout[-2000:]  # the command really planted them
    undo = devagent(repo, "undo", "--yes", env=env)
    later = devagent(repo, "test", "--list", env=env)
    attack.check(run, undo, later)
    assert run.rc == 0 and undo.rc == 0, (run.stderr[-500:], undo.stderr[-500:])


def test_commands_still_get_the_developers_path(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Only devagent's own lookups leave the work tree out: a command finds the activated venv's tools."""
    repo = make_repo(tmp_path / "repo")
    tool = venv(repo) / "bin" / "mytool"
    tool.write_text("#!/bin/sh\necho mytool-ran\n")
    tool.chmod(0o755)
    attack = Attack(repo)
    env = {"VIRTUAL_ENV": str(repo / ".venv"), "PATH": f"{repo}/.venv/bin:{os.environ['PATH']}"}
    ollama_server.push(Reply(tool_calls=[call("run_command", command="mytool")]), Reply("done"))
    run = devagent(repo, "run", "--yes", "--json", "go", url=ollama_server.url, env=env, timeout=60)
    attack.check(run, allow_rc=(0,))
    result = next(e for e in run.events() if e["type"] == "tool_result")
    assert "mytool-ran" in result["output"], result
