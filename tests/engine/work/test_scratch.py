"""The throwaway copy candidates are tried in: commands see it at the repository's own path, the real tree's
ignored directories read-only, and nothing written there reaches the developer's files (real git, real bwrap)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import make_repo
from tui.config import Config
from tui.engine.work.scratch import Scratch
from tui.sandbox.runner import detect

pytestmark = pytest.mark.skipif(detect(Config()).kind != "bwrap", reason="needs bubblewrap")


async def test_commands_see_the_copy_at_the_repo_path_and_the_tree_stays_as_it_was(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/mod.py": "X = 1\n", ".gitignore": "node_modules/\n.env\n"})
    (repo / "node_modules").mkdir()
    (repo / "node_modules" / "dep.js").write_text("dep")
    (repo / ".env").write_text("SECRET=1\n")
    (repo / "untracked.txt").write_text("u\n")
    os.mkfifo(repo / "pipe")
    os.symlink("pkg/mod.py", repo / "link.py")
    scratch = await Scratch(repo).create()
    try:
        assert scratch.root is not None
        assert not (scratch.root / ".env").exists(), "ignored files are not copied (an .env stays out)"
        assert (scratch.root / "untracked.txt").read_text() == "u\n"
        assert os.readlink(scratch.root / "link.py") == "pkg/mod.py" and not (scratch.root / "pipe").exists()
        scratch.write({"pkg/mod.py": b"X = 42\n", "pkg/new.py": b"Y = 1\n"})
        box = scratch.sandbox(Config())
        ran = await box.run(f"cd {repo} && cat pkg/mod.py pkg/new.py node_modules/dep.js && echo w > out.txt && "
                            "(touch node_modules/x 2>/dev/null && echo writable || echo read-only)")
        assert ran.exit_code == 0, ran.output
        assert "X = 42" in ran.output and "Y = 1" in ran.output and "dep" in ran.output and "read-only" in ran.output
        assert (repo / "pkg/mod.py").read_text() == "X = 1\n" and not (repo / "pkg/new.py").exists()
        assert not (repo / "out.txt").exists() and not (repo / "node_modules/x").exists()
        scratch.reset()
        assert scratch.read("pkg/mod.py") == b"X = 1\n" and scratch.read("pkg/new.py") is None
    finally:
        scratch.close()
    assert not Path(str(scratch.root or "/nonexistent")).exists()


async def test_a_path_out_of_the_copy_is_refused(tmp_path: Path) -> None:
    from tui.engine.work.scratch import ScratchError

    scratch = await Scratch(make_repo(tmp_path / "repo")).create()
    try:
        with pytest.raises(ScratchError):
            scratch.write({"../escape.txt": b"x"})
    finally:
        scratch.close()
