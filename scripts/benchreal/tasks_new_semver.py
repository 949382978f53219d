"""The "new" half on semver 3.0.2 (python-semver): a src/ layout package with a CLI (pysemver), pytest with
pytest-cov and doctests of the modules and the .rst docs (its setup.cfg's addopts); not installed: the developer
runs it with PYTHONPATH=src and pytest from a virtualenv's bin/ on PATH."""

from __future__ import annotations

import json

from benchreal.checks import all_of, file_contains, runs, says, suite_passes
from benchreal.checks_text import data_is
from benchreal.kinds import suite_counts
from benchreal.spec import Append, Env, Plant, Project, Reference, Replace, Source, Suite, Task, Write

VERSION = "src/semver/version.py"
CLI = "src/semver/cli.py"
CLI_TESTS = "tests/test_pysemver-cli.py"

RELEASES = [
    {"version": "2.10.0", "date": "2020-05-05"}, {"version": "3.0.0", "date": "2023-04-02"},
    {"version": "2.9.1", "date": "2020-02-02"}, {"version": "3.0.0-rc.1", "date": "2023-01-21"},
    {"version": "2.13.0", "date": "2020-10-20"}, {"version": "2.10.0", "date": "2020-05-05"},
    {"version": "3.0.1", "date": "2023-06-14"}, {"version": "2.9.0", "date": "2019-10-30"},
    {"version": "3.0.0-dev.4", "date": "2022-12-18"}, {"version": "3.0.2", "date": "2023-10-09"},
    {"version": "3.0.1", "date": "2023-06-14"}, {"version": "2.10.2", "date": "2020-06-15"},
]
SORTED = [RELEASES[i] for i in (7, 2, 0, 11, 4, 8, 3, 1, 6, 9)]
# sorted as strings: "2.10.0" before "2.9.0"
STRING_SORTED = sorted((dict(t) for t in {tuple(r.items()) for r in RELEASES}), key=lambda r: r["version"])

IS_PRERELEASE = '''
    @property
    def is_prerelease(self) -> bool:
        """
        Whether this is a pre-release (it has a prerelease part).

        >>> Version.parse("1.0.0-rc.1").is_prerelease
        True
        """
        return self._prerelease is not None

    def to_tuple(self) -> VersionTuple:'''

PROJECT = Project(
    name="semver",
    shape="Python: src/semver/ (version.py, cli.py, deprecated functions); pytest with coverage and doctests of "
          "the code and the .rst docs; PYTHONPATH=src and pytest from a virtualenv outside the repo",
    why="a src-layout package whose test run includes its docs (doctests) and coverage, with a CLI built from "
        "one cmd_ function per subcommand: questions, a keyword parameter, a new subcommand, a data file",
    source=Source("pypi", "semver", "3.0.2", "6253adb39c70f6e51afed2fa7152bcd414c411286088fb4b9effb133885ab4cc",
                  "semver-3.0.2", drop=("*.egg-info", "__pycache__", "*.pyc"), released="2023-10-09T12:00:00"),
    env=Env("pythonpath", where="cache", packages=(
        "pytest==8.3.3", "iniconfig==2.0.0", "packaging==24.2", "pluggy==1.5.0", "pytest-cov==5.0.0",
        "coverage==7.6.8")),
    suite=Suite(("{python}", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--color=no"), "pytest", ("tests",)),
    plants={
        "compatible_bug": Plant("compatible_bug", "is_compatible: a newer minor only", (
            Replace(VERSION, "            and (other.minor >= self.minor)",
                    "            and (other.minor > self.minor)"),),
            author="Jonas Brandt <jonas.brandt@posteo.de>", date="2024-01-09T10:20:00"),
        "releases_json": Plant("releases_json", "add release-history.json (pasted from the PyPI page)", (
            Write("release-history.json", json.dumps(RELEASES, indent=2) + "\n"),),
            author="Jonas Brandt <jonas.brandt@posteo.de>", date="2024-02-11T19:02:00"),
        "docs_typo": Plant("docs_typo", "changelog: note the compare-versions typo fix", (
            Append("changelog.d/pr-401.doc.rst", "Fix a typo in the compare-versions page.\n"),),
            author="Lena Fischer <lena@fischer.dev>", date="2024-03-01T08:30:00"),
        "is_prerelease": Plant("is_prerelease", "Version: add is_prerelease", (
            Replace(VERSION, "\n    def to_tuple(self) -> VersionTuple:", IS_PRERELEASE),
            Write("changelog.d/pr-402.feature.rst", "Add :attr:`Version.is_prerelease`.\n")),
            author="Lena Fischer <lena@fischer.dev>", date="2024-03-05T17:45:00"),
    },
)

TO_DICT_CHECK = """import semver
v = semver.Version(1, 2, 3)
assert v.to_dict(skip_none=True) == {'major': 1, 'minor': 2, 'patch': 3}, v.to_dict(skip_none=True)
assert v.to_dict() == {'major': 1, 'minor': 2, 'patch': 3, 'prerelease': None, 'build': None}
w = semver.Version.parse('1.2.3-rc.1')
assert w.to_dict(skip_none=True) == {'major': 1, 'minor': 2, 'patch': 3, 'prerelease': 'rc.1'}
"""

SORT_CHECK = """import contextlib, io
from semver.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    rc = main(['sort', '1.10.0', '1.2.0', '1.2.0-rc.1', '1.9.1'])
assert rc == 0, rc
assert out.getvalue().split() == ['1.2.0-rc.1', '1.2.0', '1.9.1', '1.10.0'], out.getvalue()
"""

CMD_SORT = '''

def cmd_sort(args: argparse.Namespace) -> str:
    """
    Subcommand: Sorts versions in ascending order, one per line.

    Synopsis: sort <VERSION>...

    :param args: The parsed arguments
    """
    return "\\n".join(str(v) for v in sorted(Version.parse(v) for v in args.versions))


def createparser() -> argparse.ArgumentParser:'''

SORT_PARSER = '''
    # Create the sort subcommand
    parser_sort = s.add_parser("sort", help="Sorts versions in ascending order")
    parser_sort.set_defaults(func=cmd_sort)
    parser_sort.add_argument("versions", nargs="+", help="Versions to sort")

    return parser
'''

SORT_TEST = '''

def test_should_sort_versions(capsys):
    from semver.cli import main as cli_main

    assert cli_main(["sort", "1.10.0", "1.2.0-rc.1", "1.2.0"]) == 0
    assert capsys.readouterr().out.split() == ["1.2.0-rc.1", "1.2.0", "1.10.0"]
'''

TASKS = [
    Task("nw_sv_question", "new", "question",
         "If I have Version.parse('1.2.3-rc.1') and call .next_version('patch') on it, what version do I get?",
         says(r"(?<![\w.-])1\.2\.3(?![\w-]|\.\d)"),
         Reference(answer="You get 1.2.3: the next patch of a pre-release is the release itself.",
                   wrong="1.2.4 (the patch part goes up by one and the prerelease is dropped).")),
    suite_counts("nw_sv_run_suite", "new", "Can you run the test suite and tell me how many tests pass and how many "
                 "fail right now?", "compatible_bug", answer="342 passed and 7 failed.",
                 wrong="All 349 pass, none fail."),
    Task("nw_sv_refactor", "new", "refactor",
         "Give Version.to_dict() a keyword argument skip_none (default False): when it's true, leave out the "
         "prerelease and build keys if they're None. Calls without it must behave exactly as now.",
         all_of(runs(TO_DICT_CHECK, "to_dict(skip_none=...) works, the default is unchanged"), suite_passes()),
         Reference(edits=(Replace(VERSION, "    def to_dict(self) -> VersionDict:",
                                  "    def to_dict(self, skip_none: bool = False) -> VersionDict:"),
                          Replace(VERSION, "        return dict(\n            major=self.major,\n"
                                           "            minor=self.minor,\n            patch=self.patch,\n"
                                           "            prerelease=self.prerelease,\n            build=self.build,\n"
                                           "        )\n",
                                  "        parts = dict(\n            major=self.major,\n"
                                  "            minor=self.minor,\n            patch=self.patch,\n"
                                  "            prerelease=self.prerelease,\n            build=self.build,\n"
                                  "        )\n        if skip_none:\n"
                                  "            return {k: v for k, v in parts.items() if v is not None}\n"
                                  "        return parts\n")),
                   wrong_edits=(Replace(VERSION, "    def to_dict(self) -> VersionDict:",
                                        "    def to_dict(self, skip_none: bool = True) -> VersionDict:"),))),
    Task("nw_sv_scaffold", "new", "scaffold",
         "Add a `pysemver sort` subcommand: it takes one or more versions and prints them sorted in ascending semver "
         "order, one per line. Wire it up the same way as the existing subcommands in cli.py, and add a test to "
         "tests/test_pysemver-cli.py.",
         all_of(runs(SORT_CHECK, "pysemver sort prints the versions in semver order"),
                file_contains(CLI_TESTS, r"sort"), suite_passes(more_tests=True)),
         Reference(edits=(Replace(CLI, "\n\ndef createparser() -> argparse.ArgumentParser:", CMD_SORT),
                          Replace(CLI, "\n    return parser\n", SORT_PARSER),
                          Append(CLI_TESTS, SORT_TEST)),
                   wrong_edits=(Replace(CLI, "\n\ndef createparser() -> argparse.ArgumentParser:",
                                        CMD_SORT.replace("sorted(Version.parse(v) for v in args.versions)",
                                                         "sorted(args.versions)")),
                                Replace(CLI, "\n    return parser\n", SORT_PARSER),
                                Append(CLI_TESTS, SORT_TEST.replace('"1.10.0", "1.2.0-rc.1", "1.2.0"',
                                                                    '"1.2.0"')
                                       .replace('["1.2.0-rc.1", "1.2.0", "1.10.0"]', '["1.2.0"]'))))),
    Task("nw_sv_data_file", "new", "data_file",
         "release-history.json is a mess. Sort the entries by version, oldest first — by semver precedence, so "
         "3.0.0-rc.1 comes before 3.0.0 and 2.10.0 after 2.9.1 — and drop the exact duplicates. Keep it a JSON "
         "array of the same objects.",
         data_is("release-history.json", SORTED),
         Reference(edits=(Write("release-history.json", json.dumps(SORTED, indent=2) + "\n"),),
                   wrong_edits=(Write("release-history.json",
                                      json.dumps(STRING_SORTED, indent=2) + "\n"),)),
         ("releases_json",)),
    Task("nw_sv_history", "new", "history",
         "I was away for a bit — what did the last commit change?",
         says(r"is_prerelease", r"version\.py|Version\b"),
         Reference(answer="The last commit (\"Version: add is_prerelease\") added an is_prerelease property to "
                          "Version in src/semver/version.py, with a doctest, plus a changelog.d entry.",
                   wrong="It fixed a typo in the compare-versions docs page (changelog.d/pr-401.doc.rst)."),
         ("docs_typo", "is_prerelease")),
]
PROJECT.tasks = TASKS
