"""The real 1.5B model through `devagent run --json --model-file`: llama.cpp's own count of the prompt it has read
reaches the front end while it reads (a first request of ~1,500 tokens is read in batches of 512), so the
developer sees "reading the prompt: 512 of 1,520 tokens" instead of a minute of nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import make_repo

pytestmark = pytest.mark.real_model
ROOT = Path(__file__).resolve().parents[2]


def test_the_prompt_read_is_counted_while_it_is_read(tmp_path: Path, real_model_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "tui", "run", "--json", "--model-file", str(real_model_path),
                             "what does the add function in app.py return?"], cwd=repo, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    waits: list[dict] = []
    started = time.monotonic()
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            event = json.loads(line)
            if event["type"] == "progress":
                waits.append({**event, "at": round(time.monotonic() - started, 1)})
                if event["stage"] == "reading" and 0 < event["done"] < event["total"]:
                    break  # a count from the middle of the prompt: what was to be shown
            if event["type"] in ("text", "turn_done") or time.monotonic() - started > 600:
                break
    finally:
        proc.kill()
        proc.wait(timeout=30)
    stages = [w["stage"] for w in waits]
    assert "loading" in stages, waits  # the model file loading is a wait too
    counted = [w for w in waits if w["stage"] == "reading" and w["total"]]
    assert counted and 0 < counted[-1]["done"] < counted[-1]["total"], waits
    assert counted[-1]["done"] % 512 == 0, "llama.cpp reports after each batch of 512 prompt tokens"
