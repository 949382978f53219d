"""A JS edit that stops its file from parsing is refused before it is proposed (real node, real bubblewrap)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from tests.conftest import make_repo
from tests.core.agent_helpers import fast_config
from tui.protocol.errors import ToolError
from tui.tools.base import ToolContext
from tui.tools.support.jscheck import breaks_js

pytestmark = pytest.mark.skipif(not (shutil.which("node") and shutil.which("bwrap")), reason="needs node and bwrap")

TAPE = "var test = require('tape');\nvar utils = require('../lib/utils');\n\n" + "".join(
    f"test('merge {i}', function (t) {{\n    t.deepEqual(utils.merge({{ a: {i} }}, {{}}), {{ a: {i} }});\n    t.end();\n}});\n\n"
    for i in range(6))


def test_a_quote_left_open_in_a_new_tape_test_is_refused_with_the_line(tmp_path: Path) -> None:
    """Seen on the dev set (qs): ``it('is false for the string 'a'', ...)`` was written and test/utils.js no
    longer loaded; the check run then said only "did not run"."""
    from tui.tools.edit_file import propose

    repo = make_repo(tmp_path / "r", {"test/utils.js": TAPE, "lib/esm.js": "import x from 'y';\nexport default x;\n"})
    ctx = ToolContext(repo=repo, config=fast_config(repo), emit=lambda e: None)
    bad = "\ntest('is false for the string 'a'', function (t) {\n    t.end();\n});\n"
    with pytest.raises(ToolError, match=r"stop parsing \(line 34: SyntaxError: missing \) after argument list"):
        asyncio.run(propose(ctx, {"path": "test/utils.js", "old": "", "new": bad}))
    good = "\ntest('is false for the string \\'a\\'', function (t) {\n    t.end();\n});\n"
    assert asyncio.run(propose(ctx, {"path": "test/utils.js", "old": "", "new": good})).diff
    with pytest.raises(ToolError, match="Unexpected token"):  # an ES module in a .js file is checked as one
        asyncio.run(propose(ctx, {"path": "lib/esm.js", "old": "", "new": "export const z = ;\n"}))
    assert asyncio.run(propose(ctx, {"path": "lib/esm.js", "old": "", "new": "export const z = 1;\n"})).diff


def test_a_file_that_did_not_parse_before_is_not_judged_and_the_text_never_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    broken = "var a = ;\n"
    assert breaks_js(tmp_path, "x.js", broken, broken + "var b = ;\n") == ""  # not this edit's doing
    runs = f"require('fs').writeFileSync({str(marker)!r}, 'x');\n"
    assert breaks_js(tmp_path, "x.js", None, runs) == "" and not marker.exists()  # parsed, never run
    assert breaks_js(tmp_path, "x.ts", None, "let a: = ;\n") == ""  # node does not parse TypeScript


def test_a_node_the_repository_puts_on_path_is_never_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hostile input: an approved command left ``bin/node`` in the work tree and the developer's PATH names it."""
    repo = tmp_path / "repo"
    (repo / "bin").mkdir(parents=True)
    marker = tmp_path / "ran"
    fake = repo / "bin" / "node"
    fake.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{repo / 'bin'}:{__import__('os').environ['PATH']}")
    assert breaks_js(repo, "x.js", "var a = 1;\n", "var a = ;\n") == "" and not marker.exists()
