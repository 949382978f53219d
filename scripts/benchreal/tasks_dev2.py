"""A second "dev" set (session 12): tasks of the kinds the pipelines handle that the older halves do not have
(refactor, history, docs, data repair, a changed default), on the same four projects. For tuning the pipelines;
written by the lead, so it says nothing about unseen work (the "new" half does).
"""

from __future__ import annotations

from benchreal.checks import all_of, runs, suite_passes
from benchreal.checks_text import data_is, docstring_says, name_gone, names_commit, section_says
from benchreal.spec import Append, Cut, Plant, Reference, Replace, ReplaceAll, Task, Write

HZ_TIME = "src/humanize/time.py"
BROKEN_JSON = '{\n  "name": "feeds",\n  "sources": ["rss", "atom",],\n  // the default\n  "limit": 20,\n}\n'
FIXED_JSON = {"name": "feeds", "sources": ["rss", "atom"], "limit": 20}

PLANTS = {
    "humanize": {
        "time_history": Plant("time_history", "time: precisedelta accepts a suppress list", (
            Append(HZ_TIME, "\n# precisedelta: suppress takes any iterable of unit names\n"),),
            author="Ana Ruiz <ana@example.invalid>", date="2024-03-05T10:00:00+00:00"),
        "readme_history": Plant("readme_history", "README: typo in the install line", (
            Append("README.md", "\n"),), author="Bo Chen <bo@example.invalid>", date="2024-04-01T09:00:00+00:00"),
    },
    "xmltodict": {
        "broken_json": Plant("broken_json", "examples: feed settings", (Write("examples/feeds.json", BROKEN_JSON),)),
    },
    "cachetools": {
        "ttl_history": Plant("ttl_history", "func: ttl_cache keeps its timer per call", (
            Append("src/cachetools/func.py", "\n# ttl_cache: the timer is read once per call\n"),),
            author="Ines Park <ines@example.invalid>", date="2023-11-20T15:30:00+00:00"),
    },
    "qs": {},
}

TASKS = {
    "humanize": [
        Task("dev2_hz_rename", "dev", "refactor", "Rename the function naturaldelta to natural_delta everywhere, "
             "tests included.",
             all_of(name_gone(r"\bnaturaldelta\b", "src/*.py", "src/**/*.py", "tests/*.py"),
                    runs("from humanize import natural_delta\nimport datetime as d\n"
                         "assert natural_delta(d.timedelta(seconds=30)) == '30 seconds'", "natural_delta works"),
                    suite_passes()),
             Reference(edits=tuple(ReplaceAll(p, "naturaldelta", "natural_delta") for p in (
                 HZ_TIME, "src/humanize/__init__.py", "tests/test_time.py", "tests/test_i18n.py")))),
        Task("dev2_hz_history", "dev", "history", "Who last changed src/humanize/time.py, and in which commit?",
             names_commit("suppress list", r"Ana Ruiz"), Reference(answer="Ana Ruiz, in 'time: precisedelta "
                                                                              "accepts a suppress list'.",
                                                                       wrong="Bo Chen, in the README typo commit."),
             ("time_history", "readme_history")),
        Task("dev2_hz_docstring", "dev", "docs", "In the docstring of intword, add a sentence saying that negative "
             "numbers keep their minus sign.",
             docstring_says("src/humanize/number.py", "intword", r"negative", r"minus|sign"),
             Reference(edits=(Replace("src/humanize/number.py", '    """Converts a large integer to a friendly text '
                                      'representation.', '    """Converts a large integer to a friendly text '
                                      'representation. Negative numbers keep their minus sign.'),))),
    ],
    "xmltodict": [
        Task("dev2_xd_repair", "dev", "data_file", "examples/feeds.json does not load any more. Repair it, keeping "
             "every setting.", data_is("examples/feeds.json", FIXED_JSON),
             Reference(edits=(Write("examples/feeds.json", '{\n  "name": "feeds",\n  "sources": ["rss", "atom"],\n'
                                    '  "limit": 20\n}\n'),)), ("broken_json",)),
        Task("dev2_xd_move", "dev", "refactor", "Move the function _process_namespace out of xmltodict.py into a new "
             "module xmltodict_ns.py, and have xmltodict.py import it from there.",
             all_of(runs("import xmltodict, xmltodict_ns\n"
                         "assert xmltodict._process_namespace is xmltodict_ns._process_namespace",
                         "xmltodict uses the moved function"), suite_passes()),
             Reference(edits=(Cut("xmltodict.py", "def _process_namespace(", "def _emit(", "xmltodict_ns.py"),
                              Replace("xmltodict.py", "class ParsingInterrupted(Exception):",
                                      "from xmltodict_ns import _process_namespace\n\n\n"
                                      "class ParsingInterrupted(Exception):")))),
    ],
    "cachetools": [
        Task("dev2_ct_default", "dev", "change", "Change the default ttl of cachetools.func.ttl_cache from 600 to 300 "
             "seconds.",
             all_of(runs("import inspect, cachetools.func as f\n"
                         "assert inspect.signature(f.ttl_cache).parameters['ttl'].default == 300",
                         "the default is 300"), suite_passes()),
             Reference(edits=(Replace("src/cachetools/func.py", "def ttl_cache(maxsize=128, ttl=600,",
                                      "def ttl_cache(maxsize=128, ttl=300,"),))),
        Task("dev2_ct_history", "dev", "history", "When was ttl_cache's timer last changed, and by whom?",
             names_commit("timer per call", r"Ines Park", r"2023"),
             Reference(answer="In 'func: ttl_cache keeps its timer per call' by Ines Park on 2023-11-20.",
                       wrong="It has not changed since the release."), ("ttl_history",)),
        Task("dev2_ct_readme", "dev", "docs", "Add a section 'Thread safety' to README.rst that says the caches are "
             "not thread-safe and that callers must hold a lock when threads share a cache.",
             section_says("README.rst", r"Thread safety", r"lock", r"thread"),
             Reference(edits=(Append("README.rst", "\n\nThread safety\n=============\n\nThe caches are not "
                                     "thread-safe: when threads share a cache, callers must hold a lock.\n"),))),
    ],
    "qs": [
        Task("dev2_qs_rename", "dev", "refactor", "Rename the utility function isRegExp to isRegex in lib/utils.js "
             "and wherever it is used.",
             all_of(name_gone(r"\bisRegExp\b", "lib/*.js", "test/*.js"), suite_passes()),
             Reference(edits=(ReplaceAll("lib/utils.js", "isRegExp", "isRegex"),
                              ReplaceAll("lib/parse.js", "isRegExp", "isRegex")))),
    ],
}


BY_PROJECT = TASKS
