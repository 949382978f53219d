"""A fix request whose failing tests name no function to follow (tape's output, any language): the library lines
the last commit (or the uncommitted work) changed, tests left out, with the call that puts them back (held-out
qs: "a lot of tests fail since my last commit"; the model rewrote an unrelated function)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import git, make_repo
from tui.engine.suspects import recent_source_change
from tui.engine.verify import is_test

UTILS = "var combine = function combine(a, b) {\n    return [].concat(a, b);\n};\n\nmodule.exports = { combine: combine };\n"


def test_the_last_commits_library_change_comes_with_the_call_that_reverts_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"lib/utils.js": UTILS, "test/utils.js": "// tests\n"})
    (repo / "lib/utils.js").write_text(UTILS.replace("concat(a, b)", "concat(b, a)"))
    (repo / "test/utils.js").write_text("// tests, changed too\n")
    git(repo, "commit", "-qam", "utils: tidy")
    text = recent_source_change(repo, is_test)
    assert "lib/utils.js was changed by the last commit" in text and "test/utils.js" not in text
    call = json.loads(text[text.index('{"name"'):])
    assert call["arguments"] == {"path": "lib/utils.js", "old": "    return [].concat(b, a);",
                                 "new": "    return [].concat(a, b);"}


def test_uncommitted_work_comes_first_and_a_large_or_first_commit_is_no_lead(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"lib/utils.js": UTILS})
    assert recent_source_change(repo, is_test) == "", "the first commit changed every line: no lead"
    (repo / "lib/utils.js").write_text(UTILS.replace("[].concat(a, b)", "[a, b]"))
    assert "lib/utils.js was changed by uncommitted changes" in recent_source_change(repo, is_test)
    (repo / "lib/utils.js").write_text("".join(f"var v{i} = {i};\n" for i in range(40)))
    assert recent_source_change(repo, is_test) == "", "forty changed lines are no suspect"
