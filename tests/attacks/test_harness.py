"""The harness can fail: a payload run on the host is seen, a changed hook is seen, a hang is seen."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.attacks.harness import Attack, run_bounded
from tests.conftest import make_repo


def test_a_payload_run_on_the_host_is_caught(tmp_path: Path) -> None:
    attack = Attack(make_repo(tmp_path / "r"))
    subprocess.run(["sh", "-c", attack.markers.shell()], check=True)
    assert attack.markers.found()
    with pytest.raises(AssertionError, match="outside the sandbox"):
        attack.check()
    assert not attack.markers.found()  # check() always cleans up


def test_a_changed_hook_is_caught(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    attack = Attack(repo)
    (repo / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    with pytest.raises(AssertionError, match=r"\.git changed: \['hooks/pre-commit'\]"):
        attack.check()


def test_a_hang_is_a_result(tmp_path: Path) -> None:
    run = run_bounded([sys.executable, "-c", "import time; time.sleep(30)"], tmp_path, {}, "", timeout=1)
    assert run.hung and run.rc is None
    with pytest.raises(AssertionError, match="hung"):
        Attack(make_repo(tmp_path / "r")).check(run)
