"""A data file: repaired by a tolerant parser when it does not parse, otherwise transformed by code.

Repair keeps every value (tui/refactor's repair, never the model). A transformation (clean, sort, merge,
convert) of one CSV/TSV or JSON file is a function the model writes from the file's head, ``change(rows)`` or
``change(data)``: the program reads the file, calls it and writes the result back in the file's own layout
(delimiter, line ends, indentation), so no candidate can lose the file by opening it for writing before reading
it. Other files, or several, get a whole script. Several candidates run in the throwaway copy; a result that
leaves nothing of a file that had content is dropped, and the result most of the rest agree on (byte for byte)
is proposed, after it parses.
"""

from __future__ import annotations

import json
import secrets
from collections import Counter
from typing import Any

from tui.engine.pipelines.facts import Facts
from tui.engine.pipelines.job import Job, NotHandled
from tui.engine.pipelines.codetext import code_of
from tui.engine.pipelines.rewrite import CODE_SCHEMA
from tui.engine.work import trial
from tui.protocol.events import TurnDone
from tui.safety.parsing import parses

PROMPT = """A developer asked:
<request>
{request}
</request>

{files}
Write a short Python script (standard library only: csv, json, ...) that makes exactly this change. It runs in the
repository's root directory: read the file(s), compute the result, and write it back{where}. Keep everything the
request does not ask to change (the header, the order of what stays, the formatting style).
Reply as JSON: {{"code": "<the script>"}}"""


FUNCTION_PROMPT = """A developer asked:
<request>
{request}
</request>

{files}
Write a Python function `change({arg})` (standard library only) that makes exactly this change. {given}
Return the new {what}; the program writes it back to {path} in the file's own layout. Keep everything the request
does not ask to change (the header, the order of what stays).
Reply as JSON: {{"code": "<the function, with any imports it needs>"}}"""

CHECKS_PROMPT = """A developer asked:
<request>
{request}
</request>

{files}
A function will compute the new content of {path} from `old`, {old}. Write Python assert statements about `new`
(the result) and `old` that are true exactly when the request is done right: properties the result must have and
what it must keep. Only asserts (and the imports they need).
Reply as JSON: {{"code": "<the asserts>"}}"""

OLD = {"rows": "the rows as csv.reader reads the file (lists of strings, the header row first)",
       "data": "the content as json.load returns it"}

GIVEN = {
    "rows": "`rows` is the file as csv.reader reads it: a list of rows, each a list of strings, the header row "
            "first; a blank line is an empty list, a line of spaces a list of one string of spaces.",
    "data": "`data` is the file's content as json.load returns it.",
}

# Reads the file, calls the model's change(), writes the result in the file's own layout, then runs each check
# written for the request on (old, new) and prints its verdict after a marker the code under test cannot know.
HARNESS = """import copy, csv, io, json
PATH, KIND, DELIM, CHECKS, MARK = {path!r}, {kind!r}, {delim!r}, {checks!r}, {mark!r}
import re, collections
space = {{"__name__": "change", "csv": csv, "json": json, "re": re, "io": io, "copy": copy,
          "collections": collections}}  # not __main__; what a model often uses without importing it
exec(compile({code!r}, "<change>", "exec"), space)
change = space["change"]

with open(PATH, encoding="utf-8", newline="") as f:
    text = f.read()
class Row(list):  # a row that can go into a set or be a dict key (deduplicating rows), compared as its values
    def __hash__(self):
        return hash(tuple(self))
value = [Row(r) for r in csv.reader(io.StringIO(text), delimiter=DELIM)] if KIND == "rows" else json.loads(text)
old = copy.deepcopy(value)
new = change(value)
new = value if new is None else new  # changed in place
if KIND == "data" and isinstance(new, str):  # the new content as JSON text, not the data
    try:
        new = json.loads(new)
    except ValueError:
        pass
if KIND == "rows":
    out = io.StringIO()
    csv.writer(out, delimiter=DELIM, lineterminator="\\r\\n" if "\\r\\n" in text else "\\n").writerows(
        [[str(c) for c in row] for row in new])
    result = out.getvalue()
else:
    line = next((ln for ln in text.splitlines()[1:] if ln.strip()), "")
    indent = line[:len(line) - len(line.lstrip())]
    result = json.dumps(new, indent=(indent if "\\t" in indent else len(indent)) if indent else None,
                        ensure_ascii=False) + ("\\n" if text.endswith("\\n") else "")
with open(PATH, "w", encoding="utf-8", newline="") as f:
    f.write(result)
for i, check in enumerate(CHECKS):
    try:
        exec(compile(check, "<check>", "exec"), {{"old": copy.deepcopy(old), "new": copy.deepcopy(new)}})
        verdict = "ok"
    except AssertionError:
        verdict = "fail"
    except Exception:
        verdict = "error"
    print(MARK, i, verdict)
"""
IDENTITY = "def change(value):\n    return value\n"


def function_kind(rel: str) -> str:
    """'rows' or 'data' when the file's change can be a function of its content, else ''."""
    low = rel.lower()
    return "rows" if low.endswith((".csv", ".tsv")) else "data" if low.endswith(".json") else ""


def harness(rel: str, code: str, checks: list[str] = (), mark: str = "") -> str:  # type: ignore[assignment]
    return HARNESS.format(path=rel, kind=function_kind(rel), delim="\t" if rel.lower().endswith(".tsv") else ",",
                          code=definitions_only(code), checks=list(checks), mark=mark or "@@check")


def definitions_only(code: str) -> str:
    """The model's ``change`` with what it needs (imports, definitions, assignments), without the script a small
    model often writes around it (opening the file, calling change, writing the result back: it fails, or writes
    the file its own way, before the program can call change). Code that does not parse is left as it is."""
    import ast

    from tui.engine.pipelines.codetext import joined_strings
    from tui.safety.parsing import parse_python

    code = joined_strings(code)
    try:
        tree = parse_python(code)
    except (SyntaxError, ValueError, RecursionError):
        return code
    def script(node: ast.AST) -> bool:  # an assignment that calls change or does the file's reading/writing
        return any(isinstance(n, ast.Call) and (
            isinstance(n.func, ast.Name) and n.func.id in ("change", "open", "input") or
            isinstance(n.func, ast.Attribute) and n.func.attr in ("reader", "writer", "DictReader", "DictWriter",
                                                                  "load", "dump", "read", "write"))
            for n in ast.walk(node))

    keep = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)
    kept = [ast.get_source_segment(code, node) or ast.unparse(node) for node in tree.body
            if isinstance(node, keep) or isinstance(node, (ast.Assign, ast.AnnAssign)) and not script(node)]
    return "\n".join(kept) + "\n" if any("def change" in k for k in kept) else code


def verdicts(output: str, mark: str) -> list[str]:
    """The checks' verdicts the harness printed after ``mark``, in order."""
    return [line.split()[-1] for line in output.splitlines() if line.startswith(mark + " ")]


def emptied(before: bytes | None, after: bytes | None) -> bool:
    """A file that had content and has none left (or, for CSV, no row): no clean-up or conversion means that."""
    had, has = (before or b"").strip(), (after or b"").strip()
    return bool(had) and not has


def _shown(text: str, limit_lines: int = 40) -> str:
    lines = text.splitlines()
    head = "\n".join(lines[:limit_lines])
    more = f"\n... ({len(lines) - limit_lines} more lines)" if len(lines) > limit_lines else ""
    return head + more


async def repair(job: Job, rel: str) -> TurnDone:
    try:
        from tui.refactor.repair import repair_file
    except ImportError:
        raise NotHandled(f"{rel} does not parse and no repair engine is installed") from None
    import asyncio

    outcome = await asyncio.to_thread(repair_file, job.repo, rel)
    changes = {c.path: c.after for c in outcome.changes}
    done = await job.propose(changes, f"repair {rel} ({outcome.engine})", warnings=[outcome.summary])
    if not done.applied:
        return job.answer(f"The repair of {rel} was not applied ({done.reason or 'rejected'}).")
    return job.answer(f"Repaired {rel} with {outcome.engine}: {outcome.summary}")


async def run(job: Job, facts: Facts) -> TurnDone:
    files = facts.data_files
    if not files:
        raise NotHandled("the request names no data file")
    broken = [f for f in files if f in facts.unparsed]  # parsed once, when the request's facts were gathered
    if broken:
        return await repair(job, broken[0])
    return await transform(job, facts, files)


async def transform(job: Job, facts: Facts, files: list[str]) -> TurnDone:
    index = await job.index()
    scratch = await job.scratch()
    if scratch is None:
        raise NotHandled("running a script in a throwaway copy was not allowed")
    shown = "\n".join(f"{f} (its first lines):\n```\n{_shown(index.text(f, 2_000_000) or '')}\n```" for f in files[:2])
    kind = function_kind(files[0]) if len(files) == 1 else ""
    request = facts.request.strip()[:1500]
    if kind:
        what = "rows" if kind == "rows" else "content"
        prompt = FUNCTION_PROMPT.format(request=request, files=shown, arg=kind, given=GIVEN[kind], what=what,
                                        path=files[0])
    else:
        prompt = PROMPT.format(request=request, files=shown, where=f" to {files[0]}" if len(files) == 1 else "")
    asked = await job.ask.json(prompt, CODE_SCHEMA, n=job.samples, max_tokens=700, label="a script for the change")
    original = {f: scratch.read(f) for f in files}
    mark = "@@" + secrets.token_hex(6)
    checks = await _checks(job, scratch, files[0], kind, request, shown, mark) if kind else []
    written = Counter(c for c in map(code_of, asked.values) if c and (not kind or "def change" in c))
    results, dropped, failed = await _tried(job, scratch, files, kind, written, checks, mark, original)
    if not results and failed:  # every script raised: once more, with the error one of them met
        code, error = failed[0]
        again = await job.ask.json(prompt + f"\n\nThis code:\n```python\n{code[:1500]}\n```\nfailed with:\n```\n"
                                   f"{error}\n```\nWrite it again so that it works on this file.", CODE_SCHEMA,
                                   n=job.samples, max_tokens=700, label="the script again, fixed")
        written = Counter(c for c in map(code_of, again.values) if c and (not kind or "def change" in c))
        results, more, _ = await _tried(job, scratch, files, kind, written, checks, mark, original)
        dropped += more
    if not results:
        why = f" ({dropped} left nothing of the file)" if dropped else ""
        raise NotHandled(f"no script made a change that parses{why}")
    return await _propose(job, results, sum(written.values()), len(checks))


async def _tried(job: Job, scratch: Any, files: list[str], kind: str, written: Counter, checks: list[str], mark: str,
                 original: dict[str, bytes | None]) -> tuple[list[tuple[str, dict[str, bytes | None], int]], int,
                                                            list[tuple[str, str]]]:
    """Each script run in the copy: (what changed, with its votes and checks passed; how many left nothing of the
    file; the scripts that raised, with the error's last lines)."""
    results: list[tuple[str, dict[str, bytes | None], int]] = []
    dropped, failed = 0, []
    for code in written:  # the same code twice is two votes
        run = harness(files[0], code, checks, mark) if kind else code
        ran = await job.step("run_python", {"code": code}, lambda run=run: trial.run_code(job, scratch, run),
                             lambda r: f"exit {r.exit_code}" + (trial.error_line(r.output) if not r.ok else ""))
        if ran.ok:
            after = {f: scratch.read(f) for f in files}
            changed = {f: a for f, a in after.items() if a != original[f]}
            if any(emptied(original[f], a) for f, a in changed.items()):
                dropped += 1
            elif changed and not any(parses(f, a) for f, a in changed.items()):
                results += [(code, changed, verdicts(ran.output, mark).count("ok"))] * written[code]
        elif ran.exit_code is not None:
            failed.append((code, "\n".join(ran.output.strip().splitlines()[-4:])))
        scratch.restore(original)  # the next script starts from the file as it is in the tree
    return results, dropped, failed


async def _checks(job: Job, scratch: Any, rel: str, kind: str, request: str, shown: str, mark: str) -> list[str]:
    """Asserts about (old, new) written for the request, kept only when they fail with the file unchanged (a check
    the untouched file passes tells no result from another)."""
    asked = await job.ask.json(CHECKS_PROMPT.format(request=request, files=shown, path=rel, old=OLD[kind]),
                               CODE_SCHEMA, n=job.samples, max_tokens=300, label="checks of the result")
    found = list(dict.fromkeys(c for c in map(code_of, asked.values) if c and "assert" in c))
    if not found:
        return []
    before = scratch.read(rel)
    ran = await trial.run_code(job, scratch, harness(rel, IDENTITY, found, mark))
    scratch.restore({rel: before})
    kept = [c for c, v in zip(found, verdicts(ran.output, mark)) if v == "fail"]
    if kept:
        job.note("checks of the result (each fails on the file as it is):\n" + "\n---\n".join(kept))
    return kept


async def _propose(job: Job, results: list[tuple[str, dict[str, bytes | None], int]], asked: int,
                   checks: int) -> TurnDone:
    """The result that passes the most checks, then the one most candidates agree on (byte for byte)."""
    top = max(score for _, _, score in results)
    best = [r for r in results if r[2] == top]

    def key(changes: dict[str, bytes | None]) -> str:
        return json.dumps({k: (v or b"").decode("utf-8", "replace") for k, v in changes.items()}, sort_keys=True)

    best_key, count = Counter(key(r) for _, r, _ in best).most_common(1)[0]
    code, changes = next((c, r) for c, r, _ in best if key(r) == best_key)
    note = f"{len(results)} of {asked} script(s) ran; {count} agree on this result"
    if checks:
        note += f"; it passes {top} of {checks} check(s) written for the request"
    done = await job.propose(changes, f"change {', '.join(changes)} ({note})", warnings=[note, "script:\n" + code])
    if not done.applied:
        return job.answer(f"The change to {', '.join(changes)} was not applied ({done.reason or 'rejected'}).")
    return job.answer(f"Changed {', '.join(changes)} by running a script ({note}):\n```python\n{code}\n```")
