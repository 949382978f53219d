"""Documentation: a docstring (or a JS doc comment) of a named definition, or a section of a Markdown or
reStructuredText file.

The model writes only the text; the program places it: a Python docstring replaces the old one (or goes
first in the body) at the body's indentation, a JSDoc block goes above the definition, a section replaces the
section with the same title or is added at the end, in the file's own heading style (``#`` lines, or an
reStructuredText title with the adornment of the document's sections). The file must still parse.
"""

from __future__ import annotations

import ast
import re

from tui.engine.pipelines.facts import Facts
from tui.engine.pipelines.job import Job, NotHandled
from tui.engine.work.index import Definition
from tui.engine.work.trial import static_problems
from tui.protocol.events import TurnDone
from tui.safety.parsing import parse_python

DOC_PROMPT = """A developer asked:
<request>
{request}
</request>

The code, {path}:
```{fence}
{code}
```
Write the whole new {what} of {name}: the current one with the change the request asks for made in it (not the
request itself); plain text, no quotes around it, no code fence. Keep what is still true of the current one.
Reply as JSON: {{"text": "<the {what}>"}}"""

SECTION_PROMPT = """A developer asked:
<request>
{request}
</request>

{path} has these headings:
{headings}
{current}
Write the {markup} section the request asks for.
Reply as JSON: {{"heading": "<the section's title alone>", "text": "<the section's body in {markup}, without its title>"}}"""

SENTENCE_PROMPT = """A developer asked:
<request>
{request}
</request>

The docstring of {name} now reads:
\"\"\"
{old}
\"\"\"
Write the sentence (or two) to add to it, exactly as it will read in the docstring: a statement about the code,
not an instruction.
Reply as JSON: {{"text": "<the sentence>"}}"""

_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


def with_docstring(text: str, d: Definition, doc: str) -> str | None:
    """``text`` with ``d``'s docstring set to ``doc`` (through ``ast`` positions); None when it cannot be placed."""
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    node = next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                 and n.name == d.symbol.name and n.lineno == d.symbol.line), None)
    if node is None or not node.body:
        return None
    lines = text.splitlines(keepends=True)
    first = node.body[0]
    indent = re.match(r"[ \t]*", lines[first.lineno - 1]).group(0)  # type: ignore[union-attr]
    doc = doc.strip().replace('"""', '\\"\\"\\"')
    if "\n" in doc:
        body = "\n".join((indent + ln) if ln.strip() else "" for ln in doc.splitlines())
        block = f'{indent}"""{body.lstrip()}\n{indent}"""\n'
    else:
        block = f'{indent}"""{doc}"""\n'
    has_doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    if has_doc:
        new = lines[:first.lineno - 1] + [block] + lines[first.end_lineno:]
    elif first.lineno == node.lineno:  # a one-line body after the colon
        return None
    else:
        new = lines[:first.lineno - 1] + [block] + lines[first.lineno - 1:]
    return "".join(new)


def with_jsdoc(text: str, d: Definition, doc: str) -> str:
    lines = text.splitlines(keepends=True)
    start = d.symbol.start - 1
    indent = re.match(r"[ \t]*", lines[start]).group(0)  # type: ignore[union-attr]
    j = start - 1
    while j >= 0 and lines[j].strip().startswith(("*", "/**", "*/")):  # an existing JSDoc block is replaced
        j -= 1
    old_doc = start - 1 > j and lines[j + 1].strip().startswith("/**")
    block = [f"{indent}/**\n"] + [f"{indent} * {ln}".rstrip() + "\n" for ln in doc.strip().splitlines()] + [f"{indent} */\n"]
    return "".join(lines[:j + 1 if old_doc else start] + block + lines[start:])


def with_section(text: str, heading: str, body: str, rst: bool = False) -> str:
    """``text`` with the section ``heading`` set to ``body``: the section with that title is replaced (up to the
    next heading of its level or above), else one is added at the end at the level of the file's sections."""
    if rst:
        return _with_rst_section(text, heading, body)
    heading = heading.strip().lstrip("#").strip()
    pattern = re.compile(rf"^(#+)\s+{re.escape(heading)}\s*$", re.M | re.I)
    m = pattern.search(text)
    if m:
        level = len(m.group(1))
        nxt = re.compile(rf"^#{{1,{level}}}\s", re.M).search(text, m.end())
        end = nxt.start() if nxt else len(text)
        return text[:m.start()] + f"{m.group(1)} {heading}\n\n{body.strip()}\n\n" + text[end:].lstrip("\n")
    levels = re.findall(r"^(#+)\s", text, re.M)
    level = "#" * (len(levels[1]) if len(levels) > 1 else 2)
    return text.rstrip("\n") + f"\n\n{level} {heading}\n\n{body.strip()}\n"


_RST_ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1{2,}\s*$")


def rst_headings(lines: list[str]) -> list[tuple[int, int, str, tuple[str, bool]]]:
    """reStructuredText section titles: (first line, line after the title block, title, adornment style), where a
    style is (the adornment character, overlined) and the order styles first appear in gives the levels."""
    found, i = [], 0
    while i + 1 < len(lines):
        over = bool(_RST_ADORNMENT.match(lines[i])) and i + 2 < len(lines)
        if over and lines[i + 1].strip() and _RST_ADORNMENT.match(lines[i + 2]) \
                and lines[i + 2].strip()[0] == lines[i].strip()[0]:
            found.append((i, i + 3, lines[i + 1].strip(), (lines[i].strip()[0], True)))
            i += 3
            continue
        title, under = lines[i], lines[i + 1]
        if title.strip() and not title[0].isspace() and not _RST_ADORNMENT.match(title) \
                and _RST_ADORNMENT.match(under) and len(under.rstrip()) >= len(title.rstrip()):
            found.append((i, i + 2, title.strip(), (under.strip()[0], False)))
            i += 2
            continue
        i += 1
    return found


def _rst_title(title: str, style: tuple[str, bool]) -> list[str]:
    line = style[0] * max(3, len(title))
    return [line, title, line] if style[1] else [title, line]


def _with_rst_section(text: str, heading: str, body: str) -> str:
    heading = heading.strip().strip("=-~^*#").strip()
    lines = text.splitlines()
    found = rst_headings(lines)
    styles = list(dict.fromkeys(style for *_, style in found))
    for n, (start, after, title, style) in enumerate(found):
        if title.lower() == heading.lower():
            level = styles.index(style)
            end = next((s for s, _, _, st in found[n + 1:] if styles.index(st) <= level), len(lines))
            block = _rst_title(title, style) + ["", *body.strip().splitlines(), ""]  # the file's own title
            rest = lines[end:]
            return "\n".join(lines[:start] + block + rest).rstrip("\n") + "\n"
    # a new section at the level of the document's sections (the title, when overlined alone, is above them)
    style = styles[1] if len(styles) > 1 else styles[0] if styles else ("-", False)
    block = _rst_title(heading, style) + ["", *body.strip().splitlines()]
    return text.rstrip("\n") + "\n\n" + "\n".join(block) + "\n"


async def run(job: Job, facts: Facts) -> TurnDone:
    index = await job.index()
    docs = [f for f in facts.files if f.lower().endswith((".md", ".rst", ".txt"))]
    strong = [n for n in facts.symbols if n.strong] or facts.symbols[:1]
    if strong and not docs:
        return await _docstring(job, facts, strong[0].definitions[0])
    readme = docs[0] if docs else next((f for f in index.files if f.lower() in ("readme.md", "readme.rst")), "")
    if not readme:
        raise NotHandled("the request names no definition and no documentation file")
    text = index.text(readme, 2_000_000) or ""
    rst = readme.lower().endswith(".rst")
    titles = ([title for _, _, title, _ in rst_headings(text.splitlines())] if rst
              else [ln for ln in text.splitlines() if ln.startswith("#")])
    headings = "\n".join(titles)[:1500] or "(none)"
    asked = await job.ask.json(SECTION_PROMPT.format(request=facts.request.strip()[:1500], path=readme,
                                                     headings=headings, current="",
                                                     markup="reStructuredText" if rst else "Markdown"),
                               {"type": "object", "properties": {"heading": {"type": "string"}, "text": {"type": "string"}},
                                "required": ["heading", "text"]}, max_tokens=600, label=f"the section of {readme}")
    value = asked.first if isinstance(asked.first, dict) else {}
    if not str(value.get("heading") or "").strip() or not str(value.get("text") or "").strip():
        raise NotHandled("no section was written")
    new = with_section(text, str(value["heading"]), str(value["text"]), rst=rst)
    done = await job.propose({readme: new.encode()}, f"docs: {readme} section {value['heading'].strip()!r}")
    if not done.applied:
        return job.answer(f"The change to {readme} was not applied ({done.reason or 'rejected'}).")
    return job.answer(f"Updated {readme}: section {value['heading'].strip()!r}.")


def comment_text(doc: str) -> str:
    """The text of a doc comment a model wrote with its markers (/** ... */, a leading * on each line): the
    markers are the program's to write (kept, they close the comment early and break the file)."""
    body = doc.strip()
    if body.startswith("/*"):
        body = body[3:] if body.startswith("/**") else body[2:]
    body = body.removesuffix("*/")
    return "\n".join(re.sub(r"^\s*\*(?: |$)", "", line) for line in body.splitlines()).strip().rstrip("*").rstrip()


def old_jsdoc(text: str, d: Definition) -> str:
    """The doc comment right above a JS definition, as text ('' when none)."""
    lines = text.splitlines()
    j = d.symbol.start - 2
    if j < 0 or not lines[j].strip().endswith("*/"):
        return ""
    block = []
    while j >= 0:
        block.insert(0, lines[j])
        if lines[j].strip().startswith("/**"):
            return comment_text("\n".join(block))
        if not lines[j].strip().startswith(("*", "*/")) and j != d.symbol.start - 2:
            return ""
        j -= 1
    return ""


def old_docstring(text: str, d: Definition) -> str:
    """The definition's docstring as it is ('' when none or the file does not parse)."""
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError, RecursionError):
        return ""
    node = next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                 and n.name == d.symbol.name and n.lineno == d.symbol.line), None)
    return (ast.get_docstring(node) or "") if node is not None else ""


def examples(doc: str) -> list[str]:
    """The doctest blocks of a docstring (a '>>>' line through the blank line that ends its output): code, which
    a rewrite of the text must keep as it is."""
    blocks, current = [], []
    for line in doc.splitlines():
        if line.lstrip().startswith(">>>") or (current and line.strip()):
            current.append(line)
        elif current:
            blocks.append("\n".join(current))
            current = []
    if current:
        blocks.append("\n".join(current))
    return blocks


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9_]+", text.lower())


def fitted(doc: str, old: str, request: str) -> tuple[str, float] | None:
    """A written docstring made whole by program, with a score: how much of what the request adds it says (the
    request's words the old docstring lacks), then how much of the old prose it keeps; None when it is the request
    echoed back or changes nothing. The old doctest examples it dropped are put back, at the end."""
    import difflib

    import inspect

    doc = inspect.cleandoc(doc.strip().strip('"').strip("'"))  # the indentation copied from the source goes
    asked = " ".join(_words(request))
    heads = {" ".join(_words(sentence)[:5]) for sentence in re.split(r"(?<=[.!?])\s+", request)
             if len(_words(sentence)) >= 5}  # how each sentence of the request begins (its instruction part)
    doc = "\n".join(ln for ln in doc.splitlines()  # a line that copies how the request begins is the request
                    if not any(head in " ".join(_words(ln)) for head in heads)).strip()
    if not doc or " ".join(doc.split()) == " ".join(old.split()):
        return None
    if difflib.SequenceMatcher(None, _words(doc), asked.split()).ratio() > 0.6:
        return None  # the request written back as the docstring
    kept = [b for b in examples(old) if " ".join(b.split()) not in " ".join(doc.split())]
    if kept:
        doc = doc.rstrip() + "\n\n" + "\n\n".join(kept)
    prose = [w for w in _words("\n".join(ln for ln in old.splitlines() if ">>>" not in ln))]
    have = set(_words(doc))
    keeps = (sum(w in have for w in prose) / len(prose)) if prose else 1.0
    wanted = {w for w in _words(request) if len(w) > 3} - set(_words(old)) - {w for h in heads for w in h.split()}
    says = (sum(w in have for w in wanted) / len(wanted)) if wanted else 1.0  # what the request adds, said
    return doc, says + keeps / 2


async def _docstring(job: Job, facts: Facts, d: Definition) -> TurnDone:
    index = await job.index()
    text = index.text(d.path) or ""
    python = d.path.endswith(".py")
    what = "docstring" if python else "doc comment"
    asked = await job.ask.json(DOC_PROMPT.format(request=facts.request.strip()[:1500], path=d.path,
                                                 fence="python" if python else "js", code=index.source_of(d, 60),
                                                 what=what, name=d.qualname), _SCHEMA, max_tokens=400,
                               n=job.samples, label=f"the {what} of {d.qualname}")
    old = old_docstring(text, d) if python else old_jsdoc(text, d)
    written = [str(v.get("text") or "") for v in asked.values if isinstance(v, dict)]
    if not python:
        written = [comment_text(w) for w in written]
    made = [f for f in (fitted(w, old, facts.request) for w in written) if f is not None]
    if not made and old:  # every rewrite was dropped: a narrower question, the sentence alone, added by program
        asked = await job.ask.json(SENTENCE_PROMPT.format(request=facts.request.strip()[:1500], name=d.qualname,
                                                          old=old), _SCHEMA, max_tokens=120, n=job.samples,
                                   label=f"a sentence for the {what} of {d.qualname}")
        sentences = [str(v.get("text") or "").strip() for v in asked.values if isinstance(v, dict)]
        sentences = sentences if python else [comment_text(x) for x in sentences]
        made = [f for f in (fitted(f"{old}\n\n{s}", old, facts.request) for s in sentences if s) if f is not None]
        written += sentences
    placed = []
    for doc, _ in sorted(made, key=lambda f: -f[1]):  # the one that says what was asked, keeping the most
        new = with_docstring(text, d, doc) if python else with_jsdoc(text, d, doc)
        if new is not None and not static_problems(d.path, text.encode(), new.encode(), job.repo):
            placed.append(new)
            break
    if not placed:
        raise NotHandled(f"no {what} was written that could be placed ({len(written)} written)")
    done = await job.propose({d.path: placed[0].encode()}, f"docs: the {what} of {d.qualname} in {d.path}")
    if not done.applied:
        return job.answer(f"The {what} was not changed ({done.reason or 'rejected'}).")
    return job.answer(f"Updated the {what} of {d.qualname} ({d.path}:{d.symbol.line}).")
