"""Class 5: output into a closed pipe (`devagent ... | head -1`) ends devagent quietly: exit 141 (or 0),
no traceback, no crash log, and nothing half done."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.attacks.harness import Attack, call, run_bounded
from tests.conftest import make_repo
from tests.ollama_server import Reply, ScriptedOllama
from tui.commands import COMMANDS


def closed_pipe(cwd: Path, args: str, env: dict[str, str] | None = None) -> tuple[int, str, list[Path]]:
    """Run `python -m tui ARGS | head -c 1` in bash; devagent's own exit code, its stderr, the crash logs."""
    state = Path(os.environ["XDG_STATE_HOME"])
    line = f"{sys.executable} -m tui {args} | head -c 1 >/dev/null; echo \"rc=${{PIPESTATUS[0]}}\" >&2"
    run = run_bounded(["bash", "-c", line], cwd, {**os.environ, **(env or {})}, "", 60)
    assert not run.hung
    rc = int(run.stderr.rsplit("rc=", 1)[1].split()[0])
    err = run.stderr.rsplit("rc=", 1)[0]
    assert "BrokenPipe" not in err and "Exception ignored" not in err, err
    return rc, err, sorted(state.rglob("crash-*.log"))


@pytest.mark.parametrize("args", ["--help", *[f"{name} --help" for name in COMMANDS]])
def test_help_into_a_closed_pipe(tmp_path: Path, args: str) -> None:
    rc, err, crashes = closed_pipe(tmp_path, args)
    assert rc in (0, 141) and "Traceback" not in err and "internal error" not in err and not crashes, (rc, err)


def test_listing_and_diffs_into_a_closed_pipe(tmp_path: Path) -> None:
    from tui.git import checkpoints

    repo = make_repo(tmp_path / "repo")
    for i in range(5):  # each listing and diff is larger than a pipe's buffer: the write after `head` fails
        (repo / "app.py").write_text(f"x = {i}\n" * 20000)
        (repo / f"f{i}.txt").write_text("y\n")
        checkpoints.create(repo, f"step {i} " + "label " * 3000, "s1")
    attack = Attack(repo)
    for args in ("checkpoints", "undo --stat", "undo"):
        rc, err, crashes = closed_pipe(repo, args)
        assert rc in (0, 1, 3, 141) and "Traceback" not in err and not crashes, (args, rc, err)  # 3: no terminal to ask
    assert (repo / "app.py").read_text() == "x = 4\n" * 20000  # `undo` without --yes never restored
    attack.check()


def test_run_json_into_a_closed_pipe(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    ollama_server.push(Reply(tool_calls=[call("read_file", path="app.py")]), Reply("done " * 2000))
    attack = Attack(repo)
    rc, err, crashes = closed_pipe(repo, "run --json hello", env={"OLLAMA_HOST": ollama_server.url})
    assert rc in (0, 141) and "Traceback" not in err and not crashes, (rc, err)
    attack.check()
