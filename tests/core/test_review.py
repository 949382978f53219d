"""`devagent review --staged`: deterministic findings, model review within budget, exit codes with/without a TTY."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import git
from tests.ollama_server import Reply, ScriptedOllama
from tui.config import Config
from tui.llm.factory import make_backend
from tui.git.repo import Repo
from tui.git.review import deterministic, review_staged

ROOT = Path(__file__).resolve().parents[2]
AWS = "AKIA" + "ABCDEFGHIJKLMNOP"  # split so this file itself does not look like a leak
KEY = "-----BEGIN RSA " + "PRIVATE KEY-----"


def env() -> dict[str, str]:
    """Subprocess environment: this checkout importable, and no real model server reachable by accident."""
    return {**os.environ, "PYTHONPATH": str(ROOT), "OLLAMA_HOST": os.environ.get("OLLAMA_HOST") or "http://127.0.0.1:9"}


def devagent_notty(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run devagent in a new session: no controlling terminal, like CI or a GUI git client."""
    return subprocess.run([sys.executable, "-m", "tui", *args], cwd=repo, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120, env=env(), start_new_session=True)


def stage(repo: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        target = repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
    git(repo, "add", *files)


def test_deterministic_checks_find_what_they_should(repo: Path) -> None:
    stage(repo, {
        "app.py": "def add(a, b):\n    breakpoint()\n    return a + b \n",
        "conflict.txt": "<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> branch\n",
        "settings.py": f"AWS_KEY = '{AWS}'\npassword = 'hunter2hunter2'\n",
        "id_rsa": f"{KEY}\nMIIE\n",
        "web/app.js": "function f() {\n  console.log('x');\n  debugger;\n}\n",
        "broken.py": "def f(:\n    pass\n",
        "data.json": '{"a": 1,}\n',
        "logo.png": b"\x89PNG\x00\x00" + bytes(range(256)) * 8,
    })
    cfg = Config()
    cfg.review.max_file_kb = 1
    found = {(f.file, f.line, f.check, f.severity) for f in deterministic(Repo(repo), Repo(repo).diff_staged(), cfg)}
    assert ("app.py", 2, "debug", "warning") in found
    assert ("app.py", 3, "whitespace", "warning") in found
    assert ("conflict.txt", 1, "conflict-marker", "error") in found
    assert ("conflict.txt", 3, "conflict-marker", "error") in found
    assert ("settings.py", 1, "secret", "error") in found
    assert ("settings.py", 2, "secret", "warning") in found
    assert ("id_rsa", 1, "secret", "error") in found
    assert ("web/app.js", 2, "debug", "warning") in found and ("web/app.js", 3, "debug", "warning") in found
    assert ("broken.py", 1, "syntax", "error") in found
    assert ("data.json", 1, "syntax", "error") in found
    assert ("logo.png", None, "binary-file", "info") in found
    assert ("logo.png", None, "large-file", "warning") in found


def test_clean_change_has_no_findings(repo: Path) -> None:
    stage(repo, {"app.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"})
    assert deterministic(Repo(repo), Repo(repo).diff_staged(), Config()) == []


def test_no_tty_blocking_finding_exits_1_and_says_how(repo: Path) -> None:
    stage(repo, {"conflict.txt": "<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n"})
    out = devagent_notty(repo, "review", "--staged", "--no-model")
    assert out.returncode == 1
    assert "conflict.txt:1" in out.stdout and "conflict marker" in out.stdout
    assert "devagent review --staged` in a terminal" in out.stderr


def test_no_tty_warnings_only_exit_0(repo: Path) -> None:
    stage(repo, {"app.py": "import pdb\n"})
    out = devagent_notty(repo, "review", "--staged", "--no-model")
    assert out.returncode == 0, out.stderr
    assert "pdb" in out.stdout
    data = json.loads(devagent_notty(repo, "review", "--staged", "--no-model", "--json").stdout)
    assert data["findings"][0]["check"] == "debug" and data["findings"][0]["line"] == 1


def test_no_server_is_not_an_error(repo: Path) -> None:
    stage(repo, {"app.py": "x = 1\n"})
    server = ScriptedOllama()
    server.start()
    server.set_down(True)
    try:
        out = devagent_notty(repo, "review", "--staged", "--host", server.url)
    finally:
        server.stop()
    assert out.returncode == 0, out.stderr
    assert "no model review" in out.stdout


async def test_model_review_with_a_server(repo: Path, ollama_server: ScriptedOllama) -> None:
    stage(repo, {"app.py": "def add(a, b):\n    return a - b\n"})
    ollama_server.push(Reply(text="app.py:2: warning: add() subtracts\nnot-a-file.py:1: error: invented\n"))
    backend = make_backend(Config(), host=ollama_server.url)
    try:
        result = await review_staged(Repo(repo), Config(), backend=backend)
    finally:
        await backend.close()
    assert [(f.file, f.line, f.severity, f.check) for f in result.findings] == [("app.py", 2, "warning", "model")]
    assert result.model_status.startswith("reviewed by")
    assert "return a - b" in json.dumps(ollama_server.requests[-1])


async def test_model_review_respects_its_budget(repo: Path, ollama_server: ScriptedOllama) -> None:
    stage(repo, {"app.py": "x = 2\n"})
    ollama_server.push(Reply(text="app.py:1: warning: slow", fault="stall", fault_after=0, stall=30))
    cfg = Config()
    cfg.review.model_budget = 1.0
    backend = make_backend(cfg, host=ollama_server.url)
    started = time.monotonic()
    try:
        result = await review_staged(Repo(repo), cfg, backend=backend)
    finally:
        await backend.close()
    assert "budget" in result.model_status
    assert time.monotonic() - started < 25  # hang guard: the stall lasts 30 s


def run_in_pty(argv: list[str], cwd: Path, answers: list[tuple[str, str]], timeout: float = 90,
               ui: str = "prompt", extra_env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run argv with a pty as its controlling terminal; when `expect` shows up, type `reply`."""
    pid, fd = pty.fork()
    if pid == 0:  # child
        os.chdir(cwd)
        os.environ.update(env())
        os.environ.update({"DEVAGENT_REVIEW_UI": ui, "TERM": "xterm-256color", "TEXTUAL_ANIMATIONS": "none",
                           **(extra_env or {})})
        os.execvp(argv[0], argv)
    seen = ""
    mark = 0
    pending = list(answers)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            seen += data.decode(errors="replace")
        if pending and pending[0][0] in seen[mark:]:  # only output that came after the last answer counts
            os.write(fd, pending.pop(0)[1].encode())
            seen += "\n<sent>\n"
            mark = len(seen)
    else:
        os.kill(pid, 9)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), seen


def test_tty_review_approve_and_reject(repo: Path) -> None:
    stage(repo, {"app.py": "import pdb\n"})
    code, seen = run_in_pty([sys.executable, "-m", "tui", "review", "--staged", "--no-model"], repo,
                            [("[a]pprove", "r\n")])
    assert code == 1, seen
    assert "pdb" in seen and "Commit rejected" in seen
    code, seen = run_in_pty([sys.executable, "-m", "tui", "review", "--staged", "--no-model"], repo,
                            [("[a]pprove", "a\n")])
    assert code == 0, seen


def test_tty_review_can_unstage_hunks(repo: Path) -> None:
    stage(repo, {"app.py": "import pdb\n", "ok.txt": "fine\n"})
    code, seen = run_in_pty([sys.executable, "-m", "tui", "review", "--staged", "--no-model"], repo,
                            [("[a]pprove", "u\n"), ("Hunks to unstage", "1\n"), ("Unstaged 1", "a\n")])
    assert code == 0, seen
    assert git(repo, "diff", "--cached", "--name-only").split() == ["ok.txt"]
    assert (repo / "app.py").read_text() == "import pdb\n"  # still in the working tree


def test_tty_full_screen_review(repo: Path) -> None:
    """The default in a terminal: the Textual review screen (staged diff + findings)."""
    stage(repo, {"app.py": "import pdb\n"})
    argv = [sys.executable, "-m", "tui", "review", "--staged", "--no-model"]
    code, seen = run_in_pty(argv, repo, [("1 finding, ", "r")], ui="tui")
    assert code == 1, seen[-2000:]
    code, seen = run_in_pty(argv, repo, [("1 finding, ", "a")], ui="tui")
    assert code == 0, seen[-2000:]


def test_tty_full_screen_unstage_then_approve(repo: Path) -> None:
    stage(repo, {"app.py": "import pdb\n", "ok.txt": "fine\n"})
    argv = [sys.executable, "-m", "tui", "review", "--staged", "--no-model"]
    code, seen = run_in_pty(argv, repo, [("1 finding, ", " u"), ("Unstaged 1", "a")], ui="tui")
    assert code == 0, seen[-2000:]
    assert git(repo, "diff", "--cached", "--name-only").split() == ["ok.txt"]
