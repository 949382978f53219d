"""An "add a test" request keeps the tests that are there: an edit that rewrites existing test lines is sent
back before it is proposed.

Seen on minimist (a probe outside the benchmark): asked to add a test that ``--no-verbose`` parses to
``verbose: false``, the 1.5B model replaced ``t: false`` by ``verbose: false`` inside an existing test's
options, which changed what that test checks; with ``--yes`` it landed, and the turn went on to append a
copy of another test. Appending (``old=""``) and edits that keep the old text (a new import beside the
old one, a test inserted after an existing one) pass.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

from tui.engine.agent_words import wants_test_change
from tui.engine.turnmsg import short
from tui.llm.base import ToolCall
from tui.safety.parsing import parse_python

ADDS = re.compile(r"\b(?:add|write|creat|new|append)\w*\b", re.I)
CHANGES = re.compile(r"\b(?:fix|chang|updat|modif|renam|edit|correct|replac|rewrit)\w*\b", re.I)


def alters_a_test(agent, call: ToolCall, turn: Any) -> bool:
    """True when the call was sent back (told to the model); False to let it run."""
    from tui.engine.verify import _read, is_test

    path = str(call.arguments.get("path", ""))
    old, new = str(call.arguments.get("old") or ""), str(call.arguments.get("new") or "")
    prompt = agent.prompt
    if call.name == "edit_symbol":
        return _replaces_a_test(agent, call, path)
    if call.name != "edit_file" or not old.strip() or old in new or not is_test(path) or \
            not wants_test_change(prompt) or not ADDS.search(prompt) or CHANGES.search(prompt):
        return False
    text = _read(agent.ctx.repo, path) or ""
    start = agent.ctx.turn_start.get(path) if path in agent.ctx.turn_start else text.encode()
    at = text.find(old)
    if at < 0 or old not in (start or b"").decode("utf-8", "replace"):
        return False  # the edit fails by itself, or it revises lines this turn added (its own new test)
    line = text.count("\n", 0, at) + 1
    agent._ask_again(f"the edit would change existing lines of {path} (line {line}) in a request for a new test", (
        f"Not done: that edit changes existing lines of {path} (line {line}: {old.strip().splitlines()[0][:80]!r}), "
        f"which changes what a test already there checks. The developer asked for a new test: {short(prompt)} "
        f"Leave the existing tests as they are and add the new test at the end of {path}: one edit_file call with "
        "old \"\" and new = the whole new test."))
    return True


def no_test_in_it(agent, call: ToolCall, turn: Any) -> bool:
    """An add-a-test edit of a Python test file whose code defines functions and none of them a test (the 1.5B
    model wrote ``def is_blocked(self, name): return self._blocked...``, a copy of the code under test, into
    pluggy's test file, outside the benchmark): sent back, once, before it is proposed. True when it was."""
    import ast

    from tui.engine.verify import is_test
    from tui.symbols.model import is_test_file

    path = str(call.arguments.get("path", ""))
    code = str(call.arguments.get("code") if call.name == "edit_symbol" else call.arguments.get("new") or "")
    if turn.no_test_told or call.name not in ("edit_file", "edit_symbol") or not path.endswith(".py") or \
            not (is_test(path) or is_test_file(path)) or not wants_test_change(agent.prompt) or not ADDS.search(agent.prompt):
        return False
    try:
        tree = parse_python(textwrap.dedent(code))
    except (SyntaxError, ValueError):
        return False
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    if not defs or any(n.name.lower().startswith("test") or any("fixture" in ast.unparse(d) for d in
                                                                  getattr(n, "decorator_list", [])) for n in defs):
        return False  # a test among them, or a fixture (which a test may well need first)
    turn.no_test_told = True
    names = ", ".join(n.name for n in defs)
    agent._ask_again(f"the new code for {path} defines {names}, which is no test", (
        f"Not done: {names} is not a test: pytest runs only functions named test_... (the code under test stays "
        f"where it is). The developer asked: {short(agent.prompt)} Add a test with one edit_file call, old \"\" and "
        f"new = def test_<what it checks>(): ... that calls the code the request names and asserts what it "
        f"should return, at the end of {path}."))
    return True


def _replaces_a_test(agent, call: ToolCall, path: str) -> bool:
    """edit_symbol on a test the file had when the turn began, in a request for a new test: the code goes over
    that test (itsdangerous probe, outside the benchmark: asked for a test that unsign raises BadSignature, the
    model wrote its test over TestSigner.test_signer, which then checked nothing it had checked). Sent back with
    the name to use instead; True when it was."""
    from tui.engine.verify import _read, is_test
    from tui.symbols import outline_of, walk
    from tui.tools.edit_symbol import named_test_in_code

    prompt = agent.prompt
    symbol = str(call.arguments.get("symbol") or "")
    code = str(call.arguments.get("code") or "")
    if not is_test(path) or not wants_test_change(prompt) or not ADDS.search(prompt) or CHANGES.search(prompt):
        return False
    qualname = named_test_in_code(path, symbol, code)  # the test the code defines, as edit_symbol reads it
    parent, _, name = qualname.rpartition(".")
    start = agent.ctx.turn_start.get(path) if path in agent.ctx.turn_start else (_read(agent.ctx.repo, path) or "").encode()
    if not start or not name.startswith("test"):
        return False
    found = [s for s in walk(outline_of(path, start.decode("utf-8", "replace")).symbols) if s.qualname == qualname]
    if not found:
        return False
    lines = start.decode("utf-8", "replace").splitlines()[found[0].start - 1:found[0].end]
    if textwrap.dedent("\n".join(lines)).strip() == textwrap.dedent(code).strip():
        return False  # resent as it is: edit_symbol itself says so, with the name to take
    if _renamed(agent, call, path, qualname, start.decode("utf-8", "replace")):
        return False
    where = f"{parent}." if parent else ""
    agent._ask_again(f"the edit would write over the existing test {qualname} in a request for a new test", (
        f"Not done: {qualname} is a test {path} already has (line {found[0].start}); that code would replace it, "
        f"and what it checks now would no longer be checked. The developer asked for a new test: {short(prompt)} "
        f"Keep {qualname} as it is and send the new test under a name of its own: edit_symbol with symbol "
        f"'{where}test_<what it checks>' and code that defines def test_<what it checks>(...)."))
    return True


def _renamed(agent, call: ToolCall, path: str, qualname: str, start: str) -> bool:
    """New test code under a taken name goes in under a name of its own (``test_comments_2``), or revises the one
    this turn already added that way: sent back instead, the 1.5B model resent the same call until the turn ran
    out (held-out xmltodict, twelve times). True when the call was changed so."""
    from tui.engine.verify import _read
    from tui.protocol.events import Notice
    from tui.symbols import outline_of, walk
    from tui.tools.edit_symbol import fresh_test_name

    parent, _, name = qualname.rpartition(".")
    code = str(call.arguments.get("code") or "")
    now = _read(agent.ctx.repo, path) or start
    fresh, mine = fresh_test_name(name, {s.name for s in walk(outline_of(path, now).symbols)},
                                  {s.name for s in walk(outline_of(path, start).symbols)})
    renamed = re.sub(rf"\bdef\s+{re.escape(name)}\b", f"def {fresh}", code, count=1)
    if renamed == code:
        return False
    call.arguments["symbol"] = f"{parent}.{fresh}" if parent else fresh
    call.arguments["code"] = renamed
    agent.emit(Notice(f"{qualname} is an existing test; the new one is {'revised as' if mine else 'added as'} {fresh}"))
    return True
