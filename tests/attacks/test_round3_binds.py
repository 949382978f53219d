"""Round three, class 1: a directory the repository chooses must never be bound into the sandbox.

The sandbox's /tmp is private; devagent binds back, read-only, the toolchains that live under the host's /tmp
(docs/tests-and-scaffold.md). Each attack here makes the repository (its config, a symlink, a manager's marker
file, a pyvenv.cfg) or an in-repo path the developer's environment names resolve to a host directory under
/tmp that holds another program's private file and a listening Unix socket (a terminal multiplexer's control
socket is one: host code execution). A probe run by devagent's one command runner (tui/sandbox/runner.py: real
bwrap, the repo's config as devagent loads it, devagent's environment) then reads the file and connects to the
socket. Defended: the file's content never reaches the command's output and the host listener gets nothing. The last attack is the developer's own toolchain under /tmp, which is bound on purpose: a socket in
it must still be masked.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import uuid
from pathlib import Path
from typing import Iterator

import pytest

from tests.attacks.harness import SECRET, Attack
from tests.attacks.policy_kit import UnixListener, hostile_repo
from tui.config import Config, load_config
from tui.sandbox.runner import Sandbox, detect

pytestmark = pytest.mark.skipif(not detect(Config()).active, reason="needs a working bubblewrap")

PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"


@pytest.fixture
def victim() -> Iterator[Path]:
    """Another program's directory on the host's /tmp: a private file and a live control socket."""
    path = Path("/tmp") / f"devagent-victim-{uuid.uuid4().hex[:8]}"
    path.mkdir()
    (path / "secret.txt").write_text(SECRET + "\n")
    yield path
    shutil.rmtree(path, ignore_errors=True)


def looks_like_python(root: Path) -> Path:
    """Make ``root`` pass for a Python installation and a virtualenv (bin/python3, pyvenv.cfg, lib/.../os.py)."""
    (root / "bin").mkdir(exist_ok=True)
    if not (root / "bin" / "python3").exists():
        shutil.copy(os.path.realpath(sys.executable), root / "bin" / "python3")  # a real file, not a link out
    (root / "pyvenv.cfg").write_text(f"home = {Path(sys.executable).parent}\nversion = 3.11.7\n")
    (root / "lib" / "python3.11").mkdir(parents=True, exist_ok=True)
    (root / "lib" / "python3.11" / "os.py").write_text("")
    (root / "lib" / "python3.11" / "site-packages").mkdir(exist_ok=True)
    return root


def probe(repo: Path, victim: Path) -> str:
    """A script in the repo that prints the victim's file and says whether its socket answered; the command."""
    (repo / "probe.py").write_text(
        "import socket\n"
        f"try: print(open({str(victim / 'secret.txt')!r}).read())\nexcept OSError as e: print('NOREAD', e)\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        f"try: s.connect({str(victim / 'ctl.sock')!r}); s.sendall(b'pwned'); print('CONNECTED')\n"
        "except OSError as e: print('REFUSED', e)\n")
    return f"{PY} probe.py"


def attack(repo: Path, victim: Path, env: dict[str, str] | None = None) -> list[bytes]:
    """Run the probe through the one runner every command goes through (real bwrap, the repo's config, devagent's
    environment plus ``env``); what the victim's socket received."""
    command = probe(repo, victim)
    checker = Attack(repo)
    saved = {k: os.environ.get(k) for k in env or {}}
    os.environ.update(env or {})
    try:
        with UnixListener(str(victim / "ctl.sock")) as listener:
            result = asyncio.run(Sandbox(repo, load_config(repo)).run(command))
            received = list(listener.received)
    finally:
        for key, value in saved.items():
            os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)
    checker.check()
    assert SECRET not in result.output, "the victim's file was readable"
    assert "NOREAD" in result.output or "REFUSED" in result.output or "CONNECTED" in result.output, result.output
    return received


def test_project_env_pythonpath_through_an_in_repo_symlink(tmp_path: Path, victim: Path) -> None:
    repo = hostile_repo(tmp_path / "r", {".devagent.toml": '[project.env]\nPYTHONPATH = "lib"\n'})
    (repo / "lib").symlink_to(victim)
    assert attack(repo, victim) == []


def test_project_env_node_path_through_a_nested_symlink(tmp_path: Path, victim: Path) -> None:
    repo = hostile_repo(tmp_path / "r", {".devagent.toml": '[project.env]\nNODE_PATH = "vendor/shared"\n'})
    (repo / "vendor").mkdir()
    (repo / "vendor" / "shared").symlink_to(victim)
    assert attack(repo, victim) == []


def test_a_dot_venv_that_is_a_symlink(tmp_path: Path, victim: Path) -> None:
    repo = hostile_repo(tmp_path / "r", {})
    (repo / ".venv").symlink_to(looks_like_python(victim))
    assert attack(repo, victim) == []


def test_pdm_python_marker_names_an_interpreter_there(tmp_path: Path, victim: Path) -> None:
    looks_like_python(victim)
    repo = hostile_repo(tmp_path / "r", {".pdm-python": f"{victim}/bin/python3\n",
                                         "pyproject.toml": "[project]\nname = 'x'\n[tool.pdm]\n"})
    assert attack(repo, victim) == []


def test_pyvenv_cfg_home_names_a_base_there(tmp_path: Path, victim: Path) -> None:
    looks_like_python(victim)
    repo = hostile_repo(tmp_path / "r", {})
    venv = repo / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python3").symlink_to(sys.executable)
    (venv / "pyvenv.cfg").write_text(f"home = {victim}/bin\ninclude-system-site-packages = false\n")
    assert attack(repo, victim) == []


def test_pypackages_version_dir_that_is_a_symlink(tmp_path: Path, victim: Path) -> None:
    (victim / "lib").mkdir()
    repo = hostile_repo(tmp_path / "r", {"pdm.lock": "", "pyproject.toml": "[project]\nname = 'x'\n"})
    (repo / "__pypackages__").mkdir()
    (repo / "__pypackages__" / "3.11").symlink_to(victim)
    assert attack(repo, victim) == []


def test_an_activated_in_repo_venv_whose_python_a_command_relinked(tmp_path: Path, victim: Path) -> None:
    looks_like_python(victim)
    repo = hostile_repo(tmp_path / "r", {})
    (repo / ".venv" / "bin").mkdir(parents=True)
    (repo / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (repo / ".venv" / "bin" / "python3").symlink_to(victim / "bin" / "python3")  # as a command could relink it
    assert attack(repo, victim, env={"VIRTUAL_ENV": str(repo / ".venv")}) == []


def test_the_developers_node_path_names_an_in_repo_symlink(tmp_path: Path, victim: Path) -> None:
    repo = hostile_repo(tmp_path / "r", {})
    (repo / "lib").symlink_to(victim)  # the developer exports NODE_PATH=$REPO/lib; the repo decides where it goes
    assert attack(repo, victim, env={"NODE_PATH": str(repo / "lib")}) == []


def test_a_socket_inside_the_developers_own_toolchain_under_tmp(tmp_path: Path, victim: Path) -> None:
    """The developer's activated virtualenv lives under /tmp and is bound on purpose; a socket in it is not."""
    looks_like_python(victim)
    (victim / "secret.txt").write_text("the developer's own venv: readable on purpose\n")
    repo = hostile_repo(tmp_path / "r", {})
    assert attack(repo, victim, env={"VIRTUAL_ENV": str(victim)}) == []
