"""The rules of the general loop, each on two projects (a Python and a JavaScript repo), through a real Session
with the scripted server: every reply is the JSON call the schema allows, as a real model's would be."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import make_repo
from tests.core.agent_helpers import ScriptedApprover, fast_config, run_prompt
from tests.ollama_server import Reply
from tui.engine.rules import RULE_CLASSES
from tui.protocol.proposals import Decision

ROOT = Path(__file__).resolve().parents[3]
PROJECTS = {
    "python": ({"calc/__init__.py": "", "calc/ops.py": "def add(a, b):\n    return a + b\n"}, "calc/ops.py"),
    "js": ({"package.json": '{"name": "ops", "main": "lib/ops.js"}\n',
            "lib/ops.js": "function add(a, b) {\n  return a + b;\n}\nmodule.exports = { add };\n"}, "lib/ops.js"),
}


def call(name: str, **arguments: object) -> Reply:
    return Reply(json.dumps({"name": name, "arguments": arguments}))


def answer(text: str) -> Reply:
    return call("answer", text=text)


async def _turn(tmp_path: Path, server, project: str, prompt: str, replies: list[Reply], decisions=(), **model):
    files, source = PROJECTS[project]
    repo = make_repo(tmp_path / project, files)
    server.push(*replies)
    config = fast_config(repo, **model)
    events, done, _ = await run_prompt(repo, server.url, prompt, approver=ScriptedApprover(list(decisions)),
                                       config=config)
    return repo, source, events, done


def details(events) -> str:
    return "\n".join(e.text for e in events if e.type == "detail")


@pytest.mark.parametrize("project", PROJECTS)
async def test_repeat_refuses_a_call_whose_result_the_model_has(tmp_path, ollama_server, project) -> None:
    path = PROJECTS[project][1]
    repo, _, events, done = await _turn(tmp_path, ollama_server, project, "look at add",
                                        [call("read_file", path=path), call("read_file", path=path),
                                         answer("add returns a + b.")])
    assert [e.name for e in events if e.type == "tool_call"] == ["read_file"]
    assert "repeated read_file" in details(events)
    assert done.text == "add returns a + b."


@pytest.mark.parametrize("project", PROJECTS)
async def test_a_question_changes_no_file(tmp_path, ollama_server, project) -> None:
    path = PROJECTS[project][1]
    repo, source, events, done = await _turn(tmp_path, ollama_server, project, "What does add return?",
                                             [call("read_file", path=path),
                                              call("write_file", path=path, content="x\n", replace=True),
                                              answer("The sum of its arguments.")])
    assert "write_file refused" in details(events)
    assert not [e for e in events if e.type == "proposal"]
    assert done.text == "The sum of its arguments."


@pytest.mark.parametrize("project", PROJECTS)
async def test_a_rejected_call_is_not_proposed_again(tmp_path, ollama_server, project) -> None:
    path = PROJECTS[project][1]
    edit = call("edit_file", path=path, old="a + b", new="b + a")
    repo, source, events, done = await _turn(
        tmp_path, ollama_server, project, "swap the operands of add",
        [edit, edit, answer("Not changed: the developer wants it as it is.")],
        decisions=[Decision("reject", reason="keep the order")])
    assert len([e for e in events if e.type == "proposal"]) == 1
    assert "rejected one: not proposed again" in details(events)
    assert "keep the order" in ollama_server.requests[-1]["messages"][-1]["content"]


@pytest.mark.parametrize("project", PROJECTS)
async def test_the_step_budget_ends_with_an_answer(tmp_path, ollama_server, project) -> None:
    path = PROJECTS[project][1]
    repo, source, events, done = await _turn(tmp_path, ollama_server, project, "tell me about add",
                                             [call("read_file", path=path), call("list_files", path="."),
                                              answer("It adds.")], max_steps=2)
    assert done.reason == "limit" and done.text == "It adds."
    assert "model.max_steps" in details(events)


@pytest.mark.parametrize("project", PROJECTS)
async def test_an_answer_from_memory_is_sent_to_look_first(tmp_path, ollama_server, project) -> None:
    path = PROJECTS[project][1]
    folder = path.split("/")[0]  # a directory the question names: nothing is read for the model up front
    repo, source, events, done = await _turn(tmp_path, ollama_server, project, f"What is in {folder}/?",
                                             [answer("It returns a string."), call("read_file", path=path),
                                              answer("It returns a + b.")])
    assert "asked to look first" in details(events)
    assert done.text == "It returns a + b."


@pytest.mark.parametrize("project", PROJECTS)
async def test_a_claimed_change_that_did_not_happen_is_said_plainly(tmp_path, ollama_server, project) -> None:
    repo, source, events, done = await _turn(tmp_path, ollama_server, project, "add a docstring to add",
                                             [answer("I added the docstring."), answer("I have added it.")])
    notices = [e.message for e in events if e.type == "notice"]
    assert "No file was changed." in notices
    assert "told once" in details(events)


def test_a_report_without_its_subject_is_a_claim_too_and_prose_that_opens_with_a_participle_is_not() -> None:
    """"Added JSDoc comment to combine in lib/utils.js." closed a turn that changed nothing (a JS project); the
    same shape from a Python one; sentences that only open with such a word are not claims."""
    from tui.engine.rules.claims import CLAIM, PRESENT, REPORT

    def claims(text: str) -> bool:
        return bool(CLAIM.search(text) or REPORT.search(text) or PRESENT.search(text))

    assert claims("Added JSDoc comment to the combine function in lib/utils.js.")
    assert claims("The docstring is fine now. Updated the docstring of intword to mention the format.")
    assert claims("Fixed the off-by-one in ordinal.")
    assert not claims("It returns 3. Fixed values are cached between calls.")
    assert not claims("Renamed files keep their history in git.")
    # in the present, naming the file (humanize, Python) or "modified to" (tsconfig-paths, TypeScript)
    assert claims("The function percentage(value, ndigits=0) is added to src/humanize/number.py and the test is "
                  "added to tests/test_number.py.")
    assert claims("The function `getPathsToTry` in `src/try-path.ts` is modified to return an empty array.")
    assert not claims("The cache is updated in place on every call, and entries are removed from the front.")


def test_every_rule_is_documented_with_the_failure_it_answers() -> None:
    doc = (ROOT / "docs/model-layer.md").read_text()
    table = doc[doc.index("## Rules of the general loop"):]
    for cls in RULE_CLASSES:
        row = re.search(rf"^\| `{cls.name}` \| {cls.point} \| (.+?) \|", table, re.M)
        assert row, f"rule {cls.name} is not in docs/model-layer.md"
        assert row.group(1).strip() == cls.failure, f"rule {cls.name}: the docs say another failure"


@pytest.mark.parametrize("project", PROJECTS)
async def test_small_talk_is_not_sent_to_look(tmp_path, ollama_server, project) -> None:
    repo, source, events, done = await _turn(tmp_path, ollama_server, project, "still there?", [answer("Yes.")])
    assert done.text == "Yes." and "look first" not in details(events)
