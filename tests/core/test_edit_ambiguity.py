"""edit_file when ``old`` is not unique: whole-word matches first, then where each one is and the call that works."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.protocol.errors import ToolError
from tui.tools.edit_file import replace_once
from tui.tools.support.occurrences import occurrences, widen

MANY = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(1, 61))


def calls_in(message: str) -> list[dict]:
    return [json.loads(m) for m in re.findall(r"^line \d+ \([^)]*\): (\{.*\})$", message, re.M)]


def test_a_match_ending_inside_a_number_does_not_count_while_a_whole_one_exists() -> None:
    out = replace_once(MANY, "return x + 3", "return x - 3", "m.py")
    assert "def f3(x):\n    return x - 3\n" in out
    assert out.count("return x - 3") == 1 and "return x + 30" in out and "return x + 39" in out
    assert occurrences("count = 1\ncounter = 2\n", "count") == [0]
    assert occurrences("x_total = 1\n", "total") == [2]  # only a partial match: it is still the one
    assert replace_once("a = getvalue()\n", "value", "item", "m.py") == "a = getitem()\n"


def test_each_occurrence_is_named_with_its_definition_and_its_call_works() -> None:
    source = ("class Shape:\n    def area(self):\n        return 0\n\n    def size(self):\n        return 0\n\n\n"
              "def origin():\n    return 0\n")
    with pytest.raises(ToolError) as err:
        replace_once(source, "return 0", "return 1", "shapes.py")
    message = err.value.message
    assert message.startswith("the text to replace occurs 3 times in shapes.py (line 3 in Shape.area, "
                              "line 6 in Shape.size, line 10 in origin); nothing was changed.")
    calls = calls_in(message)
    assert len(calls) == 3 and all(c["name"] == "edit_file" for c in calls)
    for call, where in zip(calls, ("area", "size", "origin")):
        args = call["arguments"]
        changed = replace_once(source, args["old"], args["new"], args["path"])
        assert changed.count("return 1") == 1
        after = changed.split("return 1")[0]
        assert after.rstrip().splitlines()[-1].strip().startswith(f"def {where}(")
    assert '"name": "edit_symbol"' in message and '"symbol": "Shape.area"' in message


def test_lines_that_differ_only_in_whitespace_are_ambiguous_too() -> None:
    source = "def a():\n    x = 1\n\n\ndef b():\n        x = 1\n"
    with pytest.raises(ToolError, match=r"occurs 2 times in m.py \(line 2 in a, line 6 in b\)"):
        replace_once(source, "x = 1 \n", "x = 2", "m.py")
    with pytest.raises(ToolError, match=r"occurs 2 times"):
        replace_once(source, "  x = 1", "x = 2", "m.py")


def test_many_occurrences_stay_bounded() -> None:
    with pytest.raises(ToolError) as err:
        replace_once(MANY, "return x", "return -x", "m.py")
    assert "occurs 60 times" in err.value.message and "and 40 more" in err.value.message
    assert len(err.value.message) < 4000 and len(calls_in(err.value.message)) == 5


def test_identical_definitions_have_no_unique_widening() -> None:
    same = "def f():\n    return 1\n\n\n" * 7  # the middle copy is more than 8 lines from either end
    middle = [m.start() for m in re.finditer("return 1", same)][3]
    assert widen(same, middle, middle + 8) is None
    with pytest.raises(ToolError, match="occurs 7 times") as err:
        replace_once(same, "return 1", "return 2", "m.py")
    assert calls_in(err.value.message) == [] and "no longer old text is unique" in err.value.message


@settings(max_examples=120, deadline=None)
@given(lines=st.lists(st.sampled_from(["a = 1", "b = 2", "a = 10", "if a:", "    a = 1", "pass", "# a", ""]),
                      min_size=2, max_size=30),
       old=st.sampled_from(["a = 1", "a", "= 1", "pass", "b = 2"]))
def test_every_suggested_call_changes_exactly_its_occurrence(lines: list[str], old: str) -> None:
    text = "\n".join(lines) + "\n"
    spots = occurrences(text, old)
    if len(spots) < 2:
        return
    try:
        replace_once(text, old, "Z", "notes.txt")
    except ToolError as err:
        for call in calls_in(err.message):
            args = call["arguments"]
            changed = replace_once(text, args["old"], args["new"], "notes.txt")
            assert changed.count("Z") == 1 and changed.replace("Z", old, 1) == text
    else:
        raise AssertionError("an ambiguous old text was applied")
