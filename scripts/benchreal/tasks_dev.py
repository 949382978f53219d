"""A third, "dev" half: tasks written in session 7 (after two sessions in which fixes moved the tune half and
not the held-out half), of the kinds the held-out half fails, on new targets in the same four projects.

They are for finding failure classes the tune half no longer shows; the held-out half stays untouched and is
the figure reported. Each project's dev tasks are appended to its task list (``projects.py``).
"""

from __future__ import annotations

from benchreal.checks import catches_mutant, number_re, runs
from benchreal.kinds import code_change, question
from benchreal.spec import Append, Reference, Replace, Task

HZ_NUMBER = "src/humanize/number.py"
CT_INIT = "src/cachetools/__init__.py"

FIRST_KEY = '''
    def first_key(self):
        """The key the next eviction removes (the first inserted), or None when empty."""
        return next(iter(self.__order), None)
'''

ISEMPTY = """
var isEmpty = function isEmpty(obj) {
    return Object.keys(obj).length === 0;
};
"""

ISEMPTY_TEST = """
test('isEmpty()', function (t) {
    t.equal(utils.isEmpty({}), true, 'an empty object');
    t.equal(utils.isEmpty({ a: 1 }), false, 'an object with a key');
    t.end();
});
"""

HUMANIZE = [
    code_change("dev_hz_one_line_metric", "dev", "one_line",
                "Make humanize's metric function show four significant digits by default instead of three.",
                "from humanize import metric\nassert metric(1500, 'V') == '1.500 kV', metric(1500, 'V')\n"
                "assert metric(1500, 'V', precision=3) == '1.50 kV'",
                "metric(1500, 'V') == '1.500 kV'",
                Replace(HZ_NUMBER, 'def metric(value: float, unit: str = "", precision: int = 3) -> str:',
                        'def metric(value: float, unit: str = "", precision: int = 4) -> str:'), suite=False),
    question("dev_hz_count_time", "dev", "count", "How many public functions does src/humanize/time.py define?",
             number_re(5), answer="5: naturaldelta, naturaltime, naturalday, naturaldate and precisedelta.",
             wrong="It defines 4 public functions."),
    Task("dev_hz_add_test_negative", "dev", "add_test",
         "Add a test to tests/test_number.py checking that intcomma handles negative numbers "
         "(for example -1234567 gives '-1,234,567').",
         catches_mutant((Replace(HZ_NUMBER, r'new = re.sub(r"^(-?\d+)(\d{3})"', r'new = re.sub(r"^(\d+)(\d{3})"'),)),
         Reference(edits=(Append("tests/test_number.py",
                                 "\n\ndef test_intcomma_negative() -> None:\n"
                                 "    assert humanize.intcomma(-1234567) == '-1,234,567'\n"),))),
]

XMLTODICT = [
    code_change("dev_xd_one_line_cdata", "dev", "one_line",
                "Make xmltodict.parse use '$text' instead of '#text' as the default key for an element's text.",
                "import xmltodict\nd = xmltodict.parse('<a x=\"1\">t</a>')\nassert d == {'a': {'@x': '1', '$text': 't'}}, d",
                "parse keeps text under '$text'",
                Replace("xmltodict.py", "                 cdata_key='#text',\n                 force_cdata=False,",
                        "                 cdata_key='$text',\n                 force_cdata=False,"), suite=False),
    question("dev_xd_count_tests", "dev", "count", "How many test methods are there in tests/test_dicttoxml.py?",
             number_re(25), answer="There are 25 test methods.", wrong="There are 24 test methods."),
]

CACHETOOLS = [
    code_change("dev_ct_add_method_first_key", "dev", "add_method",
                "Add a method first_key() to FIFOCache that returns the key the next eviction would remove (the "
                "oldest one), or None when the cache is empty.",
                "from cachetools import FIFOCache\nc = FIFOCache(maxsize=2)\nassert c.first_key() is None\n"
                "c['a'] = 1\nc['b'] = 2\nassert c.first_key() == 'a', c.first_key()\nc['c'] = 3\n"
                "assert c.first_key() == 'b', c.first_key()", "first_key() works",
                Replace(CT_INIT, "\n\nclass LFUCache(Cache):", FIRST_KEY.rstrip("\n") + "\n\n\nclass LFUCache(Cache):")),
]

QS = [
    code_change("dev_qs_one_line_delimiter", "dev", "one_line",
                "Make qs.stringify join the parameters with ';' by default instead of '&'.",
                "var qs = require('./'); var s = qs.stringify({ a: 1, b: 2 });\n"
                "if (s !== 'a=1;b=2') { throw new Error(s); }\n"
                "if (qs.parse('a=1&b=2').b !== '2') { throw new Error('parse changed'); }",
                "qs.stringify({a: 1, b: 2}) === 'a=1;b=2'",
                Replace("lib/stringify.js", "    delimiter: '&',\n    encode: true,", "    delimiter: ';',\n    encode: true,"),
                suite=False),
    question("dev_qs_count_defaults", "dev", "count", "How many options does the defaults object in lib/stringify.js have?",
             number_re(17), answer="17 options.", wrong="It has 16 options."),
    Task("dev_qs_add_test_isregexp", "dev", "add_test",
         "Add a test to test/utils.js checking that utils.isRegExp is true for /a/ and false for the string 'a'.",
         catches_mutant((Replace("lib/utils.js", "    return Object.prototype.toString.call(obj) === '[object RegExp]';",
                                 "    return false;"),)),
         Reference(edits=(Append("test/utils.js",
                                 "\ntest('isRegExp()', function (t) {\n    t.equal(utils.isRegExp(/a/), true);\n"
                                 "    t.equal(utils.isRegExp('a'), false);\n    t.end();\n});\n"),))),
    code_change("dev_qs_multi_isempty", "dev", "multi_step",
                "Add a function isEmpty(obj) to lib/utils.js that returns true when an object has no own keys, "
                "export it with the other utils, and add a test for it in test/utils.js.",
                "var u = require('./lib/utils');\nif (u.isEmpty({}) !== true || u.isEmpty({ a: 1 }) !== false) "
                "{ throw new Error('isEmpty is wrong'); }",
                "utils.isEmpty works and is exported",
                Replace("lib/utils.js", "\nmodule.exports = {\n", ISEMPTY + "\nmodule.exports = {\n    isEmpty: isEmpty,\n"),
                Append("test/utils.js", ISEMPTY_TEST), test_file="test/utils.js", test_mentions=r"isEmpty"),
]

BY_PROJECT = {"humanize": HUMANIZE, "xmltodict": XMLTODICT, "cachetools": CACHETOOLS, "qs": QS}
