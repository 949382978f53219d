"""xmltodict 0.13.0: one module at the repo root (flat), unittest-style tests run with nose2 (no pytest in its
environment); an activated virtualenv outside the repo, under the run's work dir in /tmp, installed editable."""

from __future__ import annotations

import json

from benchreal.checks import all_of, catches_mutant, number_re, runs
from benchreal.kinds import clean_data, code_change, fix_bug, question, suite_counts
from benchreal.spec import Append, Env, Plant, Project, Reference, Replace, Source, Suite, Task, Write

MOD = "xmltodict.py"
MESSY_FEEDS = json.dumps([
    {"name": " Planet Python ", "url": "https://planetpython.org/rss20.xml "},
    {"name": "Python Insider", "url": " https://pythoninsider.blogspot.com/feeds/posts/default"},
    {"name": "Empty feed", "url": ""},
    {"name": "Planet Python", "url": "https://planetpython.org/rss20.xml"},
    {"name": "  Real Python", "url": "https://realpython.com/atom.xml"},
    {"name": "No url"},
    {"name": "Python Insider ", "url": "https://pythoninsider.blogspot.com/feeds/posts/default "},
], indent=2) + "\n"
CLEAN_FEEDS = json.dumps([
    {"name": "Planet Python", "url": "https://planetpython.org/rss20.xml"},
    {"name": "Python Insider", "url": "https://pythoninsider.blogspot.com/feeds/posts/default"},
    {"name": "Real Python", "url": "https://realpython.com/atom.xml"},
], indent=2) + "\n"

PROJECT = Project(
    name="xmltodict",
    shape="flat: one module at the repo root, setup.py; unittest-style tests run with nose2 (tests_require), "
          "no pytest installed; an activated virtualenv outside the repo (under /tmp), installed editable",
    why="the classic single-module layout, and a suite its developers run with nose2/unittest, not pytest",
    source=Source("pypi", "xmltodict", "0.13.0", "341595a488e3e01a85a9d8911d8912fd922ede5fecc4dce437eb4b6c8d037e56",
                  "xmltodict-0.13.0", drop=("*.egg-info", "__pycache__", "*.pyc")),
    env=Env("active-venv", editable=True, where="tmp", packages=("nose2==0.15.1", "setuptools==75.6.0", "wheel==0.45.1")),
    suite=Suite(("{bin}/nose2",), "unittest", ("tests",)),
    plants={
        "force_list_bug": Plant("force_list_bug", "parse: simpler force_list check", (
            Replace(MOD, "            return key in self.force_list", "            return key not in self.force_list"),)),
        "cdata_bug": Plant("cdata_bug", "parse: shorter default text key", (
            Replace(MOD, "                 cdata_key='#text',\n                 force_cdata=False,",
                    "                 cdata_key='#txt',\n                 force_cdata=False,"),)),
        "messy_feeds": Plant("messy_feeds", "examples: feeds for the demo", (Write("examples/feeds.json", MESSY_FEEDS),)),
    },
)

RESET = '''        self.comment_key = comment_key

    def reset(self):
        """Forget the document parsed so far, so the handler can be reused."""
        self.path = []
        self.stack = []
        self.data = []
        self.item = None
'''

COMMENT_TEST = '''

class CommentWhitespaceTestCase(unittest.TestCase):
    def test_comment_whitespace_kept(self):
        xml = '<a><!-- padded --></a>'
        parsed = parse(xml, process_comments=True, strip_whitespace=False)
        self.assertEqual(parsed['a']['#comment'], ' padded ')
'''

TASKS = [
    question("xd_behaviour_attr_prefix", "tune", "behaviour",
             "By default, what prefix does xmltodict.parse put in front of attribute names in the dict it returns?",
             r"@", answer="Attributes become keys prefixed with '@' (attr_prefix='@').",
             wrong="They get the prefix '#', like '#text'."),
    question("xd_behaviour_two_roots", "heldout", "behaviour",
             "What happens if I call xmltodict.unparse on a dict with two top-level keys?",
             r"ValueError|exactly one root", answer="It raises ValueError('Document must have exactly one root.').",
             wrong="It wraps both keys in a <root> element."),
    question("xd_where_unparse", "tune", "where", "Which function turns a dict back into XML, and in which file is it?",
             r"\bunparse\b", r"xmltodict\.py", answer="unparse, in xmltodict.py.",
             wrong="parse, in tests/test_dicttoxml.py."),
    question("xd_count_handler_methods", "heldout", "count", "How many methods does the _DictSAXHandler class have?",
             number_re(10), answer="10 methods.", wrong="It has 9 methods."),
    Task("xd_one_line_indent", "tune", "one_line",
         "Make the pretty-printed output of unparse indent with two spaces instead of a tab by default.",
         all_of(runs("import xmltodict\nout = xmltodict.unparse({'a': {'b': '1'}}, pretty=True)\n"
                     "assert '\\n  <b>1</b>' in out and '\\t' not in out, repr(out)\n"
                     "assert '\\t<b>' in xmltodict.unparse({'a': {'b': '1'}}, pretty=True, indent='\\t')",
                     "unparse(pretty=True) indents with two spaces"),),
         Reference(edits=(Replace(MOD, "          indent='\\t',", "          indent='  ',"),))),
    code_change("xd_add_method_reset", "heldout", "add_method",
                "Add a reset() method to _DictSAXHandler in xmltodict.py that empties path, stack and data and sets "
                "item back to None, so one handler can be reused.",
                "import xmltodict\nh = xmltodict._DictSAXHandler()\n"
                "h.path = ['a']\nh.stack = [({}, [])]\nh.data = ['x']\nh.item = {'a': 1}\nh.reset()\n"
                "assert h.path == [] and h.stack == [] and h.data == [] and h.item is None, vars(h)\n"
                "assert xmltodict.parse('<a>1</a>') == {'a': '1'}", "reset() works",
                Replace(MOD, "        self.comment_key = comment_key\n", RESET)),
    Task("xd_add_test_comments", "heldout", "add_test",
         "Add a test to tests/test_xmltodict.py checking that parse keeps the whitespace around a comment when it "
         "is called with process_comments=True and strip_whitespace=False.",
         catches_mutant((Replace(MOD, "        if self.strip_whitespace:\n            data = data.strip()\n"
                                      "        self.item = self.push_data(self.item, self.comment_key, data)",
                                 "        data = data.strip()\n"
                                 "        self.item = self.push_data(self.item, self.comment_key, data)"),)),
         Reference(edits=(Append("tests/test_xmltodict.py", COMMENT_TEST),))),
    fix_bug("xd_fix_force_list", "tune",
            "The test suite fails since my last commit. Fix the bug in xmltodict.py; don't edit the tests.",
            "force_list_bug",
            Replace(MOD, "            return key not in self.force_list", "            return key in self.force_list")),
    clean_data("xd_clean_feeds", "tune",
               "examples/feeds.json is messy. Clean it in place: trim the whitespace around every string, drop the "
               "entries that have no url (missing or empty), and remove duplicate entries, keeping the first one "
               "and the order.", "messy_feeds", "examples/feeds.json", CLEAN_FEEDS, as_json=True),
    suite_counts("xd_run_suite", "heldout", "Run the test suite. How many tests pass and how many fail?",
                 "cdata_bug", answer="46 pass and 12 fail.", wrong="58 pass, 0 fail."),
]
PROJECT.tasks = TASKS
