"""The sandbox runner itself: profile, environment, git dirs, limits, output, detection and fallback."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git
from tui.sandbox import runner as sandbox_module
from tui.sandbox import profile as sandbox_profile
from tui.config import Config
from tui.protocol.errors import SandboxError
from tui.sandbox.runner import Sandbox, detect

BWRAP = detect(Config()).active
needs_bwrap = pytest.mark.skipif(not BWRAP, reason="bubblewrap does not work here")
MODES = ["bwrap", "none"] if BWRAP else ["none"]


def _sandbox(repo: Path, mode: str = "bwrap", **limits: float) -> Sandbox:
    cfg = Config()
    cfg.sandbox.mode = mode
    cfg.limits.grace = 0.5
    for key, value in limits.items():
        setattr(cfg.limits, key, value)
    return Sandbox(repo, cfg)


@needs_bwrap
async def test_repo_under_tmp_is_writable_and_git_is_read_only(repo: Path) -> None:
    assert str(repo).startswith("/tmp/")  # --tmpfs /tmp must come before the repo bind
    head = git(repo, "rev-parse", "HEAD")
    result = await _sandbox(repo).run("echo made > new.txt; touch .git/evil; git commit --allow-empty -qm x; echo $?")
    assert (repo / "new.txt").read_text() == "made\n"
    assert not (repo / ".git" / "evil").exists()
    assert git(repo, "rev-parse", "HEAD") == head
    assert "Read-only file system" in result.output


@needs_bwrap
async def test_worktree_git_dirs_are_read_only(repo: Path, tmp_path: Path) -> None:
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", str(worktree), "-b", "feature")
    before = git(repo, "rev-parse", "feature")
    dotgit = (worktree / ".git").read_text()
    sandbox = _sandbox(worktree)
    result = await sandbox.run("git status --short; git commit --allow-empty -qm x; echo gitdir: /tmp > .git; "
                               "echo ok > file.txt")
    assert (worktree / "file.txt").read_text() == "ok\n"
    assert (worktree / ".git").read_text() == dotgit
    assert git(repo, "rev-parse", "feature") == before
    assert "Read-only" in result.output
    assert any(p.endswith("/.git") for p in sandbox_profile.git_dirs(worktree))
    assert any("worktrees" in p for p in sandbox_profile.git_dirs(worktree))


def test_profile_order_and_flags(repo: Path) -> None:
    sandbox = _sandbox(repo)
    if not BWRAP:
        pytest.skip("bubblewrap does not work here")
    argv, _env, _cwd = sandbox.build("true")
    joined = " ".join(argv)
    for flag in ("--die-with-parent", "--new-session", "--unshare-all", "--unshare-user", "--disable-userns",
                 "--cap-drop ALL", "--ro-bind / /", "--clearenv"):
        assert flag in joined
    assert "--share-net" not in argv
    assert joined.index("--tmpfs /tmp") < joined.index(f"--bind {repo} {repo}") < joined.index(f"--ro-bind {repo}/.git")
    assert "--share-net" in sandbox.build("true", network=True)[0]


@pytest.mark.parametrize("mode", MODES)
async def test_environment_is_an_allow_list(repo: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-for-commands")
    monkeypatch.setenv("MY_TOOL_VAR", "passed")
    monkeypatch.setenv("VIRTUAL_ENV", "/srv/venv")  # toolchain locations pass through (HOME is replaced)
    sandbox = _sandbox(repo, mode)
    sandbox.config.sandbox.env = ["MY_TOOL_VAR"]
    result = await sandbox.run("env", env={"EXTRA": "1"})
    env = dict(line.split("=", 1) for line in result.output.splitlines() if "=" in line)
    assert "AWS_SECRET_ACCESS_KEY" not in env
    assert env["VIRTUAL_ENV"] == "/srv/venv"
    assert env["MY_TOOL_VAR"] == "passed" and env["EXTRA"] == "1" and env["GIT_TERMINAL_PROMPT"] == "0"
    assert env["HOME"] != os.environ["HOME"] and "PATH" in env


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("via", ["prlimit", "preexec"])
async def test_rlimits_file_size_and_core(repo: Path, mode: str, via: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if via == "preexec":
        monkeypatch.setattr(sandbox_module, "_PRLIMIT", "")  # hosts without util-linux prlimit
    sandbox = _sandbox(repo, mode)
    sandbox.config.limits.file_size_mb = 1
    result = await sandbox.run("head -c 3000000 /dev/zero > big.bin; echo rc=$?; ulimit -c")
    assert (repo / "big.bin").stat().st_size <= 1024 * 1024
    assert "rc=0" not in result.output
    assert result.output.strip().endswith("0")


async def test_cpu_limit_ends_a_busy_loop(repo: Path) -> None:
    sandbox = _sandbox(repo, MODES[0], command_timeout=60)
    sandbox.config.limits.cpu_seconds = 1
    result = await sandbox.run("while :; do :; done")
    assert result.killed == "" and result.exit_code != 0


@pytest.mark.parametrize("mode", MODES)
async def test_output_keeps_head_and_tail(repo: Path, mode: str) -> None:
    chunks: list[str] = []
    result = await _sandbox(repo, mode, output_cap=1000).run("seq 1 100000", on_output=chunks.append)
    assert result.output.startswith("1\n2\n3\n")
    assert result.output.rstrip().endswith("99999\n100000")
    assert result.dropped_bytes == len("".join(f"{i}\n" for i in range(1, 100001))) - 1000
    assert "dropped" in result.output
    assert "".join(chunks).startswith("1\n2\n")


@pytest.mark.parametrize("mode", MODES)
async def test_basics_exit_code_stdin_and_argv(repo: Path, mode: str) -> None:
    sandbox = _sandbox(repo, mode)
    assert (await sandbox.run("exit 3")).exit_code == 3
    assert (await sandbox.run("cat; echo done")).output == "done\n"  # stdin is /dev/null
    assert (await sandbox.run(["printf", "%s", "a b; rm -rf x"])).output == "a b; rm -rf x"
    sub = repo / "sub"
    sub.mkdir()
    assert (await sandbox.run("pwd", cwd=Path("sub"))).output.strip() == str(sub.resolve())
    with pytest.raises(SandboxError):
        await sandbox.run("pwd", cwd=Path("/"))


def test_missing_bwrap_falls_back_loudly(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox_profile, "_detected", {})
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    info = detect(Config())
    assert (info.kind, info.active) == ("none", False)
    assert "not installed" in info.detail and "SANDBOX OFF" in info.detail


def test_broken_bwrap_falls_back_loudly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(sandbox_profile, "_detected", {})
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    info = detect(Config())
    assert (info.kind, info.active) == ("none", False)
    assert "uid map" in info.detail and "SANDBOX OFF" in info.detail


async def test_no_sandbox_still_applies_limits(repo: Path) -> None:
    result = await _sandbox(repo, "none").run("sleep 30", timeout=0.5)
    assert result.killed == "timeout" and result.exit_code is None


def _doctor(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tui", "doctor", *args], cwd=repo, capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})


def test_doctor_reports_sandbox_git_config_and_model(repo: Path, ollama_server: object) -> None:
    result = _doctor(repo, "--host", ollama_server.url)  # type: ignore[attr-defined]
    assert result.returncode == (0 if BWRAP else 1), result.stdout + result.stderr
    out = result.stdout
    assert "git version" in out and str(repo.resolve()) in out and "config" in out
    assert ("bwrap (active)" if BWRAP else "SANDBOX OFF") in out
    assert "ready" in out


def test_doctor_says_what_to_do_when_things_are_missing(tmp_path: Path) -> None:
    result = _doctor(tmp_path, "--host", "http://127.0.0.1:9")
    assert result.returncode == 1
    assert "FAIL  repo" in result.stdout and "FAIL  model" in result.stdout
    assert result.stdout.count("fix:") >= 2


@needs_bwrap
async def test_user_config_writable_paths_are_bound(repo: Path, tmp_path: Path) -> None:
    extra = Path("/var/tmp") / f"devagent-writable-{os.getpid()}"
    extra.mkdir(exist_ok=True)
    try:
        sandbox = _sandbox(repo)
        sandbox.config.sandbox.writable = [str(extra)]
        result = await sandbox.run(f"echo cache > {extra}/c.txt && echo ok")
        assert result.output == "ok\n" and (extra / "c.txt").read_text() == "cache\n"
        blocked = await _sandbox(repo).run(f"echo no > {extra}/d.txt")
        assert blocked.exit_code != 0 and not (extra / "d.txt").exists()
    finally:
        for child in extra.iterdir():
            child.unlink()
        extra.rmdir()


@needs_bwrap
async def test_submodule_git_file_is_read_only(repo: Path, tmp_path: Path) -> None:
    from tests.conftest import make_repo

    lib = make_repo(tmp_path / "lib")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    git(repo, "commit", "-qm", "add submodule")
    dotgit = (repo / "vendor" / "lib" / ".git").read_text()
    result = await _sandbox(repo).run("echo 'gitdir: /tmp/evil' > vendor/lib/.git; cd vendor/lib && "
                                      "git commit --allow-empty -qm x; echo new > vendor-file.txt")
    assert (repo / "vendor" / "lib" / ".git").read_text() == dotgit
    assert (repo / "vendor" / "lib" / "vendor-file.txt").exists()
    assert "Read-only" in result.output
