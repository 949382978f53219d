"""The system prompt plus tool descriptions stays small enough for 4k-context models."""

from __future__ import annotations

import json
from pathlib import Path

from tui.engine.context.prompt import system_prompt
from tui.tools.support.common import CHARS_PER_TOKEN
from tui.tools.registry import load_tools

REQUIRED = ["read_file", "list_files", "search", "git_status", "git_diff", "git_log", "write_file", "edit_file",
            "run_command", "run_python"]


def test_required_tools_have_the_documented_arguments() -> None:
    tools = load_tools()
    for name in REQUIRED:
        assert name in tools
    props = {name: set(tools[name].parameters["properties"]) for name in REQUIRED}
    assert props["read_file"] == {"path"}
    assert props["search"] == {"pattern", "path"}
    assert props["edit_file"] == {"path", "old", "new"}
    assert props["run_command"] == {"command", "timeout"}
    assert props["run_python"] == {"code", "timeout"}
    assert props["git_diff"] == {"staged"} and props["git_log"] == {"n"}


def test_prompt_and_tools_fit_the_budget() -> None:
    tools = load_tools()
    text = system_prompt(Path("/x/demo"), tools)
    schemas = json.dumps([t.schema() for t in tools.values()])
    assert len(text) // CHARS_PER_TOKEN < 1000, len(text) // CHARS_PER_TOKEN
    # 2,200 before the refactor tool (issue 28: ~170 tokens), which replaces retyping a rename, a move or a
    # signature change with an exact, tested one.
    assert (len(text) + len(schemas)) // CHARS_PER_TOKEN < 2300
    for name in REQUIRED:
        assert f"- {name}(" in text
