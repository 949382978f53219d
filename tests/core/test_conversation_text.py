"""Text without the app (issue 31): what `devagent run` prints and what an ACP editor is sent.

The model's words arrive exactly (dunder names, snake_case, ``*args``, backslashes), in an editor that renders
Markdown too; devagent's notes to the model (retries, the broken call it asks again about) are details: on
stderr only with ``run --verbose``, every one in ``--json``, thoughts in ACP, never the agent's message.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from markdown_it import MarkdownIt

from tests.conftest import make_repo
from tests.core.acp_client import ScriptedClient, acp_agent, prompt
from tests.ollama_server import Reply, ScriptedOllama

FILES = {"README.md": "# demo\n",
         "pkg/__init__.py": '__all__ = ["snake_case_name"]\n\n\ndef snake_case_name(*args, **kwargs):\n'
                            '    return args, kwargs\n'}
BROKEN = '{"name": "outline", "arguments": {"path": "pkg/__init__.py", "symbol": "snake_'  # cut off at the limit
ANSWER = ("pkg/__init__.py sets __all__ to snake_case_name; snake_case_name(*args, **kwargs) returns its *args "
          "and **kwargs unchanged.\nOn Windows the path is C:\\temp\\new_file.")


def script(server: ScriptedOllama) -> None:
    """A call, one cut off (devagent asks again), a call, then the answer call (every reply under the schema)."""
    server.push(Reply('{"name": "list_files", "arguments": {"path": "pkg"}}'), Reply(BROKEN),
                Reply('{"name": "outline", "arguments": {"path": "pkg/__init__.py"}}'),
                Reply(json.dumps({"name": "answer", "arguments": {"text": ANSWER}})))


def devagent(cwd: Path, url: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, OLLAMA_HOST=url)  # PYTHONPATH (the code under test) is inherited
    return subprocess.run([sys.executable, "-m", "tui", "run", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=90, env=env, stdin=subprocess.DEVNULL)


def test_run_prints_the_answer_exactly_and_details_only_when_asked(tmp_path: Path,
                                                                    ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    script(ollama_server)
    plain = devagent(repo, ollama_server.url, "what does pkg/__init__.py export?")
    assert plain.returncode == 0, plain.stderr
    assert ANSWER in plain.stdout  # every character: __init__, __all__, *args, **kwargs, C:\temp
    assert '"symbol"' not in plain.stdout and '{"name"' not in plain.stdout  # no raw call is prose
    for said in (plain.stdout, plain.stderr):
        assert "cut off" not in said and "Reply with one shorter JSON call" not in said

    script(ollama_server)
    verbose = devagent(repo, ollama_server.url, "--verbose", "what does pkg/__init__.py export?")
    assert verbose.returncode == 0 and ANSWER in verbose.stdout
    assert "cut off" not in verbose.stdout  # stdout stays the conversation
    assert "a reply was cut off" in verbose.stderr and '"symbol": "snake_' in verbose.stderr

    script(ollama_server)
    lines = devagent(repo, ollama_server.url, "--json", "what does pkg/__init__.py export?").stdout.splitlines()
    events = [json.loads(line) for line in lines if line.strip()]
    details = [e for e in events if e["type"] == "detail"]
    assert {d["kind"] for d in details} >= {"raw-call", "model-note"}
    assert any(BROKEN == d["text"] for d in details)
    assert [e["text"] for e in events if e["type"] == "text_done"][-1] == ANSWER


async def test_an_editor_renders_the_answer_exactly_and_gets_the_notes_as_thoughts(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    script(ollama_server)
    client = ScriptedClient()
    async with acp_agent(repo, ollama_server.url, client, read_files=False) as (conn, _proc, sid):
        assert await prompt(conn, sid, "what does pkg/__init__.py export?") == "end_turn"
    said = client.text()
    assert "cut off" not in said and '{"name"' not in said
    shown = MarkdownIt("commonmark").enable("table").enable("strikethrough").render(said)
    for exact in ("pkg/__init__.py sets __all__ to snake_case_name; snake_case_name(*args, **kwargs) returns its "
                  "*args and **kwargs unchanged.", "On Windows the path is C:\\temp\\new_file."):
        assert exact in shown, shown  # what the editor shows: no <strong>, no lost backslash
    thoughts = client.text("agent_thought_chunk")
    assert "cut off" in thoughts
    titles = [u.title for u in client.of("tool_call")]
    assert "read_file `pkg/__init__.py`" in titles  # a code span: the editor shows the path as written
