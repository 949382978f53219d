"""The check a change is held to: a few asserts the model writes from the request alone, made sound by program
before they judge anything (a call that must raise, a lazy result compared with a list, node's shallow asserts),
and, for a change, kept only when it fails on the code as it is now.
"""

from __future__ import annotations

import ast
import re

from tui.engine.pipelines.job import Job
from tui.engine.pipelines.loading import imports_for
from tui.engine.work import graded, trial
from tui.engine.work.index import Definition, RepoIndex

CHECK_PROMPT = """A developer asked for this change to their code:
<request>
{request}
</request>

{code}
Write three to six {language} assert statements, one per line, that will be true once the change is made (and that
test exactly what the request asks). {raises} {imports}
Reply as JSON: {{"code": "the import line(s), then the asserts"}}"""

RAISES = {"python": "For a call that must raise: assert raises(ValueError, lambda: f(x)) (raises is defined for you).",
          "javascript": "For a call that must throw: assert.throws(() => f(x));"}

RAISES_HELPER = """def raises(error, call, *args, **kwargs):  # devagent: whether the call raises the error
    try:
        result = call(*args, **kwargs)
        if hasattr(result, "__next__"):  # a generator raises when it runs
            list(result)
    except error:
        return True
    return False

"""

LANGUAGES = {"python": "Python", "javascript": "JavaScript (node's assert module)",
             "module": "JavaScript (node's assert module, ES module imports)",
             "typescript": "TypeScript (node's assert module, ES module imports)"}

LISTED_HELPER = """def listed(value, kind):  # devagent: a lazy result (a generator, map, zip) as the sequence it yields
    return kind(value) if hasattr(value, "__next__") else value

"""
_ERROR_NAME = re.compile(r"[A-Z]\w*(?:Error|Exception|Warning)$")


def raising(snippet: str) -> str:
    """A Python check, one statement per line; one that says a call raises the way a small model writes it
    (``assert f(x) == ValueError``, never what anyone means) becomes ``assert raises(ValueError, lambda: f(x))``;
    a call's result compared with a list or tuple literal is compared as the sequence it yields when it is lazy
    (a generator is never equal to a list; a list is compared as it is). The helpers (``raises``, which the
    prompt offers, and ``listed``) are defined above the asserts that use them. A snippet that does not parse is
    left as it is (its check fails and says why)."""
    from tui.engine.pipelines.codetext import joined_strings
    from tui.safety.parsing import parse_python

    snippet = joined_strings(snippet)
    try:
        tree = parse_python(snippet)
    except (SyntaxError, ValueError, RecursionError):
        return snippet
    lines = []
    for node in tree.body:
        test = node.test if isinstance(node, ast.Assert) else None
        compare = isinstance(test, ast.Compare) and len(test.ops) == 1
        if compare and isinstance(test.ops[0], (ast.Eq, ast.Is)) and isinstance(test.comparators[0], ast.Name) and \
                _ERROR_NAME.match(test.comparators[0].id):
            lines.append(f"assert raises({test.comparators[0].id}, lambda: {ast.unparse(test.left)})")
        elif compare and isinstance(test.ops[0], ast.Eq) and isinstance(test.left, ast.Call) and \
                isinstance(test.comparators[0], (ast.List, ast.Tuple)):
            kind = "list" if isinstance(test.comparators[0], ast.List) else "tuple"
            rest = f", {ast.unparse(node.msg)}" if node.msg is not None else ""
            lines.append(f"assert listed({ast.unparse(test.left)}, {kind}) == {ast.unparse(test.comparators[0])}{rest}")
        else:
            lines.append(ast.get_source_segment(snippet, node) or ast.unparse(node))
    snippet = "\n".join(lines)
    head = "".join(helper for name, helper in (("raises", RAISES_HELPER), ("listed", LISTED_HELPER))
                   if re.search(rf"\b{name}\(", snippet) and not any(
                       isinstance(n, ast.FunctionDef) and n.name == name for n in tree.body))
    return head + snippet


_SHALLOW = {"equal": "deepEqual", "strictEqual": "deepStrictEqual", "notEqual": "notDeepEqual",
            "notStrictEqual": "notDeepStrictEqual"}


def deep_asserts(snippet: str) -> str:
    """node's assert.equal/strictEqual compare arrays and objects by reference, so a check written with them
    (assert.equal(f(x), [1])) can never pass; their deep forms compare the same for primitives and by value
    otherwise."""
    return re.sub(r"\bassert\.(equal|strictEqual|notEqual|notStrictEqual)\s*\(",
                  lambda m: f"assert.{_SHALLOW[m.group(1)]}(", snippet)


async def check_for(job: Job, index: RepoIndex, request: str, defs: list[Definition], code: str, *,
                    must_fail: bool, language: str = "python") -> str | None:
    """A check snippet for the request (in ``language``, as trial.run_code runs it: python, javascript or module);
    with ``must_fail``, only one that fails on the code as it is now."""
    scratch = await job.scratch()
    if scratch is None or (language == "python" and not all(d.path.endswith(".py") for d in defs)):
        return None
    asked = await job.ask.json(CHECK_PROMPT.format(request=request.strip()[:1500], code=code,
                                                   imports=imports_for(index, defs), language=LANGUAGES[language],
                                                   raises=RAISES.get(language, RAISES["javascript"])),
                               {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]},
                               n=job.samples, max_tokens=300, label="a check for the request")
    for value in asked.values:
        snippet = str(value.get("code") or "").strip() if isinstance(value, dict) else ""
        if "assert" not in snippet:
            continue
        snippet = deep_asserts(snippet) if language != "python" else raising(snippet)
        if not must_fail:
            job.note(f"check for the request:\n{snippet}")
            return snippet
        ran = await trial.run_code(job, scratch, graded.graded(snippet, language), language=language)
        grades = graded.results(ran.output)
        if not ran.ok and ("AssertionError" in ran.output if not grades else graded.asserted(ran.output)):
            job.note(f"check for the request (fails on the code as it is):\n{snippet}")
            job.graded_before[snippet] = grades
            return snippet
    return None
