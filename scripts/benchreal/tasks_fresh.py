"""A fourth, "fresh" held-out half: 20 tasks written by a separate engineer before the next tuning round, on
targets no other task uses (five per project, each of the ten kinds twice).

Hidden like the "heldout" half (no failure reason, tools or answer on the console or in --json; transcripts
under OUT/fresh/ only). Whoever tunes the agent should not read this file. Each project's fresh tasks are
appended to its task list and its plants merged into the project's plants (``projects.py``).
"""

from __future__ import annotations

import json

from benchreal.checks import all_of, catches_mutant, file_contains, number_re, runs, suite_passes
from benchreal.kinds import clean_data, code_change, fix_bug, question, suite_counts
from benchreal.spec import Append, Plant, Reference, Replace, Task, Write

HZ_TIME = "src/humanize/time.py"
HZ_INIT = "src/humanize/__init__.py"
XD = "xmltodict.py"
CT_INIT = "src/cachetools/__init__.py"
QS_UTILS = "lib/utils.js"

# humanize ------------------------------------------------------------------------------------------------------

PLURALIZE = '''"""Counting things in words."""

from __future__ import annotations

from .number import intcomma


def pluralize(count: int, singular: str, plural: str | None = None) -> str:
    """Return the count followed by the word in the right form: 1 file, 3 files, 1,500 files."""
    word = singular if count == 1 else (plural or singular + "s")
    return f"{intcomma(count)} {word}"
'''

PLURALIZE_TEST = '''"""Tests for pluralize."""

from __future__ import annotations

import humanize


def test_pluralize() -> None:
    assert humanize.pluralize(1, "file") == "1 file"
    assert humanize.pluralize(3, "file") == "3 files"
    assert humanize.pluralize(2, "child", "children") == "2 children"
    assert humanize.pluralize(1500, "file") == "1,500 files"
'''

WHEN_TEST = '''

def test_naturaltime_relative_to_when() -> None:
    when = dt.datetime(2024, 1, 1, 12)
    assert humanize.naturaltime(dt.datetime(2024, 1, 1, 10), when=when) == "2 hours ago"
    assert humanize.naturaltime(dt.datetime(2024, 1, 1, 15), when=when) == "3 hours from now"
'''

HUMANIZE_PLANTS = {
    "fresh_carry_bug": Plant("fresh_carry_bug", "time: simpler carry for suppressed units", (
        Replace(HZ_TIME, "        return 0, value2 + value1 * ratio", "        return 0, value2 + value1"),)),
}

HUMANIZE = [
    question("fr_hz_behaviour", "fresh", "behaviour",
             "Does humanize.fractional(1.25) give me an improper fraction or a mixed number? What's the exact string?",
             r"1 1/4", answer="A mixed number: '1 1/4'.", wrong="An improper fraction: '5/4'."),
    question("fr_hz_count", "fresh", "count", "How many locales does humanize ship translations for?",
             number_re(33), answer="33 locales (src/humanize/locale has 33 folders, from ar to zh_HK).",
             wrong="32 locales."),
    Task("fr_hz_add_test", "fresh", "add_test",
         "naturaltime has a when= argument but none of the tests use it. Add a test for it to tests/test_time.py.",
         catches_mutant((Replace(HZ_TIME, "    now = when or _now()", "    now = _now()"),)),
         Reference(edits=(Append("tests/test_time.py", WHEN_TEST),))),
    fix_bug("fr_hz_fix_bug", "fresh",
            "precisedelta(timedelta(days=1, hours=2), suppress=['days']) returns '2 hours and 1 second' instead of "
            "'26 hours' since my last commit. Can you fix it? Don't change the tests.", "fresh_carry_bug",
            Replace(HZ_TIME, "        return 0, value2 + value1", "        return 0, value2 + value1 * ratio")),
    code_change("fr_hz_multi_step", "fresh", "multi_step",
                "Add a function pluralize(count, singular, plural=None) in a new module src/humanize/plural.py that "
                "returns the count with the word in the right form: pluralize(1, 'file') -> '1 file', "
                "pluralize(3, 'file') -> '3 files', pluralize(2, 'child', 'children') -> '2 children' (anything but "
                "1 takes the plural), with thousands separators like intcomma: pluralize(1500, 'file') -> "
                "'1,500 files'. Export it from the humanize package (the import and __all__) and put its tests in a "
                "new file tests/test_pluralize.py.",
                "import humanize\nfrom humanize import pluralize\nassert 'pluralize' in humanize.__all__\n"
                "assert pluralize(1, 'file') == '1 file', pluralize(1, 'file')\n"
                "assert pluralize(3, 'file') == '3 files', pluralize(3, 'file')\n"
                "assert pluralize(0, 'file') == '0 files', pluralize(0, 'file')\n"
                "assert pluralize(2, 'child', 'children') == '2 children'\n"
                "assert pluralize(1, 'child', 'children') == '1 child'\n"
                "assert pluralize(1500, 'file') == '1,500 files', pluralize(1500, 'file')",
                "humanize.pluralize works and is exported",
                Write("src/humanize/plural.py", PLURALIZE),
                Replace(HZ_INIT, "from humanize.time import (\n",
                        "from humanize.plural import pluralize\nfrom humanize.time import (\n"),
                Replace(HZ_INIT, '    "ordinal",\n', '    "ordinal",\n    "pluralize",\n'),
                Write("tests/test_pluralize.py", PLURALIZE_TEST),
                test_file="tests/test_pluralize.py", test_mentions=r"pluralize"),
]

# xmltodict -----------------------------------------------------------------------------------------------------

MESSY_TAGS = "tag,count\nItem,12\ntitle,7\nITEM,3\nlink,9\nTitle,2\nguid,1\ndescription,4\nlink,1\n"
CLEAN_TAGS = "tag,count\nitem,15\nlink,10\ntitle,9\ndescription,4\nguid,1\n"

XMLTODICT_PLANTS = {
    "fresh_ns_bug": Plant("fresh_ns_bug", "_build_name: split at the namespace separator", (
        Replace(XD, "        i = full_name.rfind(self.namespace_separator)",
                "        i = full_name.find(self.namespace_separator)"),)),
    "fresh_push_bug": Plant("fresh_push_bug", "push_data: newest value first in repeated elements", (
        Replace(XD, "                item[key] = [value, data]", "                item[key] = [data, value]"),)),
    "fresh_tags_csv": Plant("fresh_tags_csv", "examples: tag counts from the RSS sample", (
        Write("examples/tags.csv", MESSY_TAGS),)),
}

XMLTODICT = [
    question("fr_xd_behaviour", "fresh", "behaviour",
             "If an element has text on both sides of a child, like <a>x<b/>y</a>, what does xmltodict.parse give "
             "me for a's text?",
             r"\bxy\b", answer="The pieces are joined: {'a': {'b': None, '#text': 'xy'}}.",
             wrong="Both pieces are kept in a list: {'a': {'b': None, '#text': ['x', 'y']}}."),
    code_change("fr_xd_one_line", "fresh", "one_line",
                "Empty elements come out of unparse as <a></a>. Make it write them as <a/> by default.",
                "import xmltodict\nout = xmltodict.unparse({'r': {'a': None, 'b': '1'}}, full_document=False)\n"
                "assert out == '<r><a/><b>1</b></r>', repr(out)\n"
                "old = xmltodict.unparse({'a': None}, short_empty_elements=False, full_document=False)\n"
                "assert old == '<a></a>', repr(old)",
                "unparse writes <a/> by default",
                Replace(XD, "            short_empty_elements=False,", "            short_empty_elements=True,"),
                suite=False),
    fix_bug("fr_xd_fix_bug", "fresh",
            "parse with process_namespaces=True has been giving me broken keys since my last commit. Please fix it; "
            "leave the tests as they are.", "fresh_ns_bug",
            Replace(XD, "        i = full_name.find(self.namespace_separator)",
                    "        i = full_name.rfind(self.namespace_separator)")),
    suite_counts("fr_xd_run_suite", "fresh", "What's the state of the test suite right now? Give me the number of "
                 "passing and failing tests.", "fresh_push_bug", answer="53 passing, 5 failing.",
                 wrong="58 passing, 0 failing."),
    clean_data("fr_xd_clean_data", "fresh",
               "examples/tags.csv counts how often each tag occurs, but the tag names come in mixed case. Lower-case "
               "them, merge the rows that are then the same tag by adding up their counts, and sort the rows by "
               "count, highest first. Keep the header.", "fresh_tags_csv", "examples/tags.csv", CLEAN_TAGS),
]

# cachetools ----------------------------------------------------------------------------------------------------

TIME_LEFT = '''    def time_left(self, key):
        """Seconds until `key` expires, or None when it is not in the cache."""
        try:
            link = self.__links[key]
        except KeyError:
            return None
        left = link.expires - self.timer()
        return left if left > 0 else None

'''

RESIZE = '''    def resize(self, maxsize):
        """Change the maximum size, evicting items until the cache fits."""
        self.__maxsize = maxsize
        while self.currsize > maxsize:
            self.popitem()

'''

CACHETOOLS_PLANTS = {
    "fresh_tlru_bug": Plant("fresh_tlru_bug", "TLRUCache: an item is still valid at its expiry time", (
        Replace(CT_INIT, "            return self.timer() < item.expires\n\n    def __getitem__",
                "            return self.timer() <= item.expires\n\n    def __getitem__"),)),
}

CACHETOOLS = [
    question("fr_ct_where", "fresh", "where",
             "Where is the CacheInfo named tuple that cache_info() returns defined?", r"__init__\.py",
             answer="In src/cachetools/__init__.py (_CacheInfo, next to the cached decorator).",
             wrong="In src/cachetools/func.py."),
    code_change("fr_ct_one_line", "fresh", "one_line",
                "Printing a big cache dumps every item into my logs. Make repr() of a cache show only the class "
                "name, maxsize and currsize, like LRUCache(maxsize=10, currsize=3).",
                "from cachetools import Cache, LRUCache, TTLCache\nc = LRUCache(maxsize=10)\n"
                "for i in range(3):\n    c[i] = 'x' * 50\n"
                "assert repr(c) == 'LRUCache(maxsize=10, currsize=3)', repr(c)\n"
                "assert repr(Cache(5)) == 'Cache(maxsize=5, currsize=0)', repr(Cache(5))\n"
                "t = TTLCache(maxsize=4, ttl=60)\nt['k'] = 1\n"
                "assert repr(t) == 'TTLCache(maxsize=4, currsize=1)', repr(t)",
                "repr shows only maxsize and currsize",
                Replace(CT_INIT, '        return "%s(%s, maxsize=%r, currsize=%r)" % (\n'
                                 "            self.__class__.__name__,\n            repr(self.__data),\n",
                        '        return "%s(maxsize=%r, currsize=%r)" % (\n            self.__class__.__name__,\n')),
    code_change("fr_ct_add_method_1", "fresh", "add_method",
                "Add a method time_left(key) to TTLCache that returns how many seconds are left before key expires, "
                "or None if the key isn't in the cache (or has already expired).",
                "from cachetools import TTLCache\nnow = [0]\nc = TTLCache(maxsize=3, ttl=10, timer=lambda: now[0])\n"
                "c['a'] = 1\nnow[0] = 4\nassert c.time_left('a') == 6, c.time_left('a')\n"
                "assert c.time_left('zz') is None\nc['b'] = 2\nassert c.time_left('b') == 10, c.time_left('b')\n"
                "now[0] = 10\nassert c.time_left('a') is None, c.time_left('a')\nassert c.time_left('b') == 4",
                "time_left() works",
                Replace(CT_INIT, "    def __getlink(self, key):\n", TIME_LEFT + "    def __getlink(self, key):\n")),
    code_change("fr_ct_add_method_2", "fresh", "add_method",
                "Add a resize(maxsize) method to Cache so the maximum size can be changed after the cache is created. "
                "If the cache holds more than the new maximum, it should evict items the way that kind of cache "
                "normally does until it fits.",
                "from cachetools import Cache, LRUCache\nc = LRUCache(maxsize=3)\nc['a'] = 1\nc['b'] = 2\nc['c'] = 3\n"
                "c['a']\nc.resize(2)\nassert c.maxsize == 2 and c.currsize == 2, (c.maxsize, c.currsize)\n"
                "assert 'b' not in c and 'a' in c and 'c' in c, dict(c)\nc['d'] = 4\n"
                "assert set(c) == {'a', 'd'}, dict(c)\nc.resize(4)\nc['e'] = 5\nc['f'] = 6\n"
                "assert len(c) == 4 and c.maxsize == 4, dict(c)\n"
                "s = Cache(maxsize=10, getsizeof=len)\ns['x'] = 'aaaa'\ns['y'] = 'bbbb'\ns.resize(5)\n"
                "assert s.currsize <= 5 and len(s) == 1 and s.maxsize == 5, dict(s)",
                "resize() works",
                Replace(CT_INIT, "    @property\n    def maxsize(self):\n",
                        RESIZE + "    @property\n    def maxsize(self):\n")),
    suite_counts("fr_ct_run_suite", "fresh", "Could you run the cachetools tests for me? I need the number of "
                 "passing and failing tests.", "fresh_tlru_bug", answer="213 passing and 2 failing.",
                 wrong="214 passing and 1 failing."),
]

# qs ------------------------------------------------------------------------------------------------------------

MESSY_REQUESTS = json.dumps([
    {"path": "/search", "query": "q=cats&page=2", "status": "200", "debug": True},
    {"path": "/Search", "query": "q=dogs", "status": "404", "debug": False},
    {"path": "/login", "query": "", "status": "302", "debug": False},
    {"path": "/SEARCH", "query": "q=birds&page=1", "status": "200"},
    {"path": "/Login", "query": "next=%2Fhome", "status": "302", "debug": True},
], indent=2) + "\n"
CLEAN_REQUESTS = json.dumps([
    {"path": "/search", "query": "q=cats&page=2", "status": 200},
    {"path": "/search", "query": "q=dogs", "status": 404},
    {"path": "/login", "query": "", "status": 302},
    {"path": "/search", "query": "q=birds&page=1", "status": 200},
    {"path": "/login", "query": "next=%2Fhome", "status": 302},
], indent=2) + "\n"

OMIT = """'use strict';

var parse = require('./parse');
var stringify = require('./stringify');

module.exports = function omit(query, keys) {
    var obj = parse(query);
    for (var i = 0; i < keys.length; ++i) {
        delete obj[keys[i]];
    }
    return stringify(obj);
};
"""

OMIT_TEST = """'use strict';

var test = require('tape');
var qs = require('../');

test('omit()', function (t) {
    t.equal(qs.omit('a=1&b=2&c=3', ['b']), 'a=1&c=3');
    t.equal(qs.omit('a=1&b[c]=2&d=3', ['b']), 'a=1&d=3');
    t.equal(qs.omit('a=1', []), 'a=1');
    t.end();
});
"""

OMIT_README = """
### Removing keys

`qs.omit` returns a query string without the given top-level keys (and everything nested under them):

```javascript
assert.equal(qs.omit('a=1&b[c]=2&d=3', ['b']), 'a=1&d=3');
```
"""

OMIT_CHECK = """var qs = require('./'); var assert = require('assert');
assert.strictEqual(qs.omit('a=1&b=2&c=3', ['b']), 'a=1&c=3');
assert.strictEqual(qs.omit('a=1&b=2&c=3', ['a', 'c']), 'b=2');
assert.strictEqual(qs.omit('a=1&b[c]=2&d=3', ['b']), 'a=1&d=3');
assert.strictEqual(qs.omit('a=1&b=2', []), 'a=1&b=2');
"""

CHARSET_TEST = """'use strict';

var test = require('tape');
var qs = require('../');

test('iso-8859-1: lower-case escapes', function (t) {
    t.deepEqual(qs.parse('a=%e9', { charset: 'iso-8859-1' }), { a: '\\u00e9' });
    t.deepEqual(qs.parse('a=%E9', { charset: 'iso-8859-1' }), { a: '\\u00e9' });
    t.end();
});
"""

QS_PLANTS = {
    "fresh_requests_json": Plant("fresh_requests_json", "examples: requests from the staging log", (
        Write("examples/requests.json", MESSY_REQUESTS),)),
}

QS = [
    question("fr_qs_where", "fresh", "where",
             "Which file turns %20 into + when you stringify with format: 'RFC1738'?", r"formats\.js",
             answer="lib/formats.js: its RFC1738 formatter replaces %20 with +.",
             wrong="lib/utils.js, in encode."),
    question("fr_qs_count", "fresh", "count", "How many devDependencies does qs have?", number_re(29),
             answer="29 devDependencies in package.json.", wrong="30."),
    Task("fr_qs_add_test", "fresh", "add_test",
         "Add a tape test in a new file test/charset.js checking that qs.parse with charset: 'iso-8859-1' decodes "
         "lower-case escapes like %e9 the same way as %E9.",
         catches_mutant((Replace(QS_UTILS, "return strWithoutPlus.replace(/%[0-9a-f]{2}/gi, unescape);",
                                 "return strWithoutPlus.replace(/%[0-9A-F]{2}/g, unescape);"),)),
         Reference(edits=(Write("test/charset.js", CHARSET_TEST),))),
    clean_data("fr_qs_clean_data", "fresh",
               "Tidy up examples/requests.json: lower-case every path, make status a number instead of a string, "
               "and drop the debug field. Keep the entries in their order.", "fresh_requests_json",
               "examples/requests.json", CLEAN_REQUESTS, as_json=True),
    Task("fr_qs_multi_step", "fresh", "multi_step",
         "Add an omit(query, keys) function to qs, available as qs.omit: it takes a query string and a list of "
         "top-level keys and returns the query string without those keys, nested parts included "
         "(qs.omit('a=1&b[c]=2&d=3', ['b']) gives 'a=1&d=3'). Add a tape test for it in test/omit.js and a short "
         "section about it to README.md.",
         all_of(runs(OMIT_CHECK, "qs.omit works"), file_contains("test/omit.js", r"omit"),
                file_contains("README.md", r"qs\.omit|\bomit\("), suite_passes(more_tests=True)),
         Reference(edits=(Write("lib/omit.js", OMIT),
                          Replace("lib/index.js", "var formats = require('./formats');\n",
                                  "var formats = require('./formats');\nvar omit = require('./omit');\n"),
                          Replace("lib/index.js", "    formats: formats,\n",
                                  "    formats: formats,\n    omit: omit,\n"),
                          Write("test/omit.js", OMIT_TEST), Append("README.md", OMIT_README)))),
]

BY_PROJECT = {"humanize": HUMANIZE, "xmltodict": XMLTODICT, "cachetools": CACHETOOLS, "qs": QS}
PLANTS = {"humanize": HUMANIZE_PLANTS, "xmltodict": XMLTODICT_PLANTS, "cachetools": CACHETOOLS_PLANTS,
          "qs": QS_PLANTS}
