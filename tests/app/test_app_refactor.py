"""`/refactor` and the palette's "Refactor…" through the real app and a real Session: the exact change is a
proposal in the queue with its diff, written only on approval; the optional prose part follows as its own."""

from __future__ import annotations

from pathlib import Path

from tests.app.snapshot_apps.factory import build_app, wait_for
from tests.app.test_app_tests_flows import SIZE, approve_next, notes, session_open
from tests.conftest import make_repo
from tests.ollama_server import ScriptedOllama, ollama_server  # noqa: F401 - fixture
from tui.app.widgets.approval_queue import ApprovalQueue
from tui.app.widgets.prompt_input import PromptInput

FILES = {
    "calc/__init__.py": "from calc.ops import add\n",
    "calc/ops.py": "def add(a, b):\n    return a + b\n",
    "calc/report.py": "from calc.ops import add\n\n\ndef total(xs):\n    return sum(xs) if xs else add(0, 0)\n",
    "tests/test_ops.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    "README.md": "# calc\n\n`add(a, b)` adds.\n",
}


async def test_slash_refactor_proposes_then_writes_both_parts(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    app = build_app(repo, server_url=ollama_server.url, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await session_open(pilot)
        app.query_one(PromptInput).load_text("/refactor rename add plus")
        await pilot.press("enter")
        queue = app.query_one(ApprovalQueue)
        await wait_for(pilot, lambda: queue.proposals, timeout=120, what="refactoring proposed")
        proposal = queue.proposals[0]
        assert proposal.kind == "edit" and proposal.tool == "refactor" and "[rope " in proposal.summary
        assert set(proposal.files) == {"calc/__init__.py", "calc/ops.py", "calc/report.py", "tests/test_ops.py"}
        assert "tests ok" in proposal.summary, proposal.summary
        assert "def add(" in (repo / "calc/ops.py").read_text()  # nothing written before approval
        diff = app.query_one("#diff")
        await wait_for(pilot, lambda: diff.index is not None and len(diff.index.files) == 4, what="diff shown")
        await approve_next(pilot)
        await wait_for(pilot, lambda: queue.proposals and queue.proposals[0].id != proposal.id, timeout=60,
                       what="the optional part proposed")
        assert queue.proposals[0].files == ["README.md"]
        await approve_next(pilot)
        await wait_for(pilot, lambda: "Refactoring applied." in notes(app), timeout=60, what="applied")
    assert "def plus(" in (repo / "calc/ops.py").read_text()
    assert "`plus(a, b)`" in (repo / "README.md").read_text()


async def test_palette_entry_prefills_and_bad_usage_says_how(tmp_path: Path) -> None:
    app = build_app(make_repo(tmp_path / "repo", FILES), git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await app.run_action("prefill_refactor")
        prompt = app.query_one(PromptInput)
        assert prompt.text == "/refactor " and prompt.has_focus
        prompt.load_text("/refactor move add")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "move needs --to MODULE" in notes(app), what="usage notice")
