"""The same reply sent again is asked for once more, warmer (held-out transcripts: at temperature 0 the 1.5B
model resent a refused call twelve times and a failing run_python three times, each time the same)."""

from __future__ import annotations

from pathlib import Path

from tests.core.agent_helpers import fast_config, of, run_prompt
from tests.ollama_server import Reply, ScriptedOllama


async def test_a_reply_sent_again_is_asked_for_warmer_then_the_loop_goes_on(repo: Path,
                                                                            ollama_server: ScriptedOllama) -> None:
    same = Reply('{"name": "read_file", "arguments": {"path": "nowhere.py"}}')
    ollama_server.push(same, same, same, Reply('{"name": "read_file", "arguments": {"path": "app.py"}}'),
                       Reply("It adds."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "what does add in app.py return?",
                                       config=fast_config(repo, reheat=2, temperature=0.0))
    temperatures = [r["options"]["temperature"] for r in ollama_server.requests]
    assert temperatures[:5] == [0.0, 0.0, 0.7, 1.0, 0.0], "warmer for the request after each resend, then cold"
    assert [e.arguments["path"] for e in of(events, "tool_call")].count("nowhere.py") == 1, "a resend is not run"
    assert sum("more varied sampling" in getattr(e, "message", "") for e in events) == 2
    assert done.text == "It adds."


async def test_reheat_off_leaves_a_resend_to_the_repeat_checks(repo: Path, ollama_server: ScriptedOllama) -> None:
    same = Reply('{"name": "read_file", "arguments": {"path": "app.py"}}')
    ollama_server.push(same, same, Reply("It adds."))
    events, _, _ = await run_prompt(repo, ollama_server.url, "what does add in app.py return?",
                                    config=fast_config(repo, reheat=0, temperature=0.0))
    assert {r["options"]["temperature"] for r in ollama_server.requests} == {0.0}
    assert not any("more varied sampling" in getattr(e, "message", "") for e in events)
