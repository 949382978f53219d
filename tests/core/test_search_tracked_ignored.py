"""The read-only tools see every tracked file, ignored or not (issue 31.8): `git grep --untracked` leaves out
tracked files that .gitignore matches, so search said "no matches" for a line that is in the repository.
Real git repos; the last test drives `devagent run` with the scripted model and reads what the model was told."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.conftest import git, make_repo
from tests.core.test_commit import devagent
from tests.ollama_server import Reply, ScriptedOllama
from tui.config import Config
from tui.tools import list_files, outline, search
from tui.tools.base import ToolContext


def repo_with_a_tracked_ignored_file(root: Path) -> Path:
    """dist/bundle.js committed (generated code a project keeps in git), then dist/ ignored; an untracked file that
    is not ignored; an untracked file that is."""
    repo = make_repo(root, {"src/app.js": "export const needle = 1;\n", "dist/bundle.js": "var needle = (1);\n"})
    (repo / ".gitignore").write_text("dist/\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-qm", "ignore dist")
    (repo / "notes.md").write_text("a needle in the notes\n")
    (repo / "dist" / "scratch.js").write_text("var needle = 'ignored and untracked';\n")
    return repo


def run_tool(repo: Path, tool: object, **args: str) -> str:
    ctx = ToolContext(repo=repo.resolve(), config=Config(), emit=lambda event: None)
    result = asyncio.run(tool.SPEC.run(ctx, args))  # type: ignore[attr-defined]
    assert result.ok, result.output
    return result.output


def test_search_finds_tracked_ignored_files_once_and_untracked_ones(tmp_path: Path) -> None:
    repo = repo_with_a_tracked_ignored_file(tmp_path / "repo")
    lines = run_tool(repo, search, pattern="needle").splitlines()
    assert sorted(lines) == ["dist/bundle.js:1:var needle = (1);", "notes.md:1:a needle in the notes",
                             "src/app.js:1:export const needle = 1;"]
    assert run_tool(repo, search, pattern="needle", path="dist").splitlines() == ["dist/bundle.js:1:var needle = (1);"]
    assert run_tool(repo, search, pattern="needle = (").splitlines() == ["dist/bundle.js:1:var needle = (1);"]
    assert "no matches" in run_tool(repo, search, pattern="ignored and untracked")


def test_list_files_and_outline_see_the_tracked_ignored_file(tmp_path: Path) -> None:
    repo = repo_with_a_tracked_ignored_file(tmp_path / "repo")
    listed = run_tool(repo, list_files)
    assert "dist/bundle.js" in listed and "notes.md" in listed and "scratch.js" not in listed
    assert "dist/bundle.js" in run_tool(repo, outline, path="dist")


def test_the_model_is_told_where_the_line_is(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = repo_with_a_tracked_ignored_file(tmp_path / "repo")
    ollama_server.push(Reply(tool_calls=[{"name": "search", "arguments": {"pattern": "var needle"}}]),
                       Reply("It is in dist/bundle.js."))
    out = devagent(repo, "run", "--json", "--host", ollama_server.url, "where is var needle set?")
    assert out.returncode == 0, out.stderr
    results = [json.loads(line) for line in out.stdout.splitlines() if '"tool_result"' in line]
    assert results and results[0]["output"] == "dist/bundle.js:1:var needle = (1);", results
