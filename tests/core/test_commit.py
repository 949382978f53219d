"""Commit messages from the staged diff only (the scripted server sees what the model sees) and `devagent commit`."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from tests.conftest import git
from tests.ollama_server import Reply, ScriptedOllama
from tui.git import commitmsg
from tui.config import Config
from tui.llm.factory import make_backend
from tui.git.repo import Repo

ROOT = Path(__file__).resolve().parents[2]


def staged_and_unstaged(repo: Path) -> Repo:
    (repo / "app.py").write_text("def add(a, b):\n    return a + b\n\n\ndef greet():\n    return 'STAGED_HELLO'\n")
    git(repo, "add", "app.py")
    (repo / "app.py").write_text((repo / "app.py").read_text() + "\nUNSTAGED_WORK = 1\n")
    (repo / "scratch.txt").write_text("UNTRACKED_NOTES\n")
    return Repo(repo)


async def test_message_is_written_from_the_staged_diff_only(repo: Path, ollama_server: ScriptedOllama) -> None:
    r = staged_and_unstaged(repo)
    ollama_server.push(Reply(text="```\nAdd a greet() helper that returns a greeting.\n\nCallers need it.\n```"))
    backend = make_backend(Config(), host=ollama_server.url)
    try:
        message = await commitmsg.generate(backend, r.diff_staged(), r.recent_subjects())
    finally:
        await backend.close()
    assert message == "Add a greet() helper that returns a greeting\n\nCallers need it."
    sent = json.dumps(ollama_server.requests)
    assert "STAGED_HELLO" in sent
    assert "UNSTAGED_WORK" not in sent and "UNTRACKED_NOTES" not in sent


async def test_conventional_style_is_followed(repo: Path, ollama_server: ScriptedOllama) -> None:
    for i, subject in enumerate(["feat: add x", "fix(core): y", "docs: z"]):
        (repo / f"f{i}.txt").write_text(subject)
        git(repo, "add", ".")
        git(repo, "commit", "-qm", subject)
    r = staged_and_unstaged(repo)
    ollama_server.push(Reply(text="Here is the commit message:\n\"Add greet helper " + "and more " * 12 + "\""))
    backend = make_backend(Config(), host=ollama_server.url)
    try:
        message = await commitmsg.generate(backend, r.diff_staged(), r.recent_subjects())
    finally:
        await backend.close()
    summary = message.splitlines()[0]
    assert summary.startswith("chore: add greet helper") and len(summary) <= 72
    assert "Conventional Commits" in ollama_server.requests[-1]["messages"][0]["content"]


async def test_no_server_gives_the_fallback(repo: Path) -> None:
    r = staged_and_unstaged(repo)
    server = ScriptedOllama()
    server.start()
    server.set_down(True)
    cfg = Config()
    cfg.model.connect_timeout = 1.0
    cfg.model.retries = 0
    backend = make_backend(cfg, host=server.url)
    try:
        message = await commitmsg.generate(backend, r.diff_staged(), [])
        again, source = await commitmsg.generate_with_source(backend, r.diff_staged(), [])
    finally:
        await backend.close()
        server.stop()
    assert message == again == "Update app.py"
    assert source.startswith("fallback (") and server.url.split("//")[1] in source  # says which server failed


def test_sanitize_and_fallback_shapes() -> None:
    assert commitmsg.sanitize("Sure! Here's a message:\n\n`Fix the parser.`") == "Fix the parser"
    long = commitmsg.sanitize("x" * 100)
    assert len(long) == 72
    body = commitmsg.sanitize("Fix it\n\n" + "word " * 40).split("\n\n")[1]
    assert all(len(line) <= 72 for line in body.splitlines())
    assert commitmsg.uses_conventional(["feat: a", "fix: b", "Merge branch x"])
    assert not commitmsg.uses_conventional(["Add a", "fix: b", "Update c"])
    from tui.git.diffs import file_diff

    diff = file_diff("tests/test_a.py", None, b"x\n") + file_diff("tests/test_b.py", b"y\n", b"z\n")
    msg = commitmsg.fallback_message(diff, ["test: a", "feat: b"])
    assert msg.startswith("test: update test_a.py, test_b.py")
    assert "- tests/test_a.py (+1 -0)" in msg


def devagent(repo: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tui", *args], cwd=repo, capture_output=True, text=True,
                          input=stdin, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})


def hook(repo: Path, name: str, body: str) -> None:
    path = repo / ".git" / "hooks" / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_cli_commit_runs_hooks_and_commits(repo: Path, ollama_server: ScriptedOllama) -> None:
    staged_and_unstaged(repo)
    hook(repo, "pre-commit", "echo HOOK-RAN\n")
    ollama_server.push(Reply(text="Add greet helper"))
    out = devagent(repo, "commit", "--yes", "--host", ollama_server.url)
    assert out.returncode == 0, out.stderr
    assert "HOOK-RAN" in out.stdout and "(message from model qwen2.5-coder:1.5b)" in out.stdout
    assert git(repo, "log", "-1", "--format=%s").strip() == "Add greet helper"
    assert "UNSTAGED_WORK" in (repo / "app.py").read_text()  # unstaged work stays unstaged
    assert "UNSTAGED_WORK" not in git(repo, "show", "HEAD:app.py")


def test_cli_failing_hook_keeps_message(repo: Path) -> None:
    staged_and_unstaged(repo)
    hook(repo, "pre-commit", "echo 'lint failed' >&2; exit 1\n")
    out = devagent(repo, "commit", "--yes", "-m", "feat: keep me")
    assert out.returncode == 1
    assert "lint failed" in out.stdout and "kept in" in out.stdout
    assert (repo / ".git" / "devagent" / "COMMIT_MSG").read_text() == "feat: keep me\n"
    assert git(repo, "log", "-1", "--format=%s").strip() == "initial commit"


def test_cli_without_terminal_or_yes_refuses(repo: Path) -> None:
    staged_and_unstaged(repo)
    out = devagent(repo, "commit", "-m", "x", stdin="")
    assert out.returncode == 3 and "--yes" in out.stderr


def test_cli_nothing_staged_and_not_a_repo(repo: Path, tmp_path: Path) -> None:
    out = devagent(repo, "commit", "--yes", "--no-model")
    assert out.returncode == 3 and "Nothing is staged" in out.stderr
    elsewhere = tmp_path / "plain"
    elsewhere.mkdir()
    out = devagent(elsewhere, "commit", "--yes")
    assert out.returncode == 3 and "not inside a git repository" in out.stderr


def test_cli_busy_repo(repo: Path) -> None:
    staged_and_unstaged(repo)
    (repo / ".git" / "MERGE_HEAD").write_text("0" * 40 + "\n")
    out = devagent(repo, "commit", "--yes", "-m", "x")
    assert out.returncode == 3 and "merge is in progress" in out.stderr and "git merge --abort" in out.stderr


async def test_stage_and_commit_tools(repo: Path) -> None:
    from tui.protocol.proposals import Decision
    from tui.tools.base import ToolContext
    from tui.tools.git_write import COMMIT, STAGE

    (repo / "app.py").write_text("def add(a, b):\n    return a + b + 1\n")
    (repo / "new.txt").write_text("new\n")
    ctx = ToolContext(repo=repo, config=Config(), emit=lambda event: None)
    assert git(repo, "diff", "--cached") == ""
    proposal = await STAGE.propose(ctx, {})
    assert proposal.kind == "stage" and proposal.files == ["app.py", "new.txt"]
    assert git(repo, "diff", "--cached") == ""  # proposing changes nothing
    result = await STAGE.execute(ctx, proposal, Decision("approve", hunks=(1,)))
    assert result.ok and "app.py" in result.output  # the rejected hunk is described
    assert git(repo, "diff", "--cached", "--name-only").split() == ["new.txt"]
    commit = await COMMIT.propose(ctx, {"message": "```\nAdd new.txt.\n```"})
    assert commit.kind == "commit" and commit.message == "Add new.txt" and "+new" in (commit.diff or "")
    git(repo, "add", "app.py")  # the index changes after the developer saw the proposal
    refused = await COMMIT.execute(ctx, commit, Decision("approve"))
    assert not refused.ok and "changed" in refused.output
    git(repo, "reset", "-q", "app.py")
    done = await COMMIT.execute(ctx, commit, Decision("approve", message="Add new.txt (edited)"))
    assert done.ok, done.output
    assert git(repo, "log", "-1", "--format=%s").strip() == "Add new.txt (edited)"


def test_cli_interactive_edit_then_commit(repo: Path) -> None:
    from tests.core.test_review import run_in_pty

    staged_and_unstaged(repo)
    editor = {"GIT_EDITOR": "sed -i '1s/^/edited: /'"}
    argv = [sys.executable, "-m", "tui", "commit", "--no-model"]
    code, seen = run_in_pty(argv, repo, [("Commit?", "e\n"), ("Commit?", "y\n")], extra_env=editor)
    assert code == 0, seen
    assert "| Update app.py" in seen
    assert git(repo, "log", "-1", "--format=%s").strip() == "edited: Update app.py"


def test_cli_interactive_decline(repo: Path) -> None:
    from tests.core.test_review import run_in_pty

    staged_and_unstaged(repo)
    code, seen = run_in_pty([sys.executable, "-m", "tui", "commit", "-m", "x"], repo, [("Commit?", "n\n")])
    assert code == 1 and "Not committed" in seen
    assert git(repo, "log", "-1", "--format=%s").strip() == "initial commit"
