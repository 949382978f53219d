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

import csv
import io
import json
from collections import Counter

from tui.engine.pipelines.facts import Facts
from tui.engine.pipelines.job import Job, NotHandled
from tui.engine.pipelines.rewrite import CODE_SCHEMA, code_of
from tui.engine.work import trial
from tui.engine.work.index import DATA_SUFFIXES
from tui.protocol.events import TurnDone
from tui.safety.parsing import loads_json, loads_toml

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

GIVEN = {
    "rows": "`rows` is the file as csv.reader reads it: a list of rows, each a list of strings, the header row "
            "first; a blank line is an empty list, a line of spaces a list of one string of spaces.",
    "data": "`data` is the file's content as json.load returns it.",
}

# Reads the file, calls the model's change(), writes the result in the file's own layout.
HARNESS = """import csv, io, json
PATH, KIND, DELIM = {path!r}, {kind!r}, {delim!r}
space = {{"__name__": "change"}}  # not __main__: a main block of the model's own does not run
exec(compile({code!r}, "<change>", "exec"), space)
change = space["change"]

with open(PATH, encoding="utf-8", newline="") as f:
    text = f.read()
if KIND == "rows":
    value = list(csv.reader(io.StringIO(text), delimiter=DELIM))
    new = change(value)
    new = value if new is None else new
    out = io.StringIO()
    csv.writer(out, delimiter=DELIM, lineterminator="\\r\\n" if "\\r\\n" in text else "\\n").writerows(
        [[str(c) for c in row] for row in new])
    result = out.getvalue()
else:
    value = json.loads(text)
    new = change(value)
    new = value if new is None else new
    line = next((ln for ln in text.splitlines()[1:] if ln.strip()), "")
    indent = line[:len(line) - len(line.lstrip())]
    result = json.dumps(new, indent=(indent if "\\t" in indent else len(indent)) if indent else None,
                        ensure_ascii=False) + ("\\n" if text.endswith("\\n") else "")
with open(PATH, "w", encoding="utf-8", newline="") as f:
    f.write(result)
"""


def function_kind(rel: str) -> str:
    """'rows' or 'data' when the file's change can be a function of its content, else ''."""
    low = rel.lower()
    return "rows" if low.endswith((".csv", ".tsv")) else "data" if low.endswith(".json") else ""


def harness(rel: str, code: str) -> str:
    return HARNESS.format(path=rel, kind=function_kind(rel), delim="\t" if rel.lower().endswith(".tsv") else ",",
                          code=code)


def emptied(before: bytes | None, after: bytes | None) -> bool:
    """A file that had content and has none left (or, for CSV, no row): no clean-up or conversion means that."""
    had, has = (before or b"").strip(), (after or b"").strip()
    return bool(had) and not has


def parses(rel: str, data: bytes | None) -> str:
    """'' when ``data`` parses as ``rel``'s format, else why not."""
    if data is None:
        return "the file is gone"
    text = data.decode("utf-8", "replace")
    try:
        if rel.endswith((".json",)):
            loads_json(text, rel)
        elif rel.endswith((".csv", ".tsv")):
            list(csv.reader(io.StringIO(text), delimiter="\t" if rel.endswith(".tsv") else ","))
        elif rel.endswith(".toml"):
            loads_toml(text, rel)
    except (ValueError, RecursionError, csv.Error) as err:
        return str(err)[:200]
    return ""


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
    index = await job.index()
    files = facts.data_files or [f for f in facts.files if f.lower().endswith(DATA_SUFFIXES)]
    if not files:
        raise NotHandled("the request names no data file")
    broken = [f for f in files if parses(f, (index.text(f, 20_000_000) or "").encode())]
    if broken:
        return await repair(job, broken[0])
    scratch = await job.scratch()
    if scratch is None:
        raise NotHandled("running a script in a throwaway copy was not allowed")
    shown = "\n".join(f"{f} (its first lines):\n```\n{_shown(index.text(f, 2_000_000) or '')}\n```" for f in files[:2])
    kind = function_kind(files[0]) if len(files) == 1 else ""
    if kind:
        prompt = FUNCTION_PROMPT.format(request=facts.request.strip()[:1500], files=shown, arg=kind,
                                        given=GIVEN[kind], what="rows" if kind == "rows" else "content", path=files[0])
    else:
        prompt = PROMPT.format(request=facts.request.strip()[:1500], files=shown,
                               where=f" to {files[0]}" if len(files) == 1 else "")
    asked = await job.ask.json(prompt, CODE_SCHEMA, n=job.samples, max_tokens=700, label="a script for the change")
    results: list[tuple[str, dict[str, bytes | None]]] = []
    original = {f: scratch.read(f) for f in files}
    written = Counter(c for c in map(code_of, asked.values) if c and (not kind or "def change" in c))
    dropped = 0
    for code in written:  # the same code twice is two votes
        run = harness(files[0], code) if kind else code
        ran = await job.step("run_python", {"code": code}, lambda run=run: trial.run_code(job, scratch, run),
                             lambda r: f"exit {r.exit_code}")
        if ran.ok:
            after = {f: scratch.read(f) for f in files}
            changed = {f: a for f, a in after.items() if a != original[f]}
            if any(emptied(original[f], a) for f, a in changed.items()):
                dropped += 1
            elif changed and not any(parses(f, a) for f, a in changed.items()):
                results += [(code, changed)] * written[code]
        scratch.restore(original)  # the next script starts from the file as it is in the tree
    if not results:
        why = f" ({dropped} left nothing of the file)" if dropped else ""
        raise NotHandled(f"no script made a change that parses{why}")
    votes = Counter(json.dumps({k: (v or b"").decode("utf-8", "replace") for k, v in r.items()}, sort_keys=True)
                    for _, r in results)
    best_key, count = votes.most_common(1)[0]
    code, changes = next((c, r) for c, r in results if json.dumps(
        {k: (v or b"").decode("utf-8", "replace") for k, v in r.items()}, sort_keys=True) == best_key)
    note = f"{len(results)} of {sum(written.values())} script(s) ran; {count} agree on this result"
    done = await job.propose(changes, f"change {', '.join(changes)} ({note})", warnings=[note, "script:\n" + code])
    if not done.applied:
        return job.answer(f"The change to {', '.join(changes)} was not applied ({done.reason or 'rejected'}).")
    return job.answer(f"Changed {', '.join(changes)} by running a script ({note}):\n```python\n{code}\n```")
