""""Which function turns a dict back into XML, and in which file?": when the question names no code, the program
ranks the project's definitions by the words their names and the first line of their docs share with the question
(a name is split into its words: ``toXML`` → to, xml; ``load_config`` → load, config), shows the model the best dozen as
a list, each with that line, and asks it to choose one (a constrained choice). The answer names the definition,
its file and line, and its doc line, from the index: nothing in it is the model's but the choice.
"""

from __future__ import annotations

import re

from tui.engine.pipelines.facts import Facts
from tui.engine.pipelines.job import Job, NotHandled
from tui.engine.work.index import Definition, RepoIndex
from tui.protocol.events import TurnDone

PROMPT = """A developer asks about their code:
<question>
{question}
</question>

The definitions of the project that may be what they ask about, each with the first line of its doc:
{options}
Which one is it?
Reply as JSON: {{"definition": "<one of the names listed>"}}"""

_STOP = set("a an the of to in on for and or is it its by with as at which what where does do file function "
            "method class module back into from that this be are".split())
SHOWN = 12


def doc_line(lines: list[str], d: Definition) -> str:
    """The first line of a definition's docstring (Python) or of the JSDoc block just above it (JS/TS), from its
    file's ``lines``."""
    if d.path.endswith(".py"):
        body = "\n".join(lines[d.symbol.start - 1:min(d.symbol.end, d.symbol.start + 12)])
        m = re.search(r"^\s*(?:[rRbBuU]{0,2})(\"\"\"|''')\s*(.*?)\s*(?:\1|$)", body.split(":", 1)[-1], re.M | re.S)
        text = m.group(2) if m else ""
    else:
        above, i = [], d.symbol.start - 2
        while i >= 0 and (lines[i].strip().startswith(("*", "/**", "*/")) or not lines[i].strip()) and len(above) < 30:
            above.insert(0, lines[i])
            i -= 1
        text = " ".join(re.sub(r"^\s*/?\*+/?\s?", "", ln).strip() for ln in above if "@" not in ln)
    first = next((t.strip() for t in re.split(r"\n\s*\n|(?<=\.)\s", text) if t.strip()), "")
    return first[:120]


def words(text: str) -> set[str]:
    """The words of a question, a name (split as the scaffold splits names: toXML → to, xml) or a doc line."""
    from tui.scaffold.render import words as name_words

    return {w for w in name_words(re.sub(r"[^A-Za-z]+", " ", text)) if len(w) > 1} - _STOP


def _shared(asked: set[str], have: set[str]) -> int:
    """How many of the question's words the other words hold, a word and its longer form alike (string,
    stringify; parse, parser)."""
    return sum(1 for w in asked if any(h == w or len(min(h, w, key=len)) >= 4 and (h.startswith(w) or w.startswith(h))
                                       for h in have))


def ranked(index: RepoIndex, question: str) -> list[tuple[Definition, str]]:
    asked = words(question)
    scored = []
    texts: dict[str, list[str]] = {}  # each file read once
    for d in index.definitions(index.sources(tests=False)):
        if d.symbol.kind not in ("function", "method", "class") or d.symbol.name.startswith("_"):
            continue
        if d.path not in texts:
            texts[d.path] = (index.text(d.path) or "").splitlines()
        line = doc_line(texts[d.path], d)
        named = words(d.symbol.name) | (words(d.path.rsplit("/", 1)[-1].split(".")[0]) if "exports" in d.symbol.name
                                        else set())  # module.exports = function ...: the file names it
        score = 2 * _shared(asked, named) + _shared(asked, words(line))
        if score:
            scored.append((score, d, line))
    scored.sort(key=lambda t: -t[0])
    return [(d, line) for _, d, line in scored[:SHOWN]]


async def which(job: Job, facts: Facts) -> TurnDone:
    index = await job.index()
    found = ranked(index, facts.request)
    if not found:
        raise NotHandled("no definition shares a word with the question")
    names = list(dict.fromkeys(d.qualname for d, _ in found))
    options = "\n".join(f"- {d.qualname} ({d.path}): {line or '(no doc)'}" for d, line in found)
    asked = await job.ask.json(PROMPT.format(question=facts.request.strip()[:1500], options=options),
                               {"type": "object", "properties": {"definition": {"type": "string", "enum": names}},
                                "required": ["definition"]}, max_tokens=40, label="which definition it is")
    chosen = (asked.first or {}).get("definition") if isinstance(asked.first, dict) else None
    d, line = next(((d, line) for d, line in found if d.qualname == chosen), (None, ""))
    if d is None:
        raise NotHandled("the model chose none of the definitions listed")

    async def nothing() -> None:
        return None

    lines = f"{d.symbol.start}-{d.symbol.end}"
    await job.step("read_file", {"path": d.path, "lines": lines}, nothing, lambda _: f"lines {lines}")
    return job.answer(f"`{d.qualname}` in {d.path} (line {d.symbol.line})" + (f": {line}" if line else "."))
