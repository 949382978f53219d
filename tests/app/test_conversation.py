"""The conversation is the developer's, and shows exactly what was said (issue 31).

Model text is shown as written: identifiers, paths, dunder names, ``*args`` and backslashes never become
emphasis or escapes. devagent's own notes (what it told the model, retries, the reply as the model wrote it,
checkpoint refs, connection messages) go to one collapsed details line per request. The reply text below is
taken from transcripts of the 1.5B model on cachetools (docs/local-models.md) and this issue's first run.
"""

from __future__ import annotations

import json

import random
import re
from pathlib import Path
from typing import Any

import pytest

from tests.app.snapshot_apps.factory import build_app, feed, no_blink, wait_for
from tests.conftest import git, make_repo
from tests.ollama_server import Reply, ScriptedOllama
from tui.app.widgets.agent_pane import AgentPane, Reply as ReplyWidget
from tui.app.widgets.details_line import DetailsLine
from tui.app.widgets.status_bar import StatusBar
from tui.protocol import events as ev

SAID = (
    "LIFOCache is in src/cachetools/__init__.py and exported through __all__ (with FIFOCache).\n\n"
    "It overrides __setitem__ and popitem; the items live in self._Cache__data:\n\n"
    "```python\n"
    "class LIFOCache(Cache):\n"
    "    def __init__(self, maxsize, getsizeof=None):\n"
    "        Cache.__init__(self, maxsize, getsizeof)\n"
    "        self.__order = collections.OrderedDict()\n"
    "```\n\n"
    "- popitem() removes the newest key: self.__order.popitem(last=True)\n"
    "- snake_case_name(*args, **kwargs) passes **kwargs* through\n"
    "- on Windows the cache is in C:\\Users\\dev\\AppData\\Local\\cachetools\\__pycache__\n\n"
    "# not a heading: a comment\n"
    "Use `__init__.py` (or ``__main__`` for scripts) and keep [link](x) & <b>tags</b> as typed."
)
PROSE_LINES = [line for line in SAID.split("\n") if line and not line.startswith(("```", "    ", "class "))]


def chunks(text: str, seed: int) -> list[str]:
    """``text`` cut where a model's tokens might end: mid-word, mid-identifier, mid-fence."""
    rnd = random.Random(seed)
    out, i = [], 0
    while i < len(text):
        size = rnd.randint(1, 7)
        out.append(text[i:i + size])
        i += size
    return out


def painted(app: Any) -> str:
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def reply_lines(app: Any) -> list[str]:
    return ["".join(s.text for s in strip).rstrip() for strip in app.query_one(ReplyWidget).lines]


async def test_model_text_is_shown_exactly_as_written(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(200, 60)) as pilot:  # each prose line fits the conversation's width
        app.query_one(AgentPane).add_prompt("where is LIFOCache defined?")
        feed(app, *(ev.TextDelta(c) for c in chunks(SAID, 31)), ev.TextDone(SAID))
        pane = app.query_one(AgentPane)
        await wait_for(pilot, lambda: pane.tokens_received and not pane.streaming, what="the reply painted")
        shown = reply_lines(app)
        for line in PROSE_LINES:  # every prose line, character for character, on a line of its own
            assert line in shown, line
        code = [line[1:].rstrip() for line in shown if line.startswith(" class") or line.startswith("     ")]
        assert code[:2] == ["class LIFOCache(Cache):", "    def __init__(self, maxsize, getsizeof=None):"]
        assert not any("```" in line for line in shown)  # the fences are the code box's top and bottom rows
        screen = painted(app)
        for word in ("src/cachetools/__init__.py", "__all__", "self._Cache__data", "(*args, **kwargs)",
                     "C:\\Users\\dev\\AppData\\Local\\cachetools\\__pycache__", "`__init__.py`", "``__main__``"):
            assert word in screen, word


async def test_a_reply_renders_the_same_streamed_or_whole(repo: Path) -> None:
    """Finished blocks are frozen as they complete; the lines are the same as the whole text rendered at once."""
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(100, 60)) as pilot:
        pane = app.query_one(AgentPane)
        parts = chunks(SAID, 7)
        for start in range(0, len(parts), 12):  # a dozen tokens a frame, as a model streams them
            feed(app, *(ev.TextDelta(c) for c in parts[start:start + 12]))
            sent = min(len(parts), start + 12)
            await wait_for(pilot, lambda: pane.tokens_received == sent and not pane.streaming, what="streamed")
        streamed = reply_lines(app)
        assert app.query_one(ReplyWidget).blocks > 3  # it was frozen block by block
        app.query_one(ReplyWidget).show_only(SAID)  # rendered again from the whole text
        await pilot.pause(0.1)
        assert reply_lines(app) == streamed


async def test_a_reply_turn_keeps_devagents_notes_on_one_details_line(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(160, 48)) as pilot:
        pane = app.query_one(AgentPane)
        raw = 'Now the outline: {"name": "outline", "arguments": {"path": "pkg/__init__.py", "symbol": }}'
        pane.add_prompt("what does pkg/__init__.py export?")
        feed(app, ev.TextDelta(raw), ev.TextDone(raw, "Now the outline:"), ev.Detail(raw, "raw-call"),
             ev.Detail("malformed tool call (Your tool call could not be read as JSON); asking the model again:\n"
                       "Your tool call could not be used.", "retry"),
             ev.ToolCallStarted("c1", "outline", {"path": "pkg/__init__.py"}),
             ev.Checkpointed("refs/devagent/s1/0001", "before outline"),
             ev.TextDelta("pkg/__init__.py sets __all__."), ev.TextDone("pkg/__init__.py sets __all__."),
             ev.TurnDone("complete"))
        await wait_for(pilot, lambda: app.query(DetailsLine) and not pane.streaming, what="the details line")
        lines = list(app.query(DetailsLine))
        assert len(lines) == 1  # one per request
        conversation = painted(app)
        assert "asking the model again" not in conversation and '{"name"' not in conversation
        assert "refs/devagent" not in conversation
        assert "1 reply as written, 1 retry, 1 checkpoint" in conversation
        assert "pkg/__init__.py sets __all__." in conversation and "Now the outline:" in conversation
        children = list(pane.children)
        assert children.index(lines[0]) == 1  # right below the request it belongs to
        await pilot.press("ctrl+l")  # from the prompt: the key works anywhere
        await pilot.pause(0.1)
        expanded = painted(app)
        assert "asking the model again" in expanded and '"symbol": }}' in expanded
        assert "refs/devagent/s1/0001" in expanded
        await pilot.click(DetailsLine)  # a click folds it again
        await pilot.pause(0.1)
        assert "asking the model again" not in painted(app)
        pane.add_prompt("and FIFOCache?")
        feed(app, ev.Detail("the model repeated read_file; asking for its answer"))
        await wait_for(pilot, lambda: len(app.query(DetailsLine)) == 2, what="the next request's own line")


async def test_connection_messages_wait_in_the_banner_then_go(repo: Path) -> None:
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=(120, 40)) as pilot:
        note = "No model server at 127.0.0.1:11434. Using the embedded model qwen2.5-coder-1.5b.gguf instead."
        feed(app, ev.Detail(note, "connection"))
        banner = app.main.banner
        await wait_for(pilot, lambda: note in str(banner.render()) and banner.has_class("-shown"), what="banner")
        assert note not in " ".join(str(n.render()) for n in app.query(".notice"))
        feed(app, ev.ServerStatus("connected", "http://127.0.0.1:41234", "qwen2.5-coder-1.5b"))
        await wait_for(pilot, lambda: not banner.has_class("-shown"), what="the banner gone once connected")
        assert app.query_one(StatusBar).server == "connected"
        assert note in app.query_one(DetailsLine).items[0][1]  # kept on the session's details line


async def test_a_real_turn_with_a_broken_call_leaves_only_the_users_conversation(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """The real engine against the scripted server: a call, one cut off at the limit (devagent asks again), a call,
    then the answer call. The conversation shows the request, tool lines and the answer; the rest is on the
    details line."""
    repo = make_repo(tmp_path / "repo")
    (repo / "pkg").mkdir()
    (repo / "pkg" / "__init__.py").write_text('__all__ = ["snake_case_name"]\n\n\ndef snake_case_name(*args):\n'
                                              '    return args\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pkg")
    ollama_server.push(
        Reply('{"name": "list_files", "arguments": {"path": "pkg"}}'),
        Reply('{"name": "outline", "arguments": {"path": "pkg/__init__.py", "symbol": "snake_'),
        Reply('{"name": "outline", "arguments": {"path": "pkg/__init__.py"}}'),
        Reply(json.dumps({"name": "answer", "arguments": {"text": "pkg/__init__.py sets __all__ to snake_case_name; "
                                                                  "snake_case_name(*args) returns **args** as given."}})))
    app = build_app(repo, server_url=ollama_server.url, git_refresh=False)
    async with app.run_test(size=(160, 60)) as pilot:
        await wait_for(pilot, lambda: app.query_one(StatusBar).server == "connected", what="connected")
        app.query_one("#prompt").text = "what does pkg/__init__.py export?"
        await pilot.press("enter")
        await wait_for(pilot, lambda: "returns **args** as given." in painted(app), timeout=30, what="the answer")
        conversation = painted(app)
        assert "pkg/__init__.py sets __all__ to snake_case_name; snake_case_name(*args)" in conversation
        assert '{"name"' not in conversation and "cut off" not in conversation
        details = [text for line in app.query(DetailsLine) for _kind, text in line.items]
        assert any("cut off" in text for text in details)
        assert any('"symbol": "snake_' in text for text in details)  # the cut call, as the model wrote it
        assert re.search(r"outline +pkg/__init__\.py", conversation)  # the call, as its tool line


SNAP_TEXT = SAID.split("\n\n# not")[0] + "\n"


async def scene_details(pilot: Any, expand: bool) -> None:
    app = pilot.app
    no_blink(app)
    feed(app, ev.SessionStarted("s1", "repo", "qwen2.5-coder:1.5b", "ollama", "bwrap"),
         ev.ServerStatus("connected", "http://127.0.0.1:11434", "qwen2.5-coder:1.5b"))
    pane = app.query_one(AgentPane)
    pane.add_prompt("where is LIFOCache defined, and what does __all__ export?")
    raw = '{"name": "read_file", "arguments": {"path": "src/cachetools/__init__.py"}}'
    feed(app, ev.Detail(raw, "raw-call"), ev.ToolCallStarted("c1", "read_file", {"path": "src/cachetools/__init__.py"}),
         ev.ToolCallFinished("c1", "read_file", True, "read src/cachetools/__init__.py (212 lines)"),
         ev.Detail("the model sent the same reply again; asking once more, less predictably", "retry"),
         *(ev.TextDelta(c) for c in chunks(SNAP_TEXT, 3)), ev.TextDone(SNAP_TEXT), ev.TurnDone("complete"))
    await wait_for(pilot, lambda: app.query(DetailsLine) and pane.tokens_received and not pane.streaming)
    await wait_for(pilot, lambda: app.query_one(StatusBar).branch == "main", what="git status")
    if expand:
        await pilot.press("ctrl+l")
    await pilot.pause(0.2)


@pytest.mark.parametrize("size", [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")])
def test_snapshot_literal_reply_and_collapsed_details(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    repo = make_repo(tmp_path / "repo")

    async def scene(pilot: Any) -> None:
        await scene_details(pilot, expand=False)

    assert snap_compare(build_app(repo), terminal_size=size, run_before=scene)


def test_snapshot_details_expanded(snap_compare: Any, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")

    async def scene(pilot: Any) -> None:
        await scene_details(pilot, expand=True)

    assert snap_compare(build_app(repo), terminal_size=(160, 48), run_before=scene)
