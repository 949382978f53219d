"""Which host sockets the sandbox hides, and what it keeps (plain files under /run, the repo's own files)."""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path

import pytest

from tests.attacks.policy_kit import UnixListener, connect_code
from tui.config import Config
from tui.sandbox.runner import Sandbox, detect
from tui.sandbox.sockets import socket_masks

needs_bwrap = pytest.mark.skipif(not detect(Config()).active, reason="needs a working bubblewrap")


def test_listed_and_walked_sockets_are_found(tmp_path: Path, repo: Path) -> None:
    scratch = Path("/var/tmp") / f"devagent-sock-{uuid.uuid4().hex[:8]}"
    try:
        with UnixListener(str(scratch / "a.sock")), UnixListener(str(tmp_path / "private.sock")), \
                UnixListener(str(repo / "in-repo.sock")):
            masks = dict(socket_masks([str(repo)]))
        assert masks.get(str(scratch / "a.sock")) is False  # found through /proc/net/unix: /dev/null over it
        assert str(tmp_path / "private.sock") not in masks  # host /tmp is not in the sandbox at all
        assert masks.get(str(repo / "in-repo.sock")) is False  # the repo is, so its sockets are covered
    finally:
        if scratch.exists():
            scratch.rmdir()


def test_socket_directories_are_covered_whole_unless_they_hold_the_repo(tmp_path: Path) -> None:
    runtime = Path("/var/tmp") / f"devagent-xdg-{uuid.uuid4().hex[:8]}"
    runtime.mkdir()
    try:
        assert (str(runtime), True) in socket_masks([], runtime_dir=str(runtime))
        assert (str(runtime), True) not in socket_masks([str(runtime / "work" / "repo")], runtime_dir=str(runtime))
    finally:
        runtime.rmdir()


@needs_bwrap
def test_run_keeps_plain_files_and_hides_the_socket_next_to_them(repo: Path) -> None:
    if not os.access("/run", os.W_OK):
        pytest.skip("/run is not writable here")
    base = Path("/run") / f"devagent-sock-{uuid.uuid4().hex[:8]}"
    base.mkdir()
    (base / "resolv.conf").write_text("nameserver 127.0.0.53\n")
    try:
        with UnixListener(str(base / "io.socket")) as listener:
            code = connect_code(str(base / "io.socket")) + f"print(open({str(base / 'resolv.conf')!r}).read())"
            result = asyncio.run(Sandbox(repo, Config()).run(["python3", "-c", code]))
        assert "REFUSED" in result.output and "nameserver 127.0.0.53" in result.output and not listener.received
    finally:
        (base / "resolv.conf").unlink()
        base.rmdir()


@needs_bwrap
def test_a_sandbox_that_fails_to_set_up_is_reported_as_such(repo: Path) -> None:
    sandbox = Sandbox(repo, Config())
    sandbox._gitdirs = [str(repo / "vanished" / ".git")]  # a git dir gone since detection: bwrap cannot bind it
    result = asyncio.run(sandbox.run("echo ran > ran.txt"))
    assert result.killed == "sandbox" and result.exit_code is None and not (repo / "ran.txt").exists()
    assert "could not be set up" in result.output and "bwrap:" in result.output
    ok = asyncio.run(Sandbox(repo, Config()).run("exit 3"))
    assert ok.killed == "" and ok.exit_code == 3  # a command's own failure stays its own
