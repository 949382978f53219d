"""What devagent does for the model before its first step in a turn: the grounding message, the files the
prompt names read as the model's own calls, the code of the definition a change request names, the failing
tests run first for a fix request, and the outline of the file defining what a "how many" question names.
Each answers a failure of small models (docs/model-layer.md); the agent loop calls them in this order.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid

from tui.engine.agent_words import is_question
from tui.engine.coach import COUNTS
from tui.engine.counting import outline_counts
from tui.engine.turnmsg import assistant as _assistant
from tui.llm.base import ToolCall
from tui.tools.support.common import CHARS_PER_TOKEN

OUTLINED = (".py", ".pyi", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx")  # source files outline() understands


async def ground(agent, prompt: str) -> None:
    """The request-ranked repo map and hints, as a message after the prompt (the system prompt stays fixed)."""
    from tui.engine.grounding import turn_context
    from tui.tools.support.common import repo_files

    files = await repo_files(agent.ctx.repo)
    found: list[str] = []
    text = await asyncio.to_thread(turn_context, agent.ctx.repo, prompt, files, set(agent.tools), agent.limit,
                                   agent.config.limits.instructions_tokens, found)
    agent._hints = "\n\n".join(found)
    if text:
        agent._append({"role": "user", "_tool": True, "_grounding": True, "content": text})


async def run_failing(agent, prompt: str) -> None:
    """"Tests fail, fix the bug": run them first, as devagent's own call (approved like any other), so the model
    starts from the failure and the code it points to; the failing ids are what verification reruns."""
    from tui.engine.grounding import failing_tests_selection
    from tui.tools.support.common import repo_files

    agent._failing = []
    if "run_tests" not in agent.tools or agent.config.model.verify == "off" or not agent.verifying:
        return
    selection = failing_tests_selection(prompt, await repo_files(agent.ctx.repo))
    if selection is None:
        return
    await agent._handle(ToolCall("run_tests", {"selection": selection}, uuid.uuid4().hex[:8], "auto"))
    result = agent.last_result
    failures = ((result.data.get("test_run") or {}).get("failures") or []) if result and not result.ok else []
    agent._failing = [str(f.get("test_id")) for f in failures if f.get("test_id")]


async def read_mentioned(agent, prompt: str) -> None:
    """Read the files the prompt names, as the model's own read_file calls, within a third of the context."""
    from tui.engine.mentions import mentioned
    from tui.tools.support.common import repo_files

    count = agent.config.model.read_mentioned
    spec = agent.tools.get("read_file")
    if count <= 0 or spec is None:
        return
    budget = agent.limit // 3
    per_file = agent.config.limits.file_tokens
    named = mentioned(prompt, await repo_files(agent.ctx.repo), count)
    if not named and "outline" in agent.tools and is_question(prompt) and COUNTS.search(prompt):
        await outline_defining(agent, prompt)  # "how many methods does LRUCache define": the outline counts
        return
    for path in named:
        try:
            size = (agent.ctx.repo / path).stat().st_size
        except OSError:
            continue
        cost = min(size // CHARS_PER_TOKEN, per_file) + 40
        name = "read_file"
        if (size // CHARS_PER_TOKEN > per_file or outline_counts(path, prompt)) and "outline" in agent.tools and \
                path.endswith(OUTLINED):
            name, cost = "outline", 400  # too big to read whole, or a count: its outline counts exactly
        if cost > budget:
            continue
        budget -= cost
        call = ToolCall(name, {"path": path}, uuid.uuid4().hex[:8], "auto")
        agent._append(_assistant("", [call]) if agent.native_tools else
                     _assistant(json.dumps({"name": call.name, "arguments": call.arguments}), []))
        await agent._handle(call)


async def outline_defining(agent, prompt: str) -> None:
    """Outline the one file that defines a class or function the prompt names (a small model otherwise
    answers a count from memory, with no tool)."""
    from tui.engine.grounding import defined_in

    for name in dict.fromkeys(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]{2,}\b", prompt)):
        path = await asyncio.to_thread(defined_in, agent.ctx.repo, name)
        if path and path.endswith(OUTLINED):
            call = ToolCall("outline", {"path": path}, uuid.uuid4().hex[:8], "auto")
            agent._append(_assistant("", [call]) if agent.native_tools else
                         _assistant(json.dumps({"name": call.name, "arguments": call.arguments}), []))
            await agent._handle(call)
            return


NAME = re.compile(r"(?<![\w$.])([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)(?![\w$])")
_COMMON = {"the", "and", "for", "add", "make", "test", "tests", "with", "that", "this", "from", "when", "none",
           "true", "false", "self", "return", "returns", "method", "function", "class"}


async def show_named(agent, prompt: str) -> None:
    """A change request names a function or class ("make naturalsize show two decimals", "add a reset() method
    to _DictSAXHandler"): the first one the library defines is shown before the model's first step, as
    devagent's own outline call (up to limits.tool_output_tokens). A 1.5B model otherwise edits from memory: it
    changed a line it recalled from another version of the library and wrote the function under test into the
    test file. A file already read whole is not shown again."""
    if is_question(prompt) or "outline" not in agent.tools:
        return
    from tui.engine.grounding import defined_in
    from tui.engine.verify import is_test

    for name in dict.fromkeys(m.group(1) for m in NAME.finditer(prompt)):
        owner = name.split(".", 1)[0]
        if len(owner) < 3 or owner.lower() in _COMMON:
            continue
        path = await asyncio.to_thread(defined_in, agent.ctx.repo, owner)
        if not path or not path.endswith(OUTLINED) or path in agent._reads or is_test(path):
            continue
        call = ToolCall("outline", {"path": path, "symbol": name}, uuid.uuid4().hex[:8], "auto")
        agent._append(_assistant("", [call]) if agent.native_tools else
                      _assistant(json.dumps({"name": call.name, "arguments": call.arguments}), []))
        await agent._handle(call)
        return
