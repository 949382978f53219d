"""The project's environment inside the real sandbox: interpreters under /tmp stay visible (read-only), the
project's variables pass and secrets do not, and the secret masks still win over every bind."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import make_repo
from tests.core.env_fixtures import bare_venv, make_venv  # noqa: F401
from tui.config import Config
from tui.sandbox.runner import Sandbox, detect

needs_bwrap = pytest.mark.skipif(not detect(Config()).active, reason="bubblewrap does not work here")
PATH = "/usr/local/bin:/usr/bin:/bin"


def _sandbox(repo: Path, config: Config | None = None) -> Sandbox:
    config = config or Config()
    config.limits.grace = 0.5
    return Sandbox(repo, config)


def _activate(monkeypatch: pytest.MonkeyPatch, venv: Path | None) -> None:
    """devagent run as a pipx install would be, with ``venv`` activated in its environment."""
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    if venv is None:
        monkeypatch.delenv("VIRTUAL_ENV", raising=False)
        monkeypatch.setenv("PATH", PATH)
    else:
        monkeypatch.setenv("VIRTUAL_ENV", str(venv))
        monkeypatch.setenv("PATH", f"{venv}/bin:{PATH}")


def _binds(argv: list[str]) -> list[str]:
    return [argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind" and argv[i + 1] == argv[i + 2]]


@needs_bwrap
async def test_an_activated_venv_under_tmp_runs_inside_the_sandbox(repo: Path, bare_venv: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    assert str(bare_venv).startswith("/tmp/") and not str(bare_venv).startswith(str(repo))
    _activate(monkeypatch, bare_venv)
    sandbox = _sandbox(repo)
    argv, _env, _cwd = sandbox.build(["python3", "-c", "import sys; print(sys.prefix)"])
    assert str(bare_venv) in _binds(argv) and "/tmp" not in _binds(argv)
    assert argv.index(str(bare_venv)) < argv.index(str(repo)), "bound before the repo (which may lie inside it)"
    result = await sandbox.run(["python3", "-c", "import sys, os; print(sys.prefix); print(os.environ['VIRTUAL_ENV'])"])
    assert result.exit_code == 0, result.output
    assert result.output.split() == [str(bare_venv), str(bare_venv)]
    written = await sandbox.run(f"touch {bare_venv}/x; echo $?")
    assert not (bare_venv / "x").exists() and written.output.strip().endswith("1"), "read-only"


@needs_bwrap
async def test_a_base_interpreter_under_tmp_is_bound_too(repo: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A venv made from an interpreter that itself lives under /tmp (a uv/pyenv-managed Python unpacked there)."""
    real = Path(os.path.realpath(sys.executable))
    base = tmp_path / "managed-python"
    (base / "bin").mkdir(parents=True)
    (base / "lib").mkdir()
    (base / "bin" / real.name).symlink_to(real)
    lib = next(p for p in (real.parent.parent / "lib").glob("python3.*") if (p / "os.py").is_file())
    (base / "lib" / lib.name).symlink_to(lib)
    venv = make_venv(tmp_path / "envs" / "v", python=str(base / "bin" / real.name))
    assert os.readlink(venv / "bin" / "python3").startswith(str(base)) or \
        str(base) in (venv / "pyvenv.cfg").read_text()
    _activate(monkeypatch, venv)
    sandbox = _sandbox(repo)
    binds = _binds(sandbox.build(["true"])[0])
    assert str(venv) in binds and str(base) in binds
    result = await sandbox.run(["python3", "-c", "print('runs')"])
    assert result.exit_code == 0 and result.output.strip() == "runs", result.output


@needs_bwrap
async def test_what_is_not_bound_never_reaches_the_sandbox(repo: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Never /tmp itself, nothing the developer does not own, and a repo's .venv link only to a Python."""
    other = tmp_path / "not-mine" / "bin"
    other.mkdir(parents=True)
    if os.getuid() == 0:
        os.chown(other.parent, 65534, 65534)
    decoy = tmp_path / "decoy"  # not a Python installation: a repo's .venv pointing here binds nothing
    (decoy / "bin").mkdir(parents=True)
    (decoy / "bin" / "python3").write_text("#!/bin/sh\necho decoy\n")
    (decoy / "bin" / "python3").chmod(0o755)
    (decoy / "secret.txt").write_text("host /tmp data\n")
    (repo / ".venv").symlink_to(decoy)
    monkeypatch.setenv("PATH", f"/tmp:{other}:{PATH}")
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    sandbox = _sandbox(repo)
    binds = _binds(sandbox.build(["true"])[0])
    assert "/tmp" not in binds and str(decoy) not in binds
    if os.getuid() == 0:
        assert str(other.parent) not in binds
    result = await sandbox.run(f"cat {decoy}/secret.txt; ls /tmp")
    assert "host /tmp data" not in result.output


@needs_bwrap
async def test_masks_win_over_binds(repo: Path, bare_venv: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = bare_venv / "token.txt"
    secret.write_text("s3cret\n")
    _activate(monkeypatch, bare_venv)
    config = Config()
    config.sandbox.mask = [str(secret)]
    try:
        result = await _sandbox(repo, config).run(f"cat {secret}; python3 -c 'print(1)'")
    finally:
        secret.unlink()
    assert "s3cret" not in result.output and result.output.strip().endswith("1")


@needs_bwrap
async def test_project_variables_pass_and_secrets_do_not(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _activate(monkeypatch, None)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("PYTHONPATH", "src")  # relative in devagent's environment: made absolute for commands
    monkeypatch.setenv("DJANGO_SETTINGS_MODULE", "site.settings")
    monkeypatch.setenv("DEVAGENT_API_KEY", "sk-not-for-commands")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-neither")
    (repo / "sub").mkdir()
    out = (await _sandbox(repo).run("env", cwd=Path("sub"))).output
    env = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    assert env["PYTHONPATH"] == str(repo / "src") and env["DJANGO_SETTINGS_MODULE"] == "site.settings"
    assert "sk-" not in out
    config = Config()
    config.project.pass_env = []
    config.project.env = {"PYTHONPATH": "lib"}
    out = (await _sandbox(repo, config).run("env")).output
    env = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    assert env["PYTHONPATH"] == str(repo / "lib") and "DJANGO_SETTINGS_MODULE" not in env


@needs_bwrap
async def test_the_repo_venv_is_activated_for_every_command(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _activate(monkeypatch, None)
    make_venv(repo / ".venv")
    out = (await _sandbox(repo).run("command -v python3; echo $VIRTUAL_ENV")).output.split()
    assert out == [str(repo / ".venv" / "bin" / "python3"), str(repo / ".venv")]


@needs_bwrap
@pytest.mark.skipif(not shutil.which("node"), reason="node is not installed")
async def test_a_node_toolchain_under_tmp_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """nvm's layout (NVM_DIR/versions/node/vX/bin) unpacked under /tmp, and nothing else on PATH has node."""
    from tui.testing import run_tests

    repo = make_repo(tmp_path / "web", {
        "package.json": '{"name": "w", "scripts": {"test": "node --test"}}\n',
        "test/a.test.js": ("const test = require('node:test');\nconst assert = require('node:assert');\n"
                           "test('adds', () => assert.strictEqual(1 + 1, 2));\n"
                           "test('fails', () => assert.strictEqual(1 + 1, 3));\n"),
    })
    bin_dir = tmp_path / "nvm" / "versions" / "node" / "v20" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "node").symlink_to(os.path.realpath(shutil.which("node") or "node"))
    tools = tmp_path / "tools"  # git and bwrap, which devagent itself needs; no node anywhere else
    tools.mkdir()
    for name in ("git", "bwrap"):
        (tools / name).symlink_to(shutil.which(name) or name)
    monkeypatch.setenv("PATH", f"{bin_dir}:{tools}")
    monkeypatch.setenv("NVM_DIR", str(tmp_path / "nvm"))
    monkeypatch.setenv("NVM_BIN", str(bin_dir))
    sandbox = _sandbox(repo)
    assert sandbox.info.kind == "bwrap" and str(tmp_path / "nvm") in _binds(sandbox.build(["true"])[0])
    run = await run_tests(repo, sandbox.config, runner=sandbox)
    assert (run.passed, run.failed, run.status) == (1, 1, "ran"), run.output_tail
