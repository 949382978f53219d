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


CACHE = b'''import collections.abc


class Cache(collections.abc.MutableMapping):
    def __init__(self, maxsize):
        self.__data = {}
        self.maxsize = maxsize

    def __getitem__(self, key):
        return self.__data[key]

    def __setitem__(self, key, value):
        self.__data[key] = value

    def __delitem__(self, key):
        del self.__data[key]

    def __iter__(self):
        return iter(self.__data)

    def __len__(self):
        return len(self.__data)


class LRUCache(Cache):
    def __init__(self, maxsize):
        Cache.__init__(self, maxsize)
        self.__order = []
'''


def test_reading_an_attribute_no_class_in_the_chain_defines_is_reported() -> None:
    """Seen on the tune half: LRUCache.peek read self.cache (the class keeps its data in Cache's private dict)."""
    peek = CACHE + b"\n    def peek(self, key, default=None):\n        return self.cache.get(key, default)\n"
    found = new_problems(CACHE, peek, "cache.py")
    assert len(found) == 1 and "peek reads self.cache, which LRUCache and its base classes never define" in found[0]
    assert "__getitem__" in found[0] and "get" in found[0]  # what it can use instead, inherited ones too
    private = CACHE + b"\n    def peek(self, key):\n        return self.__data[key]\n"  # Cache's, name-mangled
    assert "reads self.__data" in new_problems(CACHE, private, "cache.py")[0]
    fine = CACHE + (b"\n    def peek(self, key, default=None):\n        if key in self:\n"
                    b"            return Cache.__getitem__(self, key)\n        return self.maxsize and default\n")
    assert new_problems(CACHE, fine, "cache.py") == []


def test_classes_whose_attributes_come_from_elsewhere_are_not_judged() -> None:
    for cls in (b"class ViewMixin:\n    def show(self):\n        return self.title\n",
                b"class Shape:\n    def area(self):\n        raise NotImplementedError\n\n    def twice(self):\n"
                b"        return 2 * self.size\n",
                b"import enum\n\n\nclass Color(enum.Enum):\n    RED = 1\n\n    def label(self):\n        return self.name\n",
                b"from thirdparty import Base\n\n\nclass Thing(Base):\n    def go(self):\n        return self.engine\n"):
        assert new_problems(b"", cls, "shapes.py") == [], cls


def test_a_new_class_with_the_very_code_of_another_is_reported() -> None:
    fifo = (b'class FifoBox(Store):\n    """First in, first out."""\n\n    def popitem(self):\n'
            b'        return next(iter(self.data))\n')
    before = STORE + b"\n\n" + fifo
    copied = before + b"\n\n" + fifo.replace(b"FifoBox", b"LifoBox").replace(b"First in, first", b"Last in, first")
    assert new_problems(before, copied, "store.py") == [
        "store.py line 20: LifoBox has exactly the code of FifoBox, so it behaves the same; change the lines that "
        "must differ for LifoBox"]
    changed = before + b"\n\n" + fifo.replace(b"FifoBox", b"LifoBox").replace(b"iter(", b"reversed(")
    assert new_problems(before, changed, "store.py") == []
    records = b"class A(Exception):\n    pass\n\n\nclass B(Exception):\n    pass\n"
    assert new_problems(b"", records, "errors.py") == []  # empty subclasses copy nothing


def test_a_new_method_with_the_very_code_of_a_sibling_is_reported() -> None:
    """Dev set: "first_key() returns the oldest key, or None when empty" was written as a copy of popitem(),
    which removes what it returns and raises on an empty cache; the tests passed, nothing called it."""
    fifo = (b"class Fifo:\n    def __init__(self):\n        self.order = []\n\n    def popitem(self):\n"
            b"        try:\n            key = self.order[0]\n        except IndexError:\n"
            b"            raise KeyError('empty') from None\n        return key, self.order.pop(0)\n")
    copied = fifo + (b"\n    def first_key(self):\n        \"\"\"The oldest key.\"\"\"\n        try:\n"
                     b"            key = self.order[0]\n        except IndexError:\n"
                     b"            raise KeyError('empty') from None\n        return key, self.order.pop(0)\n")
    assert new_problems(fifo, copied, "fifo.py") == [
        "fifo.py line 12: Fifo.first_key has exactly the code of Fifo.popitem, so it does what popitem does; write "
        "the lines first_key needs for what it must do"]
    own = fifo + b"\n    def first_key(self):\n        if not self.order:\n            return None\n        return self.order[0]\n"
    assert new_problems(fifo, own, "fifo.py") == []
