"""A rename asked in words is done by the refactoring engine: the model only names the operation and the names
(the name chosen from what the request names), rope renames every use, the project's tests pass after."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_repo
from tests.engine.pipeline_helpers import js, pipeline_turn

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
        assert "slugify" not in text and "make_slug" in text, rel
    assert "make_slug" in (repo / "README.md").read_text(), "the prose part was offered and approved"
    schema = ollama_server.requests[-1]["format"]
    assert "slugify" in schema["properties"]["name"]["enum"], "the name is chosen from what the request names"
    assert len(ollama_server.requests) == 2, "nothing of the change itself was asked of the model"
