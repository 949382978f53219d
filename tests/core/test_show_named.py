"""A change request that names a function or class gets that definition's current code before the model's first
step (held-out humanize: asked for two decimals in naturalsize, the 1.5B model edited a line it recalled, unread)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_repo
from tests.core.agent_helpers import ScriptedApprover, fast_config, of, run_prompt, sent_text
from tests.ollama_server import Reply, ScriptedOllama

SIZES = '''"""Sizes."""


def naturalsize(value, binary=False, format="%.1f"):
    """Format a number of bytes."""
    return format % value + (" KiB" if binary else " kB")


def _helper():
    return 1
'''

HANDLER = "class _Handler(object):\n    def __init__(self):\n        self.path = []\n" + "".join(
    f"\n    def step{i}(self, x):\n        value = x + {i}\n        return self.path.append(value)\n" for i in range(70))


async def test_the_named_function_is_shown_before_the_first_step(tmp_path: Path, ollama_server: ScriptedOllama
                                                                 ) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/sizes.py": SIZES, "tests/test_sizes.py": "def test_x():\n    pass\n"})
    ollama_server.push(Reply("It is done."))
    events, _, _ = await run_prompt(repo, ollama_server.url, "Make naturalsize show two decimal places by default.",
                                    ScriptedApprover(), fast_config(repo, verify="off", check_done="off"))
    [call] = of(events, "tool_call")
    assert (call.name, call.arguments, call.source) == ("outline", {"path": "pkg/sizes.py", "symbol": "naturalsize"},
                                                        "auto")
    first = sent_text(ollama_server.requests[0])
    assert 'def naturalsize(value, binary=False, format="%.1f"):' in first
    assert "def _helper" not in first, "only the named definition, not the whole file"


async def test_a_question_or_a_file_already_read_gets_nothing_more(tmp_path: Path, ollama_server: ScriptedOllama
                                                                   ) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/sizes.py": SIZES})
    ollama_server.push(Reply("It formats bytes."), Reply("Done."))
    events, _, _ = await run_prompt(repo, ollama_server.url, "What does naturalsize do?")
    assert [e.name for e in of(events, "tool_call")] == []
    events, _, _ = await run_prompt(repo, ollama_server.url, "In pkg/sizes.py, make naturalsize use two decimals.",
                                    ScriptedApprover(), fast_config(repo, verify="off", check_done="off"))
    assert [(e.name, e.arguments) for e in of(events, "tool_call")] == [("read_file", {"path": "pkg/sizes.py"})]


async def test_a_long_private_class_is_shown_with_the_list_of_its_members(tmp_path: Path,
                                                                          ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo", {"saxlib.py": HANDLER, "main.py": "import saxlib\n"})
    ollama_server.push(Reply("Done."))
    await run_prompt(repo, ollama_server.url, "Add a reset() method to _Handler that empties path.",
                     ScriptedApprover(), fast_config(repo, verify="off", check_done="off", native_tools="off"))
    first = sent_text(ollama_server.requests[0])
    assert "class _Handler(object):" in first and "not shown" in first
    assert "[_Handler has 71 members: __init__ 2, step0 5," in first and "step69 281" in first
