"""SQLite session store and audit log, written as things happen.

One database per repository, under the git common dir (``.git/devagent/sessions.sqlite3``):
outside the working tree, never committed, and read-only to sandboxed commands.
WAL mode with one commit per write, so a killed process loses nothing it recorded.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tui.protocol.errors import DevagentError

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, repo TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL,
    model TEXT NOT NULL DEFAULT '', title TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS messages (
    session_id TEXT NOT NULL, seq INTEGER NOT NULL, message TEXT NOT NULL, created REAL NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS events (
    session_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, created REAL NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS proposals (
    id TEXT PRIMARY KEY, session_id TEXT NOT NULL, data TEXT NOT NULL, status TEXT NOT NULL,
    decision TEXT, result TEXT, updated REAL NOT NULL
);
"""


class StoreError(DevagentError):
    exit_code = 10


@dataclass(frozen=True)
class SessionRow:
    id: str
    repo: str
    created: float
    updated: float
    model: str
    title: str


def default_store_path(git_common_dir: Path) -> Path:
    return git_common_dir / "devagent" / "sessions.sqlite3"


class Store:
    """Append-only records of sessions: messages (the conversation), events, proposals and decisions."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=5)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the session store {path}: {exc}",
                             "Check that the repository's .git directory is writable.") from None
        self._seq: dict[tuple[str, str], int] = {}

    def close(self) -> None:
        self._db.close()

    # sessions -------------------------------------------------------------------------------
    def new_session(self, repo: Path, model: str = "", title: str = "") -> str:
        sid = time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]
        now = time.time()
        self._db.execute("INSERT INTO sessions VALUES (?,?,?,?,?,?)", (sid, str(repo), now, now, model, title[:200]))
        return sid

    def sessions(self, limit: int = 50) -> list[SessionRow]:
        rows = self._db.execute(
            "SELECT id, repo, created, updated, model, title FROM sessions ORDER BY updated DESC, rowid DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [SessionRow(*row) for row in rows]

    def find_session(self, ident: str) -> SessionRow | None:
        if ident == "latest":
            rows = self.sessions(1)
            return rows[0] if rows else None
        row = self._db.execute(
            "SELECT id, repo, created, updated, model, title FROM sessions WHERE id = ? OR id LIKE ? "
            "ORDER BY updated DESC LIMIT 1", (ident, f"%{ident}"),
        ).fetchone()
        return SessionRow(*row) if row else None

    def touch(self, session_id: str, *, model: str | None = None, title: str | None = None) -> None:
        self._db.execute("UPDATE sessions SET updated = ? WHERE id = ?", (time.time(), session_id))
        if model is not None:
            self._db.execute("UPDATE sessions SET model = ? WHERE id = ?", (model, session_id))
        if title:
            self._db.execute("UPDATE sessions SET title = ? WHERE id = ? AND title = ''", (title[:200], session_id))

    # messages and events ----------------------------------------------------------------------
    def _next(self, table: str, session_id: str) -> int:
        key = (table, session_id)
        if key not in self._seq:
            row = self._db.execute(f"SELECT COALESCE(MAX(seq), 0) FROM {table} WHERE session_id = ?", (session_id,)).fetchone()
            self._seq[key] = int(row[0])
        self._seq[key] += 1
        return self._seq[key]

    def add_message(self, session_id: str, message: dict[str, Any]) -> None:
        self._db.execute(
            "INSERT INTO messages VALUES (?,?,?,?)",
            (session_id, self._next("messages", session_id), json.dumps(message), time.time()),
        )

    def messages(self, session_id: str) -> list[dict[str, Any]]:
        rows = self._db.execute("SELECT message FROM messages WHERE session_id = ? ORDER BY seq", (session_id,))
        return [json.loads(r[0]) for r in rows]

    def add_event(self, session_id: str, event: dict[str, Any]) -> None:
        self._db.execute(
            "INSERT INTO events VALUES (?,?,?,?,?)",
            (session_id, self._next("events", session_id), event.get("type", "event"),
             json.dumps(event, default=str), time.time()),
        )

    def events(self, session_id: str) -> list[dict[str, Any]]:
        rows = self._db.execute("SELECT data FROM events WHERE session_id = ? ORDER BY seq", (session_id,))
        return [json.loads(r[0]) for r in rows]

    # proposals --------------------------------------------------------------------------------
    def put_proposal(self, session_id: str, proposal: dict[str, Any], status: str = "pending") -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO proposals (id, session_id, data, status, updated) VALUES (?,?,?,?,?)",
            (proposal["id"], session_id, json.dumps(proposal), status, time.time()),
        )

    def set_proposal(self, proposal_id: str, status: str, *, decision: dict[str, Any] | None = None,
                     result: dict[str, Any] | None = None) -> None:
        self._db.execute("UPDATE proposals SET status = ?, updated = ? WHERE id = ?", (status, time.time(), proposal_id))
        if decision is not None:
            self._db.execute("UPDATE proposals SET decision = ? WHERE id = ?", (json.dumps(decision), proposal_id))
        if result is not None:
            self._db.execute("UPDATE proposals SET result = ? WHERE id = ?", (json.dumps(result), proposal_id))

    def proposals(self, session_id: str, status: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT data, status, decision, result FROM proposals WHERE session_id = ?"
        args: tuple[Any, ...] = (session_id,)
        if status:
            sql += " AND status = ?"
            args += (status,)
        out = []
        for data, st, decision, result in self._db.execute(sql + " ORDER BY rowid", args):
            item = json.loads(data)
            item["_status"] = st
            item["_decision"] = json.loads(decision) if decision else None
            item["_result"] = json.loads(result) if result else None
            out.append(item)
        return out
