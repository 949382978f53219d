"""`t`, the results list, `/scaffold` and the fix-loop counter through the real app and a real Session.

Test runs are real pytest runs in the real sandbox, approved through the queue.
"""

from __future__ import annotations

from pathlib import Path

from tests.app.snapshot_apps.factory import build_app, feed, wait_for
from tests.conftest import make_repo
from tests.ollama_server import Reply, ScriptedOllama, ollama_server  # noqa: F401 - fixture
from tui.app.screens.tests_results import FailureFileScreen, TestResultsScreen
from tui.app.widgets.agent_pane import AgentPane
from tui.app.widgets.approval_queue import ApprovalQueue
from tui.app.widgets.output_pane import OutputPane
from tui.app.widgets.prompt_input import PromptInput
from tui.protocol.events import FixAttempt

SIZE = (160, 48)

CALC_TESTS = """from calc import add


def test_add():
    assert add(1, 2) == 3


def test_add_zero():
    assert add(0, 0) == 0


def test_add_wrong():
    expected = 5
    assert add(2, 2) == expected
"""


def python_repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {
        "pyproject.toml": "[project]\nname = \"calc\"\nversion = \"0.1\"\n",
        "calc/__init__.py": "def add(a, b):\n    return a + b\n",
        "tests/test_calc.py": CALC_TESTS,
    })


def notes(app) -> str:  # type: ignore[no-untyped-def]
    return " ".join(str(n.message) for n in app._notifications)


async def session_open(pilot) -> None:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: pilot.app.session is not None, what="session open")


def results_shown(app) -> bool:  # type: ignore[no-untyped-def]
    """The results screen is up and composed (it becomes the current screen before its widgets mount)."""
    return isinstance(app.screen, TestResultsScreen) and bool(app.screen.query("#results-summary"))


async def approve_next(pilot) -> None:  # type: ignore[no-untyped-def]
    queue = pilot.app.query_one(ApprovalQueue)
    await wait_for(pilot, lambda: queue.proposals, what="proposal queued")
    queue.focus()
    await pilot.press("a")


async def test_t_runs_the_suite_and_lists_the_failure(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = python_repo(tmp_path)
    app = build_app(repo, server_url=ollama_server.url, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await session_open(pilot)
        app.query_one(AgentPane).focus()
        await pilot.press("t")
        queue = app.query_one(ApprovalQueue)
        await wait_for(pilot, lambda: queue.proposals, what="test run proposed")
        assert "pytest" in queue.proposals[0].command  # the exact command is shown for approval
        await approve_next(pilot)
        await wait_for(pilot, lambda: results_shown(app), timeout=60, what="results list")
        screen = app.screen
        assert [(f.file, f.line) for f in screen.failures] == [("tests/test_calc.py", 14)]
        assert "test_add_wrong" in screen.failures[0].test_id
        assert "2 passed, 1 failed" in screen.query_one("#results-summary").render().plain
        assert any("passed" in line or "failed" in line for line in app.query_one(OutputPane).log_widget.lines)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, FailureFileScreen), what="failure opened")
        area = app.screen.query_one("#failure-text")
        assert area.read_only and area.cursor_location[0] == 13  # 0-based row of line 14
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, TestResultsScreen), what="back to the list")


async def test_failure_in_a_changed_file_opens_its_diff(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = python_repo(tmp_path)
    (repo / "tests" / "test_calc.py").write_text(CALC_TESTS.replace("expected = 5", "expected = 6"))
    app = build_app(repo, server_url=ollama_server.url, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await session_open(pilot)
        app.query_one(PromptInput).load_text("/test tests/test_calc.py")
        await pilot.press("enter")
        await approve_next(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, TestResultsScreen), timeout=60, what="results list")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, FailureFileScreen), what="failure opened")
        view = app.screen.query_one("#failure-diff")
        assert view.hunk_count == 1 and "expected = 6" in app.screen.diff


async def test_scaffold_module_proposes_then_writes(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = python_repo(tmp_path)
    app = build_app(repo, server_url=ollama_server.url, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await session_open(pilot)
        app.query_one(PromptInput).load_text("/scaffold module helpers")
        await pilot.press("enter")
        queue = app.query_one(ApprovalQueue)
        await wait_for(pilot, lambda: queue.proposals, what="scaffold proposed")
        proposal = queue.proposals[0]
        assert proposal.kind == "scaffold" and "tests/test_helpers.py" in proposal.files
        assert not (repo / "calc" / "helpers.py").exists()  # nothing written before approval
        diff = app.query_one("#diff")
        await wait_for(pilot, lambda: diff.index is not None and len(diff.index.files) == 2, what="diff shown")
        await approve_next(pilot)
        await wait_for(pilot, lambda: "press T to run it" in notes(app), what="offer to run the new test")
        assert (repo / "calc" / "helpers.py").exists() and (repo / "tests" / "test_helpers.py").exists()
        app.query_one(AgentPane).focus()
        await pilot.press("T")
        await wait_for(pilot, lambda: queue.proposals, what="new test run proposed")
        assert "tests/test_helpers.py" in queue.proposals[0].command
        await approve_next(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, TestResultsScreen), timeout=60, what="results")
        assert app.screen.runs[0].passed == 1 and app.screen.runs[0].ok


async def test_bad_scaffold_usage_and_other_slash_prompts(tmp_path: Path) -> None:
    repo = python_repo(tmp_path)
    app = build_app(repo, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        app.query_one(PromptInput).load_text("/scaffold module")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "usage: /scaffold" in notes(app), what="usage notice")


async def test_fix_attempt_counter_in_output_title(tmp_path: Path) -> None:
    app = build_app(python_repo(tmp_path), git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        feed(app, FixAttempt(2, 3, "fixing", failing=1))
        output = app.query_one(OutputPane)
        await wait_for(pilot, lambda: "fix attempt 2/3" in str(output.border_title), what="counter")
        feed(app, FixAttempt(2, 3, "stopped", "repeated", failing=1))
        await wait_for(pilot, lambda: str(output.border_title) == "Output", what="counter cleared")


async def test_fix_loop_counts_attempts_and_ends_green(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo", {
        "pyproject.toml": "[project]\nname = \"calc\"\nversion = \"0.1\"\n",
        "calc/__init__.py": "def add(a, b):\n    return a - b\n",
        "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    })
    ollama_server.push(
        Reply(tool_calls=[{"name": "edit_file", "arguments": {
            "path": "calc/__init__.py", "old": "return a - b", "new": "return a + b"}}]),
        Reply(text="Fixed the sign."),
    )
    app = build_app(repo, server_url=ollama_server.url, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.main.server_state == "connected", what="server connected")
        app.query_one(AgentPane).focus()
        await pilot.press("F")
        output = app.query_one(OutputPane)
        queue = app.query_one(ApprovalQueue)
        await wait_for(pilot, lambda: queue.proposals, timeout=60, what="fix proposed")
        assert "fix attempt 1/" in str(output.border_title)
        await approve_next(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, TestResultsScreen), timeout=60, what="results")
        assert app.screen.runs[0].ok
        assert str(output.border_title) == "Output"
    assert "return a + b" in (repo / "calc" / "__init__.py").read_text()


async def test_several_suites_ask_which(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    from textual.widgets import OptionList

    from tui.app.screens.tests_results import SuitePickScreen

    repo = make_repo(tmp_path / "repo", {
        "pytest.ini": "[pytest]\n",
        "tests/test_root.py": "def test_root():\n    assert True\n",
        "web/package.json": '{"name": "web", "scripts": {"test": "node --test"}}\n',
        "web/test/a.test.js": "const test = require('node:test');\ntest('web works', () => {});\n",
    })
    app = build_app(repo, server_url=ollama_server.url, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await session_open(pilot)
        app.query_one(AgentPane).focus()
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, SuitePickScreen), what="suite picker")
        options = app.screen.query_one(OptionList)
        ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert "web:node" in ids and "*all*" in ids and len(ids) == 3
        options.highlighted = ids.index("web:node")
        await pilot.press("enter")
        queue = app.query_one(ApprovalQueue)
        await wait_for(pilot, lambda: queue.proposals, what="node suite proposed")
        assert "node" in queue.proposals[0].command and "pytest" not in queue.proposals[0].command
        await approve_next(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, TestResultsScreen), timeout=60, what="results")
        assert app.screen.runs[0].suite == "web:node" and app.screen.runs[0].passed == 1


async def test_t_says_why_tests_could_not_run_and_which_python(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    from tests.core.env_fixtures import lib_repo

    repo = lib_repo(tmp_path / "lib")  # a src layout installed nowhere: its tests cannot import it
    app = build_app(repo, server_url=ollama_server.url, git_refresh=False)
    async with app.run_test(size=SIZE) as pilot:
        await session_open(pilot)
        app.query_one(AgentPane).focus()
        await pilot.press("t")
        await approve_next(pilot)
        await wait_for(pilot, lambda: results_shown(app), timeout=60, what="results")
        header = app.screen.query_one("#results-summary").render().plain
        assert "tests could not be collected: ImportError while importing test module tests/test_lib.py: " \
               "No module named 'mylib'" in header
        assert "what to do: mylib is this repo's own code (src/mylib)" in header and "python: " in header
        assert "0 passed, 0 failed" not in header
