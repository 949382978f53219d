"""Scaffolding: the kind and the name come from one constrained question; the files from tui/scaffold, which
writes them the way the project writes its others. The proposal is the scaffold tool's, approved as usual."""

from __future__ import annotations

from tui.engine.pipelines.facts import Facts
from tui.engine.pipelines.job import Job, NotHandled
from tui.protocol.events import TurnDone

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
    spec = job.agent.tools.get("scaffold")
    if spec is None:
        raise NotHandled("the scaffold tool is not available")
    result = await job.step("scaffold", args, lambda: job.agent.gate.run(spec, ToolCall("scaffold", args, "", "devagent"),
                                                                           "scaffold"),
                            lambda r: r.summary)
    if not result.ok:
        raise NotHandled(f"scaffold: {result.summary}")
    return job.answer(f"Created {value['kind']} {name}: {result.summary}.")
