"""Each thing is said once: a tool call the model wrote into its text is shown as its call line only,
the missing sandbox is one note, and a progress note (a keyed notice) rewrites its own line."""

from __future__ import annotations

import json
import os
import pty
from pathlib import Path

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.core.test_cli_run import devagent, json_lines
from tests.ollama_server import Reply, ScriptedOllama
from tui.protocol.events import Notice, TextDelta, TextDone
from tui.headless import TextPrinter
from tui.llm.parse import extract_tool_calls
from tui.engine.loop.prose import ProseStream

CALL = '{"name": "read_file", "arguments": {"path": "app.py"}}'
FENCED = f"I will read the file first.\n\n```json\n{CALL}\n```\n"
NAMES = {"read_file", "run_command", "edit_file", "write_file", "list_files", "search"}


def test_text_mode_prints_a_written_call_once_as_its_call_line(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(FENCED), Reply("It defines add()."))
    out = devagent(repo, "run", "what does the code do?", url=ollama_server.url)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("I will read the file first.") == 1
    assert out.stdout.count("→ read_file(") == 1
    assert '"name"' not in out.stdout and "```" not in out.stdout  # the raw call is not printed as text
    assert out.stdout.rstrip().endswith("It defines add().")


def test_text_mode_streams_prose_and_code_that_hold_no_call(repo: Path, ollama_server: ScriptedOllama) -> None:
    answer = "Here is `add`:\n\n```python\ndef add(a, b):\n    return {'sum': a + b}\n```\n\nThat is all."
    ollama_server.push(Reply(answer))
    out = devagent(repo, "run", "show add", url=ollama_server.url)
    assert out.returncode == 0, out.stderr
    assert answer in out.stdout  # nothing dropped, nothing doubled


def test_json_mode_text_done_says_what_was_prose(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(FENCED), Reply("It defines add()."))
    out = devagent(repo, "run", "--json", "what does the code do?", url=ollama_server.url)
    done = [e for e in json_lines(out.stdout) if e["type"] == "text_done"]
    assert done[0]["text"] == FENCED  # the whole message, as streamed
    assert done[0]["shown"] == "I will read the file first."
    assert done[1]["shown"] == done[1]["text"] == "It defines add()."


def test_no_sandbox_is_said_once(repo: Path, ollama_server: ScriptedOllama, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "user.toml"
    config.write_text('[sandbox]\nmode = "none"\n[model]\npipelines = "off"\n')
    monkeypatch.setenv("DEVAGENT_CONFIG", str(config))
    ollama_server.push(Reply("Hello."))
    out = devagent(repo, "run", "hi", url=ollama_server.url)
    assert out.returncode == 0, out.stderr
    assert out.stderr.count("SANDBOX OFF") == 1
    assert out.stderr.lower().count("every command needs your") == 1


def read_all(master: int) -> str:
    """Everything written to a pty whose other end is closed."""
    data = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the writer closed its end
            break
        if not chunk:
            break
        data += chunk
    os.close(master)
    return data.decode()


def test_keyed_notes_rewrite_their_line_on_a_terminal() -> None:
    master, slave = pty.openpty()
    with os.fdopen(slave, "w") as err:
        printer = TextPrinter(out=err, err=err)
        for seconds in (1, 2, 3):
            printer(Notice(f"model: loading … {seconds} s", key="model-load"))
        printer(Notice("model: ready", key="model-load"))
        printer(Notice("something else"))
    shown = read_all(master)
    assert shown.count("\n") == 2  # two lines: the progress line (rewritten in place) and the other note
    assert shown.count("\r\x1b[K") == 3 and shown.rstrip().endswith("note: something else")


def test_keyed_notes_are_all_kept_when_not_on_a_terminal(tmp_path: Path) -> None:
    with open(tmp_path / "log", "w") as err:
        printer = TextPrinter(out=err, err=err)
        for seconds in (1, 2):
            printer(Notice(f"model: loading … {seconds} s", key="model-load"))
    lines = (tmp_path / "log").read_text().splitlines()
    assert lines == ["note: model: loading … 1 s", "note: model: loading … 2 s"]  # a log keeps every step


def _printed(message: str, cuts: list[int]) -> tuple[str, str]:
    """What a TextPrinter prints for ``message`` streamed in pieces cut at ``cuts``, and the engine's shown."""
    parsed = extract_tool_calls(message, NAMES)
    shown = parsed.text if parsed.calls else message
    stream = ProseStream(lambda: NAMES)
    pieces = [message[a:b] for a, b in zip([0, *cuts], [*cuts, len(message)])]
    out = "".join(stream.push(piece) for piece in pieces) + stream.finish(shown)
    return out, shown


MESSAGES = [
    FENCED,
    f"Reading it now. {CALL}",
    f"{CALL}\n\nThen I will answer.",
    "```bash\npytest -q\n```\n",
    "Plain prose with `code` and a list:\n\n- one\n- two {braces} [links](x)\n",
    "```python\nprint({1: 2})\n```\n\nand text after.",
    f"First.\n\n   ```json\n   {CALL}\n   ```\n\nLast.",
]


@settings(max_examples=300, deadline=None)
@given(index=st.integers(0, len(MESSAGES) - 1), data=st.data())
def test_prose_stream_prints_the_prose_once_whatever_the_chunking(index: int, data: st.DataObject) -> None:
    message = MESSAGES[index]
    cuts = sorted(set(data.draw(st.lists(st.integers(1, len(message) - 1), max_size=12))))
    out, shown = _printed(message, cuts)
    assert out.split() == shown.split()  # the same words in the same order, each once
    if shown != message:
        assert '"name"' not in out and "pytest -q" not in out


def test_text_printer_shows_text_done_shown_not_the_call() -> None:
    master, slave = pty.openpty()
    with os.fdopen(slave, "w") as out:
        printer = TextPrinter(out=out, err=out)
        for piece in ("I will read the file first.\n\n", "```json\n", CALL, "\n```\n"):
            printer(TextDelta(piece))
        printer(TextDone(FENCED, "I will read the file first."))
    shown = read_all(master).replace("\r\n", "\n")
    assert shown == "I will read the file first.\n\n"
    assert json.loads(CALL)["name"] not in shown
