"""stage(paths?) and commit(message?): proposals the developer approves; nothing is staged or committed before.

A stage proposal carries the exact diff that would be staged (hunk-selectable);
a commit proposal carries the staged diff and the message. A commit runs the
repo's hooks (never --no-verify from the model) and is refused if what is
staged changed after the developer saw it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tui.protocol.proposals import Decision, Proposal, new_proposal_id
from tui.protocol.errors import DevagentError, ToolError
from tui.tools.base import ToolContext, ToolResult, ToolSpec, params
from tui.tools.support.edits import repo_of
from tui.protocol.words import plural


def _paths(args: dict[str, Any]) -> list[str]:
    raw = args.get("paths") or []
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
        raise ToolError("paths must be a list of file paths")
    return [p for p in raw if p.strip()]


def _counts(diff: str) -> tuple[int, int, int]:
    from tui.git.diffs import DiffIndex

    idx = DiffIndex.from_text(diff)
    return len(idx.files), sum(h.added for h in idx.hunks), sum(h.removed for h in idx.hunks)


async def propose_stage(ctx: ToolContext, args: dict[str, Any]) -> Proposal:
    from tui.git.diffs import files_in

    paths = _paths(args)
    diff = await asyncio.to_thread(repo_of(ctx).diff_worktree, paths or None)
    if not diff.strip():
        raise ToolError("nothing to stage" + (f" in {', '.join(paths)}" if paths else ""))
    files, added, removed = _counts(diff)
    return Proposal(id=new_proposal_id(), kind="stage", tool="stage",
                    summary=f"stage {plural(files, 'file')} (+{added} -{removed})", diff=diff, files=files_in(diff),
                    arguments=args)


async def execute_stage(ctx: ToolContext, proposal: Proposal, decision: Decision) -> ToolResult:
    from tui.git.diffs import DiffIndex, describe_hunks, select_hunks

    diff = proposal.diff or ""
    total = len(DiffIndex.from_text(diff).hunks)
    accepted = set(range(total)) if decision.hunks is None else {i for i in decision.hunks if 0 <= i < total}
    if not accepted:
        return ToolResult(False, "The developer staged none of the hunks.", "nothing staged")
    try:
        await asyncio.to_thread(repo_of(ctx).stage_hunks, diff, accepted)
    except DevagentError as err:
        return ToolResult(False, f"Nothing was staged: {err.message}", "staging failed")
    lines = [f"Staged {len(accepted)} of {total} hunks."]
    rejected = set(range(total)) - accepted
    if rejected:
        lines += ["Left unstaged by the developer:", describe_hunks(diff, rejected)]
    return ToolResult(True, "\n".join(lines), f"staged {len(accepted)}/{total} hunks",
                      diff=select_hunks(diff, accepted))


async def propose_commit(ctx: ToolContext, args: dict[str, Any]) -> Proposal:
    from tui.git import commitmsg
    from tui.git.diffs import files_in

    repo = repo_of(ctx)
    await asyncio.to_thread(repo.ensure_writable)
    staged = await asyncio.to_thread(repo.diff_staged)
    if not staged.strip():
        raise ToolError("nothing is staged; propose stage first")
    subjects = await asyncio.to_thread(repo.recent_subjects, 10)
    given = args.get("message")
    if isinstance(given, str) and given.strip():
        message = commitmsg.sanitize(given, staged, commitmsg.uses_conventional(subjects))
    elif ctx.extras.get("backend") is not None:
        message = await commitmsg.generate(ctx.extras["backend"], staged, subjects)
    else:
        message = commitmsg.fallback_message(staged, subjects)
    return Proposal(id=new_proposal_id(), kind="commit", tool="commit", summary=f"commit: {message.splitlines()[0]}",
                    diff=staged, files=files_in(staged), message=message, arguments=args)


async def execute_commit(ctx: ToolContext, proposal: Proposal, decision: Decision) -> ToolResult:
    repo = repo_of(ctx)
    message = decision.message or proposal.message or ""
    staged = await asyncio.to_thread(repo.diff_staged)
    if staged != (proposal.diff or ""):
        return ToolResult(False, "The staged changes changed after the developer approved them; nothing was "
                                 "committed. Propose the commit again.", "commit refused: staging changed")
    try:
        result = await asyncio.to_thread(repo.commit, message)
    except DevagentError as err:
        return ToolResult(False, f"Not committed: {err.message}", "commit failed")
    if not result.ok:
        return ToolResult(False, f"The commit was refused (hooks ran):\n{result.output}", "commit refused by a hook",
                          data={"message_file": str(result.message_file)})
    return ToolResult(True, f"Committed {result.sha[:12] if result.sha else ''}.\n{result.output}".strip(),
                      f"committed {result.sha[:12] if result.sha else ''}", data={"sha": result.sha})


STAGE = ToolSpec(
    "stage", "Propose staging changes (all, or these paths) for the next commit.",
    params(paths={"type": "array", "items": {"type": "string"}, "description": "files to stage (default: all)"}),
    False, propose=propose_stage, execute=execute_stage,
)
COMMIT = ToolSpec(
    "commit", "Propose committing what is staged, with a message.",
    params(message={"type": "string", "description": "commit message (summary line first)"}),
    False, propose=propose_commit, execute=execute_commit,
)
SPECS = [STAGE, COMMIT]
