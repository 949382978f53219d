"""The static check's own findings: nested tests and calls of non-callable attributes, reported when new."""

from __future__ import annotations

from tui.tools.support.pycheck import new_problems

STORE = b'''class Store:
    kinds = ["a", "b"]

    def __init__(self):
        self.data = {}
        self.callback = None
        self.count = 0

    def get(self, key):
        return self.data[key]
'''


def test_calling_a_dict_attribute_is_reported_once_it_is_introduced() -> None:
    after = STORE + b"\n    def size(self):\n        self.count += 1\n        return len(self.data())\n"
    assert new_problems(STORE, after, "store.py") == [
        "store.py line 14: self.data is a dict, not a method: calling self.data(...) raises TypeError "
        "(index it, or call one of its methods)"]
    listed = STORE + b"\n    def first(self):\n        return self.kinds()\n"
    assert "self.kinds is a list" in new_problems(STORE, listed, "store.py")[0]


def test_attributes_that_may_hold_a_callable_are_not_reported() -> None:
    after = STORE + (b"\n    def fire(self):\n        self.callback()\n        self.count()\n        self.get('x')\n"
                     b"        self.handler = print\n        self.handler()\n")
    assert [p for p in new_problems(STORE, after, "store.py") if "self.callback" in p or "self.get" in p
            or "self.handler" in p] == []
    assert [p.split(": ", 1)[1] for p in new_problems(STORE, after, "store.py")] == [
        "self.count is an int, not a method: calling self.count(...) raises TypeError"]
    grown = STORE.replace(b"self.count = 0", b"self.count = 0\n        self.count += 1")
    assert new_problems(grown, grown + b"\n    def c(self):\n        return self.count()\n", "store.py") == []


def test_a_test_nested_in_another_test_is_reported_in_test_files_only() -> None:
    before = b"def test_add():\n    assert 1 + 1 == 2\n"
    after = before + b"\n    def test_sub():\n        assert 2 - 1 == 1\n"
    [problem] = new_problems(before, after, "tests/test_calc.py")
    assert problem.startswith("tests/test_calc.py line 4: test_sub is defined inside test_add, so pytest never collects")
    assert new_problems(before, after, "calc.py") == []
    assert new_problems(after, after + b"\n", "tests/test_calc.py") == []  # already there: not new
