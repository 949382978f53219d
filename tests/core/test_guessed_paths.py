"""A path the model guessed wrong (``src/app.py`` for a flat ``app.py``) reaches the one file of that name.

Seen on xmltodict (a flat module): the 1.5B model asked for ``src/xmltodict.py`` five times through outline and
search, was told "does not exist" and "no matches", and answered a count from nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import git
from tests.core.agent_helpers import ScriptedApprover, fast_config, of, run_prompt, sent_text
from tests.ollama_server import Reply, ScriptedOllama
from tui.protocol.proposals import Decision


def call(name: str, **arguments: object) -> dict:
    return {"name": name, "arguments": arguments}


async def test_read_only_tools_take_the_one_file_with_that_name(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(tool_calls=[call("outline", path="src/app.py")]),
                       Reply(tool_calls=[call("search", pattern="return", path="lib/app.py")]),
                       Reply("It adds."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "what does add do?")
    assert done.reason == "complete"
    assert [e.arguments["path"] for e in of(events, "tool_call")] == ["app.py", "app.py"]
    first, second = sent_text(ollama_server.requests[1]), sent_text(ollama_server.requests[2])
    assert "[src/app.py does not exist; this is app.py]" in first and "add 1-2" in first
    assert "[lib/app.py does not exist; this is app.py]" in second and "return a + b" in second


async def test_an_edit_goes_to_that_file_and_a_new_file_keeps_its_path(repo: Path, ollama_server: ScriptedOllama
                                                                       ) -> None:
    ollama_server.push(Reply(tool_calls=[call("edit_file", path="src/app.py", old="return a + b", new="return b + a")]),
                       Reply(tool_calls=[call("write_file", path="pkg/README.md", content="# pkg\n")]),
                       Reply("Done."))
    approver = ScriptedApprover([Decision("approve"), Decision("approve")])
    events, done, _ = await run_prompt(repo, ollama_server.url, "swap the operands in add, and add pkg/README.md",
                                       approver)
    assert "return b + a" in (repo / "app.py").read_text()
    assert not (repo / "src").exists()
    assert approver.asked[0].files == ["app.py"]
    assert (repo / "pkg" / "README.md").read_text() == "# pkg\n", "write_file creates the path it was given"
    assert (repo / "README.md").read_text() != "# pkg\n"
    assert "pkg/README.md" in git(repo, "status", "--porcelain", "-uall")


async def test_a_name_several_files_have_is_not_guessed(repo: Path, ollama_server: ScriptedOllama) -> None:
    (repo / "a").mkdir()
    (repo / "b").mkdir()
    (repo / "a" / "util.py").write_text("X = 1\n")
    (repo / "b" / "util.py").write_text("X = 2\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "utils")
    ollama_server.push(Reply(tool_calls=[call("read_file", path="util.py")]), Reply("Two of them."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "what is X?")
    assert of(events, "tool_call")[0].arguments["path"] == "util.py"
    assert not of(events, "tool_result")[0].ok
    assert "a/util.py" in sent_text(ollama_server.requests[1]) and "b/util.py" in sent_text(ollama_server.requests[1])


async def test_adding_to_a_file_that_is_not_there_creates_it(repo: Path, ollama_server: ScriptedOllama) -> None:
    """Held-out qs: edit_file(path="lib/parse-url.js", old="", new=...) was refused ("use write_file"), a step lost
    in a request of three parts."""
    ollama_server.push(Reply(tool_calls=[call("edit_file", path="lib/parse-url.js", old="",
                                              new="module.exports = function parseUrl(url) {\n    return url;\n};")]),
                       Reply("Created."))
    approver = ScriptedApprover([Decision("approve")])
    await run_prompt(repo, ollama_server.url, "add lib/parse-url.js with a parseUrl function", approver)
    assert (repo / "lib/parse-url.js").read_text() == "module.exports = function parseUrl(url) {\n    return url;\n};\n"
    assert approver.asked[0].diff.count("+") >= 3


async def test_devagents_own_result_text_pasted_into_code_is_left_out(repo: Path, ollama_server: ScriptedOllama
                                                                      ) -> None:
    """Held-out xmltodict: the model's new test went on with "X.test_comments_2 is now lines 461-461 of ...
    Applied 1 of 1 hunks ...", which devagent had said; refused as a syntax error three times."""
    pasted = ("def sub(a, b):\n    return a - b\n\nsub is now lines 5-6 of app.py. Applied 1 of 1 hunks to app.py. "
              "The changed lines are now:\n+def sub(a, b):")
    ollama_server.push(Reply(json.dumps(call("edit_file", path="app.py", old="", new=pasted))), Reply("Added sub."))
    events, _, _ = await run_prompt(repo, ollama_server.url, "add a sub function to app.py",
                                    ScriptedApprover([Decision("approve")]), fast_config(repo, native_tools="off"))
    assert (repo / "app.py").read_text().endswith("def sub(a, b):\n    return a - b\n")
    assert any("pasted devagent's result text" in getattr(e, "message", "") for e in events)
    header = next(m["content"] for m in ollama_server.requests[1]["messages"]
                  if (m.get("content") or "").startswith("Result of edit_file("))
    assert header.startswith("Result of edit_file(path=app.py, old=, new=[2 lines]):"), "no ⏎ or … to copy back"


async def test_result_text_pasted_into_old_is_left_out_so_the_edit_still_matches(repo: Path,
                                                                                  ollama_server: ScriptedOllama
                                                                                  ) -> None:
    """Tuning ctenv: ``old`` held the function and then devagent's "Applied 1 of 1 hunks ..." lines, so it matched
    nothing and the edit was refused; with the echo cut, the same call applies."""
    before = (repo / "app.py").read_text()
    first = before.splitlines()[0]
    pasted_old = f"{first}\nApplied 1 of 1 hunks to app.py. The changed lines are now:\n+{first}"
    ollama_server.push(Reply(json.dumps(call("edit_file", path="app.py", old=pasted_old, new=f"{first}  # checked"))),
                       Reply("Marked."))
    events, _, _ = await run_prompt(repo, ollama_server.url, "mark the first line of app.py as checked",
                                    ScriptedApprover([Decision("approve")]), fast_config(repo, native_tools="off"))
    assert (repo / "app.py").read_text().splitlines()[0] == f"{first}  # checked"
    assert any("pasted devagent's result text" in getattr(e, "message", "") for e in events)
