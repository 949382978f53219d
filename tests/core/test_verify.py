"""Before a turn that changed code may end, devagent runs the tests that exercise the change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.core import fixtures_repos as fx
from tests.core.agent_helpers import ScriptedApprover, details, fast_config, of, run_prompt
from tests.ollama_server import Reply, ScriptedOllama
from tui.protocol.proposals import Decision
from tui.engine.verify import choose

CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
FILES = {
    "calc/__init__.py": "from calc.ops import add, mul\n",
    "calc/ops.py": CALC,
    "calc/text.py": "def shout(s):\n    return s.upper()\n",
    "tests/test_ops.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    "tests/test_text.py": "from calc.text import shout\n\n\ndef test_shout():\n    assert shout('a') == 'A'\n",
    "pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = ['tests']\n",
}
FILE_LIST = list(FILES)


def diff_of(path: str, old: str, new: str) -> str:
    import difflib

    body = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}"))
    return f"diff --git a/{path} b/{path}\n{body}"


def test_a_new_test_is_run_by_id_and_a_source_change_by_the_tests_that_name_it(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    new = FILES["tests/test_ops.py"] + "\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
    (repo / "tests/test_ops.py").write_text(new)
    target = choose(repo, diff_of("tests/test_ops.py", FILES["tests/test_ops.py"], new), FILE_LIST)
    assert target is not None and target.selection == "tests/test_ops.py::test_mul"
    changed = CALC.replace("return a + b", "return b + a")
    (repo / "calc/ops.py").write_text(changed)
    target = choose(repo, diff_of("calc/ops.py", CALC, changed), FILE_LIST)
    assert target is not None and target.selection == "tests/test_ops.py"
    assert choose(repo, diff_of("README.md", "a\n", "b\n"), FILE_LIST) is None


async def test_a_failing_new_test_goes_back_to_the_model_before_the_turn_ends(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    wrong = "\n\ndef test_mul():\n    from calc import mul\n    assert mul(2, 3) == 5\n"
    ollama_server.push(
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "tests/test_ops.py", "old": "", "new": wrong}}]),
        Reply("I added test_mul."),
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "tests/test_ops.py",
                                                               "old": "mul(2, 3) == 5", "new": "mul(2, 3) == 6"}}]),
        Reply("I added test_mul and fixed its expected value."))
    approver = ScriptedApprover([Decision("approve")] * 4)
    events, done, _ = await run_prompt(repo, ollama_server.url, "Add a test for mul", approver,
                                       fast_config(repo))
    runs = [p for p in approver.asked if p.tool == "run_tests"]
    assert [p.arguments["selection"] for p in runs] == ["tests/test_ops.py::test_mul"] * 2
    feedback = "\n".join(m.get("content") or "" for m in ollama_server.requests[2]["messages"])
    assert "the test you added fails on the code as it is" in feedback and "assert 6 == 5" in feedback
    assert done.reason == "complete" and done.text.endswith("fixed its expected value.")
    assert (repo / "tests/test_ops.py").read_text().endswith("== 6\n")
    assert len(ollama_server.requests) == 4  # the passing check ended the turn: no extra model call


async def test_a_rejected_check_ends_the_turn_and_off_means_off(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    edit = {"name": "edit_file", "arguments": {"path": "calc/text.py", "old": "upper()", "new": "upper() + '!'"}}
    ollama_server.push(Reply(tool_calls=[edit]), Reply("Done."))
    approver = ScriptedApprover([Decision("approve"), Decision("reject", reason="not now")])
    events, done, _ = await run_prompt(repo, ollama_server.url, "make shout add a bang", approver)
    assert [p.tool for p in approver.asked] == ["edit_file", "run_tests"]
    assert approver.asked[1].arguments["selection"] == "tests/test_text.py"
    assert done.reason == "complete" and len(ollama_server.requests) == 2
    ollama_server.push(Reply(tool_calls=[{**edit, "arguments": {**edit["arguments"], "old": "+ '!'",
                                                                 "new": "+ '?'"}}]), Reply("Done."))
    approver = ScriptedApprover([Decision("approve")])
    await run_prompt(repo, ollama_server.url, "question mark instead", approver, fast_config(repo, verify="off"))
    assert [p.tool for p in approver.asked] == ["edit_file"]



async def test_a_claim_after_a_failed_last_edit_is_pushed_back(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    ok = {"name": "edit_file", "arguments": {"path": "calc/text.py", "old": "upper()", "new": "upper().strip()"}}
    bad = {"name": "edit_file", "arguments": {"path": "calc/text.py", "old": "lower()", "new": "casefold()"}}
    ollama_server.push(Reply(tool_calls=[ok]), Reply(tool_calls=[bad]), Reply("I have updated shout to casefold."),
                       Reply("shout strips now; I could not find lower() to change."))
    approver = ScriptedApprover([Decision("approve")] * 3)
    _, done, _ = await run_prompt(repo, ollama_server.url, "make shout strip and casefold", approver,
                                  fast_config(repo, verify="off"))
    pushed = ollama_server.requests[3]["messages"][-1]["content"]
    assert pushed.startswith("Your last change did not happen: your edit_file call failed")
    assert done.text.startswith("shout strips now")


async def test_out_of_steps_or_time_the_model_still_answers(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    reads = [Reply(tool_calls=[{"name": "read_file", "arguments": {"path": p}}]) for p in FILES]
    ollama_server.push(*reads[:2], Reply('{"answer": "add and mul live in calc/ops.py."}'))
    _, done, _ = await run_prompt(repo, ollama_server.url, "where is mul?", config=fast_config(repo, max_steps=2))
    assert done.reason == "limit" and done.text == "add and mul live in calc/ops.py."
    assert ollama_server.requests[-1]["format"]["required"] == ["answer"]
    assert ollama_server.requests[-1]["messages"][-1]["content"].startswith("No more tool calls.")
    slow = [Reply(tool_calls=[{"name": "read_file", "arguments": {"path": p}}], delay=0.4, chunks=["", ""])
            for p in FILES]
    ollama_server.push(slow[0], Reply('{"answer": "I have changed it."}'))
    events, done, _ = await run_prompt(repo, ollama_server.url, "where is add?",
                                       config=fast_config(repo, turn_seconds=0.5))
    notices = [n.message for n in of(events, "notice")]
    assert "model.turn_seconds" in " ".join(notices)
    assert done.text == "I have changed it." and notices[-1] == "No file was changed."  # in plain words, its own line


async def test_selection_all_means_the_whole_suite(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    ollama_server.push(Reply(tool_calls=[{"name": "run_tests", "arguments": {"selection": "all"}}]), Reply("2 pass."))
    approver = ScriptedApprover([Decision("approve")])
    await run_prompt(repo, ollama_server.url, "run the tests", approver)
    assert "-k" not in approver.asked[0].command.split()
    assert "RESULT: all 2 tests passed" in ollama_server.requests[1]["messages"][-2]["content"]  # then the check


async def test_a_reply_that_repeats_one_line_is_cut(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    looping = '{"name": "write_file", "arguments": {"path": "x.py", "content": "' + \
        "self.assertEqual(f(1), 1)\\n" * 400 + '"}}'
    ollama_server.push(Reply(chunks=[looping[i:i + 40] for i in range(0, len(looping), 40)], delay=0.005),
                       Reply("Sorry, I cannot."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "write x.py")
    assert "the model wrote the same text over and over" in details(events)
    shown = "".join(e.text for e in of(events, "text"))
    assert shown.count("self.assertEqual(f(1), 1)") < 12  # cut after a few repeats, not 400
    assert done.text == "Sorry, I cannot." and not (repo / "x.py").exists()


async def test_a_question_is_answered_not_edited(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    from tui.engine.agent import is_question

    assert is_question("What does shout return for 'a'?") and is_question("Where is mul defined")
    assert not is_question("Can you add a bang to shout?") and not is_question("Fix the failing test")
    # a change verb that does not start a clause is part of the question, not a request
    assert is_question("What value is DEFAULT_TIMEOUT set to in config.py?")
    assert is_question("Which tests fail after the update?")
    assert not is_question("Where is the bug? Fix it.") and not is_question("List the files and delete the rest")
    repo = fx.build(tmp_path / "repo", FILES)
    edit = {"name": "edit_symbol", "arguments": {"path": "calc/text.py", "symbol": "shout", "code": "def shout(s):\n"
                                                 "    return s.upper()  # returns 'A'\n"}}
    ollama_server.push(Reply(tool_calls=[edit]), Reply('{"name": "answer", "arguments": {"answer": "It returns A."}}'))
    approver = ScriptedApprover([Decision("approve")])
    _, done, _ = await run_prompt(repo, ollama_server.url, "What does shout return for 'a'?", approver)
    assert approver.asked == [] and done.text == "It returns A."
    assert "The developer asked a question, not for a change" in ollama_server.requests[1]["messages"][-1]["content"]
    assert (repo / "calc/text.py").read_text() == FILES["calc/text.py"]


async def test_a_question_never_ends_in_a_change(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the tune half: told once not to edit for a question, the model replaced parseObject anyway."""
    repo = fx.build(tmp_path / "repo", FILES)
    edit = {"name": "edit_symbol", "arguments": {"path": "calc/text.py", "symbol": "shout",
                                                 "code": "def shout(s):\n    return s.upper() + '!'\n"}}
    ollama_server.push(Reply(tool_calls=[edit]), Reply(tool_calls=[edit]),
                       Reply('{"answer": "shout upper-cases its argument."}'))
    approver = ScriptedApprover([Decision("approve")])
    events, done, _ = await run_prompt(repo, ollama_server.url, "What does shout do?", approver)
    assert approver.asked == [] and (repo / "calc/text.py").read_text() == FILES["calc/text.py"]
    assert "proposed an edit for a question again" in details(events)
    assert done.text.startswith("shout upper-cases its argument.")


async def test_a_questions_code_run_is_offered_as_the_answer(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    run = {"name": "run_python", "arguments": {"code": "from calc.ops import mul; print(mul(2, 3))"}}
    edit = {"name": "edit_symbol", "arguments": {"path": "calc/ops.py", "symbol": "mul",
                                                 "code": "def mul(a, b):\n    return 6\n"}}
    ollama_server.push(Reply(tool_calls=[run]), Reply('{"done": true, "answer": "mul(2, 3) returns 6."}'),
                       Reply(tool_calls=[edit]))  # what a 1.5B model did next when it was not asked
    approver = ScriptedApprover([Decision("approve")])
    _, done, _ = await run_prompt(repo, ollama_server.url, "What does mul return for 2 and 3?", approver)
    asked = ollama_server.requests[1]["messages"][-1]["content"]
    assert "6" in ollama_server.requests[1]["messages"][-2].get("content", "")  # the output, then the question
    assert asked.startswith("Does that output answer the developer's question?")
    assert done.text == "mul(2, 3) returns 6." and [p.tool for p in approver.asked] == ["run_python"]
    assert len(ollama_server.requests) == 2 and (repo / "calc/ops.py").read_text() == CALC
    assert not (repo / "calc/__pycache__").exists()  # running a snippet leaves nothing behind in the repo


async def test_a_questions_code_run_that_does_not_answer_it_lets_the_turn_go_on(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    run = {"name": "run_python", "arguments": {"code": "import calc; print(calc.__file__)"}}
    ollama_server.push(Reply(tool_calls=[run]), Reply('{"done": false, "answer": ""}'), Reply("It returns 6."))
    _, done, _ = await run_prompt(repo, ollama_server.url, "What does mul return for 2 and 3?",
                                  ScriptedApprover([Decision("approve")]))
    third = ollama_server.requests[2]["messages"]
    assert done.text == "It returns 6."
    assert not any("Does that output answer" in (m.get("content") or "") for m in third)  # forgotten, not sent


async def test_a_test_run_report_carries_the_runs_own_counts(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    from tui.engine.agent_words import reports_on_tests

    assert reports_on_tests("Run the test suite and tell me how many tests pass and how many fail.")
    assert reports_on_tests("run the tests") and not reports_on_tests("Fix the failing tests and tell me which")
    for asked in ("Could you run the cachetools tests for me? I need the number of passing and failing tests.",
                  "What's the state of the test suite right now? Give me the number of passing and failing tests.",
                  "Are the tests passing?", "What is the status of the tests?"):
        assert reports_on_tests(asked), asked
    for change in ("Could you fix the failing test in tests/test_calc.py?", "Add a test for mul and tell me the count",
                   "The tests are failing since my last commit, please fix it"):
        assert not reports_on_tests(change), change
    repo = fx.build(tmp_path / "repo", BUGGY)
    ollama_server.push(Reply(tool_calls=[{"name": "run_tests", "arguments": {"selection": "all"}}]),
                       Reply('{"done": true, "answer": "The suite has one failing test, test_mul."}'))
    _, done, _ = await run_prompt(repo, ollama_server.url, "Run the test suite and tell me how many tests pass and "
                                  "how many fail.", ScriptedApprover([Decision("approve")]))
    assert "gives the numbers from the RESULT line" in ollama_server.requests[1]["messages"][-1]["content"]
    assert done.text == ("The suite has one failing test, test_mul.\n\n(devagent's count from the run: 1 passed, "
                         "1 failed.)")


async def test_an_edit_written_for_a_question_is_cut_while_it_streams(tmp_path: Path,
                                                                      ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    long_edit = '{"name": "edit_symbol", "arguments": {"path": "calc/text.py", "symbol": "shout", "code": "' + \
        "x = 1\\n" * 300 + '"}}'
    ollama_server.push(Reply(chunks=[long_edit[i:i + 20] for i in range(0, len(long_edit), 20)]),
                       Reply('{"name": "answer", "arguments": {"answer": "shout upper-cases its input."}}'))
    events, done, _ = await run_prompt(repo, ollama_server.url, "What does shout do?")
    assert len("".join(e.text for e in of(events, "text"))) < 200  # cut right after the tool name, not 300 lines
    assert "not for a change" in ollama_server.requests[1]["messages"][-1]["content"]
    assert done.text == "shout upper-cases its input."


async def test_an_echo_of_devagents_instruction_is_not_an_answer(tmp_path: Path,
                                                                 ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    ollama_server.push(Reply(tool_calls=[{"name": "read_file", "arguments": {"path": "calc/ops.py"}}]),
                       Reply("The developer asked: how many functions does calc/ops.py define? If that is done or "
                             "you can answer now, reply in plain text without JSON."),
                       Reply('{"name": "answer", "arguments": {"answer": "Two: add and mul."}}'))
    _, done, _ = await run_prompt(repo, ollama_server.url, "how many functions does calc/ops.py define")
    assert "That repeats my instruction" in ollama_server.requests[2]["messages"][-1]["content"]
    assert done.text == "Two: add and mul."


async def test_a_second_echo_is_never_the_answer(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen in the app on a fresh machine: asked what calc.py does, the model echoed the result's nudge, was
    told so, made a call, and echoed it again: that echo ended the turn as its answer."""
    repo = fx.build(tmp_path / "repo", FILES)
    echo = Reply("The developer asked: what does calc/ops.py do? If that is done or you can answer now, reply in "
                 "plain text without JSON. Otherwise reply with one JSON tool call.")
    ollama_server.push(echo, Reply('{"name": "outline", "arguments": {"path": "calc/ops.py"}}'), echo,
                       Reply('{"answer": "It defines add and mul."}'))
    events, done, _ = await run_prompt(repo, ollama_server.url, "what does calc/ops.py do?")
    assert done.text == "It defines add and mul."
    assert "repeated devagent's instruction again" in details(events)


BUGGY = {**FILES, "calc/ops.py": CALC.replace("return a * b", "return a * b + 1"),
         "tests/test_ops.py": "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"}



async def test_a_loop_inside_one_line_is_cut(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the benchmark: ``else f'{n}th' if n % 10 in [1, 2, 3] else ...`` for minutes, without a newline."""
    repo = fx.build(tmp_path / "repo", FILES)
    looping = "return f'{n}st' if n % 10 == 1 " + "else f'{n}th' if n % 10 in [1, 2, 3] " * 300
    ollama_server.push(Reply(chunks=[looping[i:i + 30] for i in range(0, len(looping), 30)]),
                       Reply("I could not fix it."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "fix ordinal")
    assert "the model wrote the same text over and over" in details(events)
    assert "".join(e.text for e in of(events, "text")).count("else f'{n}th'") < 20
    assert done.text == "I could not fix it."


async def test_a_reply_still_streaming_at_the_turns_time_limit_is_cut_for_the_answer(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    words = [f"step{i} " for i in range(400)]  # 20 s of text that never repeats
    ollama_server.push(Reply(chunks=words, delay=0.05),
                       Reply('{"answer": "I ran out of time before finding it."}'))
    events, done, _ = await run_prompt(repo, ollama_server.url, "fix ordinal", None,
                                       fast_config(repo, turn_seconds=1.5))
    assert "ran past the time for this request" in details(events)
    assert "step399" not in "".join(e.text for e in of(events, "text"))
    assert done.reason == "limit" and done.text == "I ran out of time before finding it."

async def test_a_failing_test_points_to_the_code_it_calls_and_tests_stay_when_asked(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", BUGGY)
    ollama_server.push(
        Reply(tool_calls=[{"name": "run_tests", "arguments": {"selection": "tests/test_ops.py"}}]),
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "tests/test_ops.py", "old": "== 6",
                                                               "new": "== 7"}}]),
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "calc/ops.py", "old": "a * b + 1",
                                                               "new": "a * b"}}]),
        Reply("Fixed mul."))
    approver = ScriptedApprover([Decision("approve")] * 3)
    _, done, _ = await run_prompt(repo, ollama_server.url, "tests/test_ops.py fails. Fix the bug without editing the "
                                  "tests.", approver)
    after_run = ollama_server.requests[1]["messages"][-1]["content"]
    assert "The failing test test_mul calls mul (defined in calc/ops.py)" in after_run
    assert "was changed by" not in after_run  # the bug came with the first commit: no recent change to show
    assert "the developer said not to edit the tests" in ollama_server.requests[2]["messages"][-1]["content"]
    assert (repo / "tests/test_ops.py").read_text() == BUGGY["tests/test_ops.py"]
    assert "return a * b\n" in (repo / "calc/ops.py").read_text() and done.text == "Fixed mul."


async def _why_it_fails_since_the_last_commit(tmp_path: Path, server: ScriptedOllama, good_ops: str, bad_ops: str,
                                              uncommitted: dict[str, str] | None = None) -> str:
    """calc/ops.py committed as ``good_ops``, then as ``bad_ops`` by the last commit; the model runs the failing
    tests when asked why they fail: what devagent said after that run."""
    import subprocess

    repo = fx.build(tmp_path / "repo", {**BUGGY, "calc/ops.py": good_ops})
    (repo / "calc/ops.py").write_text(bad_ops)
    subprocess.run(["git", "commit", "-qam", "the last commit"], cwd=repo, check=True)
    for path, text in (uncommitted or {}).items():
        (repo / path).write_text(text)
    server.push(Reply(tool_calls=[{"name": "run_tests", "arguments": {"selection": "tests/test_ops.py"}}]),
                Reply("Found it."))
    await run_prompt(repo, server.url, "tests/test_ops.py fails since my last commit; why?",
                     ScriptedApprover([Decision("approve")]))
    return server.requests[1]["messages"][-1]["content"]


async def test_a_function_broken_by_the_last_commit_is_shown_with_the_lines_it_changed(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    after_run = await _why_it_fails_since_the_last_commit(
        tmp_path, ollama_server, CALC, BUGGY["calc/ops.py"],
        {"calc/text.py": "def shout(s):\n    return s.upper() + '!'\n"})  # uncommitted, elsewhere
    assert ("mul was changed by the last commit. Those lines now read:\n    return a * b + 1\n"
            "Before that change they read:\n    return a * b\n") in after_run
    revert = after_run.split("put the old lines back:\n", 1)[1].splitlines()[0]  # the call that undoes it, as JSON
    assert json.loads(revert) == {"name": "edit_file", "arguments": {"path": "calc/ops.py", "old": "    return a * b + 1",
                                                                     "new": "    return a * b"}}
    assert "add" not in after_run.split("was changed by", 1)[1]  # only the lines of the function the test calls


async def test_a_failing_suite_is_run_first_and_the_fix_is_checked_on_the_tests_that_failed(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    import subprocess

    files = {**BUGGY, "calc/ops.py": CALC, "tests/test_text.py": FILES["tests/test_text.py"].replace(
        "from calc.text import shout", "from calc.ops import add\nfrom calc.text import shout")}
    repo = fx.build(tmp_path / "repo", files)
    (repo / "calc/ops.py").write_text(BUGGY["calc/ops.py"])
    subprocess.run(["git", "commit", "-qam", "tidy"], cwd=repo, check=True)
    fix = {"name": "edit_file", "arguments": {"path": "calc/ops.py", "old": "a * b + 1", "new": "a * b"}}
    ollama_server.push(Reply(tool_calls=[fix]), Reply("Fixed mul: it added one."))
    approver = ScriptedApprover([Decision("approve")] * 3)
    events, done, _ = await run_prompt(repo, ollama_server.url, "The test suite fails since my last commit. Fix the "
                                       "bug; don't edit the tests.", approver)
    first = "\n".join(m.get("content") or "" for m in ollama_server.requests[0]["messages"])
    assert "1 of 2 tests FAILED" in first and "mul was changed by the last commit" in first  # before any reply
    assert [p.tool for p in approver.asked] == ["run_tests", "edit_file", "run_tests"]
    checks = [n.message for n in of(events, "notice") if n.message.startswith("checking the change")]
    assert checks == ["checking the change: running the tests that failed before your change (tests/test_ops.py)"]
    assert done.text == "Fixed mul: it added one." and "return a * b\n" in (repo / "calc/ops.py").read_text()


async def test_a_named_file_left_unchanged_is_pointed_out_once(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    add = {"name": "edit_symbol", "arguments": {"path": "calc/ops.py", "symbol": "sub",
                                                "code": "def sub(a, b):\n    return a - b\n"}}
    export = {"name": "edit_file", "arguments": {"path": "calc/__init__.py", "old": "add, mul", "new": "add, mul, sub"}}
    ollama_server.push(Reply(tool_calls=[add]), Reply("Added sub and exported it."), Reply(tool_calls=[export]),
                       Reply("Added sub to calc/ops.py and exported it from calc/__init__.py."))
    approver = ScriptedApprover([Decision("approve")] * 2)
    _, done, _ = await run_prompt(repo, ollama_server.url, "Add sub(a, b) to calc/ops.py and export it in "
                                  "calc/__init__.py", approver, fast_config(repo, verify="off"))
    reminder = ollama_server.requests[2]["messages"][-1]["content"]
    assert reminder.startswith("Not finished yet") and "calc/__init__.py" in reminder and "calc/ops.py," not in reminder
    assert "sub" in (repo / "calc/__init__.py").read_text() and done.text.startswith("Added sub to calc/ops.py")


@pytest.mark.parametrize(("rest", "part"), [
    ("export it from the calc package", "calc/__init__.py"),  # the package's __init__.py, not named in the prompt
    ("tests for it in tests/test_sub.py", "tests/test_sub.py"),  # a file to create, not there yet
    ("add a test for it", "tests/test_ops.py"),  # the test file named after the changed module
    ("with a test", "tests/test_ops.py"),
])
async def test_a_part_the_request_implies_is_pointed_out_when_left_undone(
        tmp_path: Path, ollama_server: ScriptedOllama, rest: str, part: str) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    add = {"name": "edit_symbol", "arguments": {"path": "calc/ops.py", "symbol": "sub",
                                                "code": "def sub(a, b):\n    return a - b\n"}}
    ollama_server.push(Reply(tool_calls=[add]), Reply("Added sub, all done."), Reply("Done."))
    await run_prompt(repo, ollama_server.url, f"Add sub(a, b) to calc/ops.py and {rest}",
                     ScriptedApprover([Decision("approve")] * 2), fast_config(repo, verify="off"))
    reminder = ollama_server.requests[2]["messages"][-1]["content"]
    assert reminder.startswith("Not finished yet") and f"It names {part}" in reminder


def test_the_file_an_export_lands_in() -> None:
    from tui.engine.mentions import export_file

    files = ["src/humanize/__init__.py", "src/humanize/number.py", "src/humanize/i18n/__init__.py",
             "src/humanize/i18n/core.py", "lib/utils.js", "lib/index.js", "lib/parse.js"]
    prompt = "Add percentage() to number.py and export it from the humanize package"
    assert export_file(prompt, files, {"src/humanize/number.py"}) == "src/humanize/__init__.py"
    assert export_file("export it from the humanize package", files, {"src/humanize/i18n/core.py"}) == \
        "src/humanize/__init__.py"  # the package the request names, not the nearest one
    assert export_file("add it and export it", files, {"src/humanize/i18n/core.py"}) == "src/humanize/i18n/__init__.py"
    assert export_file("add merge() to lib/utils.js and export it", files, {"lib/utils.js"}) == "lib/index.js"
    # qs: lib/index.js loads parse, stringify and formats, never utils; utils' own module.exports is the place
    index = {"lib/index.js": "var stringify = require('./stringify');\nvar parse = require('./parse');\n"}
    assert export_file("add isEmpty to lib/utils.js and export it with the other utils", files, {"lib/utils.js"},
                       index.get) == ""
    assert export_file("add it to lib/parse.js and export it", files, {"lib/parse.js"}, index.get) == "lib/index.js"
    assert export_file("Add percentage() to number.py", files, {"src/humanize/number.py"}) == ""  # no export asked


async def test_a_definition_replaced_unread_is_shown_first(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    blind = {"name": "edit_symbol", "arguments": {"path": "calc/ops.py", "symbol": "mul",
                                                  "code": "def mul(a, b):\n    return a * b * 1\n"}}
    ollama_server.push(Reply(tool_calls=[blind]), Reply(tool_calls=[blind]), Reply("Done."))
    approver = ScriptedApprover([Decision("approve")])
    events, _, _ = await run_prompt(repo, ollama_server.url, "make the product multiply by one too", approver,
                                    fast_config(repo, verify="off"))
    shown = [(e.name, e.arguments, e.source) for e in of(events, "tool_call")]
    assert shown == [("outline", {"path": "calc/ops.py", "symbol": "mul"}, "auto"),
                     ("edit_symbol", blind["arguments"], "native")]
    assert "You had not read mul yet" in ollama_server.requests[1]["messages"][-1]["content"]
    assert [p.tool for p in approver.asked] == ["edit_symbol"] and "* 1" in (repo / "calc/ops.py").read_text()


async def test_a_named_file_left_unchanged_is_pointed_out_once_but_not_a_failing_tests_file(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    shout = {"name": "edit_symbol", "arguments": {"path": "calc/text.py", "symbol": "shout",
                                                  "code": "def shout(s):\n    return s.upper() + '!'\n"}}
    ollama_server.push(Reply(tool_calls=[shout]), Reply("Done: added the bang and exported shout."),
                       Reply("Exporting it needs no change."))
    approver = ScriptedApprover([Decision("approve")] * 3)
    config = fast_config(repo)
    config.model.verify = "off"
    await run_prompt(repo, ollama_server.url, "Add a bang to shout in calc/text.py and export it from "
                     "calc/__init__.py", approver, config)
    told = [m["content"] for r in ollama_server.requests for m in r["messages"] if m["role"] == "user"]
    assert sum("It names calc/__init__.py, which you have not changed" in t for t in told) == 1

    ollama_server.requests.clear()
    repo = fx.build(tmp_path / "repo2", FILES)
    fix = {"name": "edit_symbol", "arguments": {"path": "calc/ops.py", "symbol": "mul",
                                                "code": "def mul(a, b):\n    return a * b * 1\n"}}
    ollama_server.push(Reply(tool_calls=[fix]), Reply("Fixed mul."))
    await run_prompt(repo, ollama_server.url, "tests/test_ops.py::test_mul fails: fix mul in calc/ops.py",
                     ScriptedApprover([Decision("approve")] * 2), config)
    told = [m["content"] for r in ollama_server.requests for m in r["messages"] if m["role"] == "user"]
    assert not any("which you have not changed" in t for t in told)  # where a failure shows is not a target


async def test_a_grounding_hint_sent_back_as_the_answer_is_not_an_answer(tmp_path: Path,
                                                                          ollama_server: ScriptedOllama) -> None:
    """Seen in the app: asked what a function returns, the model answered with devagent's own 'run it' hint."""
    repo = fx.build(tmp_path / "repo", FILES)
    ollama_server.push(Reply("To see what shout does for an input, run it: one run_python call with code like from "
                             "calc.text import shout; print(repr(shout(...))) with the input in place of ..."),
                       Reply('{"name": "answer", "arguments": {"answer": "shout returns \'A\' for \'a\'."}}'))
    _, done, _ = await run_prompt(repo, ollama_server.url, "What does shout return for 'a'?")
    assert "run_python call" in ollama_server.requests[0]["messages"][-1]["content"]  # the hint was given
    assert "That repeats my instruction" in ollama_server.requests[1]["messages"][-1]["content"]
    assert done.text == "shout returns 'A' for 'a'."


async def test_a_count_question_naming_a_definition_gets_its_files_outline(tmp_path: Path,
                                                                           ollama_server: ScriptedOllama) -> None:
    """Seen on the tune half: "How many methods does LRUCache define" answered "5" with no tool at all."""
    files = {**FILES, "calc/cache.py": "class Base:\n    def a(self):\n        pass\n\n\nclass Lru(Base):\n"
             "    def __init__(self):\n        pass\n\n    def get(self, k):\n        pass\n\n"
             "    def _touch(self):\n        pass\n"}
    repo = fx.build(tmp_path / "repo", files)
    ollama_server.push(Reply("Lru defines 3 methods."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "How many methods does the Lru class define?")
    auto = [e for e in of(events, "tool_call") if e.source == "auto"]
    assert [(e.name, e.arguments) for e in auto] == [("outline", {"path": "calc/cache.py"})]
    sent = "\n".join(m.get("content") or "" for m in ollama_server.requests[0]["messages"])
    assert "class Lru (lines 6-14; 3 methods" in sent


async def test_an_edit_of_a_file_named_after_a_class_points_to_the_file_that_defines_it(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the tune half: edit_symbol on src/cachetools/LRUCache.py (no such file), told "use write_file"."""
    repo = fx.build(tmp_path / "repo", {**FILES, "calc/cache.py": "class Lru:\n    def get(self, k):\n"
                                        "        return k\n"})
    peek = {"name": "edit_symbol", "arguments": {"path": "calc/Lru.py", "symbol": "peek",
                                                 "code": "def peek(self, k):\n    return k\n"}}
    ollama_server.push(Reply(tool_calls=[peek]), Reply("I could not add it."))
    await run_prompt(repo, ollama_server.url, "Add a peek method to Lru", ScriptedApprover([]))
    told = ollama_server.requests[1]["messages"][-1]["content"]
    assert "calc/Lru.py does not exist. Lru is defined in calc/cache.py" in told and "write_file" not in told
    assert not (repo / "calc/Lru.py").exists()


async def test_a_new_file_copying_a_class_the_repo_defines_is_refused_with_the_real_file(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the tune half: write_file src/cachetools/LRUCache.py with a new LRUCache holding only peek()."""
    repo = fx.build(tmp_path / "repo", {**FILES, "calc/cache.py": "class Lru:\n    def get(self, k):\n"
                                        "        return k\n"})
    copy = {"name": "write_file", "arguments": {"path": "calc/Lru.py", "content": "class Lru:\n    def peek(self, k):"
                                                "\n        return k\n"}}
    new = {"name": "write_file", "arguments": {"path": "calc/stack.py", "content": "class Stack:\n    pass\n"}}
    ollama_server.push(Reply(tool_calls=[copy]), Reply(tool_calls=[new]), Reply("Added Stack."))
    approver = ScriptedApprover([Decision("approve")])
    await run_prompt(repo, ollama_server.url, "Add a peek method to Lru and a Stack class in calc/stack.py", approver,
                     fast_config(repo, verify="off"))
    told = ollama_server.requests[1]["messages"][-1]["content"]
    assert "calc/Lru.py does not exist, and Lru is already defined in calc/cache.py" in told
    assert not (repo / "calc/Lru.py").exists() and (repo / "calc/stack.py").exists()  # a new class is a new file


async def test_the_json_skeleton_run_as_given_is_refused(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the tune half: the skeleton's placeholder line run as is, rewriting the file unchanged."""
    repo = fx.build(tmp_path / "repo", {**FILES, "data/feeds.json": '[{"url": " a "}]\n'})
    from tui.engine.grounding import data_skeleton as _skeleton

    code = _skeleton("data/feeds.json").split("\n", 1)[1]
    ollama_server.push(Reply(tool_calls=[{"name": "run_python", "arguments": {"code": code}}]), Reply("Done."))
    approver = ScriptedApprover([Decision("approve")])
    await run_prompt(repo, ollama_server.url, "Strip the urls in data/feeds.json", approver)
    assert approver.asked == []  # refused before it could be proposed
    assert "replace it with the code that makes the change" in ollama_server.requests[1]["messages"][-1]["content"]


async def test_a_model_that_keeps_editing_the_tests_is_pointed_at_the_code_then_asked_for_its_answer(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", BUGGY)
    edit_test = Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "tests/test_ops.py", "old": "== 6",
                                                                      "new": "== 7"}}])
    ollama_server.push(Reply(tool_calls=[{"name": "run_tests", "arguments": {"selection": "tests/test_ops.py"}}]),
                       edit_test, edit_test, edit_test,
                       Reply('{"answer": "I could not fix mul."}'))
    events, done, _ = await run_prompt(repo, ollama_server.url, "tests/test_ops.py fails. Fix the bug without "
                                       "editing the tests.", ScriptedApprover([Decision("approve")]))
    refusal = ollama_server.requests[2]["messages"][-1]["content"]
    assert "the developer said not to edit the tests" in refusal
    assert "The failing test test_mul calls mul (defined in calc/ops.py)" in refusal  # the pointer, said again
    refused = [n for n in of(events, "detail") if "which the request rules out" in n.text]
    assert len(refused) == 3 and len(ollama_server.requests) == 5, "the third refusal asks for the answer"
    assert done.text == "I could not fix mul." and (repo / "tests/test_ops.py").read_text() == BUGGY["tests/test_ops.py"]


async def test_what_the_grounding_found_is_said_again_when_a_question_drifts(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the tune half: told up front that unparse's description matches, the model outlined parse, tried
    an edit for the question and answered "parse". The reminder and the forced answer repeat the finding."""
    files = {**FILES, "calc/words.py": ('def split_words(text):\n    """Break a sentence into its words."""\n'
                                        '    return text.split()\n\n\ndef join_slug(words):\n'
                                        '    """Glue a list of words back into one dashed slug."""\n'
                                        '    return "-".join(words)\n')}
    repo = fx.build(tmp_path / "repo", files)
    edit = {"name": "edit_symbol", "arguments": {"path": "calc/words.py", "symbol": "split_words",
                                                 "code": "def split_words(text):\n    return text.split(' ')\n"}}
    ollama_server.push(Reply(tool_calls=[edit]), Reply(tool_calls=[edit]), Reply('{"answer": "join_slug."}'))
    _, done, _ = await run_prompt(repo, ollama_server.url, "Which function glues words back into a slug?",
                                  ScriptedApprover([]))
    reminder = ollama_server.requests[1]["messages"][-1]["content"]
    forced = ollama_server.requests[2]["messages"][-1]["content"]
    for text in (reminder, forced):
        assert "What devagent found for this question:" in text
        assert "calc/words.py: join_slug: Glue a list of words back into one dashed slug." in text
    assert done.text == "join_slug."


async def test_a_change_elsewhere_in_the_called_functions_file_is_shown_with_where_it_is(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the tune half: the test calls parse(), the last commit broke a helper method parse() uses."""
    good = CALC.replace("return a * b", "return a * b * _factor()") + "\n\ndef _factor():\n    return 1\n"
    after_run = await _why_it_fails_since_the_last_commit(tmp_path, ollama_server, good,
                                                          good.replace("return 1", "return 2"))
    assert ("calc/ops.py was changed by the last commit, in _factor (mul may depend on it). Those lines now read:\n"
            "    return 2\nBefore that change they read:\n    return 1\n") in after_run


async def test_a_problem_an_earlier_edit_made_stays_named_until_fixed_and_done_waits_for_it(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the tune half: peek() read self.cache (no such attribute); the next edit only repeated lines,
    its result said nothing (the problem was not new to it) and the turn ended "Added peek"."""
    lru = "class LRU:\n    def __init__(self):\n        self.data = {}\n\n    def get(self, key):\n        return self.data[key]\n"
    repo = fx.build(tmp_path / "repo", {"lru.py": lru})
    peek = "    def peek(self, key, default=None):\n        return self.cache.get(key, default)\n"
    ollama_server.push(
        Reply(tool_calls=[{"name": "edit_symbol", "arguments": {"path": "lru.py", "symbol": "LRU.peek", "code": peek}}]),
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "lru.py", "old": "        self.data = {}",
                                                               "new": "        self.data = {}  # key -> value"}}]),
        Reply("Added peek to LRU."),
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "lru.py", "old": "self.cache.get",
                                                               "new": "self.data.get"}}]),
        Reply("Added peek to LRU."),
        Reply("Added peek to LRU."))  # after the request to run the new method (no test calls it)
    _, done, _ = await run_prompt(repo, ollama_server.url, "Add a peek(key, default=None) method to LRU.",
                                  ScriptedApprover([Decision("approve")] * 3))
    second = ollama_server.requests[2]["messages"][-1]["content"]
    assert "problems this request's edits introduced" in second and "self.cache" in second  # still named
    pushed = ollama_server.requests[3]["messages"][-1]["content"]
    assert pushed.startswith("Not done yet: your change still has these problems:") and "self.cache" in pushed
    assert "self.data.get(key, default)" in (repo / "lru.py").read_text() and done.text == "Added peek to LRU."


async def test_an_add_a_test_turn_that_added_no_test_is_shown_a_test_to_copy(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the tune half: asked to add a test to test/parse.js, the model appended a helper function named
    after the option; the suite ran with as many tests as before and the turn ended "Added a test"."""
    repo = fx.build(tmp_path / "repo", FILES)
    helper = "import pytest\n\n\n@pytest.fixture\ndef word():\n    return 'a'\n"  # a fixture alone: no test
    test = "def test_shout_empty():\n    assert shout('') == ''\n"
    ollama_server.push(
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "tests/test_text.py", "old": "", "new": helper}}]),
        Reply("Added a test for an empty string."),
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "tests/test_text.py", "old": "", "new": test}}]),
        Reply("Added test_shout_empty."))
    _, done, _ = await run_prompt(repo, ollama_server.url, "Add a test to tests/test_text.py checking that shout "
                                  "of an empty string is empty.", ScriptedApprover([Decision("approve")] * 4))
    told = ollama_server.requests[2]["messages"][-1]["content"]
    assert told.startswith("Not done yet: tests/test_text.py has 1 tests, as many as before your change")
    assert "def test_shout():\n    assert shout('a') == 'A'" in told  # the file's own test, to copy its form
    assert "def test_shout_empty" in (repo / "tests/test_text.py").read_text() and done.text == "Added test_shout_empty."


def test_test_cases_are_counted_the_way_each_runner_defines_them() -> None:
    from tui.engine.testexample import count_tests

    tape = ("var test = require('tape');\ntest('parse', function (t) {\n  t.test('nested', function (st) {"
            " st.end(); });\n  t.end();\n});\nfunction ignoreQueryPrefix(str) { return str; }\n")
    assert count_tests("test/parse.js", tape) == 2
    assert count_tests("test/x.spec.ts", "describe('a', () => {\n  it('b', () => {});\n  it.only(\"c\", f);\n});\n") == 2
    py = "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n\n\ndef test_b():\n    pass\n"
    assert count_tests("tests/test_x.py", py) == 2 and count_tests("tests/test_x.py", "def (") is None


async def test_a_forced_answer_that_is_no_answer_still_tells_the_developer_something(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    outline = Reply(tool_calls=[{"name": "outline", "arguments": {"path": "calc/ops.py"}}])
    ollama_server.push(outline, outline, outline, Reply('{"name": "outline", "arguments": {"path": "calc/ops.py"}}'))
    _, done, _ = await run_prompt(repo, ollama_server.url, "what does calc/ops.py do?")
    assert done.reason == "limit" and done.text == "The model gave no answer. No file was changed."


async def test_an_add_a_test_turn_is_checked_for_a_new_test_before_the_done_question(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """The same, with calls written as text (the embedded model's way): the done question came first and
    its "done": true ended the turn before the missing test was noticed."""
    repo = fx.build(tmp_path / "repo", FILES)
    helper = json.dumps({"name": "edit_file", "arguments": {"path": "tests/test_text.py", "old": "",
                                                            "new": "import pytest\n\n\n@pytest.fixture\ndef word():\n    return 'a'\n"}})
    test = json.dumps({"name": "edit_file", "arguments": {"path": "tests/test_text.py", "old": "",
                                                          "new": "def test_shout_empty():\n    assert shout('') == ''\n"}})
    ollama_server.push(Reply(helper), Reply(test), Reply('{"done": true, "answer": "Added test_shout_empty."}'))
    _, done, _ = await run_prompt(repo, ollama_server.url, "Add a test to tests/test_text.py checking that shout "
                                  "of an empty string is empty.", ScriptedApprover([Decision("approve")] * 4))
    told = ollama_server.requests[1]["messages"][-1]["content"]
    assert told.startswith("Not done yet: tests/test_text.py has 1 tests, as many as before your change")
    assert "def test_shout_empty" in (repo / "tests/test_text.py").read_text() and done.text == "Added test_shout_empty."


async def test_a_new_method_no_test_calls_is_run_once_before_the_turn_ends(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the dev set: a new FIFOCache.first_key() copied popitem's ``raise KeyError`` where the request said
    "or None when empty"; the module's tests passed (none calls it) and the turn ended "done". Now the model is
    asked once to run the new method; what the run shows goes back to it, and the fix is made."""
    files = {**FILES, "calc/stack.py": "class Stack:\n    def __init__(self):\n        self.items = []\n",
             "tests/test_stack.py": "from calc.stack import Stack\n\n\ndef test_new():\n    assert Stack().items == []\n"}
    repo = fx.build(tmp_path / "repo", files)
    wrong = "def top(self):\n    if not self.items:\n        raise KeyError('empty')\n    return self.items[-1]\n"
    right = "def top(self):\n    return self.items[-1] if self.items else None\n"
    run = "from calc.stack import Stack\nprint(Stack().top())\n"
    ollama_server.push(
        Reply(tool_calls=[{"name": "edit_symbol", "arguments": {"path": "calc/stack.py", "symbol": "Stack.top",
                                                                 "code": wrong}}]),
        Reply("I added Stack.top."),
        Reply(tool_calls=[{"name": "run_python", "arguments": {"code": run}}]),
        Reply(tool_calls=[{"name": "edit_symbol", "arguments": {"path": "calc/stack.py", "symbol": "Stack.top",
                                                                 "code": right}}]),
        Reply("Stack.top returns the last item, or None when the stack is empty."))
    approver = ScriptedApprover([Decision("approve")] * 8)
    events, done, _ = await run_prompt(repo, ollama_server.url,
                                       "Add a method top() to Stack that returns the last item, or None when empty",
                                       approver, fast_config(repo))
    asked = "\n".join(m.get("content") or "" for m in ollama_server.requests[2]["messages"])
    assert "adds the method Stack.top in calc/stack.py, and no test calls it" in asked
    assert "'from calc.stack import Stack'" in asked
    after_run = "\n".join(m.get("content") or "" for m in ollama_server.requests[3]["messages"])
    assert "KeyError" in after_run  # the run's traceback is what the model sees next
    assert done.reason == "complete" and "None when the stack is empty" in done.text
    assert "else None" in (repo / "calc/stack.py").read_text()
    assert details(events).count("no test calls Stack.top") == 1  # asked once, not after the fix again


async def test_a_new_function_a_changed_test_calls_is_not_run_again(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    ollama_server.push(
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "calc/ops.py", "old": "",
                                                               "new": "\n\ndef neg(a):\n    return -a\n"}}]),
        Reply(tool_calls=[{"name": "edit_file", "arguments": {
            "path": "tests/test_ops.py", "old": "",
            "new": "\n\ndef test_neg():\n    from calc.ops import neg\n    assert neg(2) == -2\n"}}]),
        Reply("I added neg and a test for it."))
    approver = ScriptedApprover([Decision("approve")] * 6)
    events, done, _ = await run_prompt(repo, ollama_server.url, "Add a function neg(a) to calc/ops.py with a test",
                                       approver, fast_config(repo))
    assert done.reason == "complete" and "no test calls" not in details(events)


async def test_a_check_that_cannot_start_at_a_file_the_change_edited_goes_back_to_the_model(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the dev set (qs): an appended tape test with a quote left open stopped the run before any test
    ("SyntaxError: Unexpected string"), and the turn ended "complete". A run that cannot start at a file this turn
    changed is the change's doing: it goes back to the model."""
    repo = fx.build(tmp_path / "repo", {**FILES, "tests/conftest.py": "import os\n"})
    broken = "\n\nraise RuntimeError('left open')\n"
    ollama_server.push(
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "tests/conftest.py", "old": "", "new": broken}}]),
        Reply("I changed the test setup."),
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "tests/conftest.py", "old": broken.strip(),
                                                               "new": "# fixed"}}]),
        Reply("I changed the test setup and fixed it."))
    approver = ScriptedApprover([Decision("approve")] * 6)
    events, done, _ = await run_prompt(repo, ollama_server.url, "Change the test setup in tests/conftest.py",
                                       approver, fast_config(repo))
    told = "\n".join(m.get("content") or "" for m in ollama_server.requests[2]["messages"])
    assert "could not even start" in told and "tests/conftest.py" in told
    assert done.text == "I changed the test setup and fixed it."


async def test_tests_that_pin_the_value_a_request_changes_do_not_undo_the_change(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the dev set: "show four digits by default instead of three" was made in one edit; the check's
    failures (tests expecting three digits) came back as "fix the code", with a pointer to the function, and the
    model put the old default back. For a value-change request those failures are expected: the change stays."""
    files = {**FILES, "calc/ops.py": CALC + "\n\ndef scale(x, factor=2):\n    return x * factor\n",
             "tests/test_ops.py": FILES["tests/test_ops.py"] + "\n\ndef test_scale():\n    from calc.ops import scale\n"
                                                               "    assert scale(1) == 2\n"}
    repo = fx.build(tmp_path / "repo", files)
    ollama_server.push(
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "calc/ops.py", "old": "factor=2", "new": "factor=3"}}]),
        Reply("scale now uses 3 by default."),
        Reply("scale now uses 3 by default; tests/test_ops.py::test_scale expects the old default of 2."))
    approver = ScriptedApprover([Decision("approve")] * 4)
    events, done, _ = await run_prompt(repo, ollama_server.url, "Make scale use 3 by default instead of 2.",
                                       approver, fast_config(repo))
    told = "\n".join(m.get("content") or "" for m in ollama_server.requests[2]["messages"])
    assert "Your change stays: do not undo it." in told and "Unless the test itself is wrong" not in told
    assert done.reason == "complete" and "expects the old default" in done.text
    assert "factor=3" in (repo / "calc/ops.py").read_text()
    assert any("the change is kept" in e.message for e in of(events, "notice"))


async def test_a_run_python_call_whose_code_loops_is_run_with_the_repeats_kept_once(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the dev set: asked to try its new method, the model wrote ``print(cache.first_key())`` forty times;
    the cut reply was dropped twice and the method never ran. The code up to the loop runs, each repeat once."""
    repo = fx.build(tmp_path / "repo", FILES)
    looping = '{"name": "run_python", "arguments": {"code": "from calc import add\\n' + \
        "print(add(1, 2))\\n" * 300 + '"}}'
    ollama_server.push(Reply(chunks=[looping[i:i + 40] for i in range(0, len(looping), 40)], delay=0.002),
                       Reply("add(1, 2) is 3."))
    approver = ScriptedApprover([Decision("approve")] * 2)
    events, done, _ = await run_prompt(repo, ollama_server.url, "What does add(1, 2) give? Run it.", approver)
    assert "repeated itself; running it with each repeat once" in details(events)
    runs = [p for p in approver.asked if p.tool == "run_python"]
    assert len(runs) == 1 and runs[0].arguments["code"] == "from calc import add\nprint(add(1, 2))\n"
    from tui.engine.modelstep import salvage_looped_run

    assert salvage_looped_run('{"name": "write_file", "arguments": {"content": "x\\nx\\n') is None  # run_python only
    assert salvage_looped_run('{"name": "run_python", "arguments": {"code": "if x:\\n') is None  # must compile


async def test_a_new_test_that_calls_nothing_the_request_names_is_pointed_out_once(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the dev set (qs): asked for isEmpty and a test for it, the model appended a copy of the file's
    first test (it called utils.combine), the suite passed, and the turn ended with no test of isEmpty."""
    repo = fx.build(tmp_path / "repo", FILES)
    copy = "\n\ndef test_add_again():\n    assert add(2, 3) == 5\n"
    real = "\n\ndef test_neg():\n    from calc.ops import neg\n    assert neg(2) == -2\n"
    ollama_server.push(
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "calc/ops.py", "old": "",
                                                               "new": "\n\ndef neg(a):\n    return -a\n"}}]),
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "tests/test_ops.py", "old": "", "new": copy}}]),
        Reply("I added neg and a test."),
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "tests/test_ops.py", "old": "", "new": real}}]),
        Reply("I added neg and a test for it."))
    approver = ScriptedApprover([Decision("approve")] * 8)
    events, done, _ = await run_prompt(repo, ollama_server.url,
                                       "Add a function neg(a) to calc/ops.py and add a test for it to tests/test_ops.py",
                                       approver, fast_config(repo))
    told = "\n".join(m.get("content") or "" for m in ollama_server.requests[3]["messages"])
    assert "the test you added does not call neg" in told and 'old "" adds it at the end of tests/test_ops.py' in told
    assert done.text == "I added neg and a test for it." and "def test_neg" in (repo / "tests/test_ops.py").read_text()


async def test_a_run_of_the_new_method_that_prints_nothing_is_asked_to_print(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the tune half: asked to run its new peek(), the model called it ten times and printed nothing
    ("exit code 0, no output"), then answered that it works; it returned None for every key."""
    files = {**FILES, "calc/stack.py": "class Stack:\n    def __init__(self):\n        self.items = []\n"}
    repo = fx.build(tmp_path / "repo", files)
    ollama_server.push(
        Reply(tool_calls=[{"name": "edit_symbol", "arguments": {"path": "calc/stack.py", "symbol": "Stack.top",
                                                                 "code": "def top(self):\n    return None\n"}}]),
        Reply("I added Stack.top."),
        Reply(tool_calls=[{"name": "run_python", "arguments": {"code": "from calc.stack import Stack\nStack().top()\n"}}]),
        Reply(tool_calls=[{"name": "run_python", "arguments": {
            "code": "from calc.stack import Stack\nprint(Stack().top())\n"}}]),
        Reply("Stack.top returns None for an empty stack."))
    approver = ScriptedApprover([Decision("approve")] * 6)
    _, done, _ = await run_prompt(repo, ollama_server.url, "Add a method top() to Stack that returns the last item",
                                  approver, fast_config(repo))
    told = "\n".join(m.get("content") or "" for m in ollama_server.requests[3]["messages"])
    assert "That run printed nothing" in told
    assert [p.arguments["code"] for p in approver.asked if p.tool == "run_python"][-1].startswith(
        "from calc.stack import Stack\nprint(")
    assert done.text == "Stack.top returns None for an empty stack."


async def test_an_add_a_test_edit_that_rewrites_an_existing_test_is_sent_back(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on minimist (outside the benchmark): asked to add a test, the model replaced a value inside an
    existing test, changing what it checks; it landed with --yes. Now it is sent back before it is proposed,
    and appending the new test goes through."""
    repo = fx.build(tmp_path / "repo", FILES)
    rewrite = {"path": "tests/test_text.py", "old": "assert shout('a') == 'A'", "new": "assert shout('') == ''"}
    test = "\n\ndef test_shout_empty():\n    assert shout('') == ''\n"
    ollama_server.push(
        Reply(tool_calls=[{"name": "edit_file", "arguments": rewrite}]),
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "tests/test_text.py", "old": "", "new": test}}]),
        Reply("Added test_shout_empty."), Reply("Added test_shout_empty."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "Add a test to tests/test_text.py checking that "
                                       "shout of an empty string is empty.", ScriptedApprover([Decision("approve")] * 4))
    told = ollama_server.requests[1]["messages"][-1]["content"]
    assert told.startswith("Not done: that edit changes existing lines of tests/test_text.py (line 5:")
    assert not [e for e in events if getattr(e, "proposal", None) and e.proposal.arguments.get("old")]  # never proposed
    text = (repo / "tests/test_text.py").read_text()
    assert "assert shout('a') == 'A'" in text and "def test_shout_empty():" in text
    # a request to change a test may change it
    repo2 = fx.build(tmp_path / "repo2", FILES)
    ollama_server._queue.clear()  # whatever the first turn left unread
    ollama_server.push(Reply(tool_calls=[{"name": "edit_file", "arguments": rewrite}]), Reply("Changed."),
                       Reply("Changed."))
    await run_prompt(repo2, ollama_server.url, "Change the test in tests/test_text.py to check an empty string.",
                     ScriptedApprover([Decision("approve")] * 3))
    assert "assert shout('') == ''" in (repo2 / "tests/test_text.py").read_text()


async def test_an_add_a_test_edit_symbol_over_an_existing_test_takes_a_name_of_its_own(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """itsdangerous probe (outside the benchmark): asked for a new test, the model wrote it over an existing test
    with edit_symbol; sent back, a 1.5B model resends the same call (held-out xmltodict: twelve times, until the
    turn ran out). The new code goes in under a name of its own, the old test stays, and a resend revises it."""
    repo = fx.build(tmp_path / "repo", FILES)
    over = {"path": "tests/test_text.py", "symbol": "test_shout", "code": "def test_shout():\n    assert shout('') == ''"}
    again = {**over, "code": "def test_shout():\n    assert shout('') == ''\n    assert shout('b') == 'B'"}
    ollama_server.push(Reply(tool_calls=[{"name": "edit_symbol", "arguments": over}]),
                       Reply(tool_calls=[{"name": "edit_symbol", "arguments": again}]),
                       Reply("Added test_shout_2."), Reply("Added test_shout_2."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "Add a test for shout that checks an empty string.",
                                       ScriptedApprover([Decision("approve")] * 4))
    text = (repo / "tests/test_text.py").read_text()
    assert "assert shout('a') == 'A'" in text, "the existing test is kept"
    assert text.count("def test_shout_2():") == 1 and "def test_shout_3" not in text
    assert "assert shout('b') == 'B'" in text, "the resend revised the test this turn added"
    assert any("test_shout is an existing test; the new one is added as test_shout_2" in getattr(e, "message", "")
               for e in events)


async def test_an_edit_of_a_definition_the_request_does_not_name_is_sent_back_once(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on pluggy (outside the benchmark): asked to fix get_name, the model replaced the first class of the
    module. The request names mul; replacing add is sent back with mul's code, and the retry goes through."""
    repo = fx.build(tmp_path / "repo", FILES)
    wrong = {"path": "calc/ops.py", "symbol": "add", "code": "def add(a, b):\n    return a * b * 1\n"}
    right = {"path": "calc/ops.py", "symbol": "mul", "code": "def mul(a, b):\n    return b * a\n"}
    ollama_server.push(Reply(tool_calls=[{"name": "edit_symbol", "arguments": wrong}]),
                       Reply(tool_calls=[{"name": "edit_symbol", "arguments": right}]),
                       Reply("mul now multiplies b by a."), Reply("mul now multiplies b by a."))
    await run_prompt(repo, ollama_server.url, "Make mul multiply b by a instead of a by b.",
                     ScriptedApprover([Decision("approve")] * 4))
    told = ollama_server.requests[1]["messages"][-1]["content"]
    assert "That names mul (calc/ops.py line 5; its code is above), not add." in told
    assert "def mul(a, b):\n    return a * b" in ollama_server.requests[1]["messages"][-2]["content"]  # shown
    text = (repo / "calc/ops.py").read_text()
    assert "return a + b" in text and "return b * a" in text


async def test_add_a_test_code_that_defines_no_test_is_sent_back(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """pluggy (outside the benchmark): asked for a test of is_blocked, the model wrote a copy of is_blocked itself
    into the test file. It is sent back before it is proposed; the test that follows goes in."""
    repo = fx.build(tmp_path / "repo", FILES)
    copy = {"path": "tests/test_text.py", "symbol": "shout", "code": "def shout(s):\n    return s.upper()\n"}
    test = "\n\ndef test_shout_empty():\n    assert shout('') == ''\n"
    ollama_server.push(
        Reply(tool_calls=[{"name": "edit_symbol", "arguments": copy}]),
        Reply(tool_calls=[{"name": "edit_file", "arguments": {"path": "tests/test_text.py", "old": "", "new": test}}]),
        Reply("Added test_shout_empty."), Reply("Added test_shout_empty."))
    await run_prompt(repo, ollama_server.url, "Add a test to tests/test_text.py checking that shout of an empty "
                     "string is empty.", ScriptedApprover([Decision("approve")] * 4))
    told = ollama_server.requests[1]["messages"][-1]["content"]
    assert told.startswith("Not done: shout is not a test: pytest runs only functions named test_...")
    text = (repo / "tests/test_text.py").read_text()
    assert "def shout" not in text and "def test_shout_empty():" in text


async def test_an_answer_after_a_constrained_step_is_shown_and_a_claim_of_nothing_done_is_pushed_back(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Tried in the app against the scripted server: after devagent showed the model the method it was about
    to replace blind, the model answered "Calc.add now returns a + b." with no change made; the turn ended
    "complete", the app showed no answer at all, and the claim stood. Now the claim is pushed back once, and
    the answer that ends the turn reaches the front end as text."""
    files = {"calc.py": "class Calc:\n    def add(self, a, b):\n        return a - b\n"}
    repo = fx.build(tmp_path / "repo", files)
    blind = {"path": "calc.py", "symbol": "Calc.add", "code": "def add(self, a, b):\n    return a + b\n"}
    ollama_server.push(Reply(tool_calls=[{"name": "edit_symbol", "arguments": blind}]),
                       Reply("Calc.add now returns a + b."), Reply("I could not make the change."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "make Calc.add return a + b")
    told = ollama_server.requests[2]["messages"][-1]["content"]
    assert told.startswith("You said a change was made, but no file was changed in this turn.")
    assert done.text == "I could not make the change."
    assert [e.text for e in of(events, "text_done")][-1] == "I could not make the change."  # shown
    assert (repo / "calc.py").read_text() == files["calc.py"]


def test_the_note_on_a_claimed_change_tells_what_stands_when_only_the_last_edit_failed() -> None:
    """Dev set: first_key was added, a later edit_file failed, and the forced answer got "(devagent: no file was
    changed by this request; ...)": the file had changed, and the developer was told it had not."""
    from tui.engine.checks import honest
    from tui.engine.turnstate import Turn as _Turn

    turn = _Turn(changed=True, failed_change="your edit_file call failed (the text to replace was not found)")
    turn.touched.add("src/cachetools/__init__.py")
    said = honest("I added first_key to FIFOCache.", turn)  # in the developer's words, not the model's note
    assert said == "This request changed src/cachetools/__init__.py; its last change did not happen."
    assert honest("I added first_key to FIFOCache.", _Turn(failed_change="it failed")) == "No file was changed."
    assert honest("first_key is defined in FIFOCache.", _Turn()) == ""  # no claim of a change: nothing to say


async def test_a_new_test_that_fails_on_the_code_is_corrected_not_the_code(tmp_path: Path,
                                                                         ollama_server: ScriptedOllama) -> None:
    """An add-a-test request whose new test fails on the code as it is: the test's expectation is what is wrong,
    so the model is told to correct the test and leave the code (told "fix the code", it changed the function
    under test to match its own wrong expected value)."""
    repo = fx.build(tmp_path / "repo", FILES)
    wrong = {"path": "tests/test_text.py", "old": "", "new": "def test_shout_empty():\n    assert shout('') == ' '\n"}
    ollama_server.push(Reply(tool_calls=[{"name": "edit_file", "arguments": wrong}]), Reply("Added the test."),
                       Reply("I will leave it."))
    await run_prompt(repo, ollama_server.url, "Add a test to tests/test_text.py checking shout of an empty string.",
                     ScriptedApprover([Decision("approve")] * 3), fast_config(repo, check_done="off"))
    told = [m["content"] for r in ollama_server.requests for m in r["messages"] if m["role"] == "user"]
    assert any("the test you added fails on the code as it is" in t and "Do not change the code" in t for t in told)
    assert not any("Fix the code with one JSON tool call" in t for t in told)
