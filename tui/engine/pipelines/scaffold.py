"""Scaffolding: the kind and the name come from one constrained question; the files' places and form from
tui/scaffold, which writes them the way the project writes its others.

A Python module is filled with what the request asks of it: the scaffold names the module and its test file,
the model writes the module (several candidates), the program writes the test from a check written for the
request (asserts), and each candidate is tried in the throwaway copy (it parses, lints, imports, the new test
passes, the suite still does); the best is proposed. When no candidate passes, or for any other kind, the
scaffold tool's template files are proposed as they are, approved as usual.
"""

from __future__ import annotations

import ast
import asyncio
import re
import textwrap
from typing import Any

from tui.engine.pipelines.facts import Facts
from tui.engine.pipelines.job import Job, NotHandled
from tui.protocol.events import TurnDone

MODULE_PROMPT = """A developer asked:
<request>
{request}
</request>

The new module is {source}, imported as {module}.{example}
Write the whole new module: what the request asks it to contain, each definition with a docstring. No tests.
Reply as JSON: {{"code": "<the whole module>"}}"""

PROMPT = """A developer asked:
<request>
{request}
</request>

What should be created? The kinds: {kinds}. The name is the new thing's name as the request gives it (e.g.
Button, settings, text_utils). A directory only if the request names one.
Reply as JSON: {{"kind": "<kind>", "name": "<name>", "dir": "<directory or empty>"}}"""


async def run(job: Job, facts: Facts) -> TurnDone:
    from tui.llm.base import ToolCall
    from tui.scaffold import KINDS

    schema = {"type": "object", "properties": {"kind": {"type": "string", "enum": list(KINDS)},
                                               "name": {"type": "string"}, "dir": {"type": "string"}},
              "required": ["kind", "name", "dir"]}
    asked = await job.ask.json(PROMPT.format(request=facts.request.strip()[:1500], kinds=", ".join(KINDS)), schema,
                               max_tokens=60, label="what to scaffold")
    value = asked.first if isinstance(asked.first, dict) else {}
    name = str(value.get("name") or "").strip()
    if not name or value.get("kind") not in KINDS:
        raise NotHandled("no kind and name for the scaffold")
    args: dict[str, object] = {"kind": value["kind"], "name": name}
    if str(value.get("dir") or "").strip():
        args["options"] = {"dir": str(value["dir"]).strip()}
    if value["kind"] == "module":
        done = await _filled_module(job, facts, name, args.get("options", {}).get("dir"))  # type: ignore[union-attr]
        if done is not None:
            return done
    spec = job.agent.tools.get("scaffold")
    if spec is None:
        raise NotHandled("the scaffold tool is not available")
    result = await job.step("scaffold", args, lambda: job.agent.gate.run(spec, ToolCall("scaffold", args, "", "devagent"),
                                                                           "scaffold"),
                            lambda r: r.summary)
    if not result.ok:
        raise NotHandled(f"scaffold: {result.summary}")
    return job.answer(f"Created {value['kind']} {name}: {result.summary}.")


def module_test(module: str, name: str, check: str | None, code: str) -> str:
    """The new module's test, by program: the check written for the request as a test function, else a test that
    the module defines what the candidate says it does."""
    if check:
        return f"def test_{name}() -> None:\n{textwrap.indent(check.strip(), '    ')}\n"
    from tui.safety.parsing import parse_python

    try:  # the model's code: parsed with the depth limit
        names = [n.name for n in parse_python(code).body
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not n.name.startswith("_")]
    except (SyntaxError, ValueError, RecursionError):
        names = []
    body = "".join(f"    assert callable(module.{n})\n" for n in names) or "    pass\n"
    return f"import {module} as module\n\n\ndef test_{name}_defines_what_it_offers() -> None:\n{body}"


async def _filled_module(job: Job, facts: Facts, name: str, directory: Any) -> TurnDone | None:
    """A new Python module with the request's content, checked; None when it cannot be made that way."""
    from tui.engine.pipelines.change import check_for
    from tui.engine.pipelines.rewrite import Goal, propose_best
    from tui.protocol.errors import ToolError
    from tui.scaffold import build_scaffold

    try:
        plan = await asyncio.to_thread(build_scaffold, job.repo, "module", name, directory or None)
    except ToolError as err:
        job.note(f"scaffold: {err}")
        return None
    test = plan.test_file
    source = next((rel for rel in plan.files if rel != test), "")
    found = re.match(r"from (\S+) import", plan.files.get(test, ""))
    if not source.endswith(".py") or not test.endswith(".py") or not found:
        return None
    module = found.group(1)
    index = await job.index()
    sibling = next((f for f in index.files if f.endswith(".py") and f.rsplit("/", 1)[0] == source.rsplit("/", 1)[0]
                    and not f.endswith("__init__.py")), None) if "/" in source else None
    head = "\n".join((index.text(sibling) or "").splitlines()[:20]) if sibling else ""
    example = f"\nFor the style, the start of {sibling}:\n```python\n{head}\n```" if head else ""
    check = await check_for(job, index, facts.request, [], f"The new module: {source}. Import what you test from it "
                            f"like this: from {module} import ...\n", must_fail=False)
    goal = Goal(MODULE_PROMPT.format(request=facts.request.strip()[:1500], source=source, module=module,
                                     example=example), label=f"the module {module}", target=test, check=check,
                before_label="before the new module", max_tokens=1200)

    def place(code: str) -> dict[str, bytes | None] | None:
        if not code.strip():
            return None
        return {source: (code.rstrip() + "\n").encode(), test: module_test(module, name, check, code).encode()}

    try:
        applied, note = await propose_best(job, goal, place, {source: None, test: None},
                                           f"scaffold module {module} with its test")
    except NotHandled as err:
        if "rejected:" in err.why:  # the developer said no: not the template behind their back
            return job.answer(f"{source} was not created ({err.why.rsplit('rejected:', 1)[1].strip()}).")
        job.note(f"the filled module: {err.why}; the template instead")
        return None
    return job.answer(f"Created {source} and {test}; checked: {note}.")
