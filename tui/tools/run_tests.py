"""run_tests(selection?, suite?): propose running the repo's test suite; results come back as structure.

A test run is a command, so it is a Proposal (kind "command") showing the exact argv; once
approved it runs in the sandbox and the model gets failures first, bounded in size.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from tui.protocol.proposals import Decision, Proposal, new_proposal_id
from tui.protocol.events import CommandFinished, CommandOutput, CommandStarted, Progress
from tui.protocol.errors import ToolError
from tui.testing import Plan, choose_suite, detect_suites, plan_run, run_plan
from tui.testing.run import why_not_started
from tui.tools.base import ToolContext, ToolResult, ToolSpec, params
from tui.tools.support.common import CHARS_PER_TOKEN, bound, str_arg


WHOLE_SUITE = {"all", "*", ".", "./", "everything", "all tests", "tests", "test", "the suite", "suite", "none",
               "full", "entire suite"}


async def propose(ctx: ToolContext, args: dict[str, Any]) -> Proposal:
    selection = str_arg(args, "selection", required=False).strip()
    if selection.lower().strip("'\"") in WHOLE_SUITE:
        selection = ""  # small models write "all" for "every test": as a -k expression it deselects everything
    suite_name = str_arg(args, "suite", required=False).strip()
    suites = await asyncio.to_thread(detect_suites, ctx.repo, ctx.config)
    if suite_name and not selection and not any(suite_name in (s.name, s.kind) for s in suites) \
            and (ctx.repo / suite_name.split("::")[0]).exists():
        selection, suite_name = suite_name, ""  # small models put a test file in "suite"
    suite = choose_suite(suites, suite_name, selection, ctx.repo)
    if suite.missing:
        raise ToolError(*why_not_started(suite))
    plan = plan_run(suite, selection, ctx.repo)
    what = f" {selection}" if selection else ""
    return Proposal(id=new_proposal_id(), kind="command", tool="run_tests",
                    summary=f"run tests ({suite.name}){what}", command=plan.command,
                    arguments={**args, "_plan": plan.to_dict()})


async def execute(ctx: ToolContext, proposal: Proposal, decision: Decision) -> ToolResult:
    plan = Plan.from_dict(proposal.arguments["_plan"])
    edited = decision.command if decision.command and decision.command != plan.command else None
    from tui.tools.support.edits import checkpoint

    sandbox = ctx.sandbox
    cp = await checkpoint(ctx, f"before {proposal.summary}")
    ctx.emit(CommandStarted(id=proposal.id, command=edited or plan.command,
                            sandbox=getattr(getattr(sandbox, "info", None), "kind", "none")))
    ctx.emit(Progress("testing", detail=edited or plan.command))
    started = time.monotonic()
    run = await run_plan(plan, ctx.repo, ctx.config, runner=sandbox, command=edited,
                         timeout=decision.timeout or proposal.timeout,
                         on_output=lambda text: ctx.emit(CommandOutput(id=proposal.id, text=text)))
    ctx.emit(CommandFinished(id=proposal.id, exit_code=run.exit_code, duration=time.monotonic() - started,
                             killed=run.killed))
    from tui.tools.run_command import changes_since

    diff = await changes_since(ctx, cp)
    budget = ctx.config.limits.tool_output_tokens * CHARS_PER_TOKEN
    text = run.to_model_text(budget if not diff else budget * 3 // 4)
    if diff:
        text += "\nThe test run changed files in the working tree:\n" + bound(diff, budget // 4, "diff")
    said = f"{run.summary()} · {run.interpreter}" if run.interpreter else run.summary()  # which runner, and why
    return ToolResult(run.ok, text, said, diff=diff,
                      data={"test_run": run.to_dict(), "checkpoint": getattr(cp, "ref", None)})


SPEC = ToolSpec(
    name="run_tests",
    description="Run the repo's tests (or a subset) and get pass/fail counts and each failure's file, line, message.",
    parameters=params(
        [],
        selection={"type": "string", "description": "optional: a test file, a test id, or a name / -k expression"},
        suite={"type": "string", "description": "optional: which suite when the repo has several"},
    ),
    read_only=False,
    propose=propose,
    execute=execute,
)
