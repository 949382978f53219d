""""Add a method / class / function": the call that adds it, the code it goes into or resembles, the exports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.core import fixtures_repos as fx
from tests.core.agent_helpers import ScriptedApprover, run_prompt
from tests.ollama_server import Reply, ScriptedOllama
from tui.engine.grounding import turn_context
from tui.protocol.proposals import Decision

BASE = ('class Store:\n    """Keeps items."""\n\n    def __init__(self):\n        self.__data = {}\n\n'
        '    def __getitem__(self, key):\n        return self.__data[key]\n\n'
        '    def __setitem__(self, key, value):\n        self.__data[key] = value\n\n'
        '    def __contains__(self, key):\n        return key in self.__data\n\n\n')
FILES = {
    "src/boxes/__init__.py": ('from boxes.core import FifoBox, LruBox, Store\nfrom boxes.util import (\n    clamp,\n'
                              '    double,\n)\n\n__all__ = (\n    "FifoBox",\n    "LruBox",\n    "Store",\n    "clamp",\n'
                              '    "double",\n)\n'),
    "src/boxes/core.py": BASE + (
        'class LruBox(Store):\n    """Least recently used."""\n\n    def __init__(self):\n        Store.__init__(self)\n'
        '        self.__order = []\n\n    def __getitem__(self, key):\n        value = Store.__getitem__(self, key)\n'
        '        self.__order.append(key)\n        return value\n\n\n'
        'class FifoBox(Store):\n    """First in, first out."""\n\n    def popitem(self):\n        return "first"\n'),
    "src/boxes/util.py": "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n\n\ndef double(x):\n    return 2 * x\n",
    "tests/test_core.py": "from boxes import LruBox\n\n\ndef test_get():\n    b = LruBox()\n    b[1] = 2\n    assert b[1] == 2\n",
}


def _hint(tmp_path: Path, prompt: str) -> str:
    repo = fx.build(tmp_path / "repo", FILES)
    return turn_context(repo, prompt, list(FILES), {"edit_symbol", "edit_file"}, 4096)


def test_a_new_method_gets_its_call_its_class_code_and_where_the_base_keeps_its_data(tmp_path: Path) -> None:
    text = _hint(tmp_path, "Add a peek(key, default=None) method to LruBox that returns the value without "
                           "recording the use.")
    assert 'edit_symbol(path="src/boxes/core.py", symbol="LruBox.peek"' in text
    assert "self.__order.append(key)" in text  # the class's own code, to write the method like
    assert "self._Store__data" in text  # the base class's private mapping, by the name that works in a subclass


def test_a_new_class_is_shown_the_sibling_it_resembles_and_the_exports(tmp_path: Path) -> None:
    text = _hint(tmp_path, "Add a LifoBox class (last in, first out) to boxes and export it in __all__.")
    assert 'edit_symbol(path="src/boxes/core.py", symbol="LifoBox"' in text  # beside its siblings, not a new module
    assert "The existing class most like it is FifoBox" in text and 'return "first"' in text
    assert "Exports live in src/boxes/__init__.py: add 'LifoBox' to its __all__ (lines 7-13" in text


def test_a_new_function_in_a_named_file_gets_the_call_and_the_import_line(tmp_path: Path) -> None:
    text = _hint(tmp_path, "Add a function triple(x) to src/boxes/util.py and export it from the package.")
    assert 'edit_symbol(path="src/boxes/util.py", symbol="triple"' in text
    assert "line 2: from boxes.util import ( clamp, double, )" in text


def test_changes_to_what_exists_and_questions_get_no_addition_hint(tmp_path: Path) -> None:
    for prompt in ("Add a check to clamp(x, lo, hi) that lo <= hi.",  # clamp exists: a change, not an addition
                   "What would a peek(key) method on LruBox return?",  # a question
                   "Make double(x) return 2 * x + 0."):  # no addition at all
        assert "does not exist yet" not in _hint(tmp_path / str(abs(hash(prompt))), prompt)
        assert "Add the method with ONE call" not in _hint(tmp_path / f"b{abs(hash(prompt))}", prompt)


async def test_the_call_the_hint_gives_adds_a_working_method(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """The hinted call, made as the hint writes it, adds the method inside the class, where it works."""
    repo = fx.build(tmp_path / "repo", FILES)
    code = "def peek(self, key, default=None):\n    return self._Store__data.get(key, default)\n"
    ollama_server.push(Reply(tool_calls=[{"name": "edit_symbol", "arguments": {
        "path": "src/boxes/core.py", "symbol": "LruBox.peek", "code": code}}]), Reply("Added LruBox.peek."))
    await run_prompt(repo, ollama_server.url, "Add a peek(key, default=None) method to LruBox.",
                     ScriptedApprover([Decision("approve")] * 4))
    first = "\n".join(m.get("content") or "" for m in ollama_server.requests[0]["messages"])
    assert 'symbol="LruBox.peek"' in first
    check = ("from boxes import LruBox\nb = LruBox()\nb[1] = 'x'\n"
             "assert b.peek(1) == 'x' and b.peek(2, 'd') == 'd'\nprint('ok')\n")
    run = subprocess.run([sys.executable, "-c", check], cwd=repo, env={"PYTHONPATH": str(repo / "src")},
                         capture_output=True, text=True, timeout=30)
    assert run.stdout.strip() == "ok", run.stderr
