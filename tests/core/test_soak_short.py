"""A short fault soak (scripts/soak.py): faulty turns, nasty sandboxed processes, one kill -9 and resume.

Real engine, real scripted Ollama server over HTTP, real bwrap, a real `python -m tui run` subprocess
killed with SIGKILL. The full soak (1,000 turns, 500 commands, every kill case) is `python scripts/soak.py`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import soak  # noqa: E402

from tests import ollama_server  # noqa: E402


def test_short_soak_has_no_crash_hang_leak_or_lost_event(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ollama_server._Handler, "disable_nagle_algorithm", False)  # restored after the test
    report = soak.run_soak(turns=24, commands=20, minutes=None, seed=11, kill={"after-edit-checkpoint"})
    assert report.violations == []
    turns = report.facts["turns"]
    assert turns["run"] == 24 and turns["crashes"] == 0 and turns["hangs"] == 0
    assert turns["unrecorded_turns"] == 0, "every event of every turn is in the session store"
    commands = report.facts["commands_auto"]
    assert commands["run"] == 20 and commands["left_behind"] == 0
    killed = report.facts["kill9"]["after-edit-checkpoint"]
    assert killed["resumed_same_session"] and killed["resume_exit"] == 0
    assert killed["checkpoints"] >= 1, "the checkpoint taken before the edit survives the kill"
