"""A rename asked in words is done by the refactoring engine: the model only names the operation and the names
(the name chosen from what the request names), rope renames every use, the project's tests pass after."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import make_repo
from tests.engine.pipelines.helpers import js, pipeline_turn

FILES = {
    "pkg/__init__.py": "from .util import slugify\n\n__all__ = [\"slugify\"]\n",
    "pkg/util.py": "def slugify(text):\n    \"\"\"slugify('A b') -> 'a-b'\"\"\"\n    return '-'.join(text.lower().split())\n",
    "pkg/core.py": "from pkg.util import slugify\n\n\ndef title(t):\n    return slugify(t)\n",
    "tests/test_util.py": "from pkg.util import slugify\n\n\ndef test_slugify():\n    assert slugify('A b') == 'a-b'\n",
    "pytest.ini": "[pytest]\n",
    "README.md": "Use `slugify` to make slugs.\n",
}


async def test_a_rename_in_words_is_the_engines_rename(tmp_path: Path, ollama_server) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Rename the function `slugify` to make_slug everywhere.",
        [js({"kind": "refactor"}), js({"operation": "rename", "name": "slugify", "new_name": "make_slug",
                                       "to_module": "", "value": ""})])
    for rel in ("pkg/__init__.py", "pkg/util.py", "pkg/core.py", "tests/test_util.py"):
        text = (repo / rel).read_text()
        assert not re.search(r"\bslugify\b", text) and "make_slug" in text, rel
    assert "make_slug" in (repo / "README.md").read_text(), "the prose part was offered and approved"
    schema = ollama_server.requests[-1]["format"]
    assert "slugify" in schema["properties"]["name"]["enum"], "the name is chosen from what the request names"
    assert len(ollama_server.requests) == 2, "nothing of the change itself was asked of the model"


async def test_a_javascript_rename_asks_before_installing_a_compiler_and_downloads_nothing_when_refused(
        tmp_path: Path, ollama_server, monkeypatch) -> None:
    """A JavaScript project without typescript in node_modules: the engine needs devagent's pinned compiler, and
    the developer is asked in the queue before it is installed (once per session); refused, nothing is
    downloaded and no file changes."""
    from tui.protocol.proposals import Decision

    monkeypatch.setenv("DEVAGENT_TS_CACHE", str(tmp_path / "ts-cache"))
    files = {"package.json": '{"name": "q", "version": "1.0.0"}\n',
             "lib/utils.js": "function isRegExp(x) {\n  return x instanceof RegExp;\n}\nmodule.exports = { isRegExp };\n",
             "lib/parse.js": "const { isRegExp } = require('./utils');\nmodule.exports = (x) => isRegExp(x);\n"}
    repo = make_repo(tmp_path / "repo", files)
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Rename isRegExp to isRegex in lib/utils.js and wherever it is used.",
        [js({"kind": "refactor"}), js({"operation": "rename", "name": "isRegExp", "new_name": "isRegex",
                                       "to_module": "", "value": ""}), js({"answer": "Not done."})],
        decisions=[Decision("reject", reason="no downloads")] * 6)
    asked = [p for p in approver.asked if p.tool == "install-typescript"]
    assert len(asked) == 1 and "TypeScript" in asked[0].summary and "npm" in asked[0].summary
    assert not (tmp_path / "ts-cache").exists() or not any((tmp_path / "ts-cache").iterdir())
    assert "isRegExp" in (repo / "lib/parse.js").read_text()
