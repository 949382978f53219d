"""The "new" half on pathspec 0.12.1: gitignore-style path matching in Python (a package of a few modules, a
pattern registry, tab-indented code), unittest-style tests run with pytest from a virtualenv outside the repo
that the developer has activated; the package is not installed (the tests import it from the checkout)."""

from __future__ import annotations

from benchreal.checks import all_of, number_re, runs, says, suite_passes
from benchreal.checks_text import data_kept, date_re, docstring_says, name_gone
from benchreal.spec import Append, Cut, Env, Plant, Project, Reference, Replace, Source, Suite, Task, Write

UTIL = "pathspec/util.py"
PATTERNS = "pathspec/patterns/__init__.py"


def tabs(text: str) -> str:
    """pathspec indents with tabs: the literals below are written with four spaces per level."""
    return text.replace("    ", "\t")


IS_HIDDEN = tabs('''

def is_hidden(file: StrPath) -> bool:
    """
    Returns whether any component of the normalized *file* path starts with
    a dot (a dotfile or a file inside a dot-directory).
    """
    return any(part.startswith('.') and part not in ('.', '..')
               for part in normalize_file(file).split('/'))
''')

IS_HIDDEN_TEST = tabs('''

class IsHiddenTest(unittest.TestCase):

    def test_dotfiles(self):
        from pathspec.util import is_hidden
        self.assertTrue(is_hidden('.git/config'))
        self.assertTrue(is_hidden('src/.env'))
        self.assertFalse(is_hidden('./src/app.py'))
''')

PROJECT = Project(
    name="pathspec",
    shape="Python: a package of modules (pathspec.py, gitignore.py, util.py, patterns/) with a registry of pattern "
          "styles; unittest-style tests run with pytest from an activated virtualenv outside the repo",
    why="real multi-module Python with its own conventions (tabs, a pattern registry, a deprecated API): a move "
        "between modules, a new pattern style registered like the others, a broken pyproject.toml, history",
    source=Source("pypi", "pathspec", "0.12.1", "a482d51503a1ab33b1c67a6c3813a26953dbdc71c31dacaef9a838c4e29f5712",
                  "pathspec-0.12.1", drop=("__pycache__", "*.pyc"), released="2023-12-10T09:00:00"),
    env=Env("active-venv", where="tmp", packages=("pytest==8.3.3", "iniconfig==2.0.0", "packaging==24.2",
                                                  "pluggy==1.5.0")),
    suite=Suite(("{python}", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--color=no", "tests"), "pytest",
                ("tests",)),
    plants={
        "is_hidden": Plant("is_hidden", "util: add is_hidden() for dotfiles and dot-directories",
                           (Append(UTIL, IS_HIDDEN),),
                           author="Priya Raman <priya.raman@fastmail.com>", date="2024-01-15T14:03:00"),
        "gitignore_comments": Plant("gitignore_comments", "gitignore: explain why negation needs the last match", (
            Replace("pathspec/gitignore.py", "class GitIgnoreSpec(PathSpec):\n",
                    "class GitIgnoreSpec(PathSpec):\n\t# Unlike PathSpec, the last matching pattern wins, so a later "
                    "'!pattern'\n\t# can re-include a file that an earlier pattern excluded.\n"),),
            author="Sam Okafor <sam@okafor.io>", date="2024-02-02T09:41:00"),
        "is_hidden_tests": Plant("is_hidden_tests", "tests: cover is_hidden", (
            Append("tests/test_01_util.py", IS_HIDDEN_TEST),),
            author="Sam Okafor <sam@okafor.io>", date="2024-02-20T16:25:00"),
        "broken_pyproject": Plant("broken_pyproject", "build: tidy pyproject.toml", (
            Replace("pyproject.toml", 'requires-python = ">=3.8"\n', 'requires-python = ">=3.8\n'),
            Replace("pyproject.toml", '\t"*.ini",\n', '\t"*.ini"\n')),
            author="Sam Okafor <sam@okafor.io>", date="2024-03-04T11:10:00"),
    },
)

COUNT_QUESTION = ("If I build spec = PathSpec.from_lines('gitwildmatch', ['*.py', '!setup.py', 'docs/', '/build']), "
                  "how many of these paths does spec.match_file() say yes to: a.py, setup.py, src/setup.py, "
                  "docs/index.md, src/docs/x.md, build/x, src/build/y, README.md, src/a.pyc? And which?")

MOVE_CHECK = """import pathspec, pathspec.util as u, pathspec._normalize as n
assert n.normalize_file('./a/b') == 'a/b' and n.normalize_file('/x') == 'x'
assert u.normalize_file is n.normalize_file, 'pathspec.util.normalize_file is not the moved function'
assert isinstance(n.NORMALIZE_PATH_SEPS, list)
assert pathspec.PathSpec.from_lines('gitwildmatch', ['*.py']).match_file('./a.py')
"""

NORMALIZE_MODULE = tabs('''"""
This module normalizes file paths to the POSIX form the patterns match.
"""

import os
import posixpath
import warnings
from typing import (
    Collection,
    Dict,
    Iterable,
    List,
    Optional,
    Union)

StrPath = Union[str, "os.PathLike[str]"]

''')

FNMATCH_CHECK = """from pathspec import PathSpec
spec = PathSpec.from_lines('fnmatch', ['*.py', 'docs/*'])
assert spec.match_file('a.py') and spec.match_file('docs/x.md'), 'fnmatch patterns do not match'
assert not spec.match_file('a.txt') and not spec.match_file('doc/x.md'), 'fnmatch patterns match too much'
"""

FNMATCH_MODULE = tabs('''"""
This module implements shell-style (:mod:`fnmatch`) patterns matched against
the whole normalized path.
"""

import fnmatch

from .. import util
from ..pattern import RegexPattern


class FnMatchPattern(RegexPattern):
    """
    The :class:`FnMatchPattern` class represents a shell-style glob.
    """

    # Keep the class dict-less.
    __slots__ = ()

    @classmethod
    def pattern_to_regex(cls, pattern):
        """
        Convert the pattern into a regular expression; blank lines and
        comments are null-operations.
        """
        if isinstance(pattern, bytes):
            pattern = pattern.decode('utf8')
        pattern = pattern.strip()
        if not pattern or pattern.startswith('#'):
            return None, None
        return fnmatch.translate(pattern), True


util.register_pattern('fnmatch', FnMatchPattern)
''')

FNMATCH_TEST = tabs('''"""
This script tests :class:`.FnMatchPattern`.
"""

import unittest

from pathspec import PathSpec


class FnMatchTest(unittest.TestCase):

    def test_globs(self):
        spec = PathSpec.from_lines('fnmatch', ['*.py', '# comment', '', 'docs/*'])
        self.assertTrue(spec.match_file('a.py'))
        self.assertTrue(spec.match_file('docs/index.md'))
        self.assertFalse(spec.match_file('a.txt'))
''')

TASKS = [
    Task("nw_ps_question", "new", "question", COUNT_QUESTION,
         says(number_re(4), r"src/docs/x\.md"),
         Reference(answer="4 of them: a.py, docs/index.md, src/docs/x.md and build/x.",
                   wrong="3: a.py, docs/index.md and build/x.")),
    Task("nw_ps_refactor", "new", "refactor",
         "util.py is way too long. Move normalize_file() and the deprecated normalize_files(), together with "
         "NORMALIZE_PATH_SEPS, into a new module pathspec/_normalize.py. util.py shouldn't define them any more, but "
         "`from pathspec.util import normalize_file` has to keep working since people import it from there.",
         all_of(runs(MOVE_CHECK, "normalize_file lives in pathspec/_normalize.py, still importable from util"),
                name_gone(r"(?m)^def normalize_files?\(|^NORMALIZE_PATH_SEPS\s*=", UTIL), suite_passes()),
         Reference(edits=(Write("pathspec/_normalize.py", NORMALIZE_MODULE),
                          Cut(UTIL, "NORMALIZE_PATH_SEPS = [", "_registered_patterns = {}", "pathspec/_normalize.py"),
                          Cut(UTIL, "def normalize_file(", "def register_pattern(", "pathspec/_normalize.py"),
                          Replace(UTIL, "from .pattern import (\n\tPattern)\n",
                                  "from .pattern import (\n\tPattern)\nfrom ._normalize import (\n"
                                  "\tNORMALIZE_PATH_SEPS,\n\tnormalize_file,\n\tnormalize_files)\n")),
                   wrong_edits=(Write("pathspec/_normalize.py", NORMALIZE_MODULE + "from .util import (\n"
                                      "\tNORMALIZE_PATH_SEPS,\n\tnormalize_file,\n\tnormalize_files)\n"),))),
    Task("nw_ps_history", "new", "history",
         "When was is_hidden() added to pathspec/util.py, and who wrote it?",
         says(date_re("2024-01-15"), r"Priya|Raman"),
         Reference(answer="It came in with \"util: add is_hidden() for dotfiles and dot-directories\" by Priya Raman "
                          "on 2024-01-15.",
                   wrong="Sam Okafor added it on 2024-02-20 (\"tests: cover is_hidden\")."),
         ("is_hidden", "gitignore_comments", "is_hidden_tests")),
    Task("nw_ps_data_file", "new", "data_file",
         "`pip install -e .` now dies with\n\n    tomllib.TOMLDecodeError: Illegal character '\\n' (at line 31, "
         "column 25)\n\nI must have mangled pyproject.toml when I tidied it up. Can you repair it? Every setting "
         "should stay exactly what it was.",
         data_kept("pyproject.toml", "toml"),
         Reference(edits=(Replace("pyproject.toml", 'requires-python = ">=3.8\n', 'requires-python = ">=3.8"\n'),
                          Replace("pyproject.toml", '\t"*.ini"\n', '\t"*.ini",\n')),
                   wrong_edits=(Replace("pyproject.toml", 'requires-python = ">=3.8\n',
                                        'requires-python = ">=3.8"\n'),
                                Replace("pyproject.toml", '\t"*.ini"\n', ''))),
         ("broken_pyproject",)),
    Task("nw_ps_docs", "new", "docs",
         "The docstring of util.normalize_file only says it removes a leading \"/\". It also strips a leading "
         "\"./\" — can you add that to the docstring?",
         docstring_says(UTIL, "normalize_file", r'\./'),
         Reference(edits=(Replace(UTIL, '\t``"/"``), and make the paths relative (remove leading ``"/"``).\n',
                                  '\t``"/"``), and make the paths relative (remove leading ``"/"``, and a\n'
                                  '\tleading ``"./"`` for the current directory).\n'),),
                   wrong_edits=(Replace(UTIL, "\t\t# Remove current directory prefix.\n",
                                        "\t\t# Remove current directory prefix (a leading \"./\").\n"),))),
    Task("nw_ps_scaffold", "new", "scaffold",
         "I'd like a plain shell-glob pattern style next to gitwildmatch: 'fnmatch', where each line is matched "
         "against the whole path with Python's fnmatch rules (blank lines and # comments ignored). Add it as a "
         "new module under pathspec/patterns/, registered the way gitwildmatch is, so that "
         "PathSpec.from_lines('fnmatch', lines) works, and add a test file for it.",
         all_of(runs(FNMATCH_CHECK, "PathSpec.from_lines('fnmatch', ...) matches shell globs"),
                suite_passes(more_tests=True)),
         Reference(edits=(Write("pathspec/patterns/fnmatchpattern.py", FNMATCH_MODULE),
                          Append(PATTERNS, "from . import fnmatchpattern\n"),
                          Write("tests/test_05_fnmatch.py", FNMATCH_TEST)),
                   wrong_edits=(Write("pathspec/patterns/fnmatchpattern.py", FNMATCH_MODULE),
                                Write("tests/test_05_fnmatch.py", FNMATCH_TEST)))),
]
PROJECT.tasks = TASKS
