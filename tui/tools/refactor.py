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

OPERATIONS = ["rename", "move", "add_parameter", "change_default", "extract", "repair"]  # offered to the model
# also "mentions": the optional prose part of the refactoring just applied (the app and the command ask for it)
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
    raise ToolError(f"unknown operation {op!r}; one of: {', '.join(OPERATIONS)}, mentions")


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
                                          tests=bool(ctx.extras.get("refactor_tests", True)),
                                          consent=ctx.extras.get("refactor_consent"), **kwargs)
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
    description="Rename, move, add_parameter, change_default, extract: exact, by an engine, tested.",
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


USAGE = ("/refactor rename OLD NEW [--in PATH] | move NAME --to MODULE | signature NAME --add P=V | --default P=V "
         "| extract PATH START END NAME | repair FILE")


def words_arguments(words: list[str]) -> dict[str, Any]:
    """The app's `/refactor ...` words (as the `devagent refactor` command takes them) as this tool's arguments."""
    options: dict[str, str] = {}
    positional: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("--"):
            key, _, value = word[2:].partition("=")
            if not value and key != "keyword-only":
                if i + 1 >= len(words):
                    raise ToolError(f"{word} needs a value; usage: {USAGE}")
                value, i = words[i + 1], i + 1
            options[key] = value or "yes"
        else:
            positional.append(word)
        i += 1
    op, rest = (positional[0], positional[1:]) if positional else ("", [])
    shapes = {"rename": 2, "move": 1, "signature": 1, "extract": 4, "repair": 1}
    if op not in shapes or len(rest) != shapes[op]:
        raise ToolError(f"usage: {USAGE}")
    within = options.get("in")
    if op == "rename":
        return {"operation": "rename", "name": rest[0], "new_name": rest[1], "path": within}
    if op == "move":
        if "to" not in options:
            raise ToolError("move needs --to MODULE")
        return {"operation": "move", "name": rest[0], "to_module": options["to"], "path": within}
    if op == "signature":
        if ("add" in options) == ("default" in options):
            raise ToolError("signature needs --add PARAM=DEFAULT or --default PARAM=VALUE")
        return {"operation": "add_parameter" if "add" in options else "change_default", "name": rest[0],
                "value": options.get("add") or options.get("default"), "path": within,
                "keyword_only": "keyword-only" in options or None}
    if op == "extract":
        return {"operation": "extract", "path": rest[0], "value": f"{rest[1]}-{rest[2]}", "new_name": rest[3]}
    return {"operation": "repair", "path": rest[0]}
