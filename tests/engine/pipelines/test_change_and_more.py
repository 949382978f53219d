"""Changes, new code, new tests, data files, docs, history and scaffolds through their pipelines: the program
places what the model writes, checks it in the throwaway copy, and proposes one diff (real repo, bwrap, pytest,
git; the scripted model's replies are the JSON each narrow question is decoded under)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from tests.engine.pipelines.helpers import edits, js, pipeline_turn, ts_repo

FMT = ('__all__ = ["size", "ratio"]\n\n\ndef size(n, digits=1):\n    """n bytes as kB."""\n'
       '    return f"{n / 1000:.{digits}f} kB"\n\n\ndef ratio(a, b):\n    return a / b\n')
INIT = "from .fmt import ratio, size\n\n__all__ = [\"size\", \"ratio\"]\n"
TESTS = "from pkg.fmt import size\n\n\ndef test_size():\n    assert size(1500) == '1.5 kB'\n"


def _repo(tmp_path: Path, **extra: str) -> Path:
    return make_repo(tmp_path / "repo", {"pkg/__init__.py": INIT, "pkg/fmt.py": FMT, "tests/test_fmt.py": TESTS,
                                         "pytest.ini": "[pytest]\n", **extra})


async def test_a_change_is_checked_against_a_check_that_fails_before(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    check_now_true = {"code": "from pkg.fmt import size\nassert size(1500) == '1.5 kB'"}
    check = {"code": "from pkg.fmt import size\nassert size(1500) == '1.50 kB'"}
    keeps = {"code": 'def size(n, digits=1):\n    return f"{n / 1000:.{digits}f} kB"\n'}
    right = {"code": 'def size(n, digits=2):\n    return f"{n / 1000:.{digits}f} kB"\n'}
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Make `size` show two decimals by default.",
        [js({"kind": "change"}), js(check_now_true), js(check), js(check), js(keeps), js(right), js(keeps),
         js({"code": "def test_size():\n    assert size(1500) == '1.50 kB'\n"})] * 1 + [js({"code": "x"})] * 2)
    proposed = edits(approver)
    assert len(proposed) == 1 and "digits=2" in proposed[0].diff, _debug(events)
    assert "digits=2" in (repo / "pkg/fmt.py").read_text()
    assert '"""n bytes as kB."""' in (repo / "pkg/fmt.py").read_text()
    assert "'1.50 kB'" in (repo / "tests/test_fmt.py").read_text(), "the test that pinned the old default follows it"
    assert "tests/test_fmt.py" in proposed[0].files


@pytest.mark.parametrize("esm", [False, True])
async def test_a_javascript_change_is_checked_by_node_against_a_check_that_fails_before(
        tmp_path: Path, ollama_server, esm: bool) -> None:
    """The check loads the function the way its file exports it (CommonJS or ES module); a check already true is
    not kept; the candidate that keeps the old behaviour fails it and the one that changes it is proposed."""
    body = "function size(n, digits = 1) {\n  return (n / 1000).toFixed(digits) + ' kB';\n}\n"
    export = "export { size };\n" if esm else "module.exports = { size };\n"
    load = "import { size } from './lib/fmt.js';" if esm else "const { size } = require('./lib/fmt.js');"
    repo = make_repo(tmp_path / "repo", {
        "package.json": json.dumps({"name": "t", "version": "1.0.0", "scripts": {"test": "node --test"},
                                    **({"type": "module"} if esm else {})}),
        "lib/fmt.js": body + export})
    now_true = {"code": f"{load}\nassert.strictEqual(size(1500), '1.5 kB');"}
    check = {"code": f"{load}\nimport assert from 'node:assert';\nassert.strictEqual(size(1500), '1.50 kB');"
             if esm else f"{load}\nassert.strictEqual(size(1500), '1.50 kB');"}
    keeps = {"code": body}
    right = {"code": body.replace("digits = 1", "digits = 2")}
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Make `size` in lib/fmt.js show two decimals by default.",
        [js({"kind": "change"}), js(now_true), js(check), js(check), js(keeps), js(right), js(keeps)])
    proposed = edits(approver)
    assert len(proposed) == 1 and "digits = 2" in (repo / "lib/fmt.js").read_text(), _debug(events)
    assert "against a check written for the request" in done.text
    assert load in ollama_server.requests[1]["messages"][-1]["content"], "the load line follows the file's exports"


def test_a_javascript_check_compares_arrays_by_value_and_primitives_as_written() -> None:
    """assert.equal(f(x), [1]) can never pass in node (by reference); the check compares by value instead."""
    import subprocess

    from tui.engine.pipelines.checks import deep_asserts

    snippet = deep_asserts("assert.equal([1, 2].slice(1), [2]); assert.strictEqual(1 + 1, 2); "
                           "assert.notStrictEqual([1], [2]);")
    assert subprocess.run(["node", "-e", snippet], capture_output=True, timeout=30).returncode == 0
    wrong = subprocess.run(["node", "-e", deep_asserts("assert.strictEqual('1', 1);")], capture_output=True,
                           text=True, timeout=30)
    assert wrong.returncode != 0 and "AssertionError" in wrong.stderr, "strict stays strict"


def test_a_doc_comment_written_with_its_markers_is_placed_once_and_an_old_one_is_read() -> None:
    """A model often writes the /** ... */ itself; wrapped again, its */ closes the comment early and breaks the
    file. The comment above a definition is what the rewrite starts from."""
    from tui.engine.pipelines.docs import comment_text, old_jsdoc, with_jsdoc
    from tui.engine.work.index import Definition
    from tui.symbols.model import Symbol

    written = "/**\n * Concatenates a and b.\n * @returns {Array} both. *\n */"
    assert comment_text(written) == "Concatenates a and b.\n@returns {Array} both."
    text = "var x = 1;\n\n/**\n * Old words.\n */\nfunction f(a, b) {\n  return [a, b];\n}\n"
    d = Definition("lib/f.js", Symbol("f", "function", 6, 8, 6))
    assert old_jsdoc(text, d) == "Old words."
    new = with_jsdoc(text, d, comment_text(written))
    assert new.count("/**") == 1 and "Old words." not in new and " * Concatenates a and b.\n" in new
    assert old_jsdoc("x;\nfunction f() {}\n", Definition("a.js", Symbol("f", "function", 2, 2, 2))) == ""


def test_where_a_value_the_request_replaces_lives_and_the_swap_made_by_program(tmp_path: Path) -> None:
    """"From 1000 to 2000" / "';' instead of '&'": the line that gives the old value to a name the request uses
    (or, quoted, to any key) is found, in whichever definition holds it (not the re-export the request names);
    the value is replaced there by program. Two projects' shapes: a JS defaults object, a Python default."""
    from tui.engine.pipelines.values import value_swap, valued
    from tui.engine.work.index import RepoIndex

    repo = make_repo(tmp_path / "repo", {
        "package.json": json.dumps({"name": "qs-like", "main": "lib/index.js"}),
        "lib/index.js": "var parse = require('./parse');\nmodule.exports = { parse: parse };\n",
        "lib/parse.js": "var defaults = {\n    delimiter: '&',\n    parameterLimit: 1000,\n    depth: 5\n};\n\n"
                        "module.exports = function (str, opts) {\n    return [str, opts, defaults];\n};\n",
        "pkg/__init__.py": "", "pkg/fmt.py": FMT})
    index = RepoIndex.build(repo)
    for request, where, old, new in [
            ("Raise the default parameterLimit of qs.parse from 1000 to 2000.", "defaults", "parameterLimit: 1000,",
             "parameterLimit: 2000,"),
            ("Split the parameters on ';' by default instead of '&'.", "defaults", "delimiter: '&',", "delimiter: ';',"),
            ("Change the default digits of size from 1 to 2.", "size", "digits=1", "digits=2")]:
        found = valued(index, request)
        assert [d.qualname for d in found] == [where], request
        text = index.text(found[0].path) or ""
        swapped = value_swap(text, found[0], request)
        assert swapped is not None and old not in swapped and new in swapped, request
        assert len(swapped.splitlines()) == len(text.splitlines())
    assert valued(index, "Make parse faster.") == []
    d = valued(index, "Raise parameterLimit from 1000 to 2000.")[0]
    assert value_swap(index.text(d.path) or "", d, "Raise parameterLimit to 2000 or 3000 from 1000.") is None
    # humanize's metric: no parameter named, numbers in words; the one default of the signature that holds one
    size = next(x for x in index.definitions(["pkg/fmt.py"]) if x.qualname == "size")
    swapped = value_swap(FMT, size, "Make size show two decimals by default instead of one.")
    assert swapped is not None and "def size(n, digits=2):" in swapped and swapped.count("digits=2") == 1
    assert value_swap(FMT, size, "Make size show two decimals instead of one.") is None, "no default: not this path"


def test_an_edit_of_part_of_a_line_is_made_when_that_text_is_there_once() -> None:
    from tui.engine.pipelines.rewrite import apply_edits

    code = "var defaults = {\n    delimiter: '&',\n    parameterLimit: 1000,\n};"
    assert "parameterLimit: 2000," in apply_edits(code, [{"old": "parameterLimit: 1000", "new": "parameterLimit: 2000"}])
    assert apply_edits(code, [{"old": "e", "new": "x"}]) is None, "more than once: not guessed"


def test_a_new_js_test_whose_title_the_file_has_is_renamed_and_an_option_leads_to_the_code_that_reads_it(
        tmp_path: Path) -> None:
    """A tape test titled like one the file has is added under another title (it was dropped); a request about an
    option (no definition by that name) tests the definition that reads it; a single-quoted JS file asks for single
    quotes (a double quote ends the JSON string the test travels in)."""
    from tui.engine.pipelines.addtest import _user_of, place_test, quotes_hint
    from tui.engine.work.index import RepoIndex

    text = "var test = require('tape');\n\ntest('isRegExp()', function (t) {\n    t.end();\n});\n"
    placed = place_test(None, "test/utils.js", text, None, "test('isRegExp()', function (t) {\n    t.ok(1);\n"
                        "    t.end();\n});")  # type: ignore[arg-type]
    assert placed is not None and "test('isRegExp() (2)', function (t) {" in placed["test/utils.js"].decode()
    assert quotes_hint(text, "test/utils.js") and not quotes_hint(text, "tests/test_x.py")
    repo = make_repo(tmp_path / "repo", {
        "lib/parse.js": "function parseValues(str, options) {\n    if (options.ignoreQueryPrefix) {\n"
                        "        str = str.slice(1);\n    }\n    return str;\n}\nmodule.exports = parseValues;\n",
        "test/parse.js": "var parse = require('../lib/parse');\n"})
    found = _user_of(RepoIndex.build(repo), "Add a test checking that ignoreQueryPrefix removes one '?'.")
    assert found is not None and found.qualname == "parseValues"


async def test_new_code_goes_to_its_module_with_the_exports_kept_in_step(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    code = 'def percent(x):\n    """x as a percentage."""\n    return f"{x * 100:.0f}%"\n'
    check = {"code": "from pkg.fmt import percent\nassert percent(0.5) == '50%'"}
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Add a function percent(x) to pkg/fmt.py that formats 0.5 as '50%'.",
        [js({"kind": "add"}), js(check), js(check), js(check), js({"code": code}), js({"code": code}),
         js({"code": code})])
    text = (repo / "pkg/fmt.py").read_text()
    assert "def percent(x):" in text, _debug(events)
    assert "def percent(x):" in text and '"percent"' in text.split("\n")[0]
    assert "percent" in (repo / "pkg/__init__.py").read_text(), "the package re-exports its module's names one by one"


async def test_a_new_test_must_pass_and_the_file_must_gain_it(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    failing = {"code": "def test_ratio_half():\n    assert ratio(1, 2) == 0.25\n"}
    passing = {"code": "def test_ratio_half():\n    from pkg.fmt import ratio\n    assert ratio(1, 2) == 0.5\n"}
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Add a test for `ratio` in tests/test_fmt.py",
        [js({"kind": "add_test"}), js(failing), js(passing), js(failing)])
    proposed = edits(approver)
    assert len(proposed) == 1 and "== 0.5" in proposed[0].diff
    assert "test_size" in (repo / "tests/test_fmt.py").read_text(), "the existing tests stay"


async def test_a_data_file_is_changed_by_the_function_that_passes_the_requests_checks(tmp_path: Path,
                                                                                       ollama_server) -> None:
    """One CSV: the model writes change(rows), the program reads and writes the file (a candidate's own main
    block, or the script it wrote around change(), never runs). Checks of the result are written for the request and
    kept only if the untouched file fails them; the candidate passing the most wins over two that agree but pass
    none."""
    repo = _repo(tmp_path, **{"data/rows.csv": "name,n\n b ,2\na,1\n\na,1\n"})
    good = ("def change(rows):\n    out = []\n    for r in rows:\n        r = [c.strip() for c in r]\n"
            "        if any(r) and r not in out:\n            out.append(r)\n    return out\n"
            "if __name__ == '__main__':\n    open('data/rows.csv', 'w').write('')\n"
            # the script a small model writes around it (csv used unimported): not run, change() is
            "with open('data/rows.csv', newline='') as f:\n    rows = list(csv.reader(f))\n"
            "new = change(rows)\nopen('data/rows.csv', 'w').write('wrong')\n")
    partial = "def change(rows):\n    return [r for r in rows if r]\n"
    stripped = "assert all(c == c.strip() for r in new for c in r)"
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Clean up data/rows.csv: strip spaces, drop blank and duplicate rows.",
        [js({"kind": "data"}), js({"code": partial}), js({"code": good}), js({"code": partial}),
         js({"code": stripped}), js({"code": "assert new[0] == old[0]"}), js({"code": "assert undefined_name"})])
    assert (repo / "data/rows.csv").read_text() == "name,n\nb,2\na,1\n"
    summary = edits(approver)[0].summary
    assert "1 agree" in summary and "passes 1 of 1 check" in summary, summary
    asked = ollama_server.requests[1]["messages"][-1]["content"]
    assert "change(rows)" in asked and "name,n" in asked


def test_rows_go_into_a_set_the_way_a_small_model_deduplicates_them(tmp_path: Path) -> None:
    """humanize's filesizes.csv: every change(rows) that kept a set of seen rows died with "unhashable type:
    'list'". The rows change() is given are lists that can be hashed, compared as their values."""
    import subprocess
    import sys

    from tui.engine.pipelines.data import harness

    (tmp_path / "f.csv").write_text("a,b\n1,2\n\n1,2\n")
    code = ("def change(rows):\n    seen, out = set(), []\n    for row in rows:\n"
            "        if row and row not in seen:\n            seen.add(row)\n            out.append(row)\n"
            "    return out\n")
    ran = subprocess.run([sys.executable, "-c", harness("f.csv", code, ["assert new == [['a', 'b'], ['1', '2']]"],
                                                       "@@m")], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0 and "@@m 0 ok" in ran.stdout, ran.stderr
    assert (tmp_path / "f.csv").read_text() == "a,b\n1,2\n"


def test_a_result_that_leaves_nothing_of_a_file_is_not_a_change() -> None:
    from tui.engine.pipelines.data import emptied

    assert emptied(b"a,b\n1,2\n", b"") and emptied(b"[1]", b"\n  \n")
    assert not emptied(b"", b"") and not emptied(b"a\n", b"b\n")


async def test_a_json_file_is_changed_by_a_function_of_its_content_in_its_own_indentation(
        tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path, **{"conf/app.json": '{\n  "name": "x",\n  "tags": ["b", "a"]\n}\n'})
    sort = "def change(data):\n    data['tags'] = sorted(data['tags'])\n    return data\n"
    await pipeline_turn(repo, ollama_server, "Sort the tags in conf/app.json.",
                        [js({"kind": "data"}), js({"code": sort}), js({"code": sort}), js({"code": sort}),
                         js({"code": "assert new['tags'] == sorted(old['tags'])"}), js({"code": "x = 1"}),
                         js({"code": "x = 1"})])
    assert (repo / "conf/app.json").read_text() == '{\n  "name": "x",\n  "tags": [\n    "a",\n    "b"\n  ]\n}\n'


async def test_a_broken_json_file_is_repaired_by_program(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path, **{"conf/app.json": '{"name": "x", "tags": ["a", "b",], // comment\n "n": 1,}\n'})
    events, done, approver = await pipeline_turn(repo, ollama_server, "conf/app.json is broken, repair it", [])
    assert json.loads((repo / "conf/app.json").read_text()) == {"name": "x", "tags": ["a", "b"], "n": 1}
    assert ollama_server.requests == [], "a named file that does not parse is a repair by structure: no model"


async def test_a_named_data_file_that_does_not_parse_is_repaired_however_the_request_is_worded(
        tmp_path: Path, ollama_server) -> None:
    """The kind comes from the file, not the words: a request that never says 'repair' or 'broken' still gets the
    file repaired by program; a request that only asks about the file is not acted on."""
    repo = _repo(tmp_path, **{"data/feeds.json": '{\n  "sources": ["rss", "atom",],\n  "limit": 20,\n}\n'})
    await pipeline_turn(repo, ollama_server, "Loading data/feeds.json fails since yesterday; sort it out please", [])
    assert json.loads((repo / "data/feeds.json").read_text()) == {"sources": ["rss", "atom"], "limit": 20}
    git(repo, "checkout", "--", "data/feeds.json")
    await pipeline_turn(repo, ollama_server, "Why does data/feeds.json not load?",
                        [js({"kind": "question"}), js({"answer": "It has trailing commas."})])
    assert "atom\",]" in (repo / "data/feeds.json").read_text()


async def test_a_docstring_is_placed_by_program(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    events, done, approver = await pipeline_turn(repo, ollama_server, "Give `ratio` a docstring",
                                                 [js({"text": "a divided by b."})])  # docs by structure
    text = (repo / "pkg/fmt.py").read_text()
    assert 'def ratio(a, b):\n    """a divided by b."""\n    return a / b' in text


async def test_a_history_question_quotes_the_commits_it_rests_on(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    (repo / "pkg/fmt.py").write_text(FMT.replace("a / b", "a / b if b else 0.0"))
    git(repo, "commit", "-qam", "fmt: ratio of nothing is zero")
    head = git(repo, "rev-parse", "--short", "HEAD").strip()
    events, done, _ = await pipeline_turn(repo, ollama_server, "Which commit changed `ratio`?", [
        lambda body: js({"answer": "The latest one.", "commits": [head]})])  # history by its grammar: no kind asked
    assert head in done.text and "ratio of nothing is zero" in done.text
    asked = ollama_server.requests[-1]["messages"][-1]["content"]
    assert "Commits that changed ratio" in asked


def _debug(events):  # pragma: no cover - a failing test prints what the pipeline said
    return "\n".join(f"{e.type}: {getattr(e, 'text', getattr(e, 'summary', ''))}" for e in events if e.type in ("detail", "tool_result"))


RST = ("=====\nfmtlib\n=====\n\nFormats numbers.\n\nInstallation\n------------\n\n    pip install fmtlib\n\n"
       "Usage\n-----\n\nCall ``size``.\n\nDetails\n~~~~~~~\n\nMore.\n\nLicense\n-------\n\nMIT\n")


async def test_a_readme_in_restructuredtext_gets_a_section_in_its_own_heading_style(tmp_path: Path,
                                                                                     ollama_server) -> None:
    """A Python project's README.rst: the new section is titled like its sections (underlined with -), not with
    a Markdown '#'; the model is shown the titles and asked for reStructuredText."""
    repo = _repo(tmp_path, **{"README.rst": RST})
    await pipeline_turn(repo, ollama_server, "Add a section Thread safety to README.rst saying the formatters are "
                        "not thread-safe.", [js({"kind": "docs"}),
                                             js({"heading": "Thread safety", "text": "They are **not** thread-safe."})])
    text = (repo / "README.rst").read_text()
    assert text.endswith("MIT\n\nThread safety\n-------------\n\nThey are **not** thread-safe.\n")
    assert "#" not in text
    asked = ollama_server.requests[-1]["messages"][-1]["content"]
    assert "reStructuredText" in asked and "Installation\nUsage\nDetails\nLicense" in asked


def test_a_restructuredtext_section_is_replaced_up_to_the_next_of_its_level() -> None:
    from tui.engine.pipelines.docs import rst_headings, with_section

    assert [(t, s) for _, _, t, s in rst_headings(RST.splitlines())] == [
        ("fmtlib", ("=", True)), ("Installation", ("-", False)), ("Usage", ("-", False)),
        ("Details", ("~", False)), ("License", ("-", False))]
    text = with_section(RST, "usage", "Call ``ratio`` too.", rst=True)
    assert "Usage\n-----\n\nCall ``ratio`` too.\n\nLicense\n-------\n" in text  # its subsection went with it
    assert "Details" not in text and text.startswith("=====\nfmtlib\n=====\n\nFormats numbers.")
    markdown = with_section("# t\n\n## A\n\na\n\n## B\n\nb\n", "A", "new", rst=False)
    assert markdown == "# t\n\n## A\n\nnew\n\n## B\n\nb\n"


async def test_a_scaffolded_module_holds_what_the_request_asks_and_its_test_is_the_requests_check(
        tmp_path: Path, ollama_server) -> None:
    """The scaffold names the files (pkg/slug.py, tests/test_slug.py); the model writes the module; the test is
    the check written for the request; a candidate that fails it is not proposed."""
    repo = _repo(tmp_path)
    check = "from pkg.slug import slugify\nassert slugify('Hello  World') == 'hello-world'"
    wrong = 'def slugify(text):\n    """Lower case."""\n    return text.lower()\n'
    right = ('"""Slugs."""\n\n\ndef slugify(text):\n    """Words of text, lower case, joined by -."""\n'
             '    return "-".join(text.lower().split())\n')
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Scaffold a new module slug in pkg with a function slugify(text) that lower-cases the "
        "text and joins its words with '-'.",
        [js({"kind": "scaffold"}), js({"kind": "module", "name": "slug", "dir": "pkg"}),
         js({"code": check}), js({"code": check}), js({"code": check}),
         js({"code": wrong}), js({"code": right}), js({"code": wrong})])
    assert (repo / "pkg/slug.py").read_text() == right
    test = (repo / "tests/test_slug.py").read_text()
    assert "def test_slug() -> None:\n    from pkg.slug import slugify\n    assert slugify('Hello  World')" in test
    assert len(edits(approver)) == 1 and "Created pkg/slug.py and tests/test_slug.py" in done.text


@pytest.mark.parametrize("suite", ["node --test", "nyc node --test"])
async def test_a_scaffolded_javascript_module_is_filled_and_tested_in_the_projects_framework(
        tmp_path: Path, ollama_server, suite: str) -> None:
    """A CommonJS project with node:test: the model writes lib/slug.js; the check written for the request runs
    with node in the throwaway copy (a candidate that fails it is not proposed) and becomes the test, its require
    path as seen from the test file. A suite whose runner is missing (nyc) fails to start with every candidate
    as it did before: it says nothing of them, and the proposal says the suite did not run."""
    repo = make_repo(tmp_path / "repo", {
        "package.json": json.dumps({"name": "t", "version": "1.0.0", "scripts": {"test": suite}}),
        "lib/util.js": "/** Twice. */\nfunction twice(x) {\n  return 2 * x;\n}\nmodule.exports = { twice };\n",
        "lib/util.test.js": "const test = require('node:test');\nconst assert = require('node:assert');\n"
                            "const { twice } = require('./util.js');\n\ntest('twice', () => {\n"
                            "  assert.strictEqual(twice(2), 4);\n});\n"})
    check = ("const assert = require('node:assert');\nconst { slugify } = require('./lib/slug.js');\n"
             "assert.strictEqual(slugify('Hello  World'), 'hello-world');")
    wrong = "function slugify(text) {\n  return text.toLowerCase();\n}\nmodule.exports = { slugify };\n"
    right = ("/** Words of text, lower case, joined by -. */\nfunction slugify(text) {\n"
             "  return text.toLowerCase().split(/\\s+/).join('-');\n}\nmodule.exports = { slugify };\n")
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Scaffold a new module slug in lib with a function slugify(text) that lower-cases the "
        "text and joins its words with '-'.",
        [js({"kind": "scaffold"}), js({"kind": "module", "name": "slug", "dir": "lib"}),
         js({"code": check}), js({"code": check}), js({"code": check}),
         js({"code": wrong}), js({"code": right}), js({"code": wrong})])
    assert (repo / "lib/slug.js").read_text() == right
    test = (repo / "lib/slug.test.js").read_text()
    assert "const { slugify } = require('./slug.js');" in test and "test('slug', () => {" in test
    assert "  assert.deepStrictEqual(slugify('Hello  World'), 'hello-world');" in test
    assert len(edits(approver)) == 1 and "Created lib/slug.js and lib/slug.test.js" in done.text
    assert ("suite did not run" in done.text) == suite.startswith("nyc"), done.text
    import subprocess

    ran = subprocess.run(["node", "--test"], cwd=repo, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0 and "# pass 2" in ran.stdout, ran.stdout + ran.stderr


def test_a_javascript_module_test_in_each_framework_and_module_kind() -> None:
    """ES modules import at the top; jest has a global test; vitest imports it; without a check the test loads
    the module; an unrelated string that looks like the module's path is not rewritten."""
    from tui.engine.pipelines.scaffold import js_module_test

    check = ("import assert from 'node:assert';\nimport { slugify } from './src/slug.js';\n"
             "assert.strictEqual(slugify('src/slug'), 'src-slug');")
    esm = js_module_test("src/slug.js", "test/slug.test.js", "slug", check, True, "vitest")
    assert esm.startswith("import { test } from 'vitest';\nimport assert from 'node:assert';\n"
                          "import { slugify } from '../src/slug.js';\n")
    assert "  assert.strictEqual(slugify('src/slug'), 'src-slug');\n});" in esm
    jest = js_module_test("lib/a.js", "lib/a.test.js", "a", None, False, "jest")
    assert jest.startswith("const assert = require('node:assert');\nconst mod = require('./a.js');")
    assert "node:test" not in jest and "assert.ok(Object.keys(mod).length > 0);" in jest


def test_a_javascript_module_that_exports_nothing_exports_its_top_level_definitions() -> None:
    """A small model often writes the function and forgets the export (the check's require then finds nothing)."""
    from tui.engine.pipelines.scaffold import with_js_exports

    code = "const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);\nfunction _helper() {}\nclass Box {\n  f() {}\n}\n"
    assert with_js_exports(code, False).endswith("module.exports = { clamp, Box };\n")
    assert with_js_exports(code, True).endswith("export { clamp, Box };\n")
    kept = "function a() {}\nmodule.exports = a;\n"
    assert with_js_exports(kept, False) == kept and with_js_exports("export function b() {}\n", True).count("export") == 1


def test_code_in_a_markdown_fence_is_the_code_inside_it() -> None:
    """In JS a fenced reply still parses (a call of an empty template string) and fails only when run."""
    from tui.engine.pipelines.codetext import code_of

    assert code_of({"code": "```js\nconst a = 1;\n```"}) == "const a = 1;"
    assert code_of({"code": "```\ndef f():\n    return 1\n```\n"}) == "def f():\n    return 1"
    assert code_of({"code": "x = '```'\n"}) == "x = '```'\n" and code_of({"code": 3}) == ""


async def test_a_docstring_keeps_its_examples_and_is_never_the_request_written_back(tmp_path: Path,
                                                                                    ollama_server) -> None:
    """Three docstrings written: the request echoed (dropped), one that drops the doctest examples (they are put
    back by program), one that keeps less of the old text; the one that keeps most of what was there is placed."""
    fmt = FMT.replace('    """n bytes as kB."""\n',
                      '    """n bytes as kB.\n\n    >>> size(1500)\n    \'1.5 kB\'\n    """\n')
    repo = _repo(tmp_path, **{"pkg/fmt.py": fmt})
    request = "In the docstring of size, add a sentence saying that digits sets the decimals."
    await pipeline_turn(repo, ollama_server, request, [
        js({"text": request}), js({"text": "n bytes as kB. digits sets the decimals."}),
        js({"text": "Kilobytes. digits sets the decimals."})])
    text = (repo / "pkg/fmt.py").read_text()
    assert ('    """n bytes as kB. digits sets the decimals.\n\n    >>> size(1500)\n    \'1.5 kB\'\n    """'
            in text), text
    assert "add a sentence" not in text


def test_a_docstring_line_that_copies_how_the_request_begins_is_dropped_its_content_words_are_not() -> None:
    from tui.engine.pipelines.docs import fitted

    old = "Return the last item.\n\nIf there is none, raise ``ValueError``."
    request = "In the docstring of last, add a sentence saying that it raises ValueError for an empty iterable."
    assert fitted("In the docstring of last, add a sentence saying that it raises.\n\n" + old, old, request) is None
    copied = "Return the last item.\n\n    If there is none, raise ``ValueError``.\n\n    It raises ValueError for an empty iterable."
    doc, score = fitted(copied, old, request)  # written with the source's indentation: it goes
    assert doc == old + "\n\nIt raises ValueError for an empty iterable."
    _, unchanged_but_reworded = fitted(old.replace("Return", "Returns"), old, request)
    assert score > unchanged_but_reworded, "the one that says what the request adds ranks first"


async def test_when_every_rewritten_docstring_is_dropped_the_sentence_alone_is_asked_and_added(
        tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    request = "In the docstring of size, add a sentence saying that digits sets the number of decimals."
    await pipeline_turn(repo, ollama_server, request, [
        js({"text": request}), js({"text": "n bytes as kB."}), js({"text": request}),  # echoed, unchanged, echoed
        js({"text": "digits sets the number of decimals."}), js({"text": request}), js({"text": "Decimals."})])
    text = (repo / "pkg/fmt.py").read_text()
    assert '    """n bytes as kB.\n\n    digits sets the number of decimals.\n    """' in text, text
    assert "The docstring of size now reads" in ollama_server.requests[-1]["messages"][-1]["content"]


def test_a_scaffolded_module_without_a_check_gets_a_test_that_imports_it_and_finds_what_it_defines(
        tmp_path: Path) -> None:
    import subprocess
    import sys

    from tui.engine.pipelines.scaffold import module_test

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/__init__.py").write_text("")
    code = "def slugify(text):\n    return text\n\n\nclass Slug:\n    pass\n\n\ndef _hidden():\n    pass\n"
    (tmp_path / "pkg/slug.py").write_text(code)
    test = module_test("pkg.slug", "slug", None, code)
    assert "callable(module.slugify)" in test and "callable(module.Slug)" in test and "_hidden" not in test
    (tmp_path / "test_slug.py").write_text(test)
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_slug.py"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stdout
    assert "pass" in module_test("pkg.slug", "slug", None, "(" * 5000), "hostile code: no names, no crash"


async def test_a_typescript_module_named_by_its_kebab_case_path_is_filled_checked_and_tested(
        tmp_path: Path, ollama_server) -> None:
    """"Add src/path-utils.ts ...": the module goes to that very file (its identifier pathUtils only names the
    test); the check written for the request runs against the TypeScript sources through the project's own
    compiler (the module imports a sibling the ES-module way, with a .js extension), so a candidate that fails it
    is not proposed; the test imports the module without an extension and passes under ts-jest, types checked."""
    import subprocess

    repo = ts_repo(tmp_path / "repo")
    check = ("import assert from 'node:assert';\nimport { joinPosix } from './src/path-utils.js';\n"
             "assert.strictEqual(joinPosix('/a/', '/b'), 'a/b');")
    wrong = "export function joinPosix(...parts: string[]): string {\n  return parts.join('/');\n}\n"
    right = ("import { trimSlashes } from './trim';\n\n/** The parts joined by one slash. */\n"
             "export function joinPosix(...parts: string[]): string {\n"
             "  return parts.map(trimSlashes).filter((p) => p).join('/');\n}\n")
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Add a new module src/path-utils.ts exporting joinPosix(...parts: string[]) that "
        "joins the parts with single slashes.",
        [js({"code": check})] * 3 + [js({"code": wrong}), js({"code": right}), js({"code": wrong})])
    assert (repo / "src/path-utils.ts").read_text() == right, [(e.text if hasattr(e, "text") else e.summary)
                                                                for e in events if hasattr(e, "text") or hasattr(e, "summary")]
    test = (repo / "src/__tests__/path-utils.test.ts").read_text()
    assert "import { joinPosix } from '../path-utils';" in test and "node:assert" not in test
    assert len(edits(approver)) == 1 and "Created src/path-utils.ts" in done.text, done.text
    ran = subprocess.run(["node", "node_modules/jest/bin/jest.js", "--ci"], cwd=repo, capture_output=True, text=True,
                         timeout=300)
    assert ran.returncode == 0 and "Tests:       2 passed" in ran.stderr, ran.stdout + ran.stderr


def test_a_check_that_compares_a_call_with_an_exception_class_checks_that_the_call_raises() -> None:
    """``assert mean([]) == ValueError`` (how a small model writes "raises ValueError", on one line with others)
    becomes a check that the call raises, with the helper it needs; the other asserts stay as written."""
    import subprocess
    import sys

    from tui.engine.pipelines.checks import raising

    check = raising("from statistics import mean; assert mean([]) == StatisticsError; assert mean([1, 2]) == 1.5")
    assert check.endswith("from statistics import mean\nassert raises(StatisticsError, lambda: mean([]))\n"
                          "assert mean([1, 2]) == 1.5")
    check = check.replace("from statistics import mean", "from statistics import mean, StatisticsError")
    assert subprocess.run([sys.executable, "-c", check], timeout=30).returncode == 0
    wrong = check.replace("mean([])", "mean([3])")
    assert subprocess.run([sys.executable, "-c", wrong], capture_output=True, timeout=30).returncode == 1
    assert raising("assert f(") == "assert f("  # does not parse: left for its run to say why
    assert "def raises" not in raising("assert abs(-1) == 1")


def test_a_module_cut_at_the_token_limit_keeps_its_whole_statements_and_loses_its_fence() -> None:
    from tui.engine.pipelines.codetext import code_of, whole_python

    cut = code_of({"code": "```python\nimport os\n\n\ndef mean(seq):\n    return sum(seq) / len(seq)\n\n\n"
                           "def _test_mean():\n    assert mean([1]) == 1\n    assert mean([1, 2, 3, 4"})
    assert whole_python(cut) == "import os\n\n\ndef mean(seq):\n    return sum(seq) / len(seq)\n"
    assert code_of({"code": "```js\nconst a = 1;\n```"}) == "const a = 1;"
    assert whole_python("x = (\n") == "x = (\n"  # nothing whole to keep: as it is


async def test_an_assert_no_candidate_satisfies_is_dropped_from_the_check_and_the_change_still_proposed(
        tmp_path: Path, ollama_server) -> None:
    """The check holds an assert no version satisfies (a generator compared with a list is made sound by program;
    ``chunks(2, []) raises`` is not what was asked). Graded assert by assert, it is dropped, the candidate that
    satisfies the rest is proposed and the proposal says what was dropped; a candidate that does not make the
    change (the asserts that failed before still fail) is never proposed."""
    gen = ('def chunks(n, seq):\n    """Tuples of n items (the last may be shorter)."""\n    seq = list(seq)\n'
           '    for i in range(0, len(seq), n):\n        yield tuple(seq[i:i + n])\n')
    repo = _repo(tmp_path, **{"pkg/it.py": gen})
    check = ("from pkg.it import chunks\nassert raises(ValueError, lambda: chunks(-1, [1]))\n"
             "assert raises(ValueError, lambda: chunks(2, []))\nassert chunks(2, [1, 2, 3]) == [(1, 2), (3,)]\n"
             "assert chunks(3, [1, 2]) == [(1, 2)]")
    same = {"code": gen}
    right = {"code": gen.replace("    seq = list(seq)\n", "    if n < 1:\n        raise ValueError(n)\n"
                                                           "    seq = list(seq)\n")}
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Make chunks in pkg/it.py raise ValueError when n is below 1.",
        [js({"kind": "change"})] + [js({"code": check})] * 3 + [js(same), js(right), js(same)])
    proposed = edits(approver)
    assert len(proposed) == 1 and "raise ValueError(n)" in proposed[0].diff, _debug(events)
    assert any("lambda: chunks(2, [])" in w for w in proposed[0].warnings), proposed[0].warnings
    assert "raise ValueError(n)" in (repo / "pkg/it.py").read_text()


def test_a_docstring_left_out_of_the_prompt_goes_back_under_a_signature_written_over_several_lines() -> None:
    """xmltodict's unparse: its signature spans three lines; the rewrite without the docstring got it back only
    when the def line ended with a colon, so the docstring was deleted (and a rewrite that changed nothing else
    looked like a change)."""
    from tui.engine.pipelines.codetext import elide_docstring, restore_docstring
    from tui.engine.pipelines.rewrite import shown

    code = ('def unparse(input_dict, output=None,\n            **kwargs):\n    """Emit XML.\n\n    Pretty output\n'
            '    indents with a tab.\n    """\n    if output:\n        return 1\n    return 0')
    short, doc = elide_docstring(code)
    assert '"""' not in short and restore_docstring(short, doc) == code
    long_doc = code.replace("    indents with a tab.\n", "    indents with a tab.\n" + "    More.\n" * 30)
    assert shown(long_doc)[1] == "whole", "a long docstring does not make a short function long"


async def test_a_method_for_a_class_named_with_an_acronym_goes_into_that_class_and_not_into_all(
        tmp_path: Path, ollama_server) -> None:
    """cachetools: "Add a peek(key) method to LRUCache": LRUCache (an acronym before a word) is a name, so the
    method goes into its class without asking where (the model chose another module), and a method is not added
    to the module's __all__."""
    cache = ('__all__ = ["LRUCache"]\n\n\nclass LRUCache:\n    """Least recently used."""\n\n'
             '    def __init__(self):\n        self.data = {}\n\n    def get(self, key):\n        return self.data[key]\n')
    repo = _repo(tmp_path, **{"pkg/cache.py": cache, "pkg/other.py": "from pkg.cache import LRUCache\n"})
    check = "from pkg.cache import LRUCache\nc = LRUCache()\nc.data['a'] = 1\nassert c.peek('a') == 1"
    method = 'def peek(self, key, default=None):\n    """The value, not marked as used."""\n' \
             '    return self.data.get(key, default)\n'
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Add a peek(key, default=None) method to LRUCache that returns the value for key.",
        [js({"kind": "add"})] + [js({"code": check})] * 3 + [js({"code": method})] * 3)
    text = (repo / "pkg/cache.py").read_text()
    assert "    def peek(self, key, default=None):" in text, _debug(events)
    assert text.startswith('__all__ = ["LRUCache"]\n') and (repo / "pkg/other.py").read_text().count("\n") == 1
    assert not any("where the new code goes" in e.detail for e in events if e.type == "progress")


async def test_when_every_data_script_raises_the_error_goes_back_for_one_more_round(tmp_path: Path,
                                                                                   ollama_server) -> None:
    """xmltodict's feeds.json: every change(data) raised (an entry without "url": KeyError) and the turn fell to
    the general loop. The error one of them met goes back once; the script written with it is used, and a change
    that returns the new content as JSON text is taken as that content."""
    feeds = '[\n  {"name": " a ", "url": "u1"},\n  {"name": "b"},\n  {"name": "a", "url": "u1"}\n]\n'
    repo = _repo(tmp_path, **{"data/feeds.json": feeds})
    raises = "def change(data):\n    return [dict(e, url=e['url'].strip()) for e in data]\n"
    fixed = ("import json\n\ndef change(data):\n    out, seen = [], set()\n    for e in data:\n"
             "        if e.get('url') and e['url'] not in seen:\n            seen.add(e['url'])\n"
             "            out.append({k: v.strip() for k, v in e.items()})\n    return json.dumps(out)\n")
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Clean data/feeds.json: trim the strings, drop entries without a url, and duplicates.",
        [js({"kind": "data"})] + [js({"code": raises})] * 3 + [js({"code": "assert len(new) == 1"})] * 3 +
        [js({"code": fixed})] * 3)
    import json as _json

    assert _json.loads((repo / "data/feeds.json").read_text()) == [{"name": "a", "url": "u1"}], _debug(events)
    asked = ollama_server.requests[-1]["messages"][-1]["content"]
    assert "KeyError: 'url'" in asked and "Write it again" in asked


async def test_a_rewrite_that_only_changes_quotes_is_no_candidate(tmp_path: Path, ollama_server) -> None:
    """humanize's metric: with no check written, a rewrite that only turned "" into '' passed the suite and was
    proposed as the change. Python that parses to the same tree is not a candidate."""
    repo = _repo(tmp_path, **{"tests/test_fmt.py": "def test_nothing():\n    pass\n"})
    requoted = {"code": "def size(n, digits=1):\n    return f'{n / 1000:.{digits}f} kB'\n"}
    right = {"code": 'def size(n, digits=2):\n    return f"{n / 1000:.{digits}f} kB"\n'}
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Make `size` show two decimals by default.",
        [js({"kind": "change"})] + [js({"code": "no check"})] * 3 + [js(requoted), js(requoted), js(right)])
    proposed = edits(approver)
    assert len(proposed) == 1 and "digits=2" in proposed[0].diff, _debug(events)
    assert "candidate 1: " in proposed[0].summary and "tried 1 candidate" in done.text, done.text


async def test_a_new_class_the_request_names_is_what_gets_added_whatever_its_reply_defines_first(
        tmp_path: Path, ollama_server) -> None:
    """cachetools: "Add a LIFOCache class ...": a reply that defines a helper before the class was placed as the
    helper (a method name defined many times in the module could not be placed at all). The name the request gives
    is what is added, and exported; the prompt names it."""
    repo = _repo(tmp_path)
    code = ('def _newest(keys):\n    """The last key."""\n    return keys[-1]\n\n\n'
            'class Stack:\n    """Last in, first out."""\n\n    def __init__(self):\n        self.items = []\n')
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Add a Stack class to pkg/fmt.py (last in, first out) and export it.",
        [js({"kind": "add"})] + [js({"code": "from pkg.fmt import Stack\nassert Stack().items == []"})] * 3 +
        [js({"code": code})] * 3)
    text = (repo / "pkg/fmt.py").read_text()
    assert "class Stack:" in text and '"Stack"' in text.split("\n", 1)[0], _debug(events)
    asked = next(r["messages"][-1]["content"] for r in ollama_server.requests
                 if "Only the new definition" in r["messages"][-1]["content"])
    assert "Only the new definition (Stack, whole: its first line names it)." in asked


def test_a_newline_the_json_reply_put_inside_a_python_string_is_the_escape_it_meant() -> None:
    """xmltodict: every check asserting on pretty output wrote ``'<a>1</a>\\n  <b>2</b>'``; JSON decoding made the
    \\n a line break, so the check did not parse and no check was used. The literal is joined again with \\n."""
    from tui.engine.pipelines.checks import raising
    from tui.engine.pipelines.codetext import joined_strings

    broken = "from x import u\nassert u(1) == '<a>1</a>\n  <b>2</b>'\nassert u(2) == '<a>\n\n</a>'"
    assert joined_strings(broken) == "from x import u\nassert u(1) == '<a>1</a>\\n  <b>2</b>'\n" \
                                     "assert u(2) == '<a>\\n\\n</a>'"
    assert raising(broken).endswith("assert u(2) == '<a>\\n\\n</a>'")
    assert joined_strings("y = (\n") == "y = (\n" and joined_strings("a = '''x\ny'''") == "a = '''x\ny'''"
