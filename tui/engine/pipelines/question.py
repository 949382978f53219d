"""Questions about the code: answered by running it (``ask_run``) or from the code that matters (``ask_read``).

``ask_run``: the model writes a few lines that print the answer (several candidates); each runs in the
sandboxed throwaway copy; the output most candidates agree on is the answer's evidence, and the sentence the
model writes about it must agree with it (its numbers and quoted values appear in the output), else the output
itself is the answer. ``ask_read``: the definitions the question names (or that a search finds) go to the model
with the question; the answer names where it looked.
"""

from __future__ import annotations

import ast
import json
import re
import textwrap
from collections import Counter
from typing import Any

from tui.engine.pipelines import evidence
from tui.engine.pipelines.codetext import joined_strings
from tui.engine.pipelines.counting import counted
from tui.engine.pipelines.facts import Facts
from tui.engine.pipelines.job import Job, NotHandled
from tui.engine.pipelines.loading import JS_PRELUDE, snippet_imports
from tui.engine.work import trial
from tui.engine.work.index import RepoIndex
from tui.protocol.events import TurnDone
from tui.safety.parsing import parse_python

PRELUDE = '''import os as _os, re as _re, ast as _ast, glob as _glob, json
def files(pattern="**/*"):
    return sorted(p for p in _glob.glob(pattern, recursive=True) if _os.path.isfile(p) and "/node_modules/" not in "/" + p)
def read(path):
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read()
def defs(path):
    """[{kind, name, line, parent}] for the functions, classes and methods of a Python or JavaScript file."""
    text = read(path)
    out = []
    if path.endswith(".py"):
        def visit(body, parent):
            for node in body:
                if isinstance(node, (_ast.FunctionDef, _ast.AsyncFunctionDef)):
                    out.append({"kind": "method" if parent else "function", "name": node.name, "line": node.lineno, "parent": parent})
                elif isinstance(node, _ast.ClassDef):
                    out.append({"kind": "class", "name": node.name, "line": node.lineno, "parent": parent})
                    visit(node.body, node.name)
        visit(_ast.parse(text).body, "")
    else:
        for m in _re.finditer(r"^\\s*(?:export\\s+)?(?:default\\s+)?(?:async\\s+)?(function\\*?|class)\\s+([\\w$]+)", text, _re.M):
            out.append({"kind": "class" if m.group(1) == "class" else "function", "name": m.group(2), "line": text.count("\\n", 0, m.start()) + 1, "parent": ""})
    return out
'''
HELPERS = ("Already defined for you: files(pattern) -> sorted file paths (glob, e.g. 'src/**/*.py'); read(path) -> "
           "text; defs(path) -> list of dicts {kind, name, line, parent} for a .py or .js file's functions, classes "
           "and methods.")

RUN_PROMPT = """Question from a developer about their repository:
<question>
{question}
</question>

{code}
Write short {language} code that PRINTS the answer to the question by running the project's code (or by reading its
files for a count). It runs in the repository's root directory. {imports}
{helpers}
Print only what answers the question; print values with repr() so their exact form shows.
Reply as JSON: {{"code": "<the code>"}}"""

SAY_PROMPT = """Question: {question}

This code was run:
```
{code}
```
It printed:
```
{output}
```
Answer the question in one or two sentences, using exactly the values it printed.
Reply as JSON: {{"answer": "..."}}"""

HOW_PROMPT = """A developer asks about their code:
<question>
{question}
</question>
{found}
How is this answered best?
- "run": by calling the project's code with the inputs the question gives (what it returns or raises).
- "count": by counting things in its files (how many functions, tests, keys, entries, lines, files ...).
- "read": by reading the code and explaining it: where something is defined or handled, how or why it works.
Reply as JSON: {{"how": "run", "count" or "read"}}"""

READ_PROMPT = """Question from a developer about their repository:
<question>
{question}
</question>

The code that matters:
{code}

Answer the question from this code in at most four sentences. Name the file and line you are answering from.
If the code shown does not answer it, say what you would need to look at.
Reply as JSON: {{"answer": "..."}}"""


def _norm(output: str) -> str:
    return "\n".join(line.rstrip() for line in output.strip().splitlines())


def raised_in_repo(output: str) -> bool:
    """The run ended in an exception raised by the repository's code (a fact about the code), not by the snippet."""
    frames = re.findall(r'File "([^"]+)", line \d+', output)
    return bool(frames) and frames[-1] not in ("<string>", "<stdin>")


VALUE_WORDS = r"\b(?:None|True|False|null|undefined|NaN|Infinity|[A-Z]\w*(?:Error|Exception))\b"


def agrees(answer: str, output: str) -> bool:
    """Every number, quoted value, constant (None, True, null, …) and exception name in the answer appears in the
    output (what ran is what is said)."""
    said = set(re.findall(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])", answer))
    quoted = set(re.findall(r"'([^'\n]{1,80})'|\"([^\"\n]{1,80})\"", answer))
    flat = {q for pair in quoted for q in pair if q}
    words = set(re.findall(VALUE_WORDS, answer))
    return all(n in output for n in said) and all(q in output for q in flat) and \
        all(re.search(rf"\b{re.escape(w)}\b", output) for w in words)


def raised_exception(output: str) -> str:
    """The exception the project's code raised at the end of ``output`` ("ValueError: message"), or ''."""
    if not raised_in_repo(output):
        return ""
    lines = output.strip().splitlines()
    frames = [i for i, line in enumerate(lines) if line.lstrip().startswith('File "')]
    for i in range(frames[-1] + 1 if frames else 0, len(lines)):
        if re.match(r"[A-Za-z_][\w.]*(?::\s|:?$)", lines[i]):  # unindented: the exception line, then its message
            return " ".join(line.strip() for line in lines[i:] if line.strip())[:400]
    return ""


def answered(ran: trial.Ran) -> bool:
    """A run that says something about the code: it printed an answer, or the project's code raised."""
    return (ran.ok and bool(_norm(ran.output))) or raised_in_repo(ran.output)


def with_imports(code: str, imports: list[str], language: str) -> str:
    """A Python snippet with the import lines of the code it is about put first by program (a snippet that forgot
    them fails with NameError, which says nothing about the code)."""
    if language != "python":  # the module loaded as mod, and the names it is about taken from it, when the snippet
        # uses them without loading them itself (a call of the named function alone fails with ReferenceError)
        def free(name: str) -> bool:
            return bool(re.search(rf"(?<![\w$.]){re.escape(name)}\b", code)) and not re.search(
                rf"\b(?:const|let|var|function|class)\s+(?:\{{[^}}]*)?{re.escape(name)}\b|import\s[^;\n]*\b{re.escape(name)}\b",
                code)

        taken = [line for line in imports if (m := re.match(r"const ([\w$]+) = mod\.", line)) and free(m.group(1))]
        load = next((line.split("  //", 1)[0] for line in imports if line.startswith("const mod")), "")
        head = ([load] if load and (taken or free("mod")) and not re.search(r"\b(?:const|let|var)\s+mod\b", code)
                else []) + taken
        return "\n".join(head + [code]) if head else code
    missing = [line for line in imports if line not in code]
    return "\n".join(missing + [code]) if missing else code


_LEFT_OUT = re.compile(r"\b(?:no|without(?:\s+an?|\s+any)?)\s+`?(\w+)`?|`?(\w+)`?\s+(?:is|are)\s+(?:not\s+(?:given|passed|"
                       r"provided|set)|omitted|left out)\b", re.I)


def left_out(index: RepoIndex, facts: Facts) -> dict[str, tuple[str, int]]:
    """Parameters the question says are not passed ("when no default is given", "without key"): the named
    function -> (the parameter, its position), read from the definition's signature."""
    words = {m.group(1) or m.group(2) for m in _LEFT_OUT.finditer(facts.request)}
    out: dict[str, tuple[str, int]] = {}
    for named in facts.symbols:
        d = named.definitions[0]
        if not d.path.endswith(".py") or d.symbol.kind not in ("function", "method"):
            continue
        try:
            node = parse_python(textwrap.dedent(index.source_of(d, 200))).body[0]
        except (SyntaxError, ValueError, IndexError, RecursionError):
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = [a.arg for a in node.args.posonlyargs + node.args.args if a.arg not in ("self", "cls")]
            for word in words:
                if word in params or word in [a.arg for a in node.args.kwonlyargs]:
                    out[d.symbol.name] = (word, params.index(word) if word in params else 10**6)
    return out


def honours(code: str, omitted: dict[str, tuple[str, int]]) -> bool:
    """The snippet calls each function the question is about without the parameters the question leaves out."""
    if not omitted:
        return True
    try:
        tree = parse_python(code)  # the model's code: bounded
    except (SyntaxError, ValueError, RecursionError):
        return True  # not Python: nothing to check here
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        name = getattr(call.func, "id", None) or getattr(call.func, "attr", None)
        if name in omitted:
            param, position = omitted[name]
            if any(k.arg == param for k in call.keywords) or len(call.args) > position:
                return False
    return True


def _code_of(value: Any) -> str:
    code = value.get("code") if isinstance(value, dict) else None
    return code.strip() if isinstance(code, str) else ""


BEHAVIOUR = re.compile(r"\b(?:returns?|returned|raises?|raised|throws?|outputs?|prints?|produces?|gives?|yields?|"
                       r"evaluates?|results?)\b", re.I)


def asks_behaviour(facts: Facts) -> bool:
    """A question about what named code returns, raises or prints: it is answered by running it (a small model
    misreads code it is shown, e.g. a sentinel default taken for None)."""
    if not BEHAVIOUR.search(facts.request):
        return False
    for n in facts.symbols:
        if not n.definitions or n.definitions[0].symbol.kind not in ("function", "method", "class"):
            continue
        short = re.escape(n.text.rsplit(".", 1)[-1].strip("`()"))
        # a plain word that is also a name counts only as the subject of the verb: "does natural(1) return"
        if n.strong or re.search(rf"\b{short}\b(?:\([^)]*\))?\s+{BEHAVIOUR.pattern}", facts.request, re.I):
            return True
    return False


# "Which function turns a dict into XML, and in which file?", "Where is the timeout handled?": a place in the code,
# read from the code (running something answers another question)
WHERE = re.compile(r"\b(?:which|what)\s+(?:\w+\s+)?(?:function|method|class|file|module|line)s?\b|"
                   r"\bin\s+(?:which|what)\s+file\b|^\s*where\b", re.I)


async def run(job: Job, facts: Facts) -> TurnDone:
    """Run or read, as one narrow choice decides (a question about named code's behaviour is run without asking);
    a run that finds nothing to run falls back to reading; a count of a named literal's entries is counted."""
    done = await counted(job, facts)
    if done is not None:
        return done
    if asks_behaviour(facts):
        job.note("question answered by: run (it asks what named code does)")
        try:
            return await ask_run(job, facts)
        except NotHandled as err:
            job.note(f"running found no answer ({err.why}); reading the code instead")
            return await ask_read(job, facts)
    if WHERE.search(facts.request):
        job.note("question answered by: read (it asks where or which code)")
        if not facts.symbols:  # it names no code: the definitions that share its words, one chosen from a list
            from tui.engine.pipelines.which import which

            try:
                return await which(job, facts)
            except NotHandled as err:
                job.note(f"no definition chosen ({err.why}); reading what a search finds")
        return await ask_read(job, facts)
    found = facts.summary()
    asked = await job.ask.json(HOW_PROMPT.format(question=facts.request.strip()[:1500],
                                                 found=f"It names: {found}\n" if found else ""),
                               {"type": "object", "properties": {"how": {"type": "string",
                                                                         "enum": ["run", "count", "read"]}},
                                "required": ["how"]}, max_tokens=12, label="how to answer it")
    how = (asked.first or {}).get("how") if isinstance(asked.first, dict) else "read"
    job.note(f"question answered by: {how}")
    if how in ("run", "count"):
        try:
            return await ask_run(job, facts, count=how == "count", output_only=False)
        except NotHandled as err:
            job.note(f"running found no answer ({err.why}); reading the code instead")
    return await ask_read(job, facts)


async def ask_run(job: Job, facts: Facts, *, count: bool = False, output_only: bool = True) -> TurnDone:
    """``count``: the files are counted in Python with the helpers, whatever the project's language.
    ``output_only``: when no sentence agrees with the output, the output is the answer ("It prints: …", right for
    what named code returns); otherwise (a question the run was only chosen for) that run did not answer it."""
    index = await job.index()
    ev = evidence.gather_code(index, facts)
    if not ev.parts and not facts.files and not facts.dirs:
        ev, _ = await evidence.searched(job.ask, index, facts.request)
    language, imports = ("python", "") if count else snippet_imports(index, ev)
    import_lines = [line for line in imports.splitlines()[1:] if line.startswith(("from ", "import ", "const "))]
    scratch = await job.scratch()
    if scratch is None:
        raise NotHandled("running code for the answer was not allowed", hint=ev.text())
    code_block = f"The code that matters:\n{ev.text()}\n" if ev.parts else ""
    if facts.dirs or facts.files:
        code_block += "Paths it names: " + ", ".join(facts.dirs + facts.files) + "\n"
    prompt = RUN_PROMPT.format(question=facts.request.strip()[:1500], code=code_block,
                               language={"module": "JavaScript (an ES module: top-level await works)",
                                         "javascript": "JavaScript (node)",
                                         "typescript": "TypeScript (run by node, types not checked)"}.get(
                                   language, "Python"),
                               imports=imports, helpers=HELPERS if language == "python" else "")
    schema = {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}
    asked = await job.ask.json(prompt, schema, n=job.samples, max_tokens=400, label="code that answers it")
    codes = list(dict.fromkeys(with_imports(joined_strings(c) if language == "python" else c, import_lines, language)
                               for c in map(_code_of, asked.values) if c))
    omitted = left_out(index, facts) if language == "python" else {}
    kept = [c for c in codes if honours(c, omitted)]  # a snippet that passes what the question leaves out: dropped
    runs = await _run_all(job, scratch, kept, language)
    good = [(c, r) for c, r in runs if answered(r)]
    if not good and codes:
        code, ran = runs[0] if runs else (codes[0], None)
        what = ("passes " + ", ".join(f"{p} to {f}" for f, (p, _) in omitted.items()) + ", which the question says "
                "is not given" if ran is None else
                f"failed with:\n```\n{ran.output.strip()[-800:]}\n```" if not ran.ok else "ran but printed nothing.")
        repair = (prompt + f"\n\nThis code:\n```\n{code}\n```\n{what}\n"
                  "Write it again so that it runs and prints the answer.")
        again = await job.ask.json(repair, schema, max_tokens=400, label="the code again, fixed")
        codes = [c for c in (with_imports(c, import_lines, language) for c in map(_code_of, again.values))
                 if c and c not in codes and honours(c, omitted)]
        runs2 = await _run_all(job, scratch, codes, language)
        good = [(c, r) for c, r in runs2 if answered(r)]
    if not good:
        raise NotHandled("no code that answers it ran", hint=ev.text())
    votes = Counter(_norm(r.output) for _, r in good)
    best_output, count = votes.most_common(1)[0]
    code = next(c for c, r in good if _norm(r.output) == best_output)
    job.tried.append(f"{len(codes)} snippet(s) run, {count} of {len(good)} that ran agree")
    return await _said(job, facts, code, best_output, language, output_only)


async def _said(job: Job, facts: Facts, code: str, best_output: str, language: str, output_only: bool) -> TurnDone:
    """The answer: the model's sentence when it agrees with what ran (what was raised said by program), beside
    the code and its output."""
    shown_output = best_output[-1500:] or "(nothing)"
    said = await job.ask.json(SAY_PROMPT.format(question=facts.request.strip()[:800], code=code[:1500],
                                                output=shown_output),
                              {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]},
                              max_tokens=160, label="the answer")
    sentence = str((said.first or {}).get("answer") or "").strip() if isinstance(said.first, dict) else ""
    raised = raised_exception(best_output)
    if raised and raised.split(":", 1)[0] not in sentence:  # the program says what was raised, word for word
        sentence = f"It raises {raised}"
    if not sentence or not agrees(sentence, best_output):
        if sentence:
            job.note(f"the model's sentence disagreed with the output and was not used: {sentence}")
        if not output_only:
            raise NotHandled("no sentence that agrees with what ran answers it")
        sentence = "It prints:"
    fence = "python" if language == "python" else "js"  # node, CommonJS or an ES module
    return job.answer(f"{sentence}\n\n```{fence}\n{code}\n```\n```\n{shown_output}\n```")


async def _run_all(job: Job, scratch: Any, codes: list[str], language: str) -> list[tuple[str, trial.Ran]]:
    out = []
    for i, code in enumerate(codes, 1):
        body = PRELUDE + code if language == "python" else (JS_PRELUDE[language == "module"] + code)
        ran = await job.step("run_python" if language == "python" else "run_node", {"code": code},
                             lambda body=body: trial.run_code(job, scratch, body, language=language),
                             lambda r: f"exit {r.exit_code}: {_norm(r.output)[:80]}" if r.exit_code is not None
                             else f"not run: {r.killed}")
        out.append((code, ran))
    return out


async def ask_read(job: Job, facts: Facts) -> TurnDone:
    index = await job.index()
    ev = evidence.gather_code(index, facts)
    if not ev.parts:
        found, terms = await evidence.searched(job.ask, index, facts.request, budget=evidence.BUDGET - ev.used)
        for part, d in zip(found.parts, found.definitions):
            ev.add(part)
            ev.definitions.append(d)
        if terms:
            job.note("searched for " + ", ".join(json.dumps(t) for t in terms))
    if not ev.parts:
        raise NotHandled("nothing in the repository matched the question")
    await _shown(job, ev, facts)
    asked = await job.ask.json(READ_PROMPT.format(question=facts.request.strip()[:1500], code=ev.text()),
                               {"type": "object", "properties": {"answer": {"type": "string"}},
                                "required": ["answer"]}, max_tokens=300, label="the answer")
    value = asked.first
    text = str(value.get("answer") or "").strip() if isinstance(value, dict) else ""
    if not text:
        raise NotHandled("the model gave no answer", hint=ev.text())
    where = ", ".join(d.where() for d in ev.definitions[:4])
    if where and not any(d.path in text for d in ev.definitions):
        text += f"\n\n(From {where}.)"
    return job.answer(text)


async def _shown(job: Job, ev: evidence.Evidence, facts: Facts) -> None:
    """What the answer is read from, as tool lines: the developer sees which code the model was shown."""
    async def nothing() -> None:
        return None

    for d in ev.definitions[:4]:
        lines = f"{d.symbol.start}-{d.symbol.end}" if d.symbol.end > d.symbol.start else str(d.symbol.start)
        await job.step("read_file", {"path": d.path, "lines": lines}, nothing,
                       lambda _, lines=lines: f"line{'s' if '-' in lines else ''} {lines}")
    for rel in facts.code_files[:2]:
        if not any(d.path == rel for d in ev.definitions):
            await job.step("outline", {"path": rel}, nothing, lambda _: "outline")
