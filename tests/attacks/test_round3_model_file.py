"""Round three, class 4: a model cache name must resolve only in the model cache, never in the work tree.

The developer names a cached model (`model.model_file = "NAME.gguf"` in their config, or `--model-file
NAME.gguf`); a cloned repository, or a command, plants a file of that name (or at that relative path) in the
work tree. devagent runs from the work tree, so a name that is looked up in the current directory first loads
the repository's file into llama.cpp on the host. Each attack drives a real entry point (the embedded
backend of `run`, the fallback to the embedded model when no server answers, `review`, `doctor`) with
xllamacpp installed; the planted file's access time says whether devagent opened it (its atime is set
before its mtime, so the first read moves it even on a relatime mount). Defended: the planted file is never
read, and doctor names the cache's file.
"""

from __future__ import annotations

import os
import socket
from importlib.util import find_spec
from pathlib import Path

import pytest

from tests.attacks.harness import Attack, devagent
from tests.attacks.policy_kit import hostile_repo, stage

pytestmark = pytest.mark.skipif(find_spec("xllamacpp") is None, reason="needs the embedded runtime (xllamacpp)")
NAME = "coder-q4.gguf"


def fake_gguf(path: Path, size: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        fh.write(b"GGUF" + b"\0" * 60)
        fh.truncate(size)
    return path


def untouched(path: Path) -> None:
    """Give ``path`` an access time older than its modification time: any read moves it."""
    st = path.stat()
    os.utime(path, ns=(st.st_mtime_ns - 10**12, st.st_mtime_ns))


def was_read(path: Path) -> bool:
    st = path.stat()
    return st.st_atime_ns >= st.st_mtime_ns


def closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def setup(tmp_path: Path, setting: str, planted: str) -> tuple[Path, Path, dict[str, str]]:
    """The developer's config names ``setting`` (not in their cache yet: pulled later, or deleted); the repo
    plants ``planted``. Where the name resolves in the cache only, devagent says the file is missing."""
    cache = tmp_path / "models"
    cache.mkdir()
    repo = hostile_repo(tmp_path / "r", {})
    bait = fake_gguf(repo / planted, 3_000_000)
    untouched(bait)
    user = tmp_path / "user.toml"
    user.write_text(f'[model]\nmodel_file = "{setting}"\n' if setting else "")
    return repo, bait, {"DEVAGENT_MODEL_DIR": str(cache), "DEVAGENT_CONFIG": str(user)}


def test_a_configured_cache_name_with_the_embedded_backend(tmp_path: Path) -> None:
    repo, bait, env = setup(tmp_path, NAME, NAME)
    attack = Attack(repo)
    run = devagent(repo, "run", "--backend", "embedded", "hi", env=env, timeout=90)
    assert not was_read(bait), run.stderr[-600:]
    attack.check(run)


def test_a_cache_name_on_the_command_line(tmp_path: Path) -> None:
    repo, bait, env = setup(tmp_path, "", NAME)
    attack = Attack(repo)
    run = devagent(repo, "run", "--model-file", NAME, "hi", env=env, timeout=90)
    assert not was_read(bait), run.stderr[-600:]
    attack.check(run)


def test_the_fallback_when_no_server_answers(tmp_path: Path) -> None:
    repo, bait, env = setup(tmp_path, NAME, NAME)
    attack = Attack(repo)
    run = devagent(repo, "run", "hi", url=closed_port(), env=env, timeout=90)
    assert not was_read(bait), run.stderr[-600:]
    attack.check(run)


def test_a_relative_path_in_the_developers_config(tmp_path: Path) -> None:
    repo, bait, env = setup(tmp_path, f"models/{NAME}", f"models/{NAME}")
    attack = Attack(repo)
    run = devagent(repo, "run", "--backend", "embedded", "hi", env=env, timeout=90)
    assert not was_read(bait), run.stderr[-600:]
    attack.check(run)


def test_the_pre_commit_review(tmp_path: Path) -> None:
    repo, bait, env = setup(tmp_path, NAME, NAME)
    stage(repo, "app.py", "x = 2\n")
    attack = Attack(repo)
    run = devagent(repo, "review", "--staged", "--no-interactive", "--backend", "embedded", env=env, timeout=90)
    assert not was_read(bait), run.stderr[-600:]
    attack.check(run)


def test_doctor_names_the_cache_file_not_the_planted_one(tmp_path: Path) -> None:
    repo, bait, env = setup(tmp_path, NAME, NAME)
    fake_gguf(tmp_path / "models" / NAME, 4096)
    attack = Attack(repo)
    run = devagent(repo, "doctor", env=env, timeout=60)
    attack.check(run)
    assert "2.9 MB" not in run.stdout and "3.0 MB" not in run.stdout, run.stdout
    assert str(tmp_path / "models") in run.stdout, run.stdout
