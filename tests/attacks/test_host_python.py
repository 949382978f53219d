"""Class 3: Python that devagent starts on the host must not import from the repository.

The pre-commit hooks run `python -m tui ...` in the work tree and the embedded backend starts
`python -m tui.llm.embedded` from devagent's working directory (the repo): with the repo first on
sys.path, a planted `tui/`, `tui.py`, `xllamacpp/` or `ollama/` ran instead of devagent. devagent itself is
started here as a user starts it (the console script), so only devagent's own Python starts are tested.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.attacks.harness import Attack, Markers, devagent_cli, git_digest
from tests.conftest import git, make_repo


def plant(repo: Path, markers: Markers, *modules: str) -> None:
    for module in modules:
        target = repo / (module if module.endswith(".py") else f"{module}/__init__.py")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(markers.python() + "raise SystemExit(0)\n")


def commit_through_the_hook(repo: Path, *hook_args: str) -> subprocess.CompletedProcess[str]:
    install = devagent_cli(repo, "hook", "install", *hook_args)
    assert install.rc == 0, install.stderr
    (repo / "new.txt").write_text("new\n")
    git(repo, "add", "new.txt")
    return subprocess.run(["git", "commit", "-q", "-m", "add new.txt"], cwd=repo, capture_output=True, text=True,
                          timeout=90, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("modules", [("tui",), ("tui.py",), ("ollama", "httpx")],
                         ids=["tui-package", "tui-module", "lazy-imports"])
def test_pre_commit_hook(tmp_path: Path, modules: tuple[str, ...]) -> None:
    repo = make_repo(tmp_path / "repo")
    attack = Attack(repo)
    plant(repo, attack.markers, *modules)
    done = commit_through_the_hook(repo)
    attack.before = git_digest(repo)  # installing the hook and committing change .git by design
    attack.check()
    assert done.returncode == 0, done.stdout + done.stderr


def test_prepare_commit_msg_hook(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    attack = Attack(repo)
    plant(repo, attack.markers, "tui", "sitecustomize.py", "usercustomize.py")
    commit_through_the_hook(repo, "--commit-msg")
    attack.before = git_digest(repo)
    attack.check()


@pytest.mark.parametrize("modules", [("tui",), ("xllamacpp",)], ids=["tui-package", "runtime"])
def test_embedded_backend_start(tmp_path: Path, modules: tuple[str, ...]) -> None:
    repo = make_repo(tmp_path / "repo")
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF" + bytes(64))  # passes devagent's own check; llama.cpp then refuses it
    attack = Attack(repo)
    plant(repo, attack.markers, *modules)
    run = devagent_cli(repo, "run", "--json", "--yes", "--model-file", str(model), "hello", timeout=90)
    attack.check(run)
    assert run.rc != 0 and "model" in (run.stdout + run.stderr).lower()  # llama.cpp refused the fake file
