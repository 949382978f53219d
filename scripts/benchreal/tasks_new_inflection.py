"""The "new" half on inflection 0.5.1: a one-module Python library (a port of Rails' inflector) with one big
pytest file at the top of the repo, its own virtualenv in .venv/ (the package installed editable)."""

from __future__ import annotations

from benchreal.checks import all_of, catches_mutant, runs, says, suite_passes
from benchreal.checks_text import name_gone
from benchreal.spec import Append, Env, Plant, Project, Reference, Replace, ReplaceAll, Source, Suite, Task

PKG = "inflection/__init__.py"
TESTS = "test_inflection.py"

PROJECT = Project(
    name="inflection",
    shape="Python: one module (inflection/__init__.py) and one pytest file at the top; .venv/ in the repo with the "
          "package installed editable (setup.py)",
    why="a small, much-used library whose whole API is string functions: questions can be answered by running "
        "them, and a rename touches code, docstrings, tests and the Sphinx docs",
    source=Source("pypi", "inflection", "0.5.1", "1a29730d366e996aaacffb2f1f1cb9593dc38e2ddd30c91250c6dde09ea9b417",
                  "inflection-0.5.1", drop=("*.egg-info", "__pycache__", "*.pyc"), released="2020-08-22T10:00:00"),
    env=Env("repo-venv", editable=True, packages=(
        "pytest==8.3.3", "iniconfig==2.0.0", "packaging==24.2", "pluggy==1.5.0", "setuptools==75.6.0",
        "wheel==0.45.1")),
    suite=Suite(("{python}", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--color=no", TESTS), "pytest",
                (TESTS,)),
    plants={
        "ordinal_bug": Plant("ordinal_bug", "ordinal: simplify the teens check", (
            Replace(PKG, "    if number % 100 in (11, 12, 13):", "    if number % 10 in (11, 12, 13):"),),
            author="Tomasz Wierzbicki <tomasz@wierzbicki.dev>", date="2021-03-02T18:12:00"),
    },
)

ORDINAL_FAILURE = """FAILED test_inflection.py::test_ordinal[11-11th] - AssertionError: assert '11th' == '11st'
FAILED test_inflection.py::test_ordinal[12-12th] - AssertionError: assert '12th' == '12nd'
FAILED test_inflection.py::test_ordinal[13-13th] - AssertionError: assert '13th' == '13rd'
FAILED test_inflection.py::test_ordinalize[11-11th] - AssertionError: assert '11th' == '11st'"""

CAMELIZE = '        return re.sub(r"(?:^|_)(.)", lambda m: m.group(1).upper(), string)'
HUMANIZE_ID = '    word = re.sub(r"_id$", "", word)'

CAMELIZE_CHECK = """import inflection as i
assert i.camelize('foo-bar') == 'FooBar', i.camelize('foo-bar')
assert i.camelize('foo-bar_baz') == 'FooBarBaz', i.camelize('foo-bar_baz')
assert i.camelize('foo-bar', False) == 'fooBar', i.camelize('foo-bar', False)
assert i.camelize('device_type') == 'DeviceType'
"""

KEBAB_CHECK = """import inflection as i
assert i.kebabize('puni_puni') == 'puni-puni'
assert not hasattr(i, 'dasherize'), 'dasherize is still there'
"""

HUMANIZE_TEST = '''

def test_humanize_strips_id_only_at_the_end():
    assert inflection.humanize("user_id_card") == "User id card"
    assert inflection.humanize("author_id") == "Author"
'''

TASKS = [
    Task("nw_inf_question", "new", "question",
         "Quick one: what exactly does inflection.parameterize('Crème brûlée & Co.', '_') return?",
         says(r"creme_brulee_co(?!\w)"),
         Reference(answer="It returns 'creme_brulee_co'.", wrong="It returns 'crème_brûlée_&_co.'")),
    Task("nw_inf_refactor", "new", "refactor",
         "Let's call it kebab case like everyone else: rename dasherize() to kebabize() across the project — the "
         "function, the tests, the docs. No need to keep the old name as an alias.",
         all_of(runs(KEBAB_CHECK, "kebabize works and dasherize is gone"),
                name_gone(r"\bdasherize\b", "*.py", "*.rst"), suite_passes()),
         Reference(edits=(ReplaceAll(PKG, "dasherize", "kebabize"), ReplaceAll(TESTS, "dasherize", "kebabize"),
                          ReplaceAll("docs/index.rst", "dasherize", "kebabize")),
                   wrong_edits=(ReplaceAll(PKG, "dasherize", "kebabize"),))),
    Task("nw_inf_fix", "new", "fix",
         "pytest is red after the last commit:\n\n" + ORDINAL_FAILURE + "\n\n(and more like these). Can you fix it?",
         suite_passes(tests_untouched=True),
         Reference(edits=(Replace(PKG, "    if number % 10 in (11, 12, 13):", "    if number % 100 in (11, 12, 13):"),),
                   wrong_edits=(Replace(PKG, "    if number % 10 in (11, 12, 13):",
                                        "    if number in (11, 12, 13):"),)),
         ("ordinal_bug",)),
    Task("nw_inf_change", "new", "change",
         "camelize leaves dashes alone, so camelize('foo-bar') gives 'Foo-bar'. I want dashes treated just like "
         "underscores there (-> 'FooBar', and 'fooBar' with uppercase_first_letter=False).",
         all_of(runs(CAMELIZE_CHECK, "camelize treats dashes like underscores"), suite_passes()),
         Reference(edits=(Replace(PKG, CAMELIZE, CAMELIZE.replace("(?:^|_)", "(?:^|[_-])")),),
                   wrong_edits=(Replace(PKG, CAMELIZE, CAMELIZE.replace("string)", "string).replace('-', '')")),))),
    Task("nw_inf_add_test", "new", "add_test",
         "humanize() is only supposed to drop '_id' when it's at the very end ('user_id_card' should come out as "
         "'User id card'), but nothing tests that. Please add a test for it.",
         catches_mutant((Replace(PKG, HUMANIZE_ID, HUMANIZE_ID.replace('_id$', '_id')),)),
         Reference(edits=(Append(TESTS, HUMANIZE_TEST),),
                   wrong_edits=(ReplaceAll(TESTS, "def test_tableize(", "def test_humanize_plain():\n    assert "
                                           "inflection.humanize('author_id') == 'Author'\n\n\ndef test_tableize("),))),
]
PROJECT.tasks = TASKS
