"""The embedded backend with the real 1.5B model: it answers, and it leaves no process behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tui.config import Config
from tui.llm.base import Deadlines
from tui.llm.embedded import EmbeddedBackend, LoadProgress

pytestmark = pytest.mark.real_model

DEADLINES = Deadlines(connect=10.0, chunk=120.0, total=300.0)


def gone(pid: int, wait: float = 20.0) -> bool:
    """True once ``pid`` no longer exists (a zombie of ours is reaped by Popen; others count as gone too)."""
    end = time.monotonic() + wait
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().split(")")[-1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.1)
    return False


def config() -> Config:
    cfg = Config()
    cfg.model.temperature = 0.0
    cfg.model.seed = 42
    cfg.model.context = 2048
    return cfg


async def test_answers_from_the_prompt_and_stops_cleanly(real_model_path: Path) -> None:
    progress: list[LoadProgress] = []
    backend = EmbeddedBackend(real_model_path, config(), DEADLINES, on_progress=progress.append)
    try:
        info = await backend.connect()
        assert info.name == real_model_path.name and info.context_length == 2048
        assert progress[0].stage == "starting" and progress[-1].stage == "ready"
        pid = backend.server.proc.pid  # type: ignore[union-attr]
        messages = [
            {"role": "system", "content": "You answer in one short sentence."},
            {"role": "user", "content": "Our deploy server is called MARLINSPIKE-7. What is the deploy server called?"},
        ]
        text, done = "", None
        async for chunk in backend.stream_chat(messages, options={"num_predict": 40}):
            text += chunk.text
            done = chunk if chunk.done else done
        assert "MARLINSPIKE-7" in text.upper()
        assert done is not None and done.completion_tokens
    finally:
        await backend.close()
    assert gone(pid), "the model process must be gone after close()"
    assert progress[-1].stage == "stopped"


def test_model_process_dies_with_devagent(real_model_path: Path, tmp_path: Path) -> None:
    """SIGKILL the process that owns the server: the model child must not outlive it."""
    script = tmp_path / "owner.py"
    script.write_text(
        "import asyncio, sys\n"
        "from tui.llm.embedded import EmbeddedServer\n"
        "async def main():\n"
        f"    s = EmbeddedServer({str(real_model_path)!r}, threads=1, context=512)\n"
        "    await s.start()\n"
        "    print(s.proc.pid, flush=True)\n"
        "    await asyncio.sleep(600)\n"
        "asyncio.run(main())\n"
    )
    root = Path(__file__).resolve().parents[2]
    owner = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=root,
                             env={**os.environ, "PYTHONPATH": str(root)})
    try:
        line = owner.stdout.readline()  # type: ignore[union-attr]
        assert line.strip().isdigit(), "the owner never reported a ready model"
        child = int(line)
        assert not gone(child, wait=0.5)
        owner.send_signal(signal.SIGKILL)
        owner.wait(timeout=30)
        assert gone(child), "the model process outlived its owner"
    finally:
        if owner.poll() is None:
            owner.kill()
