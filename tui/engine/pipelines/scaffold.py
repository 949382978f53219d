"""Scaffolding: the kind and the name come from one constrained question; the files' places and form from
tui/scaffold, which writes them the way the project writes its others.

A Python or JavaScript module is filled with what the request asks of it: the scaffold names the module and its
test file, the model writes the module (several candidates), the program writes the test from a check written for
the request (asserts; for JS in the project's test framework, node:test when it has none of jest or vitest), and
each candidate is tried in the throwaway copy (it parses, lints, imports, the check passes, the suite still does);
the best is proposed. A TypeScript module's check runs through the project's compiler (tui/engine/work/tsrun.py);
its test, in jest or vitest, is what checks its types when the suite runs. When no candidate passes, or for any
other kind, the
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

The new module is {source}, imported as {module}.
Write the whole new module: what the request asks it to contain, each definition with a {doc}. No tests.{exports}
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
    from tui.tools.scaffold import split_name

    value = named(facts)
    if value is None:
        schema = {"type": "object", "properties": {"kind": {"type": "string", "enum": list(KINDS)},
                                                   "name": {"type": "string"}, "dir": {"type": "string"}},
                  "required": ["kind", "name", "dir"]}
        asked = await job.ask.json(PROMPT.format(request=facts.request.strip()[:1500], kinds=", ".join(KINDS)),
                                   schema, max_tokens=60, label="what to scaffold")
        value = asked.first if isinstance(asked.first, dict) else {}
    name = str(value.get("name") or "").strip()
    if not name or value.get("kind") not in KINDS:
        raise NotHandled("no kind and name for the scaffold")
    directory = str(value.get("dir") or "").strip() or None
    file = value.get("file") or None
    if file is None and value["kind"] == "module":  # a name the model wrote as a path (src/path-utils.ts)
        name, directory, file = split_name(name, directory)
    args: dict[str, Any] = {"kind": value["kind"], "name": file or name}
    if directory and not file:
        args["options"] = {"dir": directory}
    if value["kind"] == "module":
        done = await _filled_module(job, facts, name, directory, file)
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


def named(facts: Facts) -> dict[str, str] | None:
    """The kind, name and directory from the one new code file the request names by path (lib/range.js: a module
    range in lib, written to that file; src/path-utils.ts: the module pathUtils in that file; ui/Card.tsx: a
    component), when that name is one the scaffold accepts; else None (ask)."""
    from tui.protocol.errors import ToolError
    from tui.scaffold import validate

    from tui.tools.scaffold import file_name

    if len(facts.new_files) != 1:
        return None
    path = facts.new_files[0]
    folder, _, file = path.rpartition("/")
    kind = "component" if file.endswith((".tsx", ".jsx")) else "module"
    stem = file.rsplit(".", 1)[0]
    name = file_name(stem) if kind == "module" and not file.endswith(".py") else stem
    try:
        validate(kind, name)
    except ToolError:
        return None
    return {"kind": kind, "name": name, "dir": folder, **({"file": path} if kind == "module" else {})}


def module_test(module: str, name: str, check: str | None, code: str) -> str:
    """The new module's test, by program: the check written for the request as a test function, else a test that
    the module defines what the candidate says it does."""
    if check:
        from tui.engine.pipelines.checks import LISTED_HELPER, RAISES_HELPER

        helpers, body = "", check
        for helper in (RAISES_HELPER, LISTED_HELPER):  # at the top of the test module, not inside the test
            if body.startswith(helper):
                helpers, body = helpers + helper + "\n", body[len(helper):]
        return f"{helpers}def test_{name}() -> None:\n{textwrap.indent(body.strip(), '    ')}\n"
    from tui.safety.parsing import parse_python

    try:  # the model's code: parsed with the depth limit
        names = [n.name for n in parse_python(code).body
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not n.name.startswith("_")]
    except (SyntaxError, ValueError, RecursionError):
        names = []
    body = "".join(f"    assert callable(module.{n})\n" for n in names) or "    pass\n"
    return f"import {module} as module\n\n\ndef test_{name}_defines_what_it_offers() -> None:\n{body}"


def _language(plan: Any, source: str, test: str) -> str | None:
    """How the new module's check runs (trial.run_code's language); None: not filled (TypeScript and the rest)."""
    if source.endswith(".py") and test.endswith(".py"):
        return "python"
    if source.endswith((".js", ".cjs", ".mjs")) and test.endswith((".js", ".cjs", ".mjs")):
        return "javascript" if "module.exports" in plan.files.get(source, "") else "module"
    if source.endswith(".ts") and test.endswith(".ts"):
        return "typescript"
    return None


def _js_parts(snippet: str) -> tuple[list[str], list[str]]:
    """A JS check's top-level import/require lines and the rest (which goes inside a test function)."""
    head, body = [], []
    for line in snippet.strip().splitlines():
        (head if IMPORT_LINE.match(line) else body).append(line)
    return head, body


IMPORT_LINE = re.compile(r"\s*(?:import\s[^(]|(?:const|let|var)\s+[\w${}\s,:]+=\s*require\s*\()")


_TOP_JS = re.compile(r"^(?:async\s+)?(?:function\*?\s+([A-Za-z_$][\w$]*)|class\s+([A-Za-z_$][\w$]*)|"
                     r"(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=)", re.M)


def with_js_exports(code: str, esm: bool) -> str:
    """A JS module that exports nothing (a small model often forgets) exports its top-level definitions, by
    program: ``module.exports = { ... };`` or ``export { ... };``. Code that exports anything is left as it is."""
    if re.search(r"^\s*export\s|\bmodule\.exports\b|^\s*exports\.", code, re.M):
        return code
    names = [next(g for g in m.groups() if g) for m in _TOP_JS.finditer(code)]
    names = [n for n in dict.fromkeys(names) if not n.startswith("_")]
    if not names:
        return code
    tail = f"export {{ {', '.join(names)} }};" if esm else f"module.exports = {{ {', '.join(names)} }};"
    return code.rstrip() + "\n\n" + tail + "\n"


def js_module_test(source: str, test: str, name: str, check: str | None, esm: bool, framework: str) -> str:
    """The new JS or TS module's test in the project's test framework, by program: the check written for the
    request (its imports at the top, the module's path as seen from the test file), else a test that it loads.
    A TypeScript test imports the module without its extension and loads node's assert in a form every compiler
    setting accepts (a default import needs esModuleInterop; ts-jest checks types)."""
    from tui.scaffold.render import _rel_import

    ts = source.endswith(".ts")
    here = _rel_import(test, source) + ("" if ts else "." + source.rsplit(".", 1)[1])
    spec = re.compile(r"""(['"])(?:\./)?%s(?:\.[cm]?[jt]s)?\1""" % re.escape(source.rsplit(".", 1)[0]))
    head, body = _js_parts(check or "")
    head = [spec.sub(lambda m: m.group(1) + here + m.group(1), line) for line in head]
    if not check:
        head = [f"import * as mod from '{here}';" if esm else f"const mod = require('{here}');"]
        body = ["assert.ok(Object.keys(mod).length > 0);"]
    if ts:
        head = [line for line in head if not re.search(r"""['"](?:node:)?assert(?:/strict)?['"]""", line)]
        head.insert(0, "import assert from 'node:assert';" if framework == "vitest" else
                    "// eslint-disable-next-line @typescript-eslint/no-var-requires\n"
                    "const assert: any = require('assert');")
    elif not any("assert" in line for line in head):
        head.insert(0, "import assert from 'node:assert';" if esm else "const assert = require('node:assert');")
    if framework == "vitest":
        head.insert(0, "import { test } from 'vitest';")
    elif framework != "jest":
        head.insert(0, "import test from 'node:test';" if esm else "const test = require('node:test');")
    inner = textwrap.indent("\n".join(body).strip() or "assert.ok(true);", "  ")
    return "\n".join(head) + f"\n\ntest('{name}', () => {{\n{inner}\n}});\n"


async def _filled_module(job: Job, facts: Facts, name: str, directory: Any, file: str | None = None) -> TurnDone | None:
    """A new Python or JavaScript module with the request's content (in ``file`` when the developer named it),
    checked; None when it cannot be made that way."""
    from tui.engine.pipelines.checks import check_for
    from tui.engine.pipelines.codetext import joined_strings, whole_python
    from tui.engine.pipelines.rewrite import Goal, propose_best
    from tui.protocol.errors import ToolError
    from tui.scaffold import build_scaffold, detect_project

    try:
        plan = await asyncio.to_thread(build_scaffold, job.repo, "module", name, directory or None, file)
    except ToolError as err:
        job.note(f"scaffold: {err}")
        return None
    test = plan.test_file
    source = next((rel for rel in plan.files if rel != test), "")
    language = _language(plan, source, test)
    found = re.match(r"from (\S+) import", plan.files.get(test, ""))
    if language is None or (language == "python" and not found):
        return None
    esm = language in ("module", "typescript")
    module = found.group(1) if found else "./" + (source.rsplit(".", 1)[0] if language == "typescript" else source)
    how = (f"like this: from {module} import ..." if language == "python" else
           f"like this: import {{ ... }} from '{module}';" if esm else f"like this: const {{ ... }} = require('{module}');")
    check = await check_for(job, await job.index(), facts.request, [],
                            f"The new module: {source}. Import what you test from it {how}\n", must_fail=False,
                            language=language)
    exports = "" if language == "python" else " Export each public name with export." if esm else \
        " Export the public names at the end: module.exports = { ... };"
    loads = (f"import * as mod from '{module}';" if esm else f"require('{module}');") if language != "python" else None
    if language == "typescript":
        loads = f"import * as mod from '{module}';\nassert.ok(Object.keys(mod).length > 0);"
    goal = Goal(MODULE_PROMPT.format(request=facts.request.strip()[:1500], source=source, module=module,
                                     doc="docstring" if language == "python" else "JSDoc comment", exports=exports),
                label=f"the module {module}", target=test if language == "python" else None, check=check or loads,
                language=language, before_label="before the new module", max_tokens=1200)
    framework = (await asyncio.to_thread(detect_project, job.repo)).conventions.test_framework

    def place(code: str) -> dict[str, bytes | None] | None:
        if not code.strip():
            return None
        code = whole_python(joined_strings(code)) if language == "python" else with_js_exports(code, esm)
        made = module_test(module, name, check, code) if language == "python" else \
            js_module_test(source, test, name, check, esm, framework)
        return {source: (code.rstrip() + "\n").encode(), test: made.encode()}

    try:
        applied, note = await propose_best(job, goal, place, {source: None, test: None},
                                           f"scaffold module {module} with its test")
    except NotHandled as err:
        if "rejected:" in err.why:  # the developer said no: not the template behind their back
            return job.answer(f"{source} was not created ({err.why.rsplit('rejected:', 1)[1].strip()}).")
        job.note(f"the filled module: {err.why}; the template instead")
        return None
    return job.answer(f"Created {source} and {test}; checked: {note}.")
