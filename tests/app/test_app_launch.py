"""Starting the app: no heavy imports before the first frame, clear errors outside a repo,
`devagent "PROMPT"`, and the kill key on a running command."""

from __future__ import annotations

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
