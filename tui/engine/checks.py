"""The coaching steps around a turn's end, each named for the small-model failure it answers
(docs/model-layer.md): a part of the request left undone, the done and answer checks, a question
answered with an edit, a definition replaced unread, a failing test's suspects, the verification run,
a claim the working tree does not show, and the forced one-line answer.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from typing import Any, Callable

from tui.engine.agent_words import is_question, reports_on_tests, wants_test_change
from tui.engine.coach import CLAIMS_CHANGE, honest, outcome  # noqa: F401 - honest is tested through here
from tui.engine.turnmsg import short as _short, with_counts
from tui.engine.verify import is_test
from tui.llm.base import ToolCall
from tui.protocol.events import Detail, Notice, TurnDone
from tui.safety.parsing import loads_json
from tui.tools.base import ToolResult

ANSWER_SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
DONE_SCHEMA = {"type": "object", "properties": {"done": {"type": "boolean"}, "answer": {"type": "string"}},
               "required": ["done", "answer"]}
MAX_VERIFY = 2
FINAL_SECONDS = 90  # the forced final answer's own time, after model.turn_seconds


async def untouched(agent, turn: Any) -> bool:
    """A change request names files this turn has not changed: say so once (True), a small model reports
    "added and exported" after the first of three parts."""
    if turn.parts_reminded or not turn.touched or is_question(agent.prompt):
        return False
    from tui.engine.mentions import export_file, mentioned, new_paths, test_home
    from tui.engine.verify import _read
    from tui.tools.support.common import repo_files

    files = await repo_files(agent.ctx.repo)
    export = export_file(agent.prompt, files, turn.touched,  # "export it from the package": its __init__.py
                         lambda rel: _read(agent.ctx.repo, rel))
    wanted = [*mentioned(agent.prompt, files, 5), *([export] if export else []), *new_paths(agent.prompt, files)]
    if not any(is_test(p) for p in wanted):
        wanted += [home] if (home := test_home(agent.prompt, files, turn.touched)) else []
    named = [p for p in dict.fromkeys(wanted)
             if p not in turn.touched and not (is_test(p) and not wants_test_change(agent.prompt))]
    if not named:
        return False
    turn.parts_reminded = True
    agent._ask_again(f"the request names {', '.join(named)}, not changed yet", (
        f"Not finished yet: the developer asked: {_short(agent.prompt)} It names {', '.join(named)}, which you "
        "have not changed in this request. Do that part now with one JSON tool call; if it needs no change, "
        "say why in plain text."))
    return True


def no_new_test(agent, turn: Any) -> bool:
    """An "add a test" request whose edits gave no test file a new test case (a helper function, a resent
    copy): say so once, with a test of the file to copy (True)."""
    if turn.tests_told or not wants_test_change(agent.prompt):
        return False
    from tui.engine.testexample import count_tests, example
    from tui.engine.verify import _read

    counts = []
    added: list[str] = []  # lines the turn added to test files that gained a test
    for path in sorted(p for p in turn.touched if is_test(p)):
        start = agent.ctx.turn_start.get(path)
        now = _read(agent.ctx.repo, path) or None  # inside the work tree, a regular file (never a FIFO's wait)
        before = count_tests(path, start.decode("utf-8", "replace")) if start is not None else 0
        after = count_tests(path, now) if now is not None else None
        if before is None or after is None:
            return False  # a file that cannot be judged
        if after > before:
            old_lines = set((start or b"").decode("utf-8", "replace").splitlines())
            added += [line for line in (now or "").splitlines() if line not in old_lines]
            continue
        counts.append((path, after))
    if added:
        return _test_misses_subject(agent, turn, added)
    if not counts:
        return False
    turn.tests_told = True
    path, n = counts[0]
    agent._ask_again(f"the request asks for a test, and {path} has no new one", (
        f"Not done yet: {path} has {n} tests, as many as before your change, so no test was added. The developer "
        f"asked: {_short(agent.prompt)} Add the test itself with one JSON tool call. "
        f"{example(agent.ctx.repo, path, agent.prompt)}"))
    return True


_CALLED = re.compile(r"(?:\b|\.)([A-Za-z_$][\w$]{2,})\(|\.([A-Za-z_$][\w$]{2,})\b")  # isEmpty(obj), utils.isRegExp


def _test_misses_subject(agent, turn: Any, added: list[str]) -> bool:
    """The new test calls none of what the request is about (asked for a test of isEmpty, the model appended a
    copy of the file's first test): said once, with the names (True). The subjects are the calls the request
    writes out (``isEmpty(obj)``, ``utils.isRegExp``) and what this turn defined outside the tests."""
    if turn.subject_told:
        return False
    named = {a or b for a, b in _CALLED.findall(re.sub(r"\S+\.(?:py|js|ts|mjs|cjs|json|md)\b", "", agent.prompt))} - \
        {"test", "tests"}  # file names are not subjects
    written = {n for n in turn.written if not n.startswith("test")} if any(
        not is_test(p) for p in turn.touched) else set()
    subjects = sorted(n for n in named | written if n)
    text = "\n".join(added)
    if not subjects or any(re.search(rf"(?<![\w$]){re.escape(n)}(?![\w$])", text) for n in subjects):
        return False
    turn.subject_told = True
    tests = sorted(p for p in turn.touched if is_test(p))
    agent._ask_again("the new test does not call what the request is about", (
        f"Not done yet: the test you added does not call {' or '.join(subjects[:3])}, so it does not check what "
        f"the developer asked about. The developer asked: {_short(agent.prompt)} Add a test that calls "
        f"{subjects[0]} and checks what it returns, with one JSON tool call: edit_file with old \"\" adds it at the "
        f"end of {tests[0] if tests else 'the test file'} (rewriting the test you added is a longer call)."))
    return True


async def done_check(agent, turn: Any, ask: str = "",
                      finish: Callable[[str], str] | None = None) -> TurnDone | None:
    """After a change (or a question's code run: ``ask``), ask (constrained) whether the request is complete:
    small models otherwise keep going and undo their own work. Done: the turn ends with the model's summary.
    Not done: the loop goes on."""
    if not ask and (await untouched(agent, turn) or no_new_test(agent, turn)):
        return None
    question = {"role": "user", "_tool": True, "content": ask or (
        f"Is the developer's request complete now? The developer asked: {_short(agent.prompt)} Reply with JSON: "
        '"done": true and an "answer" (one line telling the developer what you changed) when it is complete; '
        '"done": false when more changes or commands are still needed.')}
    agent._append(question)
    text, _ = await agent._complete(offer_tools=False, constrained=True, fmt=DONE_SCHEMA)
    try:
        reply = loads_json(text, "the model's answer")
        done, answer = reply.get("done") is True, str(reply.get("answer", "")).strip()
    except (ValueError, AttributeError):
        done, answer = False, ""
    reply_message = {"role": "assistant", "content": text}
    agent._append(reply_message)
    if not done:
        agent._forget([question, reply_message])  # the loop goes on as if the question was never asked
        return None
    return agent._answered(finish(answer) if finish else answer, "complete")


def remind_question(agent, turn: Any, what: str) -> None:
    """A small model "answers" a question by rewriting the code it read (minutes of tokens): once, say no."""
    turn.asked_question = True
    name = what.strip(' :"')
    agent._ask_again(f"the model proposed an edit ({name}) for a question", (
        f"The developer asked a question, not for a change: {_short(agent.prompt)} Do not change files. Answer it "
        "in plain text from what you have read (or read or run something first)." + _found(agent)))


FOUND_CHARS = 800  # of the grounding's hints, said again


def _found(agent) -> str:
    """The grounding's findings for a question, said again: by the time a small model drifts (an edit for a
    question, the forced answer) they are far above, and it answers from the last thing it read instead."""
    hints = agent._hints[:FOUND_CHARS]
    return f"\nWhat devagent found for this question:\n{hints}" if hints and is_question(agent.prompt) else ""


async def show_before_replace(agent, call: ToolCall, turn: Any) -> bool:
    """edit_symbol replacing a definition the model has not read in this turn: show it that code first, once
    (a 1.5B model rewrote a 40-line unparse() from its name alone). True when it was shown."""
    path, symbol = str(call.arguments.get("path", "")), str(call.arguments.get("symbol", ""))
    if not path or not symbol or path in agent._reads or f"{path}::{symbol}" in agent._reads \
            or (path, symbol) in turn.shown_defs or symbol.rsplit(".", 1)[-1] in turn.written:
        return False  # read, shown, or written by the model itself in this turn
    from tui.symbols import find, outline_of
    from tui.engine.verify import _read

    if not find(outline_of(path, _read(agent.ctx.repo, path)).symbols, symbol):
        return False  # a new definition: nothing to read first
    turn.shown_defs.add((path, symbol))
    agent.emit(Detail(f"the model would replace {symbol} without having read it; showing it its code first"))
    await agent._handle(ToolCall("outline", {"path": path, "symbol": symbol}, uuid.uuid4().hex[:8], "auto"))
    agent._append({"role": "user", "_tool": True, "content": (
        f"You had not read {symbol} yet; its current code is above. The developer asked: {_short(agent.prompt)} "
        f"Now send the edit_symbol call again, written from that code: keep what must stay, change only what "
        "the request needs (or use edit_file for a few lines).")})
    return True


def suspects(agent, result: ToolResult) -> str:
    """For a failing test, the code it calls and where that is defined (small models edit the test instead)."""
    from tui.engine.grounding import defined_in
    from tui.engine.suspects import hint
    from tui.engine.verify import _read, is_test

    failures = (result.data.get("test_run") or {}).get("failures") or []
    try:
        text = hint(agent.ctx.repo, failures, is_test, lambda n: defined_in(agent.ctx.repo, n), _read)
        if not text and not (agent.turn and agent.turn.changed):  # no test to follow (tape, mocha): what changed
            from tui.engine.suspects import recent_source_change

            text = recent_source_change(agent.ctx.repo, is_test).lstrip("\n")
    except Exception:  # noqa: BLE001 - a hint never breaks a turn
        return ""
    return f"\n{text}" if text else ""


def changes_behaviour(prompt: str) -> bool:
    """A request to change a value the code has ("from 1000 to 2000", "';' instead of '&'"): tests pinning the old
    value are expected to fail after it."""
    from tui.engine.described import old_value

    return not is_question(prompt) and old_value(prompt) is not None


async def verify(agent, turn: Any) -> bool:
    """Run the tests that exercise this turn's unverified change; True when they failed and the model was
    told (the turn goes on). Rejected, impossible or passing runs let the turn end."""
    if not turn.unverified.strip() or turn.verifications >= MAX_VERIFY or "run_tests" not in agent.tools \
            or agent.config.model.verify == "off" or not agent.verifying:
        return False
    from tui.tools.support.common import repo_files
    from tui.engine.verify import choose

    diff, turn.unverified = turn.unverified, ""
    target = await asyncio.to_thread(choose, agent.ctx.repo, diff, await repo_files(agent.ctx.repo))
    failing = list(dict.fromkeys(t.split("::", 1)[0] if "::" in t else "" for t in agent._failing))
    if failing:  # the tests that failed when the turn started are what the fix must make pass
        from tui.engine.verify import Target

        target = Target(failing[0] if len(failing) == 1 else "", "the tests that failed before your change")
    if target is None:
        return False
    turn.verifications += 1
    agent.emit(Notice(f"checking the change: running {target.why} ({target.selection or 'the whole suite'})"))
    call = ToolCall("run_tests", {"selection": target.selection}, uuid.uuid4().hex[:8], "verify")
    await agent._handle(call)
    turn.tests_run.append(target.selection)
    result = agent.last_result
    run = (result.data.get("test_run") or {}) if result else {}
    if result is None or result.ok or result.summary.startswith("rejected"):
        return False
    if not (run.get("failed") or run.get("errored")):
        broke = [f for f in sorted(turn.touched) if f in (result.output or "")] \
            if run.get("status") in ("collection_error", "no_counts", "not_started") else []
        if not broke:
            agent.emit(Notice(f"could not check the change: {result.summary}", "warning"))
            return False
        # The run stopped before any test, at a file this turn changed (a test appended with a quote left open):
        # the change broke it, so it goes back to the model like a failure.
        agent._append({"role": "user", "_tool": True, "content": (
            f"devagent ran {target.why} to check your change, and it could not even start: the output above points "
            f"at {broke[0]}, which your change edited. The developer asked: {_short(agent.prompt)} Fix {broke[0]} "
            "with one JSON tool call.")})
        turn.seen.clear()
        return True
    if changes_behaviour(agent.prompt) and not failing:
        # "Show four digits by default instead of three": tests that pin the old value now fail, as they must.
        # Seen on the dev set: told to fix the code, the model put the old default back and the turn ended.
        agent.emit(Notice(f"checking the change: {run.get('failed') or run.get('errored')} tests fail; the request "
                          "changes behaviour they check, so the change is kept", "warning"))
        agent._append({"role": "user", "_tool": True, "content": (
            f"devagent ran {target.why}: the failures above expect the old behaviour, which the developer asked to "
            f"change ({_short(agent.prompt)}). Your change stays: do not undo it. If the developer asked for the "
            "tests to be updated, update their expected values; otherwise answer in plain text: what you changed, "
            "and which tests now fail because they expect the old behaviour.")})
        turn.seen.clear()
        return True
    if wants_test_change(agent.prompt) and turn.touched and all(is_test(p) for p in turn.touched):
        # "Add a test that ...": the code is not in question, the new test's expectation is (a 1.5B model told
        # "fix the code" changed the function under test to match its own wrong expected value)
        agent._append({"role": "user", "_tool": True, "content": (
            f"devagent ran {target.why}: the test you added fails on the code as it is (see above). The developer "
            f"asked for a test: {_short(agent.prompt)} The code stays as it is: correct the new test so it checks "
            "what the request describes and what the code really does (the failure shows what it returns), with "
            "one JSON tool call on the test file. Do not change the code.")})
        turn.seen.clear()
        return True
    agent._append({"role": "user", "_tool": True, "content": (
        f"devagent ran {target.why} to check your change, and it failed (see above). The developer asked: "
        f"{_short(agent.prompt)} Fix the code with one JSON tool call. If the failure is what the developer "
        "asked for (the request changes that behaviour), do not undo the change: answer in plain text and "
        "say which test fails and why.")})
    turn.seen.clear()
    return True


async def check_change(agent, turn: Any) -> bool:
    """Before a turn that changed code ends: the tests that exercise it, then a run of new code no test calls.
    True when the turn goes on."""
    return await verify(agent, turn) or await exercise(agent, turn)


def after_run(agent, turn: Any, call: ToolCall, result: Any) -> None:
    """What a run the model asked for tells the checks: the tests it ran; code of its own that ran."""
    if result is None:
        return
    if call.name == "run_tests":
        turn.tests_run.append(str(call.arguments.get("selection") or ""))
    if result.ok and call.name == "run_python":
        turn.added_code = ""  # the model ran code of its own after the change
        if turn.exercised and not turn.printed_told and "(no output)" in result.output:
            turn.printed_told = True  # seen on the tune half: peek() called ten times, nothing printed
            agent._append({"role": "user", "_tool": True, "content": (
                "That run printed nothing, so what the new code returns is still unknown. Run it again "
                "with print(...) around each call, in one run_python call.")})


async def exercise(agent, turn: Any) -> bool:
    """A new function or method no test calls has never run: ask once for one run_python call that runs it in
    the cases the request describes (seen on the dev set: FIFOCache.first_key() copied popitem's ``raise
    KeyError`` where the request said "or None when the cache is empty"; the existing tests passed, the turn
    ended "done"). True when the turn goes on."""
    from tui.engine.newdefs import ADDS

    if turn.exercised or not turn.added_code.strip() or "run_python" not in agent.tools or \
            agent.config.model.verify == "off" or not agent.verifying or not ADDS.search(agent.prompt):
        return False  # only a request that adds code ("rename add to plus" adds no new behaviour)
    from tui.engine.verify import is_test, unexercised

    diff, turn.added_code = turn.added_code, ""
    seen = [f for f in turn.touched if is_test(f)] + list(turn.tests_run)
    found = await asyncio.to_thread(unexercised, agent.ctx.repo, diff, seen)
    if not found:
        return False
    turn.exercised = True
    new = found[0]
    what = f"the method {new.owner}.{new.name}" if new.owner else f"the function {new.name}"
    imported = f"from {new.module} import {new.owner or new.name}" if new.module else ""
    how = (f"creates a {new.owner}, calls its {new.name}" if new.owner else f"calls {new.name}")
    agent.emit(Detail(f"checking the change: no test calls {new.owner + '.' if new.owner else ''}{new.name}; "
                      "asking the model to run it"))
    agent._append({"role": "user", "_tool": True, "content": (
        f"Your change adds {what} in {new.path}, and no test calls it, so it has never run. Run it now: one "
        f"run_python call whose code {('starts with ' + repr(imported) + ', then ') if imported else ''}{how} "
        "in each case the developer's request describes, and prints each result. If a result is not what the "
        f"request says, fix the code. The developer asked: {_short(agent.prompt)}")})
    turn.seen.clear()
    return True


async def answer_from_result(agent, turn: Any, call: ToolCall, result: Any) -> TurnDone | None:
    """A question's code ran, or "run the tests and tell me" has its run: offer that result as the answer, once
    (a 1.5B model otherwise goes on to "fix" the function it just ran). The turn's end, or None to go on."""
    if result is None or turn.answer_checked:
        return None
    if result.ok and call.name == "run_python" and is_question(agent.prompt) and result.output.strip():
        turn.answer_checked = True
        return await done_check(agent, turn, (
            f"Does that output answer the developer's question? The developer asked: {_short(agent.prompt)} "
            'Reply with JSON: "done": true and an "answer" (the answer itself: the facts, values and names, '
            'from the output) when it does; "done": false when another step is needed.'))
    if call.name == "run_tests" and reports_on_tests(agent.prompt) and (result.data.get("test_run") or {}).get("status"):
        turn.answer_checked = True  # the counts come from the run, not the model
        run = result.data["test_run"]
        return await done_check(agent, turn, (
            f"Does that answer the developer? The developer asked: {_short(agent.prompt)} Reply with JSON: "
            '"done": true and an "answer" that gives the numbers from the RESULT line (how many passed, '
            'how many failed) and names what failed; "done": false when another step is needed.'),
            finish=lambda answer: with_counts(answer, run))
    return None


def problems_left(agent, problems: list[str]) -> str:
    return ("Not done yet: your change still has these problems:\n" + "\n".join(problems[:3]) +
            f"\nThe developer asked: {_short(agent.prompt)} Fix them with one JSON tool call (edit_symbol replaces "
            "a whole function or method with its corrected code), or say plainly what you could not do.")


def unfinished(failed_change: str, answer: str, changed: bool, question: bool = False) -> str:
    """Why a plain-text answer cannot be the end of the turn yet ('' when it can)."""
    if changed:  # an earlier change stands; only a claim about the failed last one is false
        return f"your last change did not happen: {failed_change}" if failed_change and \
            CLAIMS_CHANGE.search(answer) else ""
    if failed_change:
        return f"nothing was changed: {failed_change}"
    if CLAIMS_CHANGE.search(answer) or (NOW_DOES.search(answer) and not question):
        return "you said a change was made, but no file was changed in this turn"
    return ""


# "Calc.add now returns a + b." after a turn that changed nothing (seen trying the app with the scripted server)
NOW_DOES = re.compile(r"\bnow (?:returns?|is|has|does|uses|shows|handles|raises|accepts|supports|checks|prints|"
                      r"gives|works|defaults?|takes|calls|exports?|sorts?)\b", re.I)


async def final_answer(agent, turn: Any) -> TurnDone:
    """Constrained to a single answer string: a looping or slow small model still ends with an answer."""
    # Why the turn stops is said to the developer (a notice), not to the model: a small model copies
    # "You already called X..." into its answer.
    agent._append({"role": "user", "_tool": True, "content":
                  f"No more tool calls. The developer asked: {_short(agent.prompt)} Answer the developer now, "
                  "in one or two sentences, from what you have seen: what you found or changed, and plainly "
                  "what you could not do." + _found(agent)})
    text, _ = await agent._complete(offer_tools=False, constrained=True, fmt=ANSWER_SCHEMA,
                                   deadline=time.monotonic() + FINAL_SECONDS)
    try:
        answer = str(loads_json(text, "the model's answer").get("answer", "")).strip()
    except (ValueError, AttributeError):  # cut short: the answer string as far as it got
        found = re.search(r'"answer"\s*:\s*"((?:[^"\\]|\\.)*)', text)
        answer = found.group(1).replace('\\"', '"').replace("\\n", "\n").strip() if found else text.strip()
    agent._append({"role": "assistant", "content": answer})
    if not answer:  # the reply was a call, an empty string or nothing: the developer still gets a sentence
        files = ", ".join(sorted(turn.touched))
        said = "The model gave no answer. " + (f"This request changed {files}." if files else "No file was changed.")
        agent.emit(Notice(said))
        return TurnDone("limit", said)
    done = agent._answered(answer, "limit")
    outcome(agent, turn, answer)
    return done
