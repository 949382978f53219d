"""humanize 4.11.0: a src-layout library of functions (numbers, file sizes, times, lists), pytest suite; not
installed: importable only with ``PYTHONPATH=src``, the test tools on PATH from a virtualenv under the cache."""

from __future__ import annotations

from benchreal.checks import catches_mutant, number_re, runs
from benchreal.kinds import clean_data, code_change, fix_bug, question, suite_counts
from benchreal.spec import Append, Env, Plant, Project, Reference, Replace, Source, Suite, Task, Write

NUMBER = "src/humanize/number.py"
INIT = "src/humanize/__init__.py"

MESSY_CSV = ("bytes,label\n 1000 , 1.0 kB\n300,300 Bytes\n\n1000000,1.0 MB \n 1000 , 1.0 kB\n"
             "3000000 ,3.0 MB\n\n  \n300, 300 Bytes\n")
CLEAN_CSV = "bytes,label\n1000,1.0 kB\n300,300 Bytes\n1000000,1.0 MB\n3000000,3.0 MB\n"

PROJECT = Project(
    name="humanize",
    shape="src layout, modules of functions; pytest (warnings are errors, coverage plug-in); not installed: "
          "PYTHONPATH=src, pytest on PATH from a virtualenv outside the repo",
    why="a widely used library whose tests need its own tools (freezegun, pytest-cov) and whose package is "
        "importable only through the developer's PYTHONPATH",
    source=Source("pypi", "humanize", "4.11.0", "e66f36020a2d5a974c504bd2555cf770621dbdbb6d82f94a6857c0b1ea2608be",
                  "humanize-4.11.0", drop=("__pycache__", "*.pyc")),
    env=Env("pythonpath", where="cache", packages=(
        "pytest==8.3.3", "iniconfig==2.0.0", "packaging==24.2", "pluggy==1.5.0", "pytest-cov==5.0.0",
        "coverage==7.6.8", "freezegun==1.5.1", "python-dateutil==2.9.0.post0", "six==1.16.0")),
    suite=Suite(("{python}", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--color=no"), "pytest", ("tests",)),
    plants={
        "ordinal_bug": Plant("ordinal_bug", "number: fewer special cases in ordinal", (
            Replace(NUMBER, "    if value % 100 in (11, 12, 13):  # special case",
                    "    if value % 100 in (11, 12):  # special case"),)),
        "binary_bug": Plant("binary_bug", "filesize: one base for binary and gnu", (
            Replace("src/humanize/filesize.py", "    base = 1024 if (gnu or binary) else 1000",
                    "    base = 1024 if gnu else 1000"),)),
        "messy_csv": Plant("messy_csv", "benchmarks: sizes measured on the build box", (
            Write("benchmarks/filesizes.csv", MESSY_CSV),)),
    },
)

PERCENTAGE = '''

def percentage(value: float, ndigits: int = 0) -> str:
    """Format a ratio as a percentage: 0.256 -> '26%'."""
    return f"{value * 100:.{ndigits}f}%"
'''

TASKS = [
    question("hz_behaviour_one_byte", "tune", "behaviour", "What does naturalsize return for exactly 1 byte?",
             r"1 Byte(?!s)", answer="naturalsize(1) returns '1 Byte'.", wrong="It returns '1 Bytes'."),
    question("hz_behaviour_intword", "heldout", "behaviour", "What does intword(1_200_000_000) return?",
             r"1\.2 billion", answer="'1.2 billion'", wrong="'1.2 million'"),
    question("hz_where_natural_list", "heldout", "where", "Where is natural_list defined?", r"lists\.py",
             answer="src/humanize/lists.py", wrong="src/humanize/number.py"),
    question("hz_count_number_functions", "tune", "count",
             "How many public functions are defined in src/humanize/number.py?", number_re(8),
             answer="8: ordinal, intcomma, intword, apnumber, fractional, scientific, clamp and metric.",
             wrong="There are 9 public functions."),
    Task("hz_one_line_size_format", "heldout", "one_line",
         "Make naturalsize show two decimal places by default instead of one.",
         runs("from humanize import naturalsize\n"
              "assert naturalsize(3000000) == '3.00 MB', naturalsize(3000000)\n"
              "assert naturalsize(3000000, format='%.1f') == '3.0 MB'\nassert naturalsize(300) == '300 Bytes'",
              "naturalsize(3000000) == '3.00 MB'"),
         Reference(edits=(Replace("src/humanize/filesize.py", '    format: str = "%.1f",', '    format: str = "%.2f",'),))),
    fix_bug("hz_fix_ordinal", "tune",
            "Some tests in tests/test_number.py fail since my last commit. Find the bug and fix it without editing "
            "the tests.", "ordinal_bug",
            Replace(NUMBER, "    if value % 100 in (11, 12):  # special case",
                    "    if value % 100 in (11, 12, 13):  # special case")),
    Task("hz_add_test_clamp", "heldout", "add_test",
         "Add tests to tests/test_number.py for clamp with a value exactly equal to floor and exactly equal to "
         "ceil (it should not be clamped then).",
         catches_mutant((Replace(NUMBER, "    elif ceil is not None and value > ceil:",
                                 "    elif ceil is not None and value >= ceil:"),)),
         Reference(edits=(Append("tests/test_number.py",
                                 "\n\ndef test_clamp_at_the_limits() -> None:\n"
                                 '    assert humanize.clamp(0.99, format="{:.0%}", ceil=0.99) == "99%"\n'
                                 '    assert humanize.clamp(0.01, format="{:.0%}", floor=0.01) == "1%"\n'),))),
    clean_data("hz_clean_csv", "tune",
               "Clean up benchmarks/filesizes.csv in place: strip the whitespace around every value, remove blank "
               "lines and duplicate rows (keep the first one), and keep the header.", "messy_csv",
               "benchmarks/filesizes.csv", CLEAN_CSV),
    suite_counts("hz_run_suite", "heldout", "Run the tests and tell me how many pass and how many fail.",
                 "binary_bug", answer="600 passed, 21 failed.", wrong="621 passed, 0 failed."),
    code_change("hz_multi_percentage", "tune", "multi_step",
                "Add a function percentage(value, ndigits=0) to src/humanize/number.py that formats a ratio as a "
                "percentage (0.256 -> '26%', with ndigits=1 -> '25.6%'), export it from the humanize package (also "
                "in __all__), and add a test for it to tests/test_number.py.",
                "import humanize\nassert humanize.percentage(0.256) == '26%'\nassert humanize.percentage(0.5) == '50%'\n"
                "assert humanize.percentage(0.256, 1) == '25.6%'\nassert 'percentage' in humanize.__all__",
                "humanize.percentage works and is exported",
                Append(NUMBER, PERCENTAGE),
                Replace(INIT, "    ordinal,\n    scientific,\n)", "    ordinal,\n    percentage,\n    scientific,\n)"),
                Replace(INIT, '    "ordinal",\n', '    "ordinal",\n    "percentage",\n'),
                Append("tests/test_number.py",
                       '\n\ndef test_percentage() -> None:\n    assert humanize.percentage(0.256) == "26%"\n'),
                test_file="tests/test_number.py", test_mentions=r"percentage"),
]
PROJECT.tasks = TASKS
