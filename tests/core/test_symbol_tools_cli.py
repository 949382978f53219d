"""outline, edit_symbol and edit_file's ambiguity report through `devagent run --yes --json`, end to end.

A real subprocess in a real repo, the scripted Ollama server over HTTP; the scripted model makes the
calls a small model makes (text-form JSON where it matters), and the result is checked the way a
user would: the file imports and behaves, pytest collects the new test, node accepts the JS.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git, make_repo
from tests.core.test_cli_run import devagent, json_lines
from tests.ollama_server import Reply, ScriptedOllama

STORE = '''"""A key-value store."""


class Store:
    """Keeps values by key."""

    def __init__(self):
        self.data = {}

    def get(self, key):
        return self.data[key]

    def put(self, key, value):
        self.data[key] = value

    def __len__(self):
        return len(self.data)


def make():
    return Store()
'''


def last_result(body: dict[str, Any]) -> str:
    """What the model was last told (a tool message, or the text-form result)."""
    return str(body["messages"][-1]["content"])


def text_call(name: str, **arguments: Any) -> Reply:
    """A call written as JSON text, as small models write them."""
    return Reply(json.dumps({"name": name, "arguments": arguments}))


def run(repo: Path, server: ScriptedOllama, prompt: str) -> list[dict[str, Any]]:
    out = devagent(repo, "run", "--yes", "--json", prompt, url=server.url, timeout=90)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    return json_lines(out.stdout)


def results(events: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "tool_result" and e["name"] == name]


def python(repo: Path, code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_outline_then_edit_symbol_on_a_class_method(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo", {"store.py": STORE})
    code = ("        def get(self, key, default=None):\n"  # copied with its class indentation
            "            return self.data.get(key, default)")
    ollama_server.push(
        Reply(tool_calls=[{"name": "outline", "arguments": {"path": "store.py"}}]),
        Reply(tool_calls=[{"name": "edit_symbol", "arguments": {"path": "store.py", "symbol": "Store.get",
                                                                 "code": code}}]),
        Reply("Store.get now takes a default."))
    events = run(repo, ollama_server, "make Store.get return a default for missing keys")
    shown, outline = results(events, "outline")
    assert "def get(self, key):" in shown["output"]  # the request names Store.get: its code is shown up front
    assert "def get(self, key):" in json.dumps(ollama_server.requests[0]["messages"])
    assert outline["ok"] and "class Store (lines 4-17; 4 methods (2 public, 2 special __x__)): __init__ 7, get 10, put 13, __len__ 16" in outline["output"]
    assert "store.py: 21 lines; 1 class, 1 function" in json.dumps(ollama_server.requests[1]["messages"])
    [edit] = results(events, "edit_symbol")
    assert edit["ok"] and edit["output"].startswith("Store.get is now lines 10-11 of store.py. The static check")
    proposal = next(e["proposal"] for e in events if e["type"] == "proposal")
    assert proposal["summary"] == "replaced Store.get in store.py (+2 -2)" and proposal["tool"] == "edit_symbol"
    assert any(e["type"] == "checkpoint" for e in events)
    assert "    def get(self, key, default=None):\n        return self.data.get(key, default)\n" in (
        repo / "store.py").read_text()
    assert python(repo, "import store; s = store.make(); s.put('a', 1); print(s.get('a'), s.get('b', 7), len(s))") \
        == "1 7 1"


def test_a_test_added_after_an_indented_test_is_collected(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo", {
        "calc.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
        "tests/test_calc.py": ("from calc import add\n\n\ndef test_add():\n    for a, b in [(1, 2), (3, 4)]:\n"
                               "        assert add(a, b) == a + b\n"),
        "conftest.py": "import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parent))\n"})

    def import_fix(body: dict[str, Any]) -> Reply:  # copy the call the static check suggested, as a model would
        suggested = re.search(r"import it: (\{.*\})\)", last_result(body))
        assert suggested, last_result(body)
        return Reply(suggested.group(1))

    ollama_server.push(
        text_call("edit_symbol", path="tests/test_calc.py", symbol="test_sub",
                  code="        def test_sub():\n            assert sub(3, 1) == 2"),
        import_fix,
        Reply('{"done": true, "answer": "Added test_sub."}'))
    events = run(repo, ollama_server, "add a test for sub to tests/test_calc.py")
    [edit] = results(events, "edit_symbol")
    assert "test_sub is now lines 9-10 of tests/test_calc.py" in edit["output"]
    assert "undefined name 'sub'" in edit["output"]
    [fixed] = results(events, "edit_file")
    assert fixed["ok"], fixed["output"]
    text = (repo / "tests/test_calc.py").read_text()
    assert text.startswith("from calc import add, sub\n") and "\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n" in text
    collected = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                               cwd=repo, capture_output=True, text=True, timeout=60)
    assert "2 passed" in collected.stdout, collected.stdout


def test_an_ambiguous_edit_file_then_the_suggested_call(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    module = "".join(f"def f{i}(x):\n    if x is None:\n        return 0\n    return x + {i}\n\n\n" for i in range(1, 41))
    repo = make_repo(tmp_path / "repo", {"funcs.py": module})

    def pick_f3(body: dict[str, Any]) -> Reply:
        call = re.search(r"^line \d+ \(f3\): (\{.*\})$", last_result(body), re.M)
        assert call, last_result(body)
        return Reply(call.group(1))

    ollama_server.push(
        text_call("edit_file", path="funcs.py", old="return 0", new="return -1"),
        pick_f3,
        Reply('{"done": true, "answer": "f3 returns -1 for None."}'))
    events = run(repo, ollama_server, "make f3 return -1 when x is None")
    first, second = results(events, "edit_file")
    assert not first["ok"] and "occurs 40 times in funcs.py (line 3 in f1, line 9 in f2, line 15 in f3" in first["output"]
    assert second["ok"], second["output"]
    values = python(repo, "import funcs; print(funcs.f3(None), funcs.f2(None), funcs.f30(None), funcs.f3(1))")
    assert values == "-1 0 0 4"
    assert git(repo, "diff", "--numstat").split()[:2] == ["1", "1"]


def test_the_prefix_of_a_longer_number_is_not_an_occurrence(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """The measured failure: `return x + 3` also matched `x + 30` ... `x + 39`; now the edit just works."""
    module = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(1, 61))
    repo = make_repo(tmp_path / "repo", {"funcs.py": module})
    ollama_server.push(text_call("edit_file", path="funcs.py", old="return x + 3", new="return x - 3"),
                       Reply('{"done": true, "answer": "Changed f3."}'))
    events = run(repo, ollama_server, "change f3 so it returns x - 3")
    assert results(events, "edit_file")[0]["ok"]
    assert python(repo, "import funcs; print(funcs.f3(10), funcs.f30(10), funcs.f33(10))") == "7 40 43"


@pytest.mark.skipif(subprocess.run(["node", "--version"], capture_output=True).returncode != 0, reason="needs node")
def test_edit_symbol_adds_a_method_to_a_js_class(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    source = ("export class Cache {\n  constructor() {\n    this.items = new Map();\n  }\n\n"
              "  get(key) {\n    return this.items.get(key) ?? `missing ${key}}`;\n  }\n}\n")
    repo = make_repo(tmp_path / "repo", {"cache.mjs": source})
    ollama_server.push(
        Reply(tool_calls=[{"name": "edit_symbol", "arguments": {
            "path": "cache.mjs", "symbol": "Cache.set",
            "code": "function set(key, value) {\n    this.items.set(key, value);\n    return this;\n}"}}]),
        Reply("Added Cache.set."))
    events = run(repo, ollama_server, "add a set method to Cache")
    [edit] = results(events, "edit_symbol")
    assert edit["ok"] and edit["output"].startswith("Cache.set is now lines 10-13 of cache.mjs.")
    check = subprocess.run(["node", "--input-type=module", "-e",
                            "import { Cache } from './cache.mjs'; const c = new Cache();"
                            "console.log(c.set('a', 1).get('a'), c.get('b'));"],
                           cwd=repo, capture_output=True, text=True, timeout=30)
    assert check.stdout.strip() == "1 missing b}", check.stderr


def test_a_placeholder_instead_of_code_is_refused_and_a_files_own_is_not(tmp_path: Path,
                                                                         ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo", {"store.py": STORE + "\n# ... rest of the code is generated\n"})
    ollama_server.push(
        text_call("outline", path="store.py", symbol="Store.get"),
        text_call("edit_symbol", path="store.py", symbol="Store.get",
                  code="def get(self, key):\n    # Your modified code here\n    return self.data.get(key)"),
        text_call("edit_file", path="store.py", old="return self.data[key]", new="return self.data.get(key)"),
        Reply("get returns None for a missing key now."))
    events = run(repo, ollama_server, "Make Store.get return None for a missing key")
    refused = results(events, "edit_symbol")[0]
    assert not refused["ok"] and "placeholder instead of code ('# Your modified code here')" in refused["output"]
    assert results(events, "edit_file")[0]["ok"]  # the file's own "# ... rest of the code" line is not the edit's
    assert python(repo, "import store; print(store.Store().get('x'))") == "None"
    assert "Your modified code" not in (repo / "store.py").read_text()


def test_a_second_definition_of_a_module_function_is_refused(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the tune half: edit_symbol refused, the model appended its unparse() with edit_file old="", so
    the module defined unparse twice and the new one (a stub) won at import."""
    repo = make_repo(tmp_path / "repo", {"store.py": STORE})
    ollama_server.push(text_call("edit_file", path="store.py", old="", new="def make(size):\n    return Store()"),
                       Reply("I could not change make."))
    events = run(repo, ollama_server, "Let make take a size")
    refused = results(events, "edit_file")[0]
    assert not refused["ok"] and "define make a second time in store.py (the first is at line" in refused["output"]
    assert (repo / "store.py").read_text() == STORE


def test_an_existing_definition_sent_back_unchanged_is_told_to_take_a_new_name(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the tune half: asked to add a test, the model resent test_typedkey as it was, twice."""
    tests = "import store\n\n\nclass StoreTest:\n    def test_get(self):\n        assert store.make() is not None\n"
    repo = make_repo(tmp_path / "repo", {"store.py": STORE, "tests/test_store.py": tests})
    same = "def test_get(self):\n    assert store.make() is not None\n"
    ollama_server.push(text_call("outline", path="tests/test_store.py", symbol="StoreTest.test_get"),
                       text_call("edit_symbol", path="tests/test_store.py", symbol="StoreTest.test_get", code=same),
                       Reply("I could not add it."))
    events = run(repo, ollama_server, "Add a test to tests/test_store.py that len() counts the keys")
    told = results(events, "edit_symbol")[0]
    assert not told["ok"] and "symbol 'StoreTest.test_get_<what it checks>'" in told["output"]


def test_a_definition_sent_back_unchanged_that_is_no_test_is_told_to_go_on(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the tune half: the model resent LIFOCache.__repr__ as written and was told to name it
    '__repr___<what it checks>'; it resent it twice more. A resend of code that is there needs no new name."""
    repo = make_repo(tmp_path / "repo", {"store.py": STORE})
    same = "def __init__(self):\n    self.data = {}\n"
    ollama_server.push(text_call("outline", path="store.py", symbol="Store.__init__"),
                       text_call("edit_symbol", path="store.py", symbol="Store.__init__", code=same),
                       Reply("It is there."))
    events = run(repo, ollama_server, "Make sure Store starts empty")
    told = results(events, "edit_symbol")[0]["output"]
    assert "already has exactly this code in store.py: there is nothing to change there" in told
    assert "<what it checks>" not in told


def test_an_edit_that_would_break_a_files_syntax_is_refused(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Seen on the tune half: edit_file put a whole if/elif chain on one line; it was applied, then reported."""
    repo = make_repo(tmp_path / "repo", {"store.py": STORE})
    ollama_server.push(text_call("edit_file", path="store.py", old="        return self.data[key]",
                                 new="        if key in self.data: return self.data[key] else: return None"),
                       text_call("edit_file", path="store.py", old="        return self.data[key]",
                                 new="        return self.data.get(key)"),
                       Reply("get returns None for a missing key."))
    events = run(repo, ollama_server, "Make Store.get return None for a missing key")
    first, second = results(events, "edit_file")
    assert not first["ok"] and "would make store.py stop parsing (line" in first["output"]
    assert second["ok"] and python(repo, "import store; print(store.Store().get('x'))") == "None"


SIGNER = '''class Signer:
    def __init__(self, secret_key, salt=b"itsdangerous.Signer", sep=b"."):
        self.secret_key = secret_key
        self.salt = salt
        self.sep = sep

    def sign(self, value):
        return value + self.sep + self.salt
'''


def test_a_new_method_whose_example_values_became_parameters_is_sent_back(tmp_path: Path,
                                                                          ollama_server: ScriptedOllama) -> None:
    """itsdangerous (a probe outside the benchmark): "a __repr__ ... like Signer(salt=b'x', sep=b'.')" became
    ``def __repr__(self, salt=b'x', sep=b'.')``, which formats its own defaults; the tests passed."""
    repo = make_repo(tmp_path / "repo", {"signer.py": SIGNER})
    shadowing = ("def __repr__(self, salt=b'x', sep=b'.'):\n"
                 "    return f'Signer(salt={salt!r}, sep={sep!r})'")
    right = "def __repr__(self):\n    return f'Signer(salt={self.salt!r}, sep={self.sep!r})'"
    ollama_server.push(
        text_call("edit_symbol", path="signer.py", symbol="Signer.__repr__", code=shadowing),
        text_call("edit_symbol", path="signer.py", symbol="Signer.__repr__", code=right),
        Reply("Added Signer.__repr__."))
    events = run(repo, ollama_server, "Add a __repr__ method to Signer that returns something like "
                                      "Signer(salt=b'x', sep=b'.').")
    refused, added = results(events, "edit_symbol")
    assert not refused["ok"] and "Python calls __repr__ with no arguments besides self, but your __repr__ also " \
        "takes salt, sep; nothing was changed" in refused["output"]
    assert "self.secret_key, self.salt, self.sep: use those" in refused["output"]
    assert "def __repr__(self):" in refused["output"]
    assert added["ok"], added["output"]
    assert python(repo, "import signer; print(repr(signer.Signer('k', salt=b's')))") == "Signer(salt=b's', sep=b'.')"


def test_a_new_method_spelled_with_its_arguments_may_not_grow_more(tmp_path: Path,
                                                                   ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo", {"signer.py": SIGNER})
    grown = "def with_salt(self, salt, secret_key=None):\n    return Signer(secret_key, salt, self.sep)"
    ollama_server.push(
        text_call("edit_symbol", path="signer.py", symbol="Signer.with_salt", code=grown),
        Reply("I could not add it."))
    events = run(repo, ollama_server, "Add a method with_salt(salt) to Signer that returns a copy with that salt.")
    [refused] = results(events, "edit_symbol")
    assert "the request asks for with_salt(salt), but your with_salt also takes secret_key" in refused["output"]
    assert "def with_salt(self, salt):" in refused["output"]
    assert "with_salt" not in (repo / "signer.py").read_text()
    # the same method where the request does not spell its arguments is not second-guessed
    ollama_server.push(text_call("edit_symbol", path="signer.py", symbol="Signer.with_salt", code=grown),
                       Reply("Added with_salt."))
    run(repo, ollama_server, "Add a method with_salt to Signer that returns a copy with another salt.")
    assert "def with_salt(self, salt, secret_key=None):" in (repo / "signer.py").read_text()


def test_try_out_code_written_into_a_test_file_is_refused(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """itsdangerous (a probe outside the benchmark): asked to run its new method, the model appended a loop of
    print calls to test_serializer.py with edit_file; it landed, and pytest ran it on every collection."""
    repo = make_repo(tmp_path / "repo", {"signer.py": SIGNER,
                                         "tests/test_signer.py": "from signer import Signer\n\n\ndef test_sign():\n"
                                                                 "    assert Signer('k').sign(b'v')\n"})
    script = "\nfor salt in [b'a', b'b']:\n    print(Signer('k', salt=salt).sign(b'v'))\n"
    ollama_server.push(
        text_call("edit_file", path="tests/test_signer.py", old="", new=script),
        text_call("edit_file", path="signer.py", old="", new="\nprint(Signer('k').sign(b'v'))\n"),
        Reply("Done."))
    events = run(repo, ollama_server, "Check that Signer.sign works with other salts.")
    refused = results(events, "edit_file")
    assert [r["ok"] for r in refused] == [False, False]
    assert "that puts code at the top level of tests/test_signer.py (line 7: for salt in [b'a', b'b']:)" in \
        refused[0]["output"] and "send it to run_python" in refused[0]["output"]
    assert "top level of signer.py" in refused[1]["output"]
    assert git(repo, "status", "--porcelain") == ""
    # asked for in so many words, it is the developer's call
    ollama_server.push(text_call("edit_file", path="signer.py", old="", new="\nprint('signer loaded')\n"),
                       Reply("Added the print."))
    later = run(repo, ollama_server, "Print 'signer loaded' when signer.py is imported.")
    assert "print('signer loaded')" in (repo / "signer.py").read_text(), [
        e for e in later if e["type"] in ("tool_result", "notice")]


def test_a_parameter_sent_as_a_new_variable_gets_the_call_that_changes_its_default(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """itsdangerous (a probe outside the benchmark): "change the default salt of Signer" became
    ``edit_symbol(symbol="salt", code="salt = b'itsdangerous'")``, a module variable nothing reads."""
    repo = make_repo(tmp_path / "repo", {"signer.py": SIGNER})

    def copy_the_call(body: dict[str, Any]) -> Reply:
        suggested = re.search(r"send:\n(\{.*\})", last_result(body))
        assert suggested, last_result(body)
        return Reply(suggested.group(1))

    ollama_server.push(text_call("edit_symbol", path="signer.py", symbol="salt", code="salt = b'itsdangerous'"),
                       copy_the_call, Reply("The default salt is now b'itsdangerous'."))
    events = run(repo, ollama_server, 'Change the default salt of Signer from b"itsdangerous.Signer" to b"itsdangerous".')
    [refused] = results(events, "edit_symbol")
    assert "salt is not a definition in signer.py: it is a parameter of __init__ (line 2:" in refused["output"]
    assert [r["ok"] for r in results(events, "edit_file")] == [True]
    text = (repo / "signer.py").read_text()
    assert "salt=b'itsdangerous', sep" in text and "\nsalt =" not in text
    assert python(repo, "import signer; print(signer.Signer('k').salt)") == "b'itsdangerous'"


def test_the_arguments_a_request_spells_are_read_from_a_qualified_name_too() -> None:
    from tui.symbols.pysignature import requested

    assert requested("Add Serializer.copy_with_salt(salt) to Serializer", "copy_with_salt") == ["salt"]
    assert requested("Add plugin_count() to PluginManager", "plugin_count") == []
    assert requested("Add my_count(x) to it", "count") is None  # another name that ends the same
    assert requested("so that f(2, 'x') returns 3", "f") is None  # values say how it is called, not its names


def test_the_parameter_check_holds_for_a_method_added_with_edit_file_too(tmp_path: Path,
                                                                         ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo", {"signer.py": SIGNER})
    old = "    def sign(self, value):"
    new = ("    def __repr__(self, salt=b'x'):\n        return f'Signer(salt={salt!r})'\n\n    def sign(self, value):")
    ollama_server.push(text_call("edit_file", path="signer.py", old=old, new=new), Reply("I could not add it."))
    events = run(repo, ollama_server, "Add a __repr__ to Signer that shows its salt.")
    [refused] = results(events, "edit_file")
    assert not refused["ok"] and "Python calls __repr__ with no arguments besides self" in refused["output"]
    assert "__repr__" not in (repo / "signer.py").read_text()
