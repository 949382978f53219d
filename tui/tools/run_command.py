"""run_command(command, timeout?) and run_python(code, timeout?): proposals run in the sandbox.

After an approved command runs, whatever it changed in the working tree is reported as a
diff (checkpoint before vs. after), so a command's edits can be reviewed and undone like
the model's own.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

from tui.protocol.proposals import Decision, Proposal, new_proposal_id
from tui.protocol.errors import ToolError
from tui.protocol.events import CommandFinished, CommandOutput, CommandStarted, Progress
from tui.safety.parsing import compile_check
from tui.tools.base import ToolContext, ToolResult, ToolSpec, params
from tui.tools.support.common import CHARS_PER_TOKEN, bound, int_arg, str_arg
from tui.tools.support.edits import checkpoint
from tui.protocol.words import plural

MAX_TIMEOUT = 3600


def _timeout(args: dict[str, Any]) -> float | None:
    value = int_arg(args, "timeout", None, lo=1, hi=MAX_TIMEOUT)
    return float(value) if value else None


async def propose_command(ctx: ToolContext, args: dict[str, Any]) -> Proposal:
    command = str_arg(args, "command").strip()
    if not command:
        raise ToolError("command must not be empty")
    first = command.splitlines()[0]
    summary = first if len(command.splitlines()) == 1 else f"{first} …(+{len(command.splitlines()) - 1} lines)"
    return Proposal(id=new_proposal_id(), kind="command", tool="run_command", summary=summary,
                    command=command, timeout=_timeout(args), arguments=args)



def unescaped_newlines(code: str) -> str:
    """``f.write('\\n')`` written into a JSON string without escaping the backslash arrives with a real newline
    between the quotes (a syntax error): put the escape back when that makes the code compile."""
    try:
        compile_check(code, "<run_python>")
        return code
    except SyntaxError as err:
        if "unterminated string" not in str(err.msg):
            return code
    except ValueError:
        return code
    fixed = re.sub(r"(['\"])\n(\1)", r"\1\\n\2", code)
    try:
        compile_check(fixed, "<run_python>")
    except (SyntaxError, ValueError):
        return code
    return fixed


async def propose_python(ctx: ToolContext, args: dict[str, Any]) -> Proposal:
    """The snippet runs in the project's interpreter (projenv.find_python), chosen now and shown in the command."""
    from tui.projenv import find_python

    code = unescaped_newlines(str_arg(args, "code"))
    if not code.strip():
        raise ToolError("code must not be empty")
    interp = await asyncio.to_thread(find_python, ctx.repo, ctx.config)
    if not interp.found:
        raise ToolError(f"no Python interpreter for this project: {interp.why}",
                        "Tell the developer: create the project's environment or set project.python.")
    first = next((ln for ln in code.splitlines() if ln.strip()), "")
    shown = interp.shown(ctx.repo)
    command = f"{shown} -B -c {code!r}" if "\n" not in code else f"{shown} -B - <<'EOF'\n" + code + "\nEOF"
    return Proposal(id=new_proposal_id(), kind="python", tool="run_python", summary=f"python: {first.strip()}",
                    code=code, command=command, timeout=_timeout(args),
                    arguments={**args, "_python": interp.python, "_python_line": interp.line(ctx.repo)})


async def changes_since(ctx: ToolContext, before: Any) -> str:
    """The working-tree diff between the checkpoint taken before the command and now."""
    if before is None:
        return ""
    from tui.git import checkpoints
    from tui.protocol.errors import DevagentError
    from tui.tools.support.edits import repo_of

    try:
        return await asyncio.to_thread(checkpoints.changes_since, repo_of(ctx), before)
    except DevagentError:
        return ""


async def execute(ctx: ToolContext, proposal: Proposal, decision: Decision) -> ToolResult:
    python_line = ""
    if proposal.kind == "python":
        python = str(proposal.arguments.get("_python") or "")
        if not python:  # a proposal recorded before the interpreter was part of it
            from tui.projenv import find_python

            python = find_python(ctx.repo, ctx.config).python or "python3"
        python_line = str(proposal.arguments.get("_python_line") or f"python: {python}")
        argv: str | list[str] = [python, "-B", "-c", proposal.code or ""]  # -B: no __pycache__ left in the repo
        shown = proposal.summary
    else:
        argv = (decision.command or proposal.command or "").strip()
        shown = argv
    limits = ctx.config.limits
    timeout = decision.timeout or proposal.timeout or limits.command_timeout
    cp = await checkpoint(ctx, f"before {proposal.summary}")
    sandbox = ctx.sandbox
    ctx.emit(CommandStarted(id=proposal.id, command=shown, sandbox=sandbox.info.kind))
    ctx.emit(Progress("running", detail=shown))
    started = time.monotonic()
    result = await sandbox.run(
        argv, timeout=timeout, idle_timeout=limits.idle_timeout, network=decision.network,
        on_output=lambda text: ctx.emit(CommandOutput(id=proposal.id, text=text)),
    )
    ctx.emit(CommandFinished(id=proposal.id, exit_code=result.exit_code, duration=time.monotonic() - started,
                             killed=result.killed, dropped_bytes=result.dropped_bytes))
    diff = await changes_since(ctx, cp)
    budget = limits.tool_output_tokens * CHARS_PER_TOKEN
    head = f"exit code {result.exit_code}"
    if result.killed:
        head = f"killed ({result.killed}) after {result.duration:.1f}s"
    parts = [head, bound(result.output, budget, "output") if result.output else "(no output)"]
    if python_line:
        parts.insert(1, python_line)
    if diff:
        parts.append("Changes it made in the working tree:\n" + bound(diff, budget // 2, "diff"))
        if getattr(diff, "cut", False):
            parts.append("(That diff is cut: the command changed more than devagent shows; see `git status`.)")
    ok = result.exit_code == 0 and not result.killed
    if not ok and proposal.kind == "python":
        parts.insert(1, failing_line(proposal.code or "", result.output or ""))
    summary = f"{head}" + (f", changed {plural(diff.count('diff --git'), 'file')}" if diff else "")
    return ToolResult(ok, "\n".join(parts), summary, diff=diff,
                      data={"exit_code": result.exit_code, "killed": result.killed,
                            "checkpoint": getattr(cp, "ref", None)})


def failing_line(code: str, output: str) -> str:
    """The snippet's own line the traceback ends in, quoted: a small model then fixes that line instead of
    sending the same code again."""
    import re

    found = re.findall(r'File "<string>", line (\d+)', output)
    error = next((ln for ln in reversed(output.strip().splitlines()) if re.match(r"^\w*(Error|Exception)\b", ln)), "")
    lines = code.splitlines()
    if not found or not 0 < int(found[-1]) <= len(lines):
        return ""
    number = int(found[-1])
    own = re.match(r"NameError: name '(\w+)' is not defined", error)
    after = output[output.rfind('File "<string>"'):]
    if own and 'File "' not in after[1:]:  # raised by the snippet itself, for a name it made up
        # Seen on pluggy (outside the benchmark): told only "change that line", the 1.5B model pasted its
        # try-out script into the method it had just added, correctly, and broke it.
        return (f"Your code failed at its line {number}: {lines[number - 1].strip()}\n{error}\n"
                f"That error is in the code you ran, not in the repository's files: it uses {own.group(1)} "
                "without defining or importing it. Define or import it first in your code, or leave it out; "
                "the files need no change for this.")
    return (f"Your code failed at its line {number}: {lines[number - 1].strip()}\n{error}\n"
            "Change that line (send different code); the same code will fail the same way.")


COMMAND = ToolSpec(
    name="run_command",
    description="Run a shell command in the repo (sandboxed; the developer approves it first).",
    parameters=params(
        ["command"],
        command={"type": "string", "description": "the shell command"},
        timeout={"type": "integer", "description": "seconds before it is stopped"},
    ),
    read_only=False,
    propose=propose_command,
    execute=execute,
)
PYTHON = ToolSpec(
    name="run_python",
    description="Run a Python snippet in the repo, e.g. to fix a data file (sandboxed, approved first).",
    parameters=params(
        ["code"],
        code={"type": "string", "description": "Python source to run"},
        timeout={"type": "integer", "description": "seconds before it is stopped"},
    ),
    read_only=False,
    propose=propose_python,
    execute=execute,
)
SPECS = [COMMAND, PYTHON]
