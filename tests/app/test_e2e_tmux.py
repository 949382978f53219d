"""End to end: the real `devagent` process in tmux, the scripted Ollama server as a process,
a temporary repo. Send a prompt, approve the proposed edit with `a`, check the file on disk."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Callable

import pytest

from tests.conftest import make_repo

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("tmux") is None or shutil.which("devagent") is None,
                                reason="needs tmux and the devagent console script on PATH")


def wait(predicate: Callable[[], object], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def test_prompt_then_approve_edit_in_tmux(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    script = tmp_path / "script.json"
    script.write_text(json.dumps([
        {"tool_calls": [{"name": "edit_file", "arguments": {
            "path": "app.py", "old": "return a + b", "new": "return a + b  # checked by e2e"}}]},
        {"text": "Added the comment."},
    ]))
    server = subprocess.Popen([sys.executable, "-m", "tests.ollama_server", "--port", "0", "--script", str(script)],
                              cwd=ROOT, stdout=subprocess.PIPE, text=True)
    socket = f"devagent-e2e-{uuid.uuid4().hex[:8]}"
    tmux = ["tmux", "-L", socket]
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        env = {k: os.environ[k] for k in ("DEVAGENT_CONFIG", "XDG_STATE_HOME", "XDG_CONFIG_HOME") if k in os.environ}
        env.update(OLLAMA_HOST=url, TERM="xterm-256color")
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        command = f"cd {shlex.quote(str(repo))} && env {exports} devagent; echo DEVAGENT-EXITED-$?; sleep 30"
        subprocess.run([*tmux, "new-session", "-d", "-s", "e2e", "-x", "160", "-y", "48", command], check=True)

        def screen() -> str:
            return subprocess.run([*tmux, "capture-pane", "-p", "-t", "e2e"], capture_output=True, text=True).stdout

        wait(lambda: "connected" in screen(), 30, "the app to connect")
        subprocess.run([*tmux, "send-keys", "-t", "e2e", "-l", "add a comment to add()"], check=True)
        subprocess.run([*tmux, "send-keys", "-t", "e2e", "Enter"], check=True)
        wait(lambda: "Approvals (1)" in screen(), 30, "the edit proposal in the queue")
        assert "checked by e2e" not in (repo / "app.py").read_text()  # nothing changes before approval
        subprocess.run([*tmux, "send-keys", "-t", "e2e", "a"], check=True)
        wait(lambda: "checked by e2e" in (repo / "app.py").read_text(), 30, "the edit on disk")
        wait(lambda: "Added the comment." in screen(), 30, "the final reply")
        subprocess.run([*tmux, "send-keys", "-t", "e2e", "C-q"], check=True)
        wait(lambda: "DEVAGENT-EXITED-0" in screen(), 30, "devagent to quit cleanly")
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
        server.terminate()
        server.wait(timeout=10)
    assert (repo / "app.py").read_text() == "def add(a, b):\n    return a + b  # checked by e2e\n"
