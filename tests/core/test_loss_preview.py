"""The `git clean` preview lists exactly what `git clean -n` would, and never deletes anything itself."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from tui.policy.loss_preview import clean_preview, loss_preview
from tui.safety.shell_parse import parse

FILES = ["notes.txt", "debug.log", "build/out.bin", "new/draft.md", "src/tmp.py", "src/cache.log"]


@pytest.fixture
def messy(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "r", {".gitignore": "*.log\nbuild/\n", "src/keep.py": "x = 1\n"})
    for name in FILES:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text("x\n")
    return repo


def _git_says(repo: Path, flags: list[str]) -> set[str]:
    out = git(repo, "clean", "-n", *flags)
    return {line.removeprefix("Would remove ") for line in out.splitlines()}


@pytest.mark.parametrize("flags", [list(c) for n in range(3) for c in itertools.combinations(
    ["-d", "-x", "-X", "-e", "src"], n) if not {"-x", "-X"} <= set(c)]  # git refuses -x with -X
    + [["-dx", "--", "src"], ["-d", "--exclude=*.md"], ["-fdX"]])
def test_same_as_git_clean_dry_run(messy: Path, flags: list[str]) -> None:
    flags = [f if f != "-e" else "-enotes.txt" for f in flags]
    (cmd,) = parse("git clean -f " + " ".join(flags))
    assert set(clean_preview(cmd, messy)) == _git_says(messy, [f for f in flags if f != "-fdX"] +
                                                       (["-dX"] if "-fdX" in flags else []))


@pytest.mark.parametrize("command", ["git clean --forc --no-dry-run -dx", "git clean --no-dry-run -f -d",
                                     "git clean --fo --no-dry-r -d -x", "git clean -f --interact -d"])
def test_flags_it_does_not_know_show_the_widest_clean_and_delete_nothing(messy: Path, command: str) -> None:
    text = "\n".join(loss_preview(command, messy))
    assert all((messy / name).exists() for name in FILES)
    assert "flags devagent does not know" in text and "build/" in text and "debug.log" in text


def test_branch_preview_only_for_existing_branches(messy: Path) -> None:
    git(messy, "checkout", "-q", "-b", "topic")
    (messy / "t.txt").write_text("t\n")
    git(messy, "add", "t.txt")
    git(messy, "commit", "-q", "-m", "topic work")
    git(messy, "checkout", "-q", "main")
    text = "\n".join(loss_preview("git branch -D topic --output=x.txt nosuch", messy))
    assert "topic: " in text and "topic work" in text and "nosuch" not in text
    assert not (messy / "x.txt").exists()
