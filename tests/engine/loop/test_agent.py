"""Whole agent turns: the real ollama client against the scripted server, in real git repos."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import git
from tests.core.agent_helpers import ScriptedApprover, details, fast_config, of, run_prompt, sent_text, types
from tests.ollama_server import Reply, ScriptedOllama
from tui.protocol.proposals import Decision


def call(name: str, **arguments: object) -> dict:
    return {"name": name, "arguments": arguments}


async def test_native_tool_call_then_streamed_answer(repo: Path, ollama_server: ScriptedOllama) -> None:
    """A server that sends native calls (ignoring the schema) is still understood; plain prose is the answer."""
    ollama_server.push(Reply(tool_calls=[call("read_file", path="app.py")]), Reply("It adds two numbers."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "what does the module do?")
    assert done.reason == "complete"
    assert [e.name for e in of(events, "tool_call")] == ["read_file"]
    assert of(events, "tool_result")[0].ok
    assert "".join(e.text for e in of(events, "text")) == "It adds two numbers."
    assert "return a + b" in sent_text(ollama_server.requests[1]), "the file content went back to the model"
    assert ollama_server.requests[0]["format"]["anyOf"], "every reply is asked for under the tools' schema"


async def test_json_in_text_call_is_understood(repo: Path, ollama_server: ScriptedOllama) -> None:
    """A server that does not honour the schema writes the call into prose: the text-call parser reads it."""
    ollama_server.push(Reply('Let me look.\n```json\n{"tool": "read_file", "args": {"path": "README.md"}}\n```'),
                       Reply("It is a demo."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "what is this?")
    assert done.reason == "complete"
    assert [e.name for e in of(events, "tool_call")] == ["read_file"]
    assert "# demo" in sent_text(ollama_server.requests[1])


async def test_a_constrained_call_runs_and_the_answer_call_ends_the_turn(repo: Path,
                                                                        ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(json.dumps(call("read_file", path="app.py"))),
                       Reply(json.dumps(call("answer", text="It defines `add`, in __init__-free app.py."))))
    events, done, _ = await run_prompt(repo, ollama_server.url, "what is in the module?")
    assert done.reason == "complete" and done.text == "It defines `add`, in __init__-free app.py."
    assert "".join(e.text for e in of(events, "text")) == done.text, "the answer streams from inside the JSON"
    assert not any('"name"' in e.text for e in of(events, "text")), "no raw call reaches the conversation"


async def test_bash_block_becomes_an_approved_sandboxed_command(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply("Run this:\n```bash\necho hello > out.txt && cat out.txt\n```"), Reply("Done."))
    approver = ScriptedApprover([Decision("approve")])
    events, done, _ = await run_prompt(repo, ollama_server.url, "make out.txt", approver)
    assert done.reason == "complete"
    assert approver.asked[0].command == "echo hello > out.txt && cat out.txt"
    assert (repo / "out.txt").read_text() == "hello\n"
    assert "hello" in "".join(e.text for e in of(events, "command_output"))
    result = sent_text(ollama_server.requests[1])
    assert "exit code 0" in result and "out.txt" in result, "output and the diff it made went back to the model"


async def test_rejection_reason_reaches_the_model_and_nothing_changes(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(tool_calls=[call("write_file", path="app.py", content="print('rewritten')\n")]),
                       Reply("Understood."))
    approver = ScriptedApprover([Decision("reject", reason="keep the add function")])
    events, done, _ = await run_prompt(repo, ollama_server.url, "rewrite app.py", approver)
    assert done.reason == "complete"
    assert "keep the add function" in sent_text(ollama_server.requests[1])
    assert git(repo, "status", "--porcelain") == ""
    assert of(events, "decision")[0].decision == "reject"


async def test_approved_edit_changes_exactly_that_file(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(
        Reply(tool_calls=[call("edit_file", path="app.py", old="return a + b", new="return b + a")]),
        Reply("Swapped."))
    approver = ScriptedApprover([Decision("approve")])
    events, done, _ = await run_prompt(repo, ollama_server.url, "swap operands", approver)
    assert done.reason == "complete"
    assert approver.asked[0].kind == "edit" and "-    return a + b" in (approver.asked[0].diff or "")
    assert (repo / "app.py").read_text() == "def add(a, b):\n    return b + a\n"
    assert git(repo, "status", "--porcelain") == " M app.py\n"
    assert git(repo, "diff", "--cached") == "", "an approved edit is not staged"
    assert of(events, "checkpoint"), "a checkpoint is taken before the edit"


async def test_edit_with_missing_text_and_escaping_paths_are_reported_to_the_model(
        repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(
        Reply(tool_calls=[call("edit_file", path="app.py", old="return a * b", new="x")]),
        Reply(tool_calls=[call("read_file", path="../../etc/passwd")]),
        Reply(tool_calls=[call("write_file", path=".git/hooks/pre-commit", content="evil")]),
        Reply("I could not do it."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "do things")
    assert done.reason == "complete" and done.text == "I could not do it."
    results = of(events, "tool_result")
    assert [r.ok for r in results] == [False, False, False]
    assert "not found" in sent_text(ollama_server.requests[1])
    assert "current content of app.py" in sent_text(ollama_server.requests[1]) and \
        "return a + b" in sent_text(ollama_server.requests[1]).split("current content of app.py")[1]
    assert not (repo / ".git/hooks/pre-commit").exists()
    assert git(repo, "status", "--porcelain") == ""


async def test_a_reply_cut_off_is_asked_for_again_once(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply('{"name": "read_file", "arguments": {"path": "app.'),  # cut off inside a string
                       Reply('{"name": "read_file", "arguments": {"path": "app.py"}}'),
                       Reply(json.dumps(call("answer", text="Done."))))
    events, done, _ = await run_prompt(repo, ollama_server.url, "read the module")
    assert done.reason == "complete" and done.text == "Done."
    assert [e.name for e in of(events, "tool_call")] == ["read_file"]
    assert "cut off" in sent_text(ollama_server.requests[1])


async def test_unknown_tool_is_reported_not_fatal(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(tool_calls=[call("delete_everything", path=".")]), Reply("OK."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "go")
    assert done.reason == "complete"
    assert "unknown tool" in sent_text(ollama_server.requests[1])


async def test_repeated_identical_call_is_not_run_twice(repo: Path, ollama_server: ScriptedOllama) -> None:
    same = Reply(tool_calls=[call("git_status")])
    ollama_server.push(same, same, same, Reply(json.dumps(call("answer", text="All clean."))))
    events, done, _ = await run_prompt(repo, ollama_server.url, "status?")
    assert done.reason == "limit" and done.text == "All clean."
    assert len(of(events, "tool_result")) == 1
    assert "You already made this git_status call" in sent_text(ollama_server.requests[2])
    final = ollama_server.requests[3]
    assert final["format"]["properties"]["name"] == {"const": "answer"}, "only the answer call is left"
    assert "status?" in sent_text(final), "the request is restated"


async def test_http_500_is_retried(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(fault="http500"), Reply("Recovered."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "hi")
    assert done.reason == "complete"
    assert of(events, "retry") and of(events, "error")[0].retryable
    assert done.text == "Recovered."


async def test_reset_mid_stream_keeps_partial_text_and_retries(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply("one two three four", fault="reset", fault_after=2), Reply("Full answer."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "hi")
    assert done.reason == "complete"
    streamed = "".join(e.text for e in of(events, "text"))
    assert streamed.startswith("one two") and streamed.endswith("Full answer.")


async def test_stall_hits_the_chunk_deadline_and_ends_the_turn(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply("slow words here", fault="stall", fault_after=1, stall=20))
    config = fast_config(repo, chunk_timeout=0.5, retries=0)
    events, done, _ = await run_prompt(repo, ollama_server.url, "hi", config=config)
    assert done.reason == "error"
    assert of(events, "error") and "".join(e.text for e in of(events, "text")).startswith("slow")


async def test_transcript_is_recorded_and_resumable(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply("First answer."))
    _, _, first = await run_prompt(repo, ollama_server.url, "remember the word kiwi")
    ollama_server.push(Reply("Kiwi."))
    events, done, second = await run_prompt(repo, ollama_server.url, "what was the word?", resume="latest")
    assert second.session_id == first.session_id
    assert "remember the word kiwi" in sent_text(ollama_server.requests[-1])
    assert of(events, "session")[0].resumed


async def test_server_down_at_connect_names_the_host(repo: Path) -> None:
    from tui.protocol.errors import ServerUnreachable

    server = ScriptedOllama()
    url = server.start()
    server.stop()
    try:
        await run_prompt(repo, url, "hi")
    except ServerUnreachable as err:
        assert url.split("//")[1] in str(err) and "ollama" in str(err).lower()
    else:
        raise AssertionError("expected ServerUnreachable")


async def test_unknown_model_lists_the_available_ones(repo: Path, ollama_server: ScriptedOllama) -> None:
    from tui.protocol.errors import UnknownModel

    config = fast_config(repo, name="no-such-model")
    try:
        await run_prompt(repo, ollama_server.url, "hi", config=config)
    except UnknownModel as err:
        assert "qwen2.5-coder:1.5b" in str(err)
    else:
        raise AssertionError("expected UnknownModel")


def test_events_serialise_to_json(repo: Path) -> None:
    from tui.protocol.proposals import Proposal
    from tui.protocol.events import ProposalCreated

    event = ProposalCreated(Proposal(id="p1", kind="command", summary="ls", command="ls"))
    data = json.loads(json.dumps(event.to_dict()))
    assert data["type"] == "proposal" and data["proposal"]["id"] == "p1" and data["proposal"]["command"] == "ls"





async def test_alternating_calls_count_as_a_loop(repo: Path, ollama_server: ScriptedOllama) -> None:
    a, b = Reply(tool_calls=[call("git_status")]), Reply(tool_calls=[call("git_log")])
    ollama_server.push(a, b, a, b, Reply(json.dumps(call("answer", text="Clean, one commit."))))
    events, done, _ = await run_prompt(repo, ollama_server.url, "status?")
    assert done.reason == "limit" and done.text == "Clean, one commit."
    assert [e.name for e in of(events, "tool_result")] == ["git_status", "git_log"]


async def test_rereading_after_an_edit_is_not_a_loop(repo: Path, ollama_server: ScriptedOllama) -> None:
    read = Reply(tool_calls=[call("read_file", path="app.py")])
    ollama_server.push(read, Reply(tool_calls=[call("edit_file", path="app.py", old="a + b", new="b + a")]), read,
                       Reply("Done and checked."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "swap", ScriptedApprover([Decision("approve")]))
    assert [e.name for e in of(events, "tool_result")] == ["read_file", "edit_file", "read_file"]
    assert "return b + a" in sent_text(ollama_server.requests[3])








async def test_every_reply_is_sampled_as_a_call_and_its_answer_checked(
        repo: Path, ollama_server: ScriptedOllama) -> None:
    """Each request carries the call grammar (``format``), and the answer call goes through the rules at the end
    (a claimed change that did not happen is pushed back)."""
    ollama_server.push(Reply('{"name": "read_file", "arguments": {"path": "app.py"}}'),
                       Reply('{"name": "answer", "arguments": {"text": "I have changed app.py."}}'),
                       Reply('{"name": "answer", "arguments": {"text": "app.py defines add."}}'))
    events, done, _ = await run_prompt(repo, ollama_server.url, "make add safer", None, fast_config(repo))
    assert all(r.get("format") for r in ollama_server.requests) and len(ollama_server.requests) == 3
    assert "I have changed" not in done.text and done.text == "app.py defines add."
    assert [e.text for e in of(events, "text_done")][-1] == "app.py defines add."  # shown once, as text


async def test_a_claimed_change_after_a_failed_edit_is_pushed_back_once(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(
        Reply(tool_calls=[call("edit_file", path="app.py", old="return a+b", new="return a - b")]),
        Reply(json.dumps(call("answer", text="I have updated app.py."))),  # it was not: the edit failed
        Reply(json.dumps(call("edit_file", path="app.py", old="return a + b", new="return a - b"))),
        Reply(json.dumps(call("answer", text="Changed it to subtract."))))
    approver = ScriptedApprover([Decision("approve")])
    events, done, _ = await run_prompt(repo, ollama_server.url, "make add subtract", approver)
    assert done.reason == "complete" and done.text == "Changed it to subtract."
    assert (repo / "app.py").read_text() == "def add(a, b):\n    return a - b\n"
    assert "No file was changed in this request" in details(events)  # told to the model: a detail
    assert not any("asking the model again" in n.message for n in of(events, "notice"))


async def test_push_back_happens_once_and_never_after_a_rejection(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply("I have added the function."), Reply("I have added the function."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "add a function")
    assert done.reason == "complete" and len(ollama_server.requests) == 2, "one push back, then the answer stands"
    assert "No file was changed." in [n.message for n in of(events, "notice")], "said plainly to the developer"


async def test_adding_a_function_with_write_file_is_turned_into_an_append(repo: Path, ollama_server: ScriptedOllama) -> None:
    (repo / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n")
    square = "def square(x):\n    return x * x\n"
    ollama_server.push(Reply(tool_calls=[call("write_file", path="app.py", content=square)]),
                       Reply(tool_calls=[call("edit_file", path="app.py", old="", new=square)]),
                       Reply("Added square."))
    approver = ScriptedApprover([Decision("approve")])
    events, done, _ = await run_prompt(repo, ollama_server.url, "add square to the app module", approver)
    assert [r.ok for r in of(events, "tool_result")] == [False, True]
    assert "add, sub" in sent_text(ollama_server.requests[1]), "the refusal names what would have been lost"
    assert (repo / "app.py").read_text().endswith("return a - b\n\n\ndef square(x):\n    return x * x\n")
    assert len(approver.asked) == 1, "the destructive write never reached the developer"


async def test_files_named_in_the_prompt_are_read_for_the_model_first(repo: Path, ollama_server: ScriptedOllama) -> None:
    (repo / "docs").mkdir()
    (repo / "docs" / "guide.md").write_text("# Guide\nThe answer is 42.\n")
    ollama_server.push(Reply("It adds a and b; the guide says 42."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "What do app.py and guide.md say? Not v1.2 or x.py.")
    assert [(e.name, e.arguments, e.source) for e in of(events, "tool_call")] == [
        ("read_file", {"path": "app.py"}, "auto"), ("read_file", {"path": "docs/guide.md"}, "auto")]
    first = sent_text(ollama_server.requests[0])
    assert "return a + b" in first and "The answer is 42." in first, "the model's first request has both files"
    assert len(ollama_server.requests) == 1 and done.text == "It adds a and b; the guide says 42."





async def test_an_edit_that_breaks_python_says_so_and_the_model_fixes_it(repo: Path, ollama_server: ScriptedOllama) -> None:
    add_test = '{"name": "edit_file", "arguments": {"path": "app.py", "old": "", "new": "def twice(x):\\n    return add(x, y)"}}'
    fix = '{"name": "edit_file", "arguments": {"path": "app.py", "old": "add(x, y)", "new": "add(x, x)"}}'
    ollama_server.push(Reply(add_test), Reply(fix), Reply(json.dumps(call("answer", text="Added twice."))))
    approver = ScriptedApprover([Decision("approve"), Decision("approve")])
    events, done, _ = await run_prompt(repo, ollama_server.url, "add twice(x)", approver)
    first = of(events, "tool_result")[0]
    assert "1 problem" in first.summary
    assert "undefined name 'y'" in sent_text(ollama_server.requests[1]), "the problem goes back to the model"
    assert done.text == "Added twice." and (repo / "app.py").read_text().endswith("return add(x, x)\n")


async def test_a_missed_edit_in_a_long_module_gets_the_lines_it_meant_not_the_file(
        repo: Path, ollama_server: ScriptedOllama) -> None:
    """In a module too long to show whole, a near miss (the old text slightly wrong) is answered with the block
    the model meant, copied exactly from the file, and the retry with that text applies."""
    body = "".join(f"\n\ndef f{i}(x):\n    return x + {i}\n" for i in range(200))
    (repo / "many.py").write_text('"""Many."""' + body)
    git(repo, "add", "many.py")
    git(repo, "commit", "-qm", "many")
    ollama_server.push(
        Reply(tool_calls=[call("edit_file", path="many.py", old="def f137(x):\nreturn x+137", new="x")]),
        Reply(tool_calls=[call("edit_file", path="many.py", old="def f137(x):\n    return x + 137",
                               new="def f137(x):\n    return x - 137")]),
        Reply("Done."))
    approver = ScriptedApprover([Decision("approve")])
    _, done, _ = await run_prompt(repo, ollama_server.url, "make f137 subtract", approver)
    told = ollama_server.requests[1]["messages"][-1]["content"]
    assert "The closest text in many.py (line 551) is:\ndef f137(x):\n    return x + 137\n" in told
    assert "def f3(x)" not in told, "the long file is not dumped into the context"
    assert "return x - 137" in (repo / "many.py").read_text() and done.text == "Done."


async def test_a_result_the_model_imitates_after_its_call_is_never_shown(repo: Path,
                                                                         ollama_server: ScriptedOllama) -> None:
    """The `devagent serve` screenshot: after its call the model wrote "Result of ...:" and made-up output, shown
    beside the real proposal as if the change had been made. A server that ignores the schema can still send it."""
    reply = ('{"name": "read_file", "arguments": {"path": "app.py"}}\n'
             "Result of read_file(path=app.py):\ndef made_up():\n    return 'not the file'\n")
    ollama_server.push(Reply(reply), Reply("It defines the app."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "read the module")
    shown = [e.shown for e in of(events, "text_done")]
    assert not any("Result of" in (s or "") or "made_up" in (s or "") for s in shown), shown
    assert [e.name for e in of(events, "tool_call")] == ["read_file"] and done.text == "It defines the app."




async def test_a_reply_still_streaming_when_the_turn_budget_ends_is_cut_and_the_answer_asked(
        repo: Path, ollama_server: ScriptedOllama) -> None:
    """model.turn_seconds bounds the general loop's replies too (it was checked only between replies, and the
    forced answer had 90 s more): a reply that would stream for 20 s is cut at the 4 s budget, and the answer
    that follows ends the turn well before the slow reply would have."""
    import time

    slow = json.dumps(call("read_file", path="app.py"))
    ollama_server.push(Reply(chunks=[slow[:1]] + [" "] * 200 + [slow[1:]], delay=0.1),
                       Reply(json.dumps({"name": "answer", "arguments": {"text": "Not read yet."}})))
    config = fast_config(repo, turn_seconds=4.0, pipelines="off", total_timeout=60.0, chunk_timeout=10.0)
    started = time.monotonic()
    events, done, _ = await run_prompt(repo, ollama_server.url, "what does app.py do?", config=config)
    assert time.monotonic() - started < 15, "the 20 s reply was not read to its end"
    assert "Not read yet." in "".join(e.text for e in of(events, "text"))
    assert all(e.source == "auto" for e in of(events, "tool_call")), "the cut reply's call was not run"
