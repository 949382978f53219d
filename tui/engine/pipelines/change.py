"""A change of behaviour (``change``) or new code (``add``), checked against a test written for the request.

Where: the definition the request names; else the model picks one from a list the program builds (the named
file's definitions, or those around a search's hits). What "done" means: a short check the model writes from
the request alone (asserts), kept only if it fails on the code as it is (for a change) and then required of
every candidate. Candidates are rewrites of that one definition (or the new definition, placed by program
at the end of its module or class, with the module's ``__all__`` and its package's re-exports kept in step).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from tui.engine.pipelines import evidence
from tui.engine.pipelines.checks import check_for
from tui.engine.pipelines.facts import Facts
from tui.engine.pipelines.job import Job, NotHandled
from tui.engine.pipelines.loading import js_load
from tui.engine.pipelines.rewrite import Goal, definition_place, propose_best, reply_for, shown, spliced
from tui.engine.pipelines.values import value_swap, valued
from tui.engine.work import trial
from tui.engine.work.index import Definition, RepoIndex, _codelike
from tui.engine.work.trial import Candidate
from tui.protocol.events import TurnDone

CHANGE_PROMPT = """A developer asked for this change:
<request>
{request}
</request>

This is the code to change, {path} lines {start}-{end}:
```{fence}
{code}
```
{extra}
Make the change in this {kind}. Keep its name and everything the request does not ask to change.
{reply}"""

ADD_PROMPT = """A developer asked:
<request>
{request}
</request>

It goes into {path}{inside}. {context}
Write the new code: complete, with a docstring, in the style of the code around it. Only the new definition{named}.
Reply as JSON: {{"code": "<the new definition>"}}"""

PICK_PROMPT = """A developer asked:
<request>
{request}
</request>

Which of these definitions has to change for it?
{options}
Reply as JSON: {{"definition": "<one of the names listed>"}}"""


async def pick(job: Job, index: RepoIndex, facts: Facts) -> Definition:
    held = await asyncio.to_thread(valued, index, facts.request)
    words = set(re.findall(r"[A-Za-z_$][\w$]*", facts.request))
    named = [d for d in held if d.path.rsplit("/", 1)[-1].split(".")[0] in words]  # its file named (stringify)
    held = named if len(named) == 1 else held
    if len(held) == 1:
        job.note(f"where the value lives: {held[0].qualname} ({held[0].path}:{held[0].symbol.line})")
        return held[0]
    strong = [n for n in facts.symbols if n.strong]
    if strong and not held:
        return strong[0].definitions[0]
    options: list[Definition] = list(held)
    for rel in facts.code_files[:2] if not options else []:
        options += [d for d in index.definitions([rel]) if d.symbol.kind in ("function", "method", "class")]
    if not options:
        found, _ = await evidence.searched(job.ask, index, facts.request, tests=False)
        options = found.definitions
    if not options and facts.symbols:
        options = [n.definitions[0] for n in facts.symbols]
    if not options:
        raise NotHandled("nothing in the code could be tied to the request")
    if len(options) == 1:
        return options[0]
    options = options[:40]
    twice = len({d.symbol.qualname for d in options}) < len(options)
    names = [f"{d.path}:{d.symbol.qualname}" if twice else d.symbol.qualname for d in options]
    listing = "\n".join(f"- {n} ({d.symbol.kind}, {d.path}:{d.symbol.line})" for n, d in zip(names, options))
    schema = {"type": "object", "properties": {"definition": {"type": "string", "enum": list(dict.fromkeys(names))}},
              "required": ["definition"]}
    asked = await job.ask.json(PICK_PROMPT.format(request=facts.request.strip()[:1500], options=listing), schema,
                               max_tokens=40, label="which definition to change")
    chosen = (asked.first or {}).get("definition") if isinstance(asked.first, dict) else None
    return next((d for n, d in zip(names, options) if n == chosen), options[0])


async def change(job: Job, facts: Facts) -> TurnDone:
    index = await job.index()
    d = await pick(job, index, facts)
    text = index.text(d.path) or ""
    code = "\n".join(text.splitlines()[d.symbol.start - 1:d.symbol.end])
    language = "python" if d.path.endswith(".py") else "javascript"
    loads = ("python", "") if language == "python" else js_load(index, d.path, d.symbol.qualname.split(".")[0])
    check = await check_for(job, index, facts.request, [d], f"The code:\n```\n{code[:3000]}\n```\n",
                            must_fail=True, language=loads[0]) if loads else None
    kind = "class" if d.symbol.kind == "class" else "method" if d.symbol.kind == "method" else "function"
    show, mode, doc = shown(code, language)
    if d.symbol.kind not in ("class", "method", "function"):  # a value (defaults = {...}): edited, never retyped
        kind, mode = "definition", "edits"
    goal = Goal("", label=f"the change to {d.qualname}", check=check, before_label="before the change",
                language=loads[0] if loads else language, max_tokens=1200, mode=mode, original=code, doc=doc)
    goal.prompt = CHANGE_PROMPT.format(request=facts.request.strip()[:1500], path=d.path, start=d.symbol.start,
                                       end=d.symbol.end, fence="python" if language == "python" else "js", code=show,
                                       extra="", kind=kind, reply=reply_for(goal, kind))
    place = definition_place(job, goal, d.path, text, d.qualname, d.symbol.start, d.symbol.end)
    swapped = value_swap(text, d, facts.request)
    seeds = [Candidate({d.path: swapped.encode()}, "the value the request gives, put in place")] if swapped else []
    if seeds and check and not await _passes(job, check, seeds[0], goal.language):
        job.note("the check written for the request fails on the value it gives put in place by program: the check "
                 "is not used")
        goal.check = check = None

    async def repair(verdicts: list) -> Any:
        from tui.engine.pipelines.pinned import repaired

        return await repaired(job, facts.request, verdicts, goal.baseline) if check else None

    try:
        applied, note = await propose_best(job, goal, place, {d.path: text.encode()},
                                           f"change {d.qualname} in {d.path}", repair=repair, seeds=seeds)
    except NotHandled as err:
        if not swapped or "rejected:" in err.why:
            raise
        return await _swap_anyway(job, d, swapped, err.why)
    checked = " against a check written for the request" if check else ""
    return job.answer(f"Changed {d.qualname} ({d.path}:{d.symbol.start}); checked{checked}: {note}.")


async def _swap_anyway(job: Job, d: Definition, swapped: str, why: str) -> TurnDone:
    """The value the request names, put in place by program, proposed although the suite fails with it (tests
    that expect the old value): that is the change asked for, and the developer sees what fails before approving."""
    label = "the value the request gives, put in place: "
    tried = next((part.split(label, 1)[1] for part in re.split(r"; | \| ", why) if label in part), "not tried")
    warning = (f"the change the request names, made by program; with it: {tried}. Tests that expect the old value "
               "are not updated: review them.")
    outcome = await job.propose({d.path: swapped.encode()}, f"change {d.qualname} in {d.path} (the value the "
                                "request gives)", warnings=[warning])
    if not outcome.applied:
        return job.answer(f"{d.qualname} was not changed ({outcome.reason or 'rejected'}).")
    return job.answer(f"Changed {d.qualname} ({d.path}:{d.symbol.start}) to the value the request gives; {warning}")


async def _passes(job: Job, check: str, candidate: Candidate, language: str) -> bool:
    scratch = await job.scratch()
    if scratch is None:
        return True
    scratch.write(candidate.changes)
    try:
        return (await trial.run_code(job, scratch, check, language=language)).ok
    finally:
        scratch.reset()


# -- new code -----------------------------------------------------------------------------------------------
def _def_name(code: str, wanted: list[str] | None = None) -> str:
    """The name the new code defines: one the request gives, when the code defines it (a class whose methods come
    first in the reply is still that class), else its first definition."""
    found = [m.group(1) or m.group(2) for m in re.finditer(
        r"^\s*(?:async\s+)?(?:def|class|function\*?)\s+([A-Za-z_$][\w$]*)|"
        r"^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=", code, re.M)]
    return next((n for n in found if n in (wanted or [])), found[0] if found else "")


def with_export(text: str, name: str) -> str:
    """A module that lists its public names in ``__all__`` gets the new public name there too."""
    if name.startswith("_"):
        return text
    m = re.search(r"^__all__\s*(?::[^=]*)?=\s*[\[(](?P<body>[^\])]*)[\])]", text, re.M)
    if not m or re.search(rf"['\"]{re.escape(name)}['\"]", m.group("body")):
        return text
    body = m.group("body")
    quote = '"' if '"' in body or "'" not in body else "'"
    if "\n" in body:
        indent = re.search(r"\n([ \t]+)\S", body)
        pad = indent.group(1) if indent else "    "
        new_body = body.rstrip() + ("" if body.rstrip().endswith(",") else ",") + f"\n{pad}{quote}{name}{quote},\n"
    else:
        new_body = body.rstrip().rstrip(",") + (", " if body.strip() else "") + f"{quote}{name}{quote}"
    return text[:m.start("body")] + new_body + text[m.end("body"):]


def package_reexport(index: RepoIndex, rel: str, name: str) -> tuple[str, str] | None:
    """(the package's __init__.py, its new text) when it re-exports names of ``rel`` one by one."""
    if not rel.endswith(".py") or name.startswith("_"):
        return None
    init = rel.rsplit("/", 1)[0] + "/__init__.py" if "/" in rel else ""
    if not init or not index.exists(init):
        return None
    text = index.text(init) or ""
    module = re.escape(rel.rsplit("/", 1)[-1].removesuffix(".py"))
    grouped = re.search(rf"^from \.{module} import \((?P<names>[^)]*)\)", text, re.M)
    single = re.search(rf"^from \.{module} import (?P<names>[\w ,]+?)[ \t]*$", text, re.M)
    m = grouped or single
    if not m or re.search(rf"\b{re.escape(name)}\b", m.group("names")) or "*" in m.group("names"):
        return None
    names = m.group("names")
    if grouped and "\n" in names:
        pad = re.search(r"\n([ \t]+)\S", names)
        new = names.rstrip() + ("" if names.rstrip().endswith(",") else ",") + f"\n{pad.group(1) if pad else '    '}{name},\n"
    else:
        new = names.rstrip().rstrip(",") + f", {name}"
    text = text[:m.start("names")] + new + text[m.end("names"):]
    return init, with_export(text, name)


async def home(job: Job, index: RepoIndex, facts: Facts) -> tuple[str, str]:
    """(the file, the class or '') the new code goes into."""
    classes = [n for n in facts.symbols if n.strong and n.definitions[0].symbol.kind == "class"]
    if classes:
        d = classes[0].definitions[0]
        return d.path, d.qualname
    if facts.code_files:
        return facts.code_files[0], ""
    files = index.sources(tests=False)[:60]
    if not files:
        raise NotHandled("no source file to add the code to")
    schema = {"type": "object", "properties": {"file": {"type": "string", "enum": files}}, "required": ["file"]}
    asked = await job.ask.json(f"A developer asked:\n<request>\n{facts.request.strip()[:1500]}\n</request>\n"
                               "Which file should the new code go into?\n" + "\n".join(f"- {f}" for f in files) +
                               '\nReply as JSON: {"file": "<one of the files>"}', schema, max_tokens=40,
                               label="where the new code goes")
    chosen = (asked.first or {}).get("file") if isinstance(asked.first, dict) else None
    return (chosen if chosen in files else files[0]), ""


async def add(job: Job, facts: Facts) -> TurnDone:
    index = await job.index()
    rel, cls = await home(job, index, facts)
    text = index.text(rel) or ""
    outline = evidence.outline_text(index, rel, limit=30)
    sibling = next((d for d in index.definitions([rel]) if d.symbol.kind in ("function", "method") and
                    (not cls or d.qualname.startswith(cls + "."))), None)
    example = f"\nFor the style, an existing definition there:\n```\n{index.source_of(sibling, 25)}\n```" \
        if sibling else ""
    context = f"What {rel} has now:\n{outline}{example}"
    kinds = {a or b for a, b in re.findall(r"\b([A-Z]\w*)\s+(?:class|function|method)\b|\b(?:class|function|method)\s+"
                                         r"([A-Za-z_]\w*)", facts.request)}  # "a Stack class", "function clamp"
    new_names = [w for w in dict.fromkeys(re.findall(r"[A-Za-z_$][\w$]*", facts.request))
                 if (_codelike(w) or w in kinds) and not index.named_symbols(w) and not index.exists(w)]
    prompt = ADD_PROMPT.format(request=facts.request.strip()[:1500], path=rel,
                               inside=f", as a method of class {cls}" if cls else "", context=context,
                               named=f" ({new_names[0]}, whole: its first line names it)" if new_names else "")
    check = await check_for(job, index, facts.request, [Definition(rel, sibling.symbol)] if sibling else [],
                            f"The module: {rel}\n", must_fail=False) if rel.endswith(".py") else None
    goal = Goal(prompt, label="the new code", check=check, before_label="before the change",
                language="python" if rel.endswith(".py") else "javascript", max_tokens=1200)

    def place(code: str) -> dict[str, bytes | None] | None:
        name = _def_name(code, new_names)
        if not name:
            return None
        new = spliced(job, rel, text, f"{cls}.{name}" if cls else name, code)
        if new is None or new == text:
            return None
        changes: dict[str, bytes | None] = {rel: (new if cls else with_export(new, name)).encode()}  # a method: not in __all__
        extra = package_reexport(index, rel, name) if not cls else None
        if extra:
            changes[extra[0]] = extra[1].encode()
        return changes

    applied, note = await propose_best(job, goal, place, {rel: text.encode()}, f"add to {rel}")
    return job.answer(f"Added the new code to {rel}{f' (class {cls})' if cls else ''}; checked: {note}.")


async def run(job: Job, facts: Facts, kind: str) -> TurnDone:
    return await (add(job, facts) if kind == "add" else change(job, facts))
