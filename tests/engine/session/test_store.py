"""The session store: everything recorded survives the process that wrote it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tui.engine.session.store import Store


def test_records_survive_a_killed_writer(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    code = f"""
import os, signal
from pathlib import Path
from tui.engine.session.store import Store
s = Store(Path({str(db)!r}))
sid = s.new_session(Path('/repo'), model='m', title='hello')
s.add_message(sid, {{'role': 'user', 'content': 'hi'}})
s.add_event(sid, {{'type': 'text', 'text': 'partial answer'}})
s.put_proposal(sid, {{'id': 'p1', 'kind': 'edit', 'summary': 'edit a.py'}})
os.kill(os.getpid(), signal.SIGKILL)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == -9
    store = Store(db)
    row = store.find_session("latest")
    assert row is not None and row.title == "hello"
    assert store.messages(row.id) == [{"role": "user", "content": "hi"}]
    assert store.events(row.id)[0]["text"] == "partial answer"
    assert [p["id"] for p in store.proposals(row.id, "pending")] == ["p1"]


def test_sessions_are_found_by_suffix_and_ordered(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    first = store.new_session(Path("/r"), title="one")
    second = store.new_session(Path("/r"), title="two")
    assert store.find_session("latest").id == second  # type: ignore[union-attr]
    assert store.find_session(first[-6:]).id == first  # type: ignore[union-attr]
    assert store.find_session("nope") is None
