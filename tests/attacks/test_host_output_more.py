"""More subcommands writing into a closed pipe (`devagent X | head -c 1`): doctor, test --list, checkpoints
--json, review and hook status end quietly (exit 0 or 141, no traceback, no crash log). Defended by the one
BrokenPipe handler in tui/cli.py; test_host_output.py covers --help, the listings and `run --json`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.attacks.harness import Attack
from tests.attacks.test_host_output import closed_pipe
from tests.conftest import git, make_repo


@pytest.mark.parametrize("args", ["doctor", "test --list", "checkpoints --json", "hook status",
                                  "review --staged --no-model --no-interactive"])
def test_more_subcommands_into_a_closed_pipe(tmp_path: Path, args: str) -> None:
    files = {f"test_{i}.py": f"def test_{i}():\n    pass\n" for i in range(40)}
    repo = make_repo(tmp_path / "repo", {"README.md": "# r\n", **files})
    (repo / "big.py").write_text("x = 1  # " + "y" * 100 + "\n" * 3000)
    git(repo, "add", "big.py")
    attack = Attack(repo)
    rc, err, crashes = closed_pipe(repo, args)
    assert rc in (0, 1, 141) and "Traceback" not in err and not crashes, (args, rc, err)
    attack.check()
