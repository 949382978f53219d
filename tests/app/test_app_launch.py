"""Starting the app: no heavy imports before the first frame, clear errors outside a repo,
`devagent "PROMPT"`, and the kill key on a running command."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from tests.app.snapshot_apps.factory import build_app, wait_for
from tests.ollama_server import Reply, ScriptedOllama, ollama_server  # noqa: F401 - fixture
from tui.app.widgets.agent_pane import Reply as ReplyBlock
from tui.app.widgets.approval_queue import ApprovalQueue
from tui.app.widgets.output_pane import OutputPane
from tui.app.widgets.prompt_input import PromptInput
from tui.app.widgets.status_bar import StatusBar

ROOT = Path(__file__).resolve().parents[2]


def test_app_modules_import_nothing_heavy() -> None:
    code = ("import sys, tui.app.app, tui.app.launch; "
            "print(','.join(m for m in ('ollama', 'git', 'unidiff', 'httpx') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_not_a_repo_is_a_clear_message(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "tui"], cwd=tmp_path, capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, timeout=60)
    assert out.returncode == 3
    assert "not inside a git repository" in out.stderr and "Traceback" not in out.stderr


async def test_initial_prompt_is_sent(repo: Path, ollama_server: ScriptedOllama) -> None:
    ollama_server.push(Reply(text="Started with your prompt."))
    app = build_app(repo, server_url=ollama_server.url, prompt="explain app.py")
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: "Started with" in "".join(b.source for b in app.query(ReplyBlock)))
    sent = ollama_server.requests[0]["messages"]
    assert any(m["role"] == "user" and m["content"].endswith("explain app.py") for m in sent)
    assert "return a + b" in sent[-1]["content"], "the file the prompt names was read for the model"


async def test_kill_key_and_escape_stop_commands(repo: Path, ollama_server: ScriptedOllama) -> None:
    app = build_app(repo, server_url=ollama_server.url)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(pilot, lambda: app.query_one(StatusBar).server == "connected")
        output = app.query_one(OutputPane)
        for key in ("ctrl+k", "escape"):
            app.query_one(PromptInput).load_text("!sleep 117.25 > slept.txt")
            app.query_one(PromptInput).focus()
            await pilot.press("enter")
            queue = app.query_one(ApprovalQueue)
            await wait_for(pilot, lambda: queue.proposals, what="command proposal")
            await pilot.press("a")
            await wait_for(pilot, lambda: output.running, what="command running")
            await pilot.press(key)
            await wait_for(pilot, lambda: not app.main.busy(), timeout=10, what=f"{key} stops the command")
            await wait_for(pilot, lambda: not output.running, what="output pane shows the end")
            assert "killed" in output.log_widget.lines[-1] or "exit" in output.log_widget.lines[-1]
        out = subprocess.run(["pgrep", "-af", "sleep 117.25"], capture_output=True, text=True)
        assert out.stdout.strip() == "", subprocess.run(["ps", "-ef", "--forest"], capture_output=True, text=True).stdout[-3000:]


def _devagent(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "tui", *args], cwd=cwd, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60, env=env)


def _bad_options(tmp_path: Path, server_url: str) -> list[list[str]]:
    not_gguf = tmp_path / "notes.gguf"
    not_gguf.write_text("not a model\n")
    return [["--model-file", str(tmp_path / "nonexistent.gguf")],  # exit 4: no such file
            ["--model-file", str(not_gguf)],  # exit 4: not a GGUF file
            ["--host", "http://127.0.0.1:9"],  # exit 5: nothing answers (the discard port is closed here)
            ["--host", "http://[bad"],  # exit 78: not an address
            ["--backend", "openai", "--host", "127.0.0.1:9"],  # exit 5, worded for an OpenAI-compatible server
            ["--host", server_url, "--model", "no-such-model:7b"]]  # exit 6: the server lists its models


def test_a_bad_model_option_ends_the_app_as_it_ends_devagent_run(repo: Path, tmp_path: Path,
                                                                 ollama_server: ScriptedOllama) -> None:
    """`devagent --model-file /nonexistent.gguf` used to open the app, name host 127.0.0.1:0, retry every 3 s and
    exit 0: now each bad option ends it before it opens, with the message and exit code `devagent run` gives."""
    for options in _bad_options(tmp_path, ollama_server.url):
        run = _devagent(["run", *options, "hello"], repo)
        app = _devagent(options, repo)  # no terminal: an app that opened would fail differently, or hang
        assert run.returncode in (4, 5, 6, 78), (options, run.returncode, run.stderr)
        assert (app.returncode, app.stderr) == (run.returncode, run.stderr), options
        assert "Traceback" not in app.stderr and app.stdout == ""


async def test_good_model_options_pass_the_check(repo: Path, ollama_server: ScriptedOllama) -> None:
    """The check before the app opens lets working options through (the app then connects as always)."""
    from tui.app.launch import check_options
    from tui.config import load_config

    config = load_config(repo)
    assert await asyncio.to_thread(check_options, config, {"host": ollama_server.url}) == 0
    assert await asyncio.to_thread(check_options, config, {"host": ollama_server.url,
                                                           "model": "qwen2.5-coder:1.5b"}) == 0
    assert await asyncio.to_thread(check_options, config, {"resume": "latest"}) == 0  # no model option: no check
