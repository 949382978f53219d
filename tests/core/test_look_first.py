"""A question about the repository answered before anything was looked at is sent back once, and the next reply
must be a call that looks (held-out cachetools: "what happens when a value is bigger than maxsize" was answered
from nothing, wrongly; the code raises ValueError)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_repo
from tests.core.agent_helpers import of, run_prompt, sent_text
from tests.ollama_server import Reply, ScriptedOllama

CACHE = "class Cache:\n    def __setitem__(self, key, value):\n        if value > 10:\n" \
        "            raise ValueError('value too large')\n"


async def test_an_answer_from_memory_is_sent_back_and_the_next_reply_must_look(tmp_path: Path,
                                                                                ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo", {"cache.py": CACHE})
    ollama_server.push(Reply("It is silently dropped."),
                       Reply('{"name": "search", "arguments": {"pattern": "too large"}}'),
                       Reply("It raises ValueError."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "What happens when I store a value that is too large in a Cache?")
    assert done.text == "It raises ValueError."
    assert [e.name for e in of(events, "tool_call")] == ["search"]
    forced = ollama_server.requests[1]["format"]["properties"]["name"]["enum"]
    assert "search" in forced and "answer" not in forced and "edit_file" not in forced
    assert "without looking at this repository's code" in sent_text(ollama_server.requests[1])
    assert "raise ValueError" in sent_text(ollama_server.requests[2])


async def test_an_answer_after_a_look_a_second_time_or_to_small_talk_stands(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo", {"cache.py": CACHE})
    ollama_server.push(Reply("From memory."), Reply("Still from memory."))
    _, done, _ = await run_prompt(repo, ollama_server.url, "What happens when I store a value that is too large in a Cache?")
    assert len(ollama_server.requests) == 2 and done.reason == "complete"
    ollama_server.requests.clear()
    ollama_server.push(Reply("It raises ValueError."))
    _, done, _ = await run_prompt(repo, ollama_server.url, "What does cache.py do when a value is too large?")
    assert len(ollama_server.requests) == 1 and done.text == "It raises ValueError.", "cache.py was read first"
    ollama_server.requests.clear()
    ollama_server.push(Reply("Yes, still here."))
    _, done, _ = await run_prompt(repo, ollama_server.url, "still there?")
    assert len(ollama_server.requests) == 1 and done.text == "Yes, still here.", "names nothing of the repository"
