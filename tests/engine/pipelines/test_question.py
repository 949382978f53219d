"""Questions: answered by running code in the throwaway copy (the answer agrees with what ran) or from the
code that matters; a test report straight from the runner's counts (real repo, bwrap, pytest; scripted model)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_repo
from tests.engine.pipelines.helpers import edits, js, pipeline_turn

SIZES = ('def natural(n):\n    """Bytes as text."""\n    if n == 1:\n        return "1 Byte"\n'
         '    return f"{n} Bytes"\n\n\ndef _private():\n    return 0\n\n\ndef other():\n    return 1\n')


def _repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/sizes.py": SIZES,
                                         "tests/test_sizes.py": "from pkg.sizes import natural\n\n\ndef test_one():\n"
                                                                "    assert natural(1) == '1 Byte'\n\n\ndef test_two():\n"
                                                                "    assert natural(2) == '2 Bytes!'\n",
                                         "pytest.ini": "[pytest]\n"})


async def test_a_behaviour_question_is_answered_by_what_ran(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    code = "from pkg.sizes import natural\nprint(repr(natural(1)))"
    events, done, approver = await pipeline_turn(repo, ollama_server, "What does natural return for 1 byte?", [
        js({"kind": "question"}), js({"code": code}), js({"code": code}), js({"code": code}),
        js({"answer": "natural(1) returns '1 Bytes'."})])  # a sentence that disagrees with what ran
    assert "'1 Byte'" in done.text and "'1 Bytes'" not in done.text
    assert any(e.type == "detail" and "disagreed" in e.text for e in events)
    assert any(e.type == "detail" and "it asks what named code does" in e.text for e in events), \
        "a question about what named code returns is run without asking the model how"
    assert edits(approver) == [] and (repo / "pkg/sizes.py").read_text() == SIZES


async def test_the_answer_sentence_is_kept_when_it_agrees(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    code = "from pkg.sizes import natural\nprint(repr(natural(1)))"
    events, done, _ = await pipeline_turn(repo, ollama_server, "What does natural(1) return?", [
        js({"kind": "question"}), js({"code": code}), js({"code": "print(1/0)"}),
        js({"code": code}), js({"answer": "It returns '1 Byte'."})])
    assert done.text.startswith("It returns '1 Byte'.")
    assert "```" in done.text, "the code that ran and its output are shown with the answer"


async def test_a_count_from_helpers_votes_across_candidates(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    good = "print(len([d for d in defs('pkg/sizes.py') if not d['name'].startswith('_')]))"
    bad = "print(len(defs('pkg/sizes.py')))"
    events, done, _ = await pipeline_turn(repo, ollama_server, "How many public functions are in pkg/sizes.py?", [
        js({"kind": "question"}), js({"how": "run"}), js({"code": good}), js({"code": bad}), js({"code": good}),
        js({"answer": "There are 2 public functions."})])
    assert "2 public functions" in done.text


async def test_a_reading_question_shows_the_named_code(tmp_path: Path, ollama_server) -> None:
    """A question about where or which code ("Where is...", "which function ..., in which file") is read from the
    code without asking the model how to answer it (it chose "run" for one, and answered from a snippet's output
    that said nothing about it)."""
    repo = _repo(tmp_path)
    for question in ("Where is `natural` defined?", "Which file and which function hold natural?"):
        ollama_server.requests.clear()
        events, done, _ = await pipeline_turn(repo, ollama_server, question, [
            js({"kind": "question"}), js({"answer": "In pkg/sizes.py, line 1."})])
        asked = ollama_server.requests[-1]["messages"][-1]["content"]
        assert "pkg/sizes.py" in asked and "def natural(n):" in asked, question
        assert done.text.startswith("In pkg/sizes.py")
        assert not any("How is this answered best?" in r["messages"][-1]["content"] for r in ollama_server.requests)


async def test_a_test_report_is_the_runners_own_count(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    events, done, approver = await pipeline_turn(repo, ollama_server, "run the tests and tell me how many pass",
                                                 [js({"kind": "report"})])
    assert done.text.startswith("1 passed, 1 failed (2 tests).")
    assert "tests/test_sizes.py::test_two" in done.text and "Run by pytest" in done.text
    assert len(ollama_server.requests) == 1, "counting needs no model"


async def test_a_request_that_only_asks_is_never_taken_for_a_change(tmp_path: Path, ollama_server) -> None:
    """The kind of a request made only of questions is chosen among the kinds that change nothing: the model
    cannot send "what value is X set to?" down a pipeline that edits."""
    repo = _repo(tmp_path)
    await pipeline_turn(repo, ollama_server, "What value does natural return for 1?",
                        [js({"kind": "question"}), js({"how": "read"}), js({"answer": "'1 Byte'"})])
    kinds = ollama_server.requests[0]["format"]["properties"]["kind"]["enum"]
    assert "question" in kinds and not {"change", "fix", "add", "refactor"} & set(kinds)
    ollama_server.requests.clear()
    await pipeline_turn(repo, ollama_server, "Could you make natural return 'one byte' for 1?",
                        [js({"kind": "other"})] + [js({"answer": "x"})] * 4)
    assert "change" in ollama_server.requests[0]["format"]["properties"]["kind"]["enum"]


async def test_a_report_where_there_is_no_suite_says_so_and_how_to_set_one(tmp_path: Path, ollama_server) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/sizes.py": SIZES})
    events, done, approver = await pipeline_turn(repo, ollama_server, "Run the tests and tell me how many fail.",
                                                 [js({"kind": "report"})])
    assert "no test suite found" in done.text and "tests.command" in done.text, done.text
    assert len(ollama_server.requests) == 1, "the model is not asked to make up a result"


async def test_an_answer_read_from_the_code_shows_which_code_was_read(tmp_path: Path, ollama_server) -> None:
    repo = make_repo(tmp_path / "repo", {"config.py": "import os\n\nDEFAULT_TIMEOUT = 30\nRETRIES = 3\n",
                                         "app.py": "from config import DEFAULT_TIMEOUT\n"})
    events, done, _ = await pipeline_turn(repo, ollama_server, "What value is DEFAULT_TIMEOUT set to in config.py?",
                                          [js({"kind": "question"}), js({"how": "read"}),
                                           js({"answer": "It is 30 (config.py line 3)."})])
    shown = [e for e in events if e.type == "tool_call"]
    assert any(e.name == "read_file" and e.arguments["path"] == "config.py" for e in shown), shown
    assert "30" in done.text


async def test_a_run_that_prints_nothing_is_no_answer_and_a_value_word_must_be_in_the_output(
        tmp_path: Path, ollama_server) -> None:
    """Snippets that forgot the import get it by program; one that prints nothing answers nothing; "returns None"
    is not an answer when what ran printed a ValueError."""
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/pick.py":
                                         "def last(xs):\n    if not xs:\n        raise ValueError('empty')\n"
                                         "    return xs[-1]\n"})
    silent = {"code": "from pkg.pick import last"}
    no_import = {"code": "print(repr(last([])))"}
    events, done, approver = await pipeline_turn(repo, ollama_server, "What does last return for an empty list?", [
        js({"kind": "question"}), js(silent), js(silent), js(no_import),
        js({"answer": "last returns None for an empty list."})])
    assert done.text.startswith("It raises ValueError: empty") and "returns None" not in done.text, done.text
    ran = [e for e in events if e.type == "tool_call" and e.name == "run_python"]
    assert any("from pkg.pick import last" in e.arguments["code"] and "print(repr(last([])))" in e.arguments["code"]
               for e in ran)


def test_an_answer_agrees_only_when_its_values_are_in_the_output() -> None:
    from tui.engine.pipelines.question import agrees

    assert not agrees("It returns None.", "Traceback ...\nValueError: empty")
    assert agrees("It raises ValueError.", "Traceback ...\nValueError: empty")
    assert not agrees("It raises KeyError.", "ValueError: empty")
    assert agrees("It returns 3 items: 'a'.", "['a', 'b', 'c'] 3")


def test_who_and_when_in_the_past_tense_or_a_commit_make_a_history_question() -> None:
    """By the question's grammar, on requests about several projects' code: who/when in the past tense or a commit
    is history; who/when about what the code does now is not; a request that asks for a change never is."""
    from tui.engine.pipelines.classify import asks_history

    history = ["When was ttl_cache's timer last changed, and by whom?", "Who added the clamp function?",
               "Which commit introduced parse_version?", "When did the CLI start accepting --json?",
               "Whose change broke Pathspec.match_files?", "Who has touched lib/stringify.js recently?"]
    code = ["When does parse raise ValueError?", "Who calls format_size?", "What does ordinal(3) return?",
            "When is the cache cleared?", "How many tests are there?", "Rename foo to bar.",
            "Could you find who changed encode() and revert it?"]
    assert [q for q in history if not asks_history(q)] == []
    assert [q for q in code if asks_history(q)] == []


async def test_a_history_question_by_its_grammar_reads_history_without_a_kind_question(tmp_path: Path,
                                                                                       ollama_server) -> None:
    repo = _repo(tmp_path)
    await pipeline_turn(repo, ollama_server, "When was natural last changed?",
                        [lambda body: js({"answer": "In the first commit.", "commits": []})])
    first = ollama_server.requests[0]["messages"][-1]["content"]
    assert "Which kind of request" not in first and "natural" in first


def test_a_request_about_a_docstring_is_docs_whatever_the_sentence_says() -> None:
    """The docstring is the request's object (like a file it names): a sentence about what the code raises or
    returns goes into the text; a request that also names a test is not decided here."""
    from tui.engine.pipelines.classify import names_a_docstring

    assert names_a_docstring("In the docstring of nth_or_last, add that it raises ValueError when too short.")
    assert names_a_docstring("Fix the JSDoc of parseQuery: it returns null for an empty string.")
    assert names_a_docstring("Clamp's docstring should say the default floor is None.")
    assert not names_a_docstring("Add a test that runs the docstring example of intword.")
    assert not names_a_docstring("Make ordinal return '1st' for 1.")


def test_a_code_file_to_create_named_by_path_is_a_scaffold_unless_existing_code_is_named(tmp_path: Path) -> None:
    """A path that does not exist yet is a file to create: with no existing code named, a scaffold (its name and
    directory from the path, the file as named); naming existing code too (a move there) is left to the model. Bare
    names ending in .js (Node.js) and test files are not files to create."""
    from tui.engine.pipelines.classify import by_structure
    from tui.engine.pipelines.facts import gather
    from tui.engine.pipelines.scaffold import named
    from tui.engine.work.index import RepoIndex

    index = RepoIndex.build(_repo(tmp_path))
    for request, kind in [
            ("Create a new module lib/range.js that exports clamp(value, min, max).", "scaffold"),
            ("Add src/textkit/slugs.py with a slugify(text) function.", "scaffold"),
            ("Move `natural` into pkg/units.py.", None),
            ("Write tests for natural in tests/test_natural.py.", None),
            ("Make it run on Node.js 18.", None),
            ("Where would lib/range.js be imported?", None)]:
        facts = gather(request, index)
        decided = by_structure(facts)
        assert (decided.name if decided else None) == kind, request
    assert named(gather("Create lib/range.js exporting clamp.", index)) == {"kind": "module", "name": "range",
                                                                          "dir": "lib", "file": "lib/range.js"}
    # a kebab-case file (the way many JS/TS projects name theirs) is the module myRange written to that very file
    assert named(gather("Create lib/my-range.js exporting clamp.", index)) == {
        "kind": "module", "name": "myRange", "dir": "lib", "file": "lib/my-range.js"}


async def test_how_many_entries_a_named_literal_has_is_counted_in_the_file_the_question_names(
        tmp_path: Path, ollama_server) -> None:
    """Two files define ``defaults``; the question names one: its object's keys are counted by program (a model
    reading it said 11 of 17), and a Python dict is counted the same way."""
    from tui.engine.pipelines.counting import entries
    from tui.engine.work.index import RepoIndex

    keys = ",\n".join(f"    k{i}: {{ nested: [1, 2] }}" for i in range(17))
    repo = make_repo(tmp_path / "repo", {
        "lib/parse.js": "var defaults = {\n    a: 1,\n    b: 'x,y'\n};\nmodule.exports = defaults;\n",
        "lib/stringify.js": f"var defaults = {{\n{keys}\n}};\nmodule.exports = defaults;\n",
        "pkg/conf.py": "DEFAULTS = {\n    'a': 1,\n    'b': [1, 2],\n    **{'c': 3},\n}\n"})
    events, done, _ = await pipeline_turn(repo, ollama_server,
                                          "How many options does the defaults object in lib/stringify.js have?",
                                          [js({"kind": "question"})])
    assert "has 17 entries (counted): k0, k1," in done.text and "lib/stringify.js" in done.text
    index = RepoIndex.build(repo)
    conf = index.named_symbols("DEFAULTS")[0].definitions[0]
    assert entries(index, conf) == ["'a'", "'b'", "**"]


async def test_how_many_methods_a_named_class_defines_itself_is_counted_in_its_body(tmp_path: Path,
                                                                                   ollama_server) -> None:
    """cachetools: a snippet counted ``LRUCache.__dict__`` (10) for "how many methods does LRUCache define itself";
    the methods in the class's own body are counted by program, a nested function not among them (Python), and a
    JavaScript class the same way."""
    repo = make_repo(tmp_path / "repo", {
        "pkg/cache.py": "class Base:\n    def get(self):\n        pass\n\n\nclass LRUCache(Base):\n"
                        "    def __init__(self):\n        def helper():\n            pass\n\n"
                        "    def __getitem__(self, k):\n        pass\n\n    def popitem(self):\n        pass\n",
        "lib/queue.js": "class JobQueue {\n  push(x) {}\n  pop() {}\n}\nmodule.exports = { JobQueue };\n"})
    for question, count, names in (
            ("How many methods does the LRUCache class define itself (not counting inherited ones)?", 3,
             "__init__, __getitem__, popitem."),
            ("How many methods does JobQueue have?", 2, "push, pop.")):
        events, done, _ = await pipeline_turn(repo, ollama_server, question, [js({"kind": "question"})])
        assert f"has {count} methods of its own" in done.text and done.text.endswith(names), done.text


def test_a_name_that_only_requires_a_module_stands_for_what_it_exports_and_a_js_snippet_gets_its_load_line(
        tmp_path: Path) -> None:
    """``var parse = require('./parse')`` in lib/index.js: the question, change or fix is about lib/parse.js's
    export; a JS snippet that uses ``mod`` without loading it gets the load line by program (it failed with
    "mod is not defined", which says nothing about the code)."""
    from tui.engine.pipelines.facts import gather
    from tui.engine.pipelines.question import with_imports
    from tui.engine.work.index import RepoIndex

    repo = make_repo(tmp_path / "repo", {
        "lib/index.js": "var parse = require('./parse');\n\nmodule.exports = { parse: parse };\n",
        "lib/parse.js": "var defaults = { allowDots: false };\n\nmodule.exports = function (str, opts) {\n"
                        "    return [str, opts, defaults];\n};\n"})
    named = gather("What does qs.parse return for 'a.b=c'?", RepoIndex.build(repo)).symbols[0]
    assert (named.definitions[0].path, named.definitions[0].qualname) == ("lib/parse.js", "module.exports")
    load = ["const mod = require('./lib/parse.js');  // mod is what the file exports"]
    assert with_imports("console.log(mod('a.b=c'));", load, "javascript") == \
        "const mod = require('./lib/parse.js');\nconsole.log(mod('a.b=c'));"
    assert with_imports("const mod = require('./x');\nmod();", load, "javascript").startswith("const mod = require('./x')")


async def test_a_docstring_request_goes_to_docs_without_a_kind_question(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    await pipeline_turn(repo, ollama_server, "In the docstring of `natural`, say that it raises TypeError for None.",
                        [js({"text": "Bytes in words. Raises TypeError for None."})])
    assert "Raises TypeError for None." in (repo / "pkg/sizes.py").read_text()
    assert "Which kind of request" not in ollama_server.requests[0]["messages"][-1]["content"]


PICK = ("_marker = object()\n\n\ndef pick(items, n, default=_marker):\n    \"\"\"The nth item, else default.\"\"\"\n"
        "    items = list(items)\n    if n < len(items):\n        return items[n]\n    if default is _marker:\n"
        "        raise ValueError('too short')\n    return default\n")


async def test_a_snippet_that_passes_what_the_question_leaves_out_is_not_run(tmp_path: Path, ollama_server) -> None:
    """'when no default is given': a candidate that passes default= (by keyword or by position) answers another
    question and is dropped; the one that leaves it out runs, and the answer says what it raised."""
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/pick.py": PICK})
    with_kw = "from pkg.pick import pick\nprint(pick([], 0, default='x'))"
    with_pos = "from pkg.pick import pick\nprint(pick([], 0, 'x'))"
    without = "from pkg.pick import pick\nprint(pick([], 0))"
    events, done, _ = await pipeline_turn(
        repo, ollama_server, "What does `pick` return for an empty list when no default is given?",
        [js({"kind": "question"}), js({"code": with_kw}), js({"code": with_pos}), js({"code": without}),
         js({"answer": "It returns 'x'."})])
    ran = [e.arguments.get("code", "") for e in events if e.type == "tool_call" and e.name == "run_python"]
    assert ran and all("'x'" not in code for code in ran), ran
    assert "ValueError" in done.text and "too short" in done.text, done.text


async def test_what_typescript_code_returns_is_run_from_its_source_when_there_is_no_build(tmp_path: Path,
                                                                                        ollama_server) -> None:
    """A TypeScript package whose built entry (lib/index.js) is not in the work tree: the snippet runs against the
    sources through the project's compiler. The model's snippet calls the function without loading it and prints
    with Python's repr: the load line, the name taken from the module and repr are supplied by program, so the
    answer is what ran."""
    import json

    from tests.engine.pipelines.helpers import ts_repo

    repo = ts_repo(tmp_path / "repo")
    meta = json.loads((repo / "package.json").read_text())
    (repo / "package.json").write_text(json.dumps({**meta, "main": "lib/index.js"}))
    code = "console.log(repr(trimSlashes('//a/b/')));"
    events, done, _ = await pipeline_turn(repo, ollama_server, "What does trimSlashes('//a/b/') return?", [
        js({"kind": "question"}), js({"code": code}), js({"code": code}), js({"code": code}),
        js({"answer": "It returns 'a/b'."})])
    assert done.text.startswith("It returns 'a/b'.") and "'a/b'" in done.text.split("```")[-2], done.text
    assert "const trimSlashes = mod.trimSlashes ?? mod.default;" in done.text


async def test_which_function_does_something_is_chosen_from_the_definitions_that_share_its_words(
        tmp_path: Path, ollama_server) -> None:
    """xmltodict: "Which function turns a dict back into XML, and in which file?" names no code; a search for the
    words the model picked read the wrong function. The definitions whose names and doc lines share the question's
    words are listed with those lines (Python docstrings, a JSDoc block), the model chooses one, and the answer
    (name, file, line, doc line) comes from the index."""
    repo = make_repo(tmp_path / "repo", {
        "xmlconv.py": 'def parse(xml):\n    """Parse the given XML input and convert it into a dictionary."""\n'
                      '    return {}\n\n\ndef unparse(input_dict):\n    """Emit an XML document for the given dict '
                      '(reverse of parse)."""\n    return ""\n\n\ndef other():\n    return 1\n',
        "lib/query.js": "/**\n * Turns an object into a query string.\n */\nfunction stringify(obj) {\n  return '';\n}\n"
                        "module.exports = { stringify };\n"})
    events, done, _ = await pipeline_turn(
        repo, ollama_server, "Which function turns a dict back into XML, and in which file is it?",
        [js({"kind": "question"}), js({"definition": "unparse"})])
    assert done.text == ("`unparse` in xmlconv.py (line 6): Emit an XML document for the given dict (reverse of "
                         "parse)."), done.text
    listed = ollama_server.requests[-1]["messages"][-1]["content"]
    assert "- parse (xmlconv.py): Parse the given XML input" in listed and "other" not in listed
    events, done, _ = await pipeline_turn(repo, ollama_server, "Which function makes a query string of an object?",
                                          [js({"kind": "question"}), js({"definition": "stringify"})])
    assert done.text == "`stringify` in lib/query.js (line 4): Turns an object into a query string.", done.text
