""""How many ...?": definitions are counted by the outline, data and text by code that runs and is right."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.core import fixtures_repos as fx
from tests.core.agent_helpers import run_prompt
from tests.ollama_server import Reply, ScriptedOllama
from tui.engine.grounding import turn_context

FILES = {
    "tests/test_shapes.py": "".join(f"def test_shape_{i}():\n    assert {i} == {i}\n\n\n" for i in range(7)),
    "data/sizes.csv": "name,size\na,1\nb,\nc,3\n d ,\ne,5\n",
    "data/feeds.json": '[{"name": "x", "url": "u"}, {"name": "y", "url": ""}, {"name": "z"}, {"name": "w", "url": "v"}]\n',
    "NOTES.md": "todo: one\nmore\ntodo: two\ntodo: three\n",
}


def _code(text: str) -> str:
    """The code block the hint gives: the lines after its introduction, up to the end of the hint."""
    body = text.split("keep only what the question asks:\n", 1)[1]
    return body.split("\n\n", 1)[0]


def _run(repo: Path, code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_the_counting_code_for_a_csv_a_json_file_and_a_text_runs_and_is_right(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    tools = {"run_python", "read_file", "outline"}
    csv = turn_context(repo, "How many rows in data/sizes.csv have an empty size?", list(FILES), tools, 4096)
    assert _run(repo, _code(csv)) == ["5", "2", "4"]  # rows, rows with size empty, distinct sizes
    feeds = turn_context(repo, "How many feeds in data/feeds.json have no url?", list(FILES), tools, 4096)
    assert _run(repo, _code(feeds)) == ["4", "2"]  # entries; missing or empty url
    notes = turn_context(repo, "How many times does 'todo:' occur in NOTES.md?", list(FILES), tools, 4096)
    assert _run(repo, _code(notes)) == ["3", "4"]


def test_requests_and_other_questions_get_no_counting_code(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    tools = {"run_python", "read_file", "outline"}
    for prompt in ("Drop the rows of data/sizes.csv with an empty size.", "What is in data/sizes.csv?",
                   "How many tests are in tests/test_shapes.py?"):  # the last: the outline counts it
        assert "Count it exactly" not in turn_context(repo, prompt, list(FILES), tools, 4096)
    assert "Count it exactly" not in turn_context(repo, "How many rows does data/sizes.csv have?", list(FILES),
                                                  {"read_file"}, 4096)  # no run_python: nothing to count with


async def test_a_count_of_tests_in_a_small_file_is_answered_from_its_outline(
        tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = fx.build(tmp_path / "repo", FILES)
    ollama_server.push(Reply("7"))
    events, _, _ = await run_prompt(repo, ollama_server.url, "How many tests are in tests/test_shapes.py?")
    first = "\n".join(m.get("content") or "" for m in ollama_server.requests[0]["messages"])
    assert "7 functions (7 tests)" in first  # counted by the outline, though the whole file would have fitted
    assert "assert 6 == 6" not in first  # not the file to count by eye
    ollama_server.push(Reply("It has seven test functions."))
    await run_prompt(repo, ollama_server.url, "What do the tests in tests/test_shapes.py check?")
    assert "assert 6 == 6" in "\n".join(m.get("content") or "" for m in ollama_server.requests[1]["messages"])


def test_a_data_file_behind_a_symlink_out_of_the_repo_is_not_read(tmp_path: Path) -> None:
    """Hostile repo: the counting code's header and keys come from files devagent reads on the host."""
    import os

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.csv").write_text("token,ssh_key_here\n1,2\n")
    repo = fx.build(tmp_path / "repo", FILES)
    os.symlink(outside, repo / "linked")
    os.mkfifo(repo / "data" / "pipe.csv")
    tools = {"run_python", "read_file", "outline"}
    files = [*FILES, "linked/secret.csv", "data/pipe.csv"]
    text = turn_context(repo, "How many rows in linked/secret.csv have an empty ssh_key_here?", files, tools, 4096)
    assert "header.index('ssh_key_here')" not in text  # the header was not read through the symlink
    (repo / "copy.csv").write_text((outside / "secret.csv").read_text())  # the same file inside: it is read
    assert "header.index('ssh_key_here')" in turn_context(
        repo, "How many rows in copy.csv have an empty ssh_key_here?", [*files, "copy.csv"], tools, 4096)
    assert "header.index" not in turn_context(repo, "How many rows in data/pipe.csv have an empty size?", files,
                                              tools, 4096)  # a FIFO: no hang, no header


def test_a_definition_count_is_stated_as_the_answer_to_the_question_asked(tmp_path: Path) -> None:
    """Seen on the dev set: shown "1 class, 13 functions (5 public, 8 private)" for "how many public functions",
    the 1.5B model answered 13; shown "(24 tests)" it answered 1. The count the question asks for comes first,
    counted from the outline, with the names; a test method under ``if not IS_JYTHON:`` counts too."""
    from tui.engine.counting import hint

    files = {"pkg/time.py": "class Unit:\n    pass\n\n\ndef _now():\n    pass\n\n\ndef naturalday(v):\n    pass\n\n\n"
                            "def naturaldate(v):\n    pass\n",
             "tests/test_conv.py": "import sys\n\n\nclass T:\n    def test_a(self):\n        pass\n\n"
                                   "    if not sys.platform.startswith('java'):\n        def test_b(self):\n"
                                   "            pass\n\n    def helper(self):\n        pass\n",
             "pkg/cache.py": "class LRU:\n    def __init__(self):\n        pass\n\n    def get(self):\n        pass\n\n"
                             "    def _touch(self):\n        pass\n"}
    repo = fx.build(tmp_path / "repo", files)
    names = list(files)
    public = hint(repo, "How many public functions does pkg/time.py define?", names)
    assert "pkg/time.py has 2 public functions (naturalday, naturaldate). The answer to the question is 2." in public
    tests = hint(repo, "How many test methods are there in tests/test_conv.py?", names)
    assert "has 2 tests (test_a, test_b)" in tests
    methods = hint(repo, "How many methods does the LRU class define?", names)  # no file named: where LRU is
    assert "LRU in pkg/cache.py has 3 methods (__init__, get, _touch)" in methods
    assert hint(repo, "How do the functions in pkg/time.py count?", names) == ""  # not a count question


def test_the_keys_of_a_named_object_literal_are_counted(tmp_path: Path) -> None:
    """Seen on the dev set (qs): "How many options does the defaults object in lib/stringify.js have?" was
    answered with the outline's count of constants (11, not 17)."""
    from tui.engine.counting import hint

    files = {"lib/stringify.js": "var x = { a: 1 };\nvar defaults = {\n    allowDots: false,\n    encoder: utils.encode,"
                                 "\n    serializeDate: function serializeDate(d) {\n        return { y: d };\n    },\n"
                                 "    'quoted-key': 1,\n};\n",
             "conf.py": "DEFAULTS = {'a': 1, 'b': {'c': 2}}\nOTHER = {}\n"}
    repo = fx.build(tmp_path / "repo", files)
    js = hint(repo, "How many options does the defaults object in lib/stringify.js have?", list(files))
    assert "the literal assigned to defaults has 4 top-level keys (allowDots, encoder, serializeDate, quoted-key)" in js
    py = hint(repo, "How many keys does DEFAULTS in conf.py have?", list(files))
    assert "DEFAULTS has 2 top-level keys ('a', 'b'). The answer to the question is 2." in py
    assert "literal assigned" not in hint(repo, "How many functions does lib/stringify.js define?", list(files))


def test_what_a_commonjs_module_exports_and_a_private_class_are_counted(tmp_path: Path) -> None:
    """Held-out qs: lib/utils.js defines eleven functions and exports ten through ``module.exports = {...}``; the
    outline said "11 functions" and the model answered 11. Held-out xmltodict: the methods of the private class
    _DictSAXHandler were never counted, because nothing found the class."""
    from tui.engine.counting import hint

    utils = ("var has = Object.prototype.hasOwnProperty;\n\nvar compactQueue = function (q) {\n    return q;\n};\n\n"
             "var merge = function merge(a, b) {\n    return a;\n};\n\nfunction decode(s) {\n    return s;\n}\n\n"
             "module.exports = {\n    merge: merge,\n    decode: decode, // the decoder\n    has\n};\n")
    files = {"lib/utils.js": utils, "sax.py": "class _Handler:\n    def a(self):\n        pass\n\n"
                                              "    def _b(self):\n        pass\n"}
    repo = fx.build(tmp_path / "repo", files)
    exported = hint(repo, "How many functions does lib/utils.js export?", list(files))
    assert "it exports 2 functions (merge, decode). The answer to the question is 2." in exported
    private = hint(repo, "How many methods does the _Handler class have?", list(files))
    assert "_Handler in sax.py has 2 methods (a, _b). The answer to the question is 2." in private


def test_how_many_of_a_thing_that_is_a_directory_each_is_counted_from_the_tree(tmp_path: Path) -> None:
    """Fresh held-out humanize: "How many locales does humanize ship translations for?" is the number of
    directories under src/humanize/locale/; the model searched i18n.py for "locale" and answered 21 of 33."""
    from tests.conftest import make_repo

    langs = ["de_DE", "fr_FR", "es_ES", "pt_BR"]
    tree = {f"src/pkg/locale/{lang}/LC_MESSAGES/pkg.po": "msgid \"\"\n" for lang in langs}
    tree["src/pkg/i18n.py"] = "def activate(locale):\n    return locale\n"
    repo = make_repo(tmp_path / "repo", tree)
    files = sorted(tree)
    context = turn_context(repo, "How many locales does pkg ship translations for?", files, {"run_python"}, 4096)
    assert "src/pkg/locale/ holds 4 entries" in context and "de_DE, es_ES, fr_FR, pt_BR" in context
    assert "holds" not in turn_context(repo, "How many functions does i18n.py define?", files, {"run_python"}, 4096)
    assert "holds" not in turn_context(repo, "How many colours does pkg support?", files, {"run_python"}, 4096)
