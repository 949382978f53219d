"""refactor(operation, name?, new_name?, path?, to_module?, value?): a mechanical change done
exactly by a refactoring engine (rope/LibCST for Python, the TypeScript language service, a data-file repairer),
never retyped by the model. The arguments are names, not code.

The engine works on a throwaway copy and checks what it did (parse, pyflakes, the project's tests before and
after); the result is an ordinary edit proposal, reviewed hunk by hunk and applied after a checkpoint. Prose and
strings that mention the old name are a second, optional proposal (``operation="mentions"``), offered after the
exact part is applied.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from tui.protocol.errors import ToolError
from tui.protocol.proposals import Decision, Proposal
from tui.refactor.base import Outcome, RefactorError
from tui.tools.base import ToolContext, ToolResult, ToolSpec, params
from tui.tools.support.common import str_arg

OPERATIONS = ["rename", "move", "add_parameter", "change_default", "extract", "repair", "mentions"]
_PENDING = "refactor_optional"  # ctx.extras: the applied refactoring whose optional part is still to offer
_OUTCOMES = "refactor_outcomes"  # ctx.extras: proposal id -> Outcome


def engine_arguments(op: str, args: dict[str, Any]) -> dict[str, Any]:
    """The tool's (or the command's) arguments as the engine's keyword arguments."""
    path = str(args.get("path") or "").strip() or None
    if op == "rename":
        return {"name": str_arg(args, "name").strip(), "new_name": str_arg(args, "new_name").strip(), "within": path}
    if op == "move":
        return {"name": str_arg(args, "name").strip(), "to_module": str_arg(args, "to_module").strip(),
                "within": path}
    if op in ("add_parameter", "change_default", "signature"):
        add = str(args.get("add") or (args.get("value") if op == "add_parameter" else "") or "").strip()
        default = str(args.get("default") or (args.get("value") if op == "change_default" else "") or "").strip()
        if bool(add) == bool(default):
            raise ToolError(f"{op} needs value=\"PARAM=VALUE\", e.g. value=\"timeout=30\"")
        return {"name": str_arg(args, "name").strip(), "add": add or None, "default": default or None,
                "keyword_only": bool(args.get("keyword_only")) or None, "within": path}
    if op == "extract":
        lines = re.fullmatch(r"\s*(\d+)\s*(?:-|\.\.|:|,)\s*(\d+)\s*", str(args.get("value") or ""))
        start, end = (int(lines.group(1)), int(lines.group(2))) if lines else (args.get("start"), args.get("end"))
        if not path or not start or not end:
            raise ToolError("extract needs path, value=\"START-END\" (line numbers) and new_name")
        try:
            start, end = int(start), int(end)
        except (TypeError, ValueError):
            raise ToolError("start and end are line numbers") from None
        return {"path": path, "start": start, "end": end, "new_name": str_arg(args, "new_name").strip()}
    if op == "repair":
        if not path and not args.get("name"):
            raise ToolError("repair needs path (the data file)")
        return {"path": path or str(args.get("name"))}
    raise ToolError(f"unknown operation {op!r}; one of: {', '.join(OPERATIONS)}")


async def propose(ctx: ToolContext, args: dict[str, Any]) -> Proposal:
    from tui.refactor.proposal import exact_proposal, optional_proposal
    from tui.tools.support.edits import read_current

    op = str_arg(args, "operation").strip().lower()
    if op == "mentions":
        pending: Outcome | None = ctx.extras.get(_PENDING)
        if pending is None:
            raise ToolError("no refactoring with an optional part was applied in this session")
        proposal = optional_proposal(pending, lambda rel: read_current(ctx, rel)[1], {"operation": "mentions"})
        if proposal is None:
            ctx.extras.pop(_PENDING, None)
            raise ToolError("nothing optional is left to propose (the files changed since, or it was applied)")
        ctx.extras.setdefault(_OUTCOMES, {})[proposal.id] = pending
        return proposal
    from tui.refactor import ops

    kwargs = engine_arguments(op, args)
    engine_op = "signature" if op in ("add_parameter", "change_default") else op
    try:
        outcome = await asyncio.to_thread(ops.run, engine_op, ctx.repo, config=ctx.config, on_progress=ctx.emit,
                                          tests=bool(ctx.extras.get("refactor_tests", True)), **kwargs)
    except RefactorError as err:
        raise ToolError(err.message, err.hint) from None
    proposal = exact_proposal(outcome, {k: v for k, v in args.items() if v not in (None, "")})
    ctx.extras.setdefault(_OUTCOMES, {})[proposal.id] = outcome
    return proposal


async def execute(ctx: ToolContext, proposal: Proposal, decision: Decision) -> ToolResult:
    from tui.refactor.proposal import describe
    from tui.tools.support.edits import apply_edit

    outcome: Outcome | None = ctx.extras.get(_OUTCOMES, {}).pop(proposal.id, None)
    result = await apply_edit(ctx, proposal, decision)
    if proposal.arguments.get("part") == "optional":
        ctx.extras.pop(_PENDING, None)
        return result
    if outcome is not None:
        result.output = describe(outcome) + "\n" + result.output
        result.data["report"] = describe(outcome)
        result.data["checks"] = [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in outcome.checks]
        result.data["unhandled"] = list(outcome.unhandled)
        if result.ok and outcome.optional:
            ctx.extras[_PENDING] = outcome
            result.data["optional_files"] = [c.path for c in outcome.optional]
            result.output += (f"\nProse and strings in {len(outcome.optional)} file(s) still mention the old name; "
                              "refactor(operation=\"mentions\") proposes those changes (optional).")
    return result


SPEC = ToolSpec(
    name="refactor",
    description="Exact rename/move/signature change/extract by a refactoring engine, tested; better than editing.",
    parameters=params(
        ["operation"],
        operation={"type": "string", "enum": OPERATIONS},
        name={"type": "string"}, new_name={"type": "string"}, path={"type": "string"},
        to_module={"type": "string"}, value={"type": "string"},
    ),
    read_only=False,
    propose=propose,
    execute=execute,
)
