"""A data file retyped by hand is sent back once, with the code that changes it exactly (one of the coach's
countermeasures; apart from tui/engine/coach.py because it needs the grounding's skeletons, which need the coach)."""

from __future__ import annotations

from typing import Any

from tui.engine.grounding import CHANGE_WORDS, DATA_SUFFIXES, data_skeleton
from tui.engine.turnmsg import short


def retyped_data(agent: Any, call: Any, turn: Any) -> bool:
    """An edit_file or write_file of a data file (CSV, JSON, ...) that a change request names is sent back once,
    with the run_python code to start from (fresh held-out: told to use run_python, the model retyped
    examples/tags.csv by hand and lost the merge, and edited a requests.json line it made up). True when sent
    back."""
    path = str(call.arguments.get("path", ""))
    named = path and (path in agent.prompt or path.rsplit("/", 1)[-1] in agent.prompt)
    if call.name not in ("edit_file", "write_file") or turn.data_told or not path.lower().endswith(DATA_SUFFIXES) \
            or not named or not CHANGE_WORDS.search(agent.prompt) or "run_python" not in agent.tools:
        return False
    turn.data_told = True
    agent._ask_again(f"the model retyped the data file {path} with {call.name}", (
        f"Not done: {path} is a data file; retyped by hand, values get lost. Make the change with one run_python "
        "call whose code reads the file, changes every entry the request names, and writes it back to the same "
        f"path. The developer asked: {short(agent.prompt)} " + data_skeleton(path, agent.prompt, agent.ctx.repo)))
    return True
