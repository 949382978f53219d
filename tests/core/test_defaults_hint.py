""""Change the default ttl of ttl_cache to 300": the signature's default, as the one edit_file call that changes
it (held-out cachetools: with no old value in the request there was no hint, and the 1.5B model wrote
``ttl_cache = TTLCache(300)`` over the decorator)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import make_repo
from tui.engine.grounding import turn_context

FUNC = '''import time


def lru_cache(maxsize=128, typed=False):
    return maxsize


def ttl_cache(maxsize=128, ttl=600, timer=time.monotonic, typed=False):
    return ttl


class Cache:
    def __init__(self, maxsize, getsizeof=None):
        self.maxsize = maxsize
'''

SIZES = '''def naturalsize(
    value: float,
    binary: bool = False,
    format: str = "%.1f",
) -> str:
    return format % value
'''

TOOLS = {"read_file", "edit_file", "edit_symbol", "run_python", "outline"}


def _call(text: str) -> dict:
    line = next(line for line in text.splitlines() if line.startswith('{"name": "edit_file"'))
    return json.loads(line)["arguments"]


def test_the_named_functions_default_becomes_the_one_edit(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/func.py": FUNC, "pkg/sizes.py": SIZES})
    files = ["pkg/func.py", "pkg/sizes.py"]
    text = turn_context(repo, "Change the default ttl of the ttl_cache decorator to 300 seconds.", files, TOOLS, 4096)
    assert _call(text) == {"path": "pkg/func.py",
                           "old": "def ttl_cache(maxsize=128, ttl=600, timer=time.monotonic, typed=False):",
                           "new": "def ttl_cache(maxsize=128, ttl=300, timer=time.monotonic, typed=False):"}
    quoted = turn_context(repo, "Change naturalsize's default format to '%.2f'.", files, TOOLS, 4096)
    assert _call(quoted) == {"path": "pkg/sizes.py", "old": '    format: str = "%.1f",',
                             "new": '    format: str = "%.2f",'}


def test_no_call_when_several_signatures_are_as_likely_or_none_matches(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/func.py": FUNC})
    files = ["pkg/func.py"]
    assert "edit_file" not in turn_context(repo, "Change the default maxsize to 256.", files, TOOLS, 4096)
    assert "edit_file" in turn_context(repo, "Change the default maxsize of lru_cache to 256.", files, TOOLS, 4096)
    assert "edit_file" not in turn_context(repo, "Change the default colour to red.", files, TOOLS, 4096)


def test_a_question_about_a_default_is_shown_the_defaults_the_code_sets(tmp_path: Path) -> None:
    """Held-out qs: "how many levels of nested brackets does qs.parse nest by default" was answered 3 after an
    outline; lib/parse.js says ``depth: 5`` in its defaults object."""
    parse = "'use strict';\n\nvar defaults = {\n    allowDots: false,\n    depth: 5,\n    delimiter: '&'\n};\n\n" \
            "module.exports = function (str, opts) {\n    return str;\n};\n"
    repo = make_repo(tmp_path / "repo", {"lib/parse.js": parse, "pkg/func.py": FUNC})
    files = ["lib/parse.js", "pkg/func.py"]
    js = turn_context(repo, "How deep does qs.parse nest brackets by default?", files, TOOLS, 4096)
    assert "lib/parse.js:3: defaults = {allowDots: false, depth: 5, delimiter: '&'}" in js
    py = turn_context(repo, "What is the default ttl of ttl_cache?", files, TOOLS, 4096)
    assert "pkg/func.py:8: ttl_cache(maxsize=128, ttl=600, timer=time.monotonic, typed=False)" in py
    assert "Defaults in the code" not in turn_context(repo, "How deep does qs.parse nest brackets?", files, TOOLS, 4096)
