"""Hostile content for the host-side attacks: nested repositories with executable config, FIFOs, huge sparse
files, a secret kept outside the repo, and a registered-but-uninitialised submodule (what a plain clone leaves)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.attacks.harness import SECRET
from tests.conftest import git, make_repo

FAKE_SHA = "0123456789abcdef0123456789abcdef01234567"


def nested_repo(path: Path, config: dict[str, str] | None = None, *, commit: bool = True,
                files: dict[str, str] | None = None) -> Path:
    """A repository inside the work tree (as a command could leave it), with ``config`` in its own .git/config."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    for name, content in (files or {}).items():
        (path / name).write_text(content)
    if commit:
        (path / "x").write_text("x\n")
        git(path, "add", "-A")
        git(path, "-c", "user.name=a", "-c", "user.email=a@b.invalid", "commit", "-q", "-m", "x")
    for key, value in (config or {}).items():
        git(path, "config", key, value)
    return path


def repo_with_submodule(root: Path, name: str = "sub") -> Path:
    """A repo whose index and .gitmodules register a submodule at ``name``, left as an empty directory."""
    repo = make_repo(root)
    register_submodule(repo, name, FAKE_SHA)
    (repo / name).mkdir()
    return repo


def register_submodule(repo: Path, name: str, sha: str | None = None) -> None:
    """Record ``name`` as a submodule at ``sha`` (default: the HEAD of the repository already there)."""
    sha = sha or git(repo / name, "rev-parse", "HEAD").strip()
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{sha},{name}")
    (repo / ".gitmodules").write_text(f'[submodule "{name}"]\n\tpath = {name}\n\turl = ./nowhere\n')
    git(repo, "add", ".gitmodules")
    git(repo, "commit", "-q", "-m", "add submodule")


def filter_payload(repo_dir: Path, payload: str) -> None:
    """A clean filter in ``repo_dir``'s own config, applied to every file by its .gitattributes."""
    git(repo_dir, "config", "filter.evil.clean", f"{payload} ; cat")
    git(repo_dir, "config", "filter.evil.smudge", f"{payload} ; cat")
    (repo_dir / ".gitattributes").write_text("* filter=evil\n")
    (repo_dir / "x").touch()  # a changed stat makes git re-read (and so filter) the file


def outside_secret(base: Path, name: str = "id_ed25519") -> Path:
    """A private file outside the repo (like ~/.ssh/id_ed25519, which the sandbox masks) holding SECRET."""
    folder = base / "outside"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SECRET}\n-----END OPENSSH PRIVATE KEY-----\n")
    return path


def fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def sparse(path: Path, size: int) -> Path:
    """A file of ``size`` bytes that costs no disk (a hole), with a line of text at the start."""
    with path.open("wb") as fh:
        fh.write(b"print('start')\n")
        fh.truncate(size)
    return path


def commit_all(repo: Path, message: str = "more") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def index_entries(repo: Path) -> str:
    return subprocess.run(["git", "ls-files", "-s"], cwd=repo, capture_output=True, text=True).stdout
