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
    import asyncio

    from tui.protocol.events import Progress
    from tui.refactor import ops
    from tui.refactor.base import RefactorError
    from tui.refactor.proposal import describe
    from tui.tools.refactor import engine_arguments

    args = await _named(job, facts)
    op = args["operation"]
    engine_op = "signature" if op in ("add_parameter", "change_default") else op
    job.note(f"refactoring: {args}")

    def progress(p: object) -> None:
        job.emit(Progress("checking", str(getattr(p, "message", "") or getattr(p, "detail", "") or "refactoring")))

    loop = asyncio.get_running_loop()

    def consent(message: str) -> bool:  # called from the engine's thread: the developer answers in the queue
        return asyncio.run_coroutine_threadsafe(job.allowed("install-typescript", message), loop).result()

    try:
        outcome = await job.step("refactor", args, lambda: asyncio.to_thread(
            ops.run, engine_op, job.repo, config=job.config, tests=True, on_progress=progress, consent=consent,
            **engine_arguments(op, args)), lambda o: o.summary)
    except RefactorError as err:
        raise NotHandled(f"the refactoring engine could not do it: {err.message}") from None
    failed = [c for c in outcome.checks if not c.ok and not c.detail.startswith("not run")]
    if failed:  # nothing unchecked reaches the developer: a rename that breaks the tests is not proposed
        return job.answer(f"{describe(outcome)}\nNot proposed: {failed[0].name} {failed[0].detail}. The places the "
                          "engine could not handle exactly are listed above.")
    done = await job.propose({c.path: c.after for c in outcome.changes}, outcome.summary, tool="refactor",
                             warnings=[describe(outcome)])
    if not done.applied:
        return job.answer(f"The refactoring was not applied ({done.reason or 'rejected'}).")
    lines = [f"{outcome.summary} ({outcome.engine})."]
    if outcome.unhandled:
        lines.append("Not handled exactly: " + "; ".join(outcome.unhandled[:5]))
    optional = {c.path: c.after for c in outcome.optional if c.after is not None}
    if optional:
        extra = await job.propose(optional, f"mentions in prose and strings ({len(optional)} file(s); optional)",
                                  tool="refactor")
        lines.append("The mentions in prose and strings were " + ("updated." if extra.applied else "left as they are."))
    return job.answer(" ".join(lines))


async def _named(job: Job, facts: Facts) -> dict[str, Any]:
    """The operation and its names, as the model reads them from the request (one constrained question)."""
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
    keep = {"rename": ("new_name",), "move": ("to_module",), "add_parameter": ("value",), "change_default": ("value",)}
    for key in keep.get(op, ()):
        if str(value.get(key) or "").strip():
            args[key] = str(value[key]).strip()
    if op not in OPERATIONS or not args["name"] or len(args) < 3:
        raise NotHandled("no refactoring could be read from the request")
    return args
