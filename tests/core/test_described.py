""""Which function turns a dict back into XML?": the definition whose own description says so is named."""

from __future__ import annotations

from pathlib import Path

from tests.core import fixtures_repos as fx
from tui.engine.grounding import turn_context

FILES = {
    "xmlconv.py": ('def parse(xml_input):\n    """Parse the given XML input and convert it into a dictionary."""\n'
                   '    return {}\n\n\ndef unparse(input_dict):\n    """Emit an XML document for the given `input_dict` '
                   '(reverse of `parse`)."""\n    return ""\n\n\nclass Cache:\n    """A cache."""\n\n'
                   '    def evict(self):\n        """Remove the least recently used entry."""\n'),
    "lib/merge.js": ("/**\n * Combine two plain objects into a new one, the second winning.\n * @param {object} a\n */\n"
                     "function merge(a, b) { return Object.assign({}, a, b); }\nmodule.exports = merge;\n"),
    "tests/test_xmlconv.py": 'def test_unparse():\n    """Emit XML for a dict: the test, not the code."""\n',
}


def _grounding(tmp_path: Path, prompt: str) -> str:
    repo = fx.build(tmp_path / "repo", FILES)
    return turn_context(repo, prompt, list(FILES), {"read_file", "outline"}, 4096)


def test_a_which_function_question_names_the_definition_its_description_matches(tmp_path: Path) -> None:
    text = _grounding(tmp_path, "Which function turns a dict back into XML, and in which file is it?")
    listed = text.split("matches the question best", 1)[1].splitlines()[1:]
    assert listed[0] == "- xmlconv.py: unparse: Emit an XML document for the given `input_dict` (reverse of `parse`)."
    assert not any("tests/" in line for line in listed)  # tests describe the code, they are not it


def test_methods_and_js_doc_comments_count(tmp_path: Path) -> None:
    assert "- xmlconv.py: Cache.evict: Remove the least recently used entry." in \
        _grounding(tmp_path, "Which method removes the least recently used entry?")
    assert "- lib/merge.js: merge: Combine two plain objects into a new one, the second winning." in \
        _grounding(tmp_path / "js", "Which function combines two objects?")


def test_other_questions_and_requests_get_no_list(tmp_path: Path) -> None:
    assert "matches the question best" not in _grounding(tmp_path, "What does unparse return for {}?")
    assert "matches the question best" not in _grounding(tmp_path / "b", "Make unparse emit an XML document.")


def test_a_value_change_request_shows_the_lines_with_the_old_value(tmp_path: Path) -> None:
    files = {"lib/parse.js": "var defaults = {\n    depth: 5,\n    parameterLimit: 1000,\n    arrayLimit: 20\n};\n",
             "lib/format.js": "var WIDTH = 1000;\n", "dist/qs.min.js": "var d={depth:5,parameterLimit:1000};\n",
             "test/parse.js": "t.equal(qs.parse(s).length, 1000);\n"}
    repo = fx.build(tmp_path / "repo", files)
    text = turn_context(repo, "Raise the default parameterLimit of qs.parse from 1000 to 2000.", list(files),
                        {"edit_file"}, 4096)
    shown = text.split("whose old text is that line:\n", 1)[1].splitlines()
    assert shown[0] == "lib/parse.js:3: parameterLimit: 1000,"  # the line naming the setting, first
    assert not any(line.startswith(("dist/", "test/")) for line in shown)  # bundles and tests are not the source
    assert "whose old text" not in turn_context(repo, "Raise the parameter limit", list(files), {"edit_file"}, 4096)


def test_a_value_named_in_words_is_found_as_the_literal_the_code_assigns(tmp_path: Path) -> None:
    """"indent with two spaces instead of a tab": the setting is ``indent='\\t'``, not the prose about tabs."""
    files = {"emit.py": ('def emit(doc, indent=\'\\t\', newl="\\n"):\n'
                         '    """Lines are indented with `\'\\t\'` unless told otherwise."""\n    return doc\n'),
             "words.py": "TAB_WIDTH = 8  # a tab is eight columns\n"}
    repo = fx.build(tmp_path / "repo", files)
    text = turn_context(repo, "Make emit indent with two spaces instead of a tab by default.", list(files),
                        {"edit_file"}, 4096)
    shown = text.split("whose old text is that line:\n", 1)[1].splitlines()
    assert shown[0] == "emit.py:1: def emit(doc, indent='\\t', newl=\"\\n\"):"  # the assignment, before the docstring
    assert not any("TAB_WIDTH" in line for line in shown)  # the word "tab" is not the value
    numbers = turn_context(repo, "Use 4 instead of 8 for TAB_WIDTH", list(files), {"edit_file"}, 4096)
    assert "words.py:1: TAB_WIDTH = 8" in numbers


def test_a_where_question_is_told_where_the_definition_it_names_is(tmp_path: Path) -> None:
    files = {"lib/utils.js": "'use strict';\n\nvar merge = function merge(a, b) {\n  return a;\n};\n\n"
                             "var compact = function compact(value) {\n  return value;\n};\n\n"
                             "module.exports = { compact: compact, merge: merge };\n",
             "lib/formats.js": "module.exports = { RFC1738: 'RFC1738' };\n",
             "test/utils.js": "var compact = require('../lib/utils').compact;\n"}
    repo = fx.build(tmp_path / "repo", files)
    text = turn_context(repo, "Which file defines the compact function?", list(files), {"read_file"}, 4096)
    assert "compact is defined in lib/utils.js (line 7, function)." in text  # not the test that imports it
    other = turn_context(repo, "What does compact return for []?", list(files), {"read_file"}, 4096)
    assert "is defined in lib/utils.js (line" not in other


def test_a_where_question_is_not_sent_to_a_test_helper_that_shares_a_word(tmp_path: Path) -> None:
    """pluggy (outside the benchmark): "Where is the hook call tracing implemented?" was answered with
    testing/benchmark.py, which defines a helper named `hook`."""
    files = {"src/pkg/_tracing.py": "class TagTracer:\n    def get(self, name):\n        return name\n",
             "testing/benchmark.py": "def hook(arg):\n    return arg\n",
             "src/pkg/_hooks.py": "def call_hook(x):\n    return x\n"}
    repo = fx.build(tmp_path / "repo", files)
    text = turn_context(repo, "Where is the hook call tracing implemented?", list(files), {"read_file"}, 4096)
    assert "is defined in testing/benchmark.py" not in text  # (the repo map may still list it)
    asked = turn_context(repo, "Where is the hook benchmark helper defined?", list(files), {"read_file"}, 4096)
    assert "hook is defined in testing/benchmark.py (line 1, function)." in asked


def test_a_question_quoting_an_example_is_shown_where_the_docs_have_it(tmp_path: Path) -> None:
    files = {"README.md": "# qs\n\nDots:\n\n```js\nvar withDots = qs.parse('a.b=c', { allowDots: true });\n```\n",
             "lib/parse.js": "module.exports = function parse(s, o) { return {}; };\n"}
    repo = fx.build(tmp_path / "repo", files)
    text = turn_context(repo, "Which qs.parse option makes a.b=c parse as a nested object?", list(files),
                        {"read_file"}, 4096)
    assert "README.md:6: var withDots = qs.parse('a.b=c', { allowDots: true });" in text
    assert "documentation shows" not in turn_context(repo, "Which option sorts keys?", list(files), {"read_file"}, 4096)


def test_a_value_quoted_with_punctuation_or_named_as_a_number_is_found(tmp_path: Path) -> None:
    """Seen on the dev set: "'$text' instead of '#text'" found nothing ('#' is not a word character), "four digits
    instead of three" looked for the word "three", and "qs.stringify ... instead of '&'" listed parse.js first."""
    files = {"conv.py": "def handler(cdata_key='#text', attr_prefix='@'):\n    return cdata_key\n\n\n"
                        "def metric(value, precision=3):\n    return round(value, precision)\n",
             "lib/parse.js": "var defaults = {\n    delimiter: '&'\n};\n",
             "lib/stringify.js": "var defaults = {\n    delimiter: '&',\n    encode: true\n};\n"}
    repo = fx.build(tmp_path / "repo", files)

    def shown(prompt: str) -> list[str]:
        text = turn_context(repo, prompt, list(files), {"edit_file"}, 4096)
        return text.split("whose old text is that line:\n", 1)[1].splitlines() if "whose old text" in text else []

    assert shown("Make handler use '$text' instead of '#text' as the text key.")[0] == \
        "conv.py:1: def handler(cdata_key='#text', attr_prefix='@'):"
    assert shown("Make metric round to four digits by default instead of three.")[0] == \
        "conv.py:5: def metric(value, precision=3):"
    assert shown("Make qs.stringify join with ';' by default instead of '&'.")[0] == "lib/stringify.js:2: delimiter: '&',"


def _value_call(repo: Path, files: dict[str, str], prompt: str) -> dict | None:
    """The arguments of the whole edit_file call the grounding shows for ``prompt`` (None when it shows none)."""
    import json

    text = turn_context(repo, prompt, list(files), {"edit_file"}, 4096)
    line = next((ln for ln in text.splitlines() if ln.startswith('{"name": "edit_file"')), None)
    return json.loads(line)["arguments"] if line else None


def test_a_certain_value_change_is_shown_as_the_whole_edit_file_call(tmp_path: Path) -> None:
    """One best line, unique in its file, and a new value the request states: the call itself (the model copies
    it); a tie between two lines, or no stated new value, shows the lines only."""
    files = {"conv.py": "def handler(cdata_key='#text'):\n    return cdata_key\n\n\ndef emit(cdata_key='#text'):\n"
                        "    return 1\n\n\ndef metric(value, precision=3):\n    return round(value, precision)\n",
             "lib/stringify.js": "var defaults = {\n    delimiter: '&',\n    parameterLimit: 1000\n};\n"}
    repo = fx.build(tmp_path / "repo", files)

    def call(prompt: str) -> dict | None:
        return _value_call(repo, files, prompt)

    assert call("Make metric round to four digits by default instead of three.") == {
        "path": "conv.py", "old": "def metric(value, precision=3):", "new": "def metric(value, precision=4):"}
    assert call("Make stringify join with ';' by default instead of '&'.") == {
        "path": "lib/stringify.js", "old": "    delimiter: '&',", "new": "    delimiter: ';',"}
    assert call("Raise the default parameterLimit from 1000 to 2000.")["new"] == "    parameterLimit: 2000"
    assert call("Use '$text' instead of '#text' as the text key.") is None  # two lines tie: the lines only


def test_a_prefixed_string_literal_in_the_request_is_the_value_not_its_prefix(tmp_path: Path) -> None:
    """itsdangerous (outside the benchmark): 'from b"itsdangerous.Signer" to b"itsdangerous"' found no line (the
    ``b`` was read as the old value), and the model rewrote the whole 156-line class instead of one line."""
    files = {"signer.py": 'class Signer:\n    """Signs with a salt (default=`b"itsdangerous.Signer"`)."""\n\n'
                          '    def __init__(\n        self,\n        salt: bytes | None = b"itsdangerous.Signer",\n'
                          '        sep: bytes = b".",\n    ):\n        self.salt = salt\n',
             "words.py": "PATTERN = r'\\s'\n"}
    repo = fx.build(tmp_path / "repo", files)

    def call(prompt: str) -> dict | None:
        return _value_call(repo, files, prompt)

    assert call('Change the default salt of Signer from b"itsdangerous.Signer" to b"itsdangerous".') == {
        "path": "signer.py", "old": '        salt: bytes | None = b"itsdangerous.Signer",',
        "new": '        salt: bytes | None = b"itsdangerous",'}
    assert call("Make PATTERN r'\\s+' instead of r'\\s'.") == {
        "path": "words.py", "old": "PATTERN = r'\\s'", "new": "PATTERN = r'\\s+'"}


def test_of_two_equal_settings_the_one_the_named_function_reaches_wins(tmp_path: Path) -> None:
    """Dev set: "make xmltodict.parse use '$text' instead of '#text'": the handler parse builds and unparse's
    emitter both read ``cdata_key='#text',``; the tie showed both lines and the model edited a docstring."""
    files = {"conv.py": ("class _Handler:\n    def __init__(self,\n                 cdata_key='#text',\n"
                         "                 attr_prefix='@'):\n        self.cdata_key = cdata_key\n\n\n"
                         "def parse(xml, **kw):\n    return _Handler(**kw)\n\n\n"
                         "def _emit(key, value,\n          cdata_key='#text',\n          depth=0):\n    return key\n\n\n"
                         "def unparse(d, **kw):\n    return _emit('a', d, **kw)\n")}
    repo = fx.build(tmp_path / "repo", files)
    parse = _value_call(repo, files, "Make conv.parse use '$text' instead of '#text' as the text key.")
    assert parse is not None and parse["old"] == "                 cdata_key='#text',"
    unparse = _value_call(repo, files, "Make conv.unparse use '$text' instead of '#text' as the text key.")
    assert unparse is not None and unparse["old"] == "          cdata_key='#text',"


def test_a_question_about_a_one_function_package_is_told_to_run_it(tmp_path: Path) -> None:
    """minimist (outside the benchmark): "What does minimist return for the argument --no-foo?" was answered
    from a search for the literal, which the code only has as a pattern."""
    files = {"package.json": '{"name": "argv-lite", "main": "index.js"}\n',
             "index.js": "'use strict';\n\nmodule.exports = function (args, opts) {\n  return { _: args };\n};\n",
             "test/parse.js": "var parse = require('../');\n"}
    repo = fx.build(tmp_path / "repo", files)
    text = turn_context(repo, "What does argv-lite return for the argument --no-foo?", list(files), {"run_command", "run_python"}, 4096)
    assert "argv-lite is one exported function: to see what it returns for an input, run it" in text
    assert "require('./')(...)" in text
    objects = {**files, "index.js": "module.exports = { parse: function (a) { return a; } };\n"}
    repo2 = fx.build(tmp_path / "repo2", objects)
    other = turn_context(repo2, "What does argv-lite return for the argument --no-foo?", list(objects), {"run_command", "run_python"}, 4096)
    assert "is one exported function" not in other


def test_a_package_main_that_leaves_the_repository_is_never_read(tmp_path: Path) -> None:
    """package.json is the repository's: a "main" that is a symlink out of the work tree is not followed."""
    outside = tmp_path / "outside.js"
    outside.write_text("module.exports = function (secret) { return secret; };\n")
    files = {"package.json": '{"name": "argv-lite", "main": "link.js"}\n', "index.js": "var x = 1;\n"}
    repo = fx.build(tmp_path / "repo", files)
    (repo / "link.js").symlink_to(outside)
    text = turn_context(repo, "What does argv-lite return for --no-foo?", [*files, "link.js"],
                        {"run_command", "run_python"}, 4096)
    assert "is one exported function" not in text
