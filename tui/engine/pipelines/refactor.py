"""A mechanical change is done by a refactoring engine, never retyped by the model: the model only names what to
change (one constrained question whose names are chosen from the definitions and files the request names), and
the refactor tool (tui/tools/refactor.py: rope and LibCST, the TypeScript language service) does it exactly,
checked in a copy, as an ordinary proposal; the prose that mentions the old name follows as a second one."""

from __future__ import annotations

from typing import Any

from tui.engine.pipelines.facts import Facts
from tui.engine.pipelines.job import Job, NotHandled
from tui.protocol.events import TurnDone

PROMPT = """A developer asked for this change to their code:
<request>
{request}
</request>
{found}
It is a mechanical change a refactoring tool makes. Say which one and with what names:
- "rename": name = what is renamed (a function, class, method, variable or module, as in the code),
  new_name = its new name;
- "move": name = the function or class to move, to_module = the module file it moves to (e.g. pkg/helpers.py);
- "add_parameter": name = the function, value = the new parameter and its default, as "param=default";
- "change_default": name = the function, value = the parameter and its new default, as "param=default".
Leave the fields an operation does not use empty.
Reply as JSON: {{"operation": "...", "name": "...", "new_name": "...", "to_module": "...", "value": "..."}}"""

OPERATIONS = ["rename", "move", "add_parameter", "change_default"]


def _names(facts: Facts) -> list[str]:
    names = [n.text for n in facts.symbols if n.strong] + [n.text for n in facts.symbols if not n.strong]
    names += [n.definitions[0].symbol.qualname for n in facts.symbols]
    names += [f for f in facts.code_files]
    return list(dict.fromkeys(x for x in names if x))


async def run(job: Job, facts: Facts) -> TurnDone:
    from tui.llm.base import ToolCall

    spec = job.agent.tools.get("refactor")
    if spec is None:
        raise NotHandled("the refactor tool is not available")
    names = _names(facts)
    name_schema: dict[str, Any] = {"type": "string", "enum": names} if names else {"type": "string"}
    schema = {"type": "object", "properties": {
        "operation": {"type": "string", "enum": OPERATIONS}, "name": name_schema, "new_name": {"type": "string"},
        "to_module": {"type": "string"}, "value": {"type": "string"}},
        "required": ["operation", "name", "new_name", "to_module", "value"]}
    found = facts.summary()
    asked = await job.ask.json(PROMPT.format(request=facts.request.strip()[:1500],
                                             found=f"\nIn the repository: {found}\n" if found else ""),
                               schema, max_tokens=120, label="what to refactor")
    value = asked.first if isinstance(asked.first, dict) else {}
    op = str(value.get("operation") or "")
    args: dict[str, Any] = {"operation": op, "name": str(value.get("name") or "").strip()}
    for key in ("new_name", "to_module", "value"):
        if str(value.get(key) or "").strip():
            args[key] = str(value[key]).strip()
    if op not in OPERATIONS or not args["name"]:
        raise NotHandled("no refactoring could be read from the request")
    job.note(f"refactoring: {args}")
    result = await job.step("refactor", args, lambda: job.agent.gate.run(spec, ToolCall("refactor", args, "", "devagent"),
                                                                          "refactor"), lambda r: r.summary)
    if not result.ok:
        if result.summary.startswith("rejected"):
            return job.answer(f"The refactoring was not applied ({result.summary}).")
        raise NotHandled(f"the refactoring engine could not do it: {result.output.strip()[:400]}")
    lines = [f"{result.summary}."]
    mentions = await job.step("refactor", {"operation": "mentions"}, lambda: job.agent.gate.run(
        spec, ToolCall("refactor", {"operation": "mentions"}, "", "devagent"), "refactor-mentions"),
        lambda r: r.summary)
    if mentions.ok:
        lines.append(f"Also in prose and strings: {mentions.summary}.")
    return job.answer(" ".join(lines))
