"""Shared fixtures: real temporary git repos and an isolated environment.

Every test gets its own HOME-independent config and state dirs so the
developer's real config never leaks in. Fixtures for the scripted Ollama
server live in tests/ollama_server.py and are re-exported here.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.ollama_server import ollama_server  # noqa: F401

# Where scripts/fetch-test-model put the real models, read before any test changes the environment.
# Tests see an EMPTY model cache (so "no server -> use a cached model" never kicks in by accident);
# real_model tests take the real one from here.
REAL_MODEL_DIR = Path(
    os.environ.get("DEVAGENT_MODEL_DIR")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "devagent" / "models"
)
os.environ.setdefault("DEVAGENT_TEST_MODEL_DIR", str(REAL_MODEL_DIR))

# Fixtures wider than a function (module-scoped sessions of the attack suite) run before the per-test
# environment below: they get this user config, never the developer's. The general loop's scripted
# conversations run with the pipelines off (their first question would eat a scripted reply).
_SESSION_CONFIG = Path(tempfile.mkdtemp(prefix="devagent-tests-")) / "user-config.toml"
_SESSION_CONFIG.write_text('[model]\npipelines = "off"\n')
os.environ["DEVAGENT_CONFIG"] = str(_SESSION_CONFIG)

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Dev",
    "GIT_AUTHOR_EMAIL": "dev@example.invalid",
    "GIT_COMMITTER_NAME": "Test Dev",
    "GIT_COMMITTER_EMAIL": "dev@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str, check: bool = True) -> str:
    """Run git in ``repo`` and return stdout (a real subprocess, as a user would)."""
    out = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
    if check and out.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {out.stderr}")
    return out.stdout


def make_repo(path: Path, files: dict[str, str] | None = None, commit: bool = True) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test Dev")
    git(path, "config", "user.email", "dev@example.invalid")
    git(path, "config", "commit.gpgsign", "false")
    for name, content in (files or {"README.md": "# demo\n", "app.py": "def add(a, b):\n    return a + b\n"}).items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    if commit:
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", "initial commit")
    return path


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path_factory.mktemp("env")
    # The scripted conversations of the general loop's tests would be read by the pipelines' first question (the
    # kind of request): they run with the pipelines off; tests of the pipelines turn them on (tests/engine).
    user = base / "user-config.toml"
    user.write_text('[model]\npipelines = "off"\n')
    monkeypatch.setenv("DEVAGENT_CONFIG", str(user))
    monkeypatch.setenv("XDG_STATE_HOME", str(base / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(base / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache")))
    monkeypatch.setenv("DEVAGENT_MODEL_DIR", str(base / "models"))
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A real git repo with README.md and app.py committed on main."""
    return make_repo(tmp_path / "repo")
