"""The kind of a request: from its structure when that decides it, otherwise from one constrained choice.

A pasted traceback is a fix; a named data file that does not parse is a data repair; a question asking who or when
in the past tense, or about a commit, is history; one that names a docstring of named code (and no test) is
docs; a request that names a code file to create (a path that does not exist) and no existing code is a
scaffold (one that also names existing code may move it there: the model chooses); a request that only asks (every sentence a question) is chosen among the kinds
that change nothing. Everything else is one grammar-constrained question to the model: the kinds
with a line each, the request, and what the program found in it (files, definitions, tests); the reply can
only be one of the kinds. A request that is several kinds at once is split into steps by a second
constrained question, each step then classified the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from tui.engine.pipelines.facts import Facts

KINDS: dict[str, str] = {
    "question": "a question about the code: what a function returns or raises, how many of something there "
                "are, where something is defined or handled, how or why it works",
    "history": "a question about the git history: which commit changed something, when, who, what the last "
               "commits did",
    "report": "run the tests (or check the project) and report the result, without changing anything",
    "fix": "something is broken (failing tests, an error, a bug): find the cause and fix it",
    "change": "change how existing code behaves (a default value, a format, a condition, a message)",
    "add": "add new code: a new function, method, class, option or feature (not a sentence of documentation)",
    "add_test": "add or extend tests for existing code",
    "refactor": "rename something, move code to another module, or add/change a parameter, without changing "
                "what the code does",
    "data": "clean, convert, sort, merge or repair a data file (CSV, JSON, YAML, TOML)",
    "docs": "write or change documentation: a docstring, a comment, the README or another text file (adding a "
            "sentence or a section to one too)",
    "scaffold": "create a new component, module, page or package the way the project's others are made",
    "several": "two or more of the above in one request (e.g. add a function and a test for it)",
    "other": "anything else",
}
CODE_KINDS = ("fix", "change", "add", "add_test", "refactor", "docs", "data", "scaffold")


@dataclass
class Kind:
    name: str
    how: str  # "structure" (decided by the program) or "model" (the constrained choice)
    steps: list[tuple[str, str]] | None = None  # several: (kind, the step's request)


PROMPT = """A developer typed this request to a coding assistant working in their git repository:

<request>
{request}
</request>
{facts}
Which kind of request is it? The kinds:
{kinds}

Reply as JSON: {{"kind": "<one of the kinds>"}}"""

STEPS = """A developer typed this request to a coding assistant:

<request>
{request}
</request>

It asks for several things. Split it into its steps, in order, each step a short request that stands on its
own (repeat the names it needs). Each step's kind is one of: {kinds}.
Reply as JSON: {{"steps": [{{"kind": "...", "request": "..."}}, ...]}}"""


ASKING = ("question", "history", "report", "other")  # what a request that only asks can be
_WH = frozenset("what which where when who whom whose why how does do did is are was were has have had should "
                "would could can will may might".split())
_POLITE = re.compile(r"^(?:can|could|would|will)\s+(?:you|we)\b|\bplease\b", re.I)


def asks_only(request: str) -> bool:
    """The request is only questions: every sentence ends in a question mark and the first opens with a question
    word, not a request put politely ("could you rename …?", "please …"). Such a request cannot ask for a change."""
    text = " ".join(request.split())
    if not text.endswith("?") or _POLITE.search(text) or "```" in request:
        return False
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if s]
    first = re.match(r"[A-Za-z']+", sentences[0]) if sentences else None
    return bool(first) and first.group(0).lower() in _WH and all(s.endswith("?") for s in sentences)


_PAST = frozenset("was were did has have had wrote made broke took gave brought began".split())
_WHO_WHEN = frozenset("who whom whose when".split())


def asks_history(request: str) -> bool:
    """A question only history can answer, by its grammar: it asks who or when in the past tense ("when was …
    changed", "who added …", "whose commit …") or about a commit. "When does f raise?" and "who calls f?" ask
    about the code as it is, and are not."""
    if not asks_only(request):
        return False
    words = re.findall(r"[a-z']+", request.lower())
    if re.search(r"\b(?:commits?|changelog of git|git (?:log|blame|history))\b", request.lower()):
        return True
    for i, word in enumerate(words):
        if word in _WHO_WHEN and any(w in _PAST or (w.endswith("ed") and len(w) > 4) for w in words[i + 1:i + 4]):
            return True
    return False


_DOC_TARGET = re.compile(r"\b(?:docstrings?|doc ?comments?|jsdoc|tsdoc)\b", re.I)


def names_a_docstring(request: str) -> bool:
    """The request's object is a docstring or a doc comment (it names one and no test): docs, whatever it says
    should go in it (a sentence about what the code raises is still text)."""
    return bool(_DOC_TARGET.search(request)) and not re.search(r"\btests?\b", request, re.I)


def by_structure(facts: Facts) -> Kind | None:
    """A pasted traceback is a fix; a data file the request names that does not parse is repaired first, whatever
    else is asked of it (a request that only asks about it is answered, not acted on); a new code file named by
    path, with no existing code named, is scaffolded."""
    if facts.traceback:
        return Kind("fix", "structure")
    if facts.unparsed and not asks_only(facts.request):
        return Kind("data", "structure")
    if asks_history(facts.request):
        return Kind("history", "structure")
    if names_a_docstring(facts.request) and facts.symbols and not asks_only(facts.request):
        return Kind("docs", "structure")
    if facts.new_files and not any(n.strong for n in facts.symbols) and not asks_only(facts.request):
        return Kind("scaffold", "structure")
    return None


async def classify(ask: Any, facts: Facts) -> Kind:
    decided = by_structure(facts)
    if decided is not None:
        return decided
    found = facts.summary()
    choices = {k: v for k, v in KINDS.items() if k in ASKING} if asks_only(facts.request) else KINDS
    prompt = PROMPT.format(request=facts.request.strip()[:2000],
                           facts=f"\nWhat is in the repository of what it names:\n{found}\n" if found else "",
                           kinds="\n".join(f"- {k}: {v}" for k, v in choices.items()))
    schema = {"type": "object", "properties": {"kind": {"type": "string", "enum": list(choices)}},
              "required": ["kind"]}
    asked = await ask.json(prompt, schema, max_tokens=20, label="the kind of request")
    value = asked.first or {}
    name = value.get("kind") if isinstance(value, dict) else None
    kind = Kind(name if name in choices else "other", "model" if choices is KINDS else "model, among questions")
    if kind.name == "several":
        kind.steps = await split(ask, facts.request)
        if not kind.steps:
            kind.name = "other"
    return kind


async def split(ask: Any, request: str) -> list[tuple[str, str]]:
    single = [k for k in KINDS if k not in ("several", "other")]
    schema = {"type": "object", "properties": {"steps": {
        "type": "array", "minItems": 2, "maxItems": 4, "items": {
            "type": "object", "properties": {"kind": {"type": "string", "enum": single},
                                             "request": {"type": "string"}},
            "required": ["kind", "request"]}}}, "required": ["steps"]}
    asked = await ask.json(STEPS.format(request=request.strip()[:2000], kinds=", ".join(single)), schema,
                           max_tokens=400, label="the steps of the request")
    value = asked.first or {}
    steps = value.get("steps") if isinstance(value, dict) else None
    out = []
    for step in steps or []:
        if isinstance(step, dict) and step.get("kind") in single and str(step.get("request") or "").strip():
            out.append((str(step["kind"]), str(step["request"]).strip()))
    return out[:4]
