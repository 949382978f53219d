"""Results per half (per project and per kind: passed/total, seconds per task, median, max) and transcripts.

Transcripts (the ``--json`` event stream, stderr, the final diff, the check's verdict) go to ``OUT/<half>/<task>/``;
the details of a hidden half (``spec.HIDDEN_HALVES``: "heldout", "fresh", "new") never reach the console or
``--json``, so tuning can happen without seeing them.
"""

from __future__ import annotations

import json
import statistics
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench_common import Outcome
from benchreal.spec import HALVES, HIDDEN_HALVES


@dataclass
class Result:
    task: str
    project: str
    kind: str
    half: str
    ok: bool
    seconds: float
    timed_out: bool = False
    why: str = ""
    tools: list[str] = field(default_factory=list)

    def public(self) -> dict[str, Any]:
        """What may be shown for any half: a hidden half's results keep only pass/fail and time."""
        row = asdict(self)
        if self.half in HIDDEN_HALVES:
            row.pop("why")
            row.pop("tools")
        return row


def console_line(result: Result) -> str:
    mark = "PASS" if result.ok else "FAIL"
    line = f"{mark}  {result.half:<7} {result.task:<30} {result.seconds:6.1f} s"
    if result.timed_out:
        line += "  (hard timeout)"
    if result.half not in HIDDEN_HALVES:
        line += f"  {result.why}  tools={result.tools}"
    return line


def final_diff(repo: Path, base: str) -> str:
    """Everything the task changed against the fixture: commits, the index, the tree, untracked files."""
    subprocess.run(["git", "add", "-A", "--intent-to-add"], cwd=repo, capture_output=True)
    out = subprocess.run(["git", "diff", "--no-color", "--no-ext-diff", base], cwd=repo, capture_output=True,
                         text=True, errors="replace")
    return out.stdout


def write_transcript(out: Path, result: Result, run: Outcome, diff: str, prompt: str, repo: Path | None = None) -> None:
    where = out / result.half / result.task
    where.mkdir(parents=True, exist_ok=True)
    (where / "events.jsonl").write_text(run.stdout)
    if repo is not None:
        (where / "messages.jsonl").write_text(session_messages(repo))
    (where / "stderr.txt").write_text(run.stderr)
    (where / "diff.patch").write_text(diff)
    (where / "result.json").write_text(json.dumps({**asdict(result), "prompt": prompt, "answer": run.answer,
                                                   "rc": run.rc}, indent=2))


def session_messages(repo: Path) -> str:
    """Every message the model was sent or wrote (the session store's copy, grounding and coaching included),
    one JSON line each: what the events do not show."""
    import sqlite3

    store = repo / ".git" / "devagent" / "sessions.sqlite3"
    if not store.is_file():
        return ""
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
            rows = db.execute("SELECT message FROM messages ORDER BY session_id, seq").fetchall()
    except sqlite3.Error:
        return ""
    return "".join(row[0] + "\n" for row in rows)


def _stats(rows: list[Result]) -> dict[str, Any]:
    secs = [r.seconds for r in rows]
    return {"passed": sum(r.ok for r in rows), "total": len(rows),
            "median_s": round(statistics.median(secs), 1) if secs else None,
            "max_s": round(max(secs), 1) if secs else None,
            "mean_s": round(sum(secs) / len(secs), 1) if secs else None}


def summary(results: list[Result]) -> dict[str, Any]:
    """{half: {"all": stats, "projects": {name: stats}, "kinds": {kind: stats}}}."""
    out: dict[str, Any] = {}
    for half in HALVES:
        rows = [r for r in results if r.half == half]
        if not rows:
            continue
        projects = dict.fromkeys(r.project for r in rows)
        kinds = dict.fromkeys(r.kind for r in rows)
        out[half] = {"all": _stats(rows),
                     "projects": {p: _stats([r for r in rows if r.project == p]) for p in projects},
                     "kinds": {k: _stats([r for r in rows if r.kind == k]) for k in kinds}}
    return out


def table(summ: dict[str, Any]) -> str:
    lines = []
    for half, parts in summ.items():
        lines.append(f"{half}: {parts['all']['passed']}/{parts['all']['total']} passed, median "
                     f"{parts['all']['median_s']} s, max {parts['all']['max_s']} s")
        for group in ("projects", "kinds"):
            for name, s in parts[group].items():
                lines.append(f"  {group[:-1]:<8} {name:<12} {s['passed']:>2}/{s['total']:<2}  "
                             f"median {s['median_s']:>6} s  max {s['max_s']:>6} s")
    return "\n".join(lines)
