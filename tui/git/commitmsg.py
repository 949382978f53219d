"""Commit messages written from the STAGED diff only: by the model when one answers, else a plain fallback.

The model sees a bounded view of the staged diff (never unstaged or untracked
content) plus the repo's recent subjects, so it can follow their style
(Conventional Commits when the log uses them). Its reply is sanitised: fences,
quotes and chatter removed, a summary of at most 72 characters, body wrapped.
"""

from __future__ import annotations

import asyncio
import posixpath
import re
import textwrap
from typing import TYPE_CHECKING

from tui.git.diffs import DiffIndex, FileRef

if TYPE_CHECKING:
    from tui.llm.base import Backend

SUMMARY_MAX = 72
BODY_WIDTH = 72
DIFF_BUDGET = 6000  # characters of diff shown to the model (small models have 4k-token contexts)
_CONVENTIONAL = re.compile(r"^(\w+)(\([^)]*\))?!?: \S")
_CHATTER = re.compile(r"^(here('s| is)|sure|certainly|the commit message|commit message)\b.*:?$", re.IGNORECASE)
_TEST_PATH = re.compile(r"(^|/)(tests?|spec)(/|_)|_test\.\w+$|\.test\.\w+$|(^|/)test_[^/]*$")
_DOC_PATH = re.compile(r"\.(md|rst|txt|adoc)$|(^|/)docs?/")


def uses_conventional(subjects: list[str]) -> bool:
    """True when most recent subjects look like ``type(scope): summary``."""
    subjects = [s for s in subjects if s and not s.startswith(("Merge ", "Revert "))]
    return bool(subjects) and sum(bool(_CONVENTIONAL.match(s)) for s in subjects) * 2 > len(subjects)


def bounded_diff(diff: str, budget: int = DIFF_BUDGET) -> str:
    """A view of the diff that fits ``budget`` characters: every file named, binary patches summarised."""
    idx = DiffIndex.from_text(diff)
    parts: list[str] = []
    used = 0
    for f in idx.files:
        head = f"--- {f.status}: {f.path}" + (f" (from {f.old_path})" if f.status == "renamed" else "") + "\n"
        if f.binary:
            parts.append(head + "(binary file)\n")
            continue
        body = "".join(idx.hunk_text(i) for i in f.hunks if not idx.hunks[i].whole_file)
        room = max(budget - used, 0)
        if len(body) > room:
            body = body[:room].rsplit("\n", 1)[0] + "\n[... rest of this file's diff left out ...]\n" if room > 200 \
                else f"[{sum(idx.hunks[i].added for i in f.hunks)} lines added, " \
                     f"{sum(idx.hunks[i].removed for i in f.hunks)} removed]\n"
        used += len(body)
        parts.append(head + body)
    return "".join(parts)


def _prompt(staged_diff: str, recent_subjects: list[str], conventional: bool) -> list[dict[str, str]]:
    rules = [
        "You write git commit messages. Reply with the message only: no code fences, no quotes, no preamble.",
        f"Line 1: a summary of at most {SUMMARY_MAX} characters, imperative mood, no trailing period.",
        "Then, only if it helps, a blank line and a short body (why, not how), wrapped at 72 columns.",
    ]
    if conventional:
        rules.append("Use Conventional Commits: `type(scope): summary` with type one of feat, fix, docs, "
                     "refactor, test, chore, perf, build, ci, style.")
    if recent_subjects:
        rules.append("Recent subjects in this repository (follow their style):\n"
                     + "\n".join(f"- {s}" for s in recent_subjects[:8]))
    return [{"role": "system", "content": "\n".join(rules)},
            {"role": "user", "content": "Write the commit message for this staged diff:\n\n"
                                        + bounded_diff(staged_diff)}]


async def generate(backend: "Backend", staged_diff: str, recent_subjects: list[str], *,
                   model: str | None = None, timeout: float = 120.0) -> str:
    """Ask the model for a message for ``staged_diff``; fall back to :func:`fallback_message` when it cannot."""
    return (await generate_with_source(backend, staged_diff, recent_subjects, model=model, timeout=timeout))[0]


async def generate_with_source(backend: "Backend", staged_diff: str, recent_subjects: list[str], *,
                               model: str | None = None, timeout: float = 120.0) -> tuple[str, str]:
    """(message, where it came from): "model NAME", or "fallback (why)" so front ends can say so."""
    from tui.protocol.errors import ModelError

    conventional = uses_conventional(recent_subjects)
    if not staged_diff.strip():
        return fallback_message(staged_diff, recent_subjects), "fallback (nothing staged)"
    name: list[str] = []

    async def ask() -> str:
        name.append((await backend.connect(model)).name)
        text: list[str] = []
        async for chunk in backend.stream_chat(_prompt(staged_diff, recent_subjects, conventional),
                                               options={"temperature": 0.2}):
            text.append(chunk.text)
        return "".join(text)

    try:
        raw = await asyncio.wait_for(ask(), timeout)
    except ModelError as exc:
        from tui.llm.modelcache import unreachable_note

        return fallback_message(staged_diff, recent_subjects), f"fallback ({exc.message}{unreachable_note(exc)})"
    except asyncio.TimeoutError:
        return fallback_message(staged_diff, recent_subjects), f"fallback (no answer within {timeout:.0f}s)"
    message = sanitize(raw, staged_diff, conventional)
    if not message:
        return fallback_message(staged_diff, recent_subjects), "fallback (the model's reply was empty)"
    return message, f"model {name[0] if name else ''}".strip()


def sanitize(text: str, staged_diff: str = "", conventional: bool = False) -> str:
    """Make model output a usable message: strip fences/quotes/chatter, cap the summary, wrap the body."""
    lines = [ln.rstrip() for ln in text.replace("\r\n", "\n").split("\n")]
    lines = [ln for ln in lines if not ln.lstrip().startswith("```")]
    while lines and (not lines[0].strip() or _CHATTER.match(lines[0].strip())):
        lines.pop(0)
    if not lines:
        return ""
    summary = lines[0].strip().strip("\"'`").lstrip("#*-> ").strip()
    summary = re.sub(r"^(summary|subject|title)\s*:\s*", "", summary, flags=re.IGNORECASE).rstrip(".").strip()
    if conventional and not _CONVENTIONAL.match(summary) and summary:
        summary = f"{infer_type(staged_diff)}: {summary[0].lower()}{summary[1:]}"
    summary = _cap(summary)
    body_lines = lines[1:]
    while body_lines and not body_lines[0].strip():
        body_lines.pop(0)
    body = _wrap("\n".join(body_lines).strip().strip("\"'"))
    if not summary:
        return ""
    return summary + (f"\n\n{body}" if body else "")


def _cap(summary: str) -> str:
    if len(summary) <= SUMMARY_MAX:
        return summary
    head = summary[:SUMMARY_MAX + 1]
    cut = head.rsplit(" ", 1)[0] if " " in head else ""
    return (cut if len(cut) > SUMMARY_MAX // 2 else summary[:SUMMARY_MAX]).rstrip(" ,;:-")


def _wrap(body: str, limit: int = 20) -> str:
    out: list[str] = []
    for para in re.split(r"\n\s*\n", body):
        para_lines = para.split("\n")
        if any(ln.lstrip().startswith(("- ", "* ")) for ln in para_lines):
            for ln in para_lines:  # keep bullets, wrap each with a hanging indent
                indent = " " * (len(ln) - len(ln.lstrip()) + 2)
                out.extend(textwrap.wrap(ln, BODY_WIDTH, subsequent_indent=indent) or [""])
        elif para.strip():
            out.extend(textwrap.wrap(" ".join(s.strip() for s in para_lines), BODY_WIDTH))
        out.append("")
    return "\n".join(out[:limit]).strip()


def infer_type(staged_diff: str) -> str:
    """A Conventional Commits type guessed from which files changed."""
    files = DiffIndex.from_text(staged_diff).files if staged_diff else []
    paths = [f.path for f in files]
    if paths and all(_TEST_PATH.search(p) for p in paths):
        return "test"
    if paths and all(_DOC_PATH.search(p) for p in paths):
        return "docs"
    if paths and all(f.status == "added" for f in files):
        return "feat"
    return "chore"


def _verb(f: FileRef) -> str:
    return {"added": "Add", "deleted": "Remove", "renamed": "Rename"}.get(f.status, "Update")


def fallback_message(staged_diff: str, recent_subjects: list[str]) -> str:
    """A plain, deterministic message from the file list (used when no model answers)."""
    idx = DiffIndex.from_text(staged_diff)
    files = idx.files
    if not files:
        summary = "Update files"
    elif len(files) == 1:
        f = files[0]
        summary = f"Rename {f.old_path} to {f.new_path}" if f.status == "renamed" else f"{_verb(f)} {f.path}"
    else:
        verbs = {_verb(f) for f in files}
        verb = verbs.pop() if len(verbs) == 1 else "Update"
        common = posixpath.commonpath([f.path for f in files]) if all("/" in f.path for f in files) else ""
        names = ", ".join(posixpath.basename(f.path) for f in files)
        summary = f"{verb} {names}" if len(f"{verb} {names}") <= SUMMARY_MAX else \
            f"{verb} {len(files)} files" + (f" in {common}" if common else "")
    if uses_conventional(recent_subjects):
        summary = f"{infer_type(staged_diff)}: {summary[0].lower()}{summary[1:]}"
    body = []
    if len(files) > 1:
        for f in files[:15]:
            added = sum(idx.hunks[i].added for i in f.hunks)
            removed = sum(idx.hunks[i].removed for i in f.hunks)
            body.append(f"- {f.path}" + (" (binary)" if f.binary else f" (+{added} -{removed})"))
        if len(files) > 15:
            body.append(f"- ... and {len(files) - 15} more")
    return _cap(summary) + ("\n\n" + "\n".join(body) if body else "")
