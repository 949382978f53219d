"""An Outcome as ordinary edit proposals: one for the exact part, one (later, optional) for prose and strings.

Both are multi-file diffs reviewed hunk by hunk and applied after a checkpoint like any edit. The summary says
which engine made the change and what was checked; the warnings name every failed check and every place the
engine could not handle, so nothing it left undone is silent. The optional part is proposed on its own, after
the exact part, against the tree as it is then: a file that changed since is left out and said so.
"""

from __future__ import annotations

from typing import Any, Callable

from tui.protocol.proposals import Proposal, new_proposal_id
from tui.refactor.base import Check, FileChange, Outcome

MAX_LISTED = 12


def checked(checks: list[Check]) -> str:
    """``parse ok, pyflakes ok, tests ok`` (or ``... tests FAILED``); 'not checked' when nothing ran."""
    if not checks:
        return "not checked"
    return ", ".join(f"{c.name} {'ok' if c.ok else 'not run' if c.detail.startswith('not run') else 'FAILED'}"
                     for c in checks)


def _diff(changes: list[FileChange]) -> str:
    from tui.git.diffs import file_diff

    return "".join(file_diff(c.path, c.before, c.after) for c in changes)


def warnings(outcome: Outcome) -> list[str]:
    lines = [f"check {c.name}: {c.detail}" for c in outcome.checks if not c.ok]
    lines += [f"not handled: {place}" for place in outcome.unhandled[:MAX_LISTED]]
    if len(outcome.unhandled) > MAX_LISTED:
        lines.append(f"not handled: {len(outcome.unhandled) - MAX_LISTED} more places (see the tool result)")
    if outcome.optional:
        lines.append(f"prose and strings that mention it ({len(outcome.optional)} file(s)) are a separate, optional "
                     "proposal after this one")
    return lines


def exact_proposal(outcome: Outcome, arguments: dict[str, Any], tool: str = "refactor") -> Proposal:
    summary = (f"{outcome.summary} [{outcome.engine}; {checked(outcome.checks)}"
               + (f"; {len(outcome.unhandled)} place(s) not handled" if outcome.unhandled else "") + "]")
    return Proposal(id=new_proposal_id(), kind="edit", tool=tool, summary=summary, diff=_diff(outcome.changes),
                    files=[c.path for c in outcome.changes], warnings=warnings(outcome), risk="writes-repo",
                    rule="always asks: edit proposals need your approval", arguments={**arguments, "part": "exact"})


def optional_proposal(outcome: Outcome, current: Callable[[str], bytes | None], arguments: dict[str, Any],
                      tool: str = "refactor") -> Proposal | None:
    """The prose-and-strings part against the tree as it is now (``current(path)``); None when nothing is left.
    A file whose bytes are no longer what the engine saw is left out, and said so."""
    kept, dropped = [], []
    for change in outcome.optional:
        now = current(change.path)
        if now == change.before:
            kept.append(change)
            continue
        exact = next((c for c in outcome.changes if c.path == change.path), None)
        if exact is not None and now == exact.before:
            dropped.append(f"{change.path} (its exact change was not applied)")
        else:
            dropped.append(f"{change.path} (changed since)")
    if not kept:
        return None
    notes = [f"left out: {d}" for d in dropped]
    notes.append("optional: these only change comments, strings and prose docs; keep the hunks you want")
    return Proposal(id=new_proposal_id(), kind="edit", tool=tool,
                    summary=f"mentions in prose and strings after: {outcome.summary} ({len(kept)} file(s); optional)",
                    diff=_diff(kept), files=[c.path for c in kept], warnings=notes, risk="writes-repo",
                    rule="always asks: edit proposals need your approval", arguments={**arguments, "part": "optional"})


def describe(outcome: Outcome) -> str:
    """The outcome in a few lines, for the model's tool result and the command's output."""
    lines = [f"{outcome.summary} ({outcome.engine})"]
    lines += [f"check {c.name}: {'ok' if c.ok else 'FAILED'} - {c.detail}" for c in outcome.checks]
    if outcome.unhandled:
        lines.append(f"Not handled ({len(outcome.unhandled)}); check these places by hand:")
        lines += [f"  {p}" for p in outcome.unhandled[:MAX_LISTED]]
    return "\n".join(lines)
