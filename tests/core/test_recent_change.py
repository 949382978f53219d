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


def test_a_fix_request_that_says_since_my_last_commit_gets_that_change_up_front(tmp_path: Path) -> None:
    """Fresh held-out humanize: "precisedelta(...) returns '2 hours and 1 second' instead of '26 hours' since my
    last commit. Can you fix it?" No test had run, so no failure pointed anywhere; the model rewrote the whole
    129-line function. A request that says the break came with the last commit gets that commit's library lines
    in the turn's first context; a request that does not say so gets none."""
    from tui.engine.grounding import turn_context

    src = "def total(xs):\n    return sum(xs)\n"
    repo = make_repo(tmp_path / "repo", {"calc.py": src, "tests/test_calc.py": "from calc import total\n"})
    (repo / "calc.py").write_text(src.replace("sum(xs)", "sum(xs[1:])"))
    git(repo, "commit", "-qam", "calc: tidy")
    files = ["calc.py", "tests/test_calc.py"]
    tools = {"edit_file", "run_python", "run_tests"}
    context = turn_context(repo, "total([1, 2]) gives 2 instead of 3 since my last commit, please fix it", files,
                           tools, 4096)
    assert "calc.py was changed by the last commit" in context
    assert '"old": "    return sum(xs[1:])", "new": "    return sum(xs)"' in context
    assert "changed by the last commit" not in turn_context(repo, "make total skip None values", files, tools, 4096)
