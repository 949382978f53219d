"""For "add a test to FILE": a short test already in FILE is shown, in the form the project writes tests."""

from __future__ import annotations

from pathlib import Path

from tests.core import fixtures_repos as fx
from tui.engine.grounding import turn_context

UNITTEST = ("import unittest\n\nimport calc\n\n\nclass CalcTest(unittest.TestCase):\n    def test_add(self):\n"
            "        self.assertEqual(calc.add(1, 2), 3)\n\n    def test_mul(self):\n"
            "        self.assertEqual(calc.mul(2, 3), 6)\n")
TAPE = ("var test = require('tape');\nvar qs = require('../');\n\ntest('parse()', function (t) {\n"
        "    t.deepEqual(qs.parse('a=b'), { a: 'b' });\n    t.end();\n});\n\n"
        "test('ignoreQueryPrefix', function (t) {\n    t.deepEqual(qs.parse('?a=b', { ignoreQueryPrefix: true }), "
        "{ a: 'b' });\n    t.end();\n});\n")


def _context(tmp_path: Path, files: dict[str, str], prompt: str) -> str:
    repo = fx.build(tmp_path / "repo", files)
    return turn_context(repo, prompt, list(files), {"edit_file", "edit_symbol"}, 4096)


def test_a_unittest_class_shows_its_last_test_and_where_a_new_one_goes(tmp_path: Path) -> None:
    text = _context(tmp_path, {"calc.py": "def add(a, b):\n    return a + b\n", "tests/test_calc.py": UNITTEST},
                    "Add a test to tests/test_calc.py that add(-1, 1) is 0")
    assert "a new test goes inside class CalcTest (edit_symbol with symbol 'CalcTest.test_<what it checks>')" in text
    assert "    def test_mul(self):\n        self.assertEqual(calc.mul(2, 3), 6)" in text


def test_a_tape_file_shows_its_last_test_call(tmp_path: Path) -> None:
    text = _context(tmp_path, {"index.js": "module.exports = {};\n", "test/parse.js": TAPE},
                    "Add a test to test/parse.js checking that ignoreQueryPrefix removes only one question mark")
    assert "test('ignoreQueryPrefix', function (t) {" in text and text.count("t.end();\n});") == 1
    assert "A test already in" not in _context(tmp_path / "q", {"test/parse.js": TAPE}, "What does test/parse.js test?")


NESTED_TAPE = ("var test = require('tape');\nvar qs = require('../');\n\ntest('parse()', function (t) {\n"
               "    t.test('parses a simple string', function (st) {\n        st.deepEqual(qs.parse('0=foo'), { 0: 'foo' });\n"
               "        st.end();\n    });\n\n    t.test('allows disabling dot notation', function (st) {\n"
               "        ['a', 'b'].forEach(function (k) {\n            st.deepEqual(qs.parse(k + '.b=c'), {});\n"
               "        });\n        st.end();\n    });\n\n"
               "    t.test('ignores the query prefix', function (st) {\n"
               "        st.deepEqual(qs.parse('?foo=bar', { ignoreQueryPrefix: true }), { foo: 'bar' });\n"
               "        st.end();\n    });\n\n" + "".join(f"    t.equal({i}, {i});\n" for i in range(30)) +
               "    t.end();\n});\n\ntest('parses empty keys', function (t) {\n    [1, 2].forEach(function (c) {\n"
               "        t.equal(c, c);\n    });\n    t.end();\n});\n")


def test_a_tape_file_shows_a_plain_subtest_as_a_top_level_test_and_how_it_calls_the_named_option(
        tmp_path: Path) -> None:
    """Seen on the tune half: shown the file's last short test (a forEach over cases), the model copied it whole,
    twice; the short tests of qs live as t.test(...) inside one 1,000-line test('parse()')."""
    text = _context(tmp_path, {"lib/parse.js": "module.exports = function () {};\n", "test/parse.js": NESTED_TAPE},
                    "Add a test to test/parse.js checking that ignoreQueryPrefix removes only one '?' ('??a=b').")
    example = text.split("to copy its form", 1)[1]
    assert "test('parses a simple string', function (t) {\n    t.deepEqual(qs.parse('0=foo'), { 0: 'foo' });\n" \
           "    t.end();\n});" in example  # the plainest one, as the top-level test a new one is
    assert "forEach" not in example.split("How the file", 1)[0]
    assert "ignores the query prefix', function (t)" not in example  # not the test the model would send back
    assert "line 18: st.deepEqual(qs.parse('?foo=bar', { ignoreQueryPrefix: true }), { foo: 'bar' });" in example
