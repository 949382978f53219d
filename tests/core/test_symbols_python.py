"""Python definitions through ast, and the outline text a small model counts and locates from."""

from __future__ import annotations

import textwrap

from tui.symbols import enclosing, find, normalize, outline_of, walk
from tui.symbols.render import render

# Real-looking library code: decorators, overloads, a property with a setter, dunders, nested and
# async definitions, constants behind TYPE_CHECKING, a main guard.
LIBRARY = textwrap.dedent('''\
    """A settings store."""
    from __future__ import annotations

    import functools
    from typing import TYPE_CHECKING, Iterator, overload

    if TYPE_CHECKING:
        from pathlib import Path

    DEFAULT_TIMEOUT = 30
    _PRIVATE_LIMIT = 5
    lower_case = 1


    def _normalise(key: str) -> str:
        return key.strip().lower()


    @functools.lru_cache(maxsize=None)
    def load(path: "Path") -> "Config":
        """Load a config file."""
        def inner():  # nested functions are code, not structure
            return 1
        return Config()


    class Config:
        """Settings with defaults."""

        separator = "."
        defaults: dict[str, str] = {}

        def __init__(self, data: dict[str, str] | None = None) -> None:
            self.data = dict(data or {})

        @overload
        def get(self, key: str) -> str: ...
        @overload
        def get(self, key: str, default: int) -> int: ...
        def get(self, key, default=None):
            return self.data.get(_normalise(key), default)

        def __getitem__(self, key: str) -> str:
            return self.data[_normalise(key)]

        def __iter__(self) -> Iterator[str]:
            return iter(self.data)

        def __len__(self) -> int:
            return len(self.data)

        @property
        def name(self) -> str:
            return self.data.get("name", "")

        @name.setter
        def name(self, value: str) -> None:
            self.data["name"] = value

        @staticmethod
        def parse(text: str) -> "Config":
            return Config(dict(line.split("=", 1) for line in text.splitlines()))

        class Meta:
            version = 2

            def describe(self) -> str:
                return "meta"


    async def fetch(url: str) -> bytes:
        return b""


    if __name__ == "__main__":
        print(load("x"))
''')


def test_classes_methods_functions_and_constants_with_their_lines() -> None:
    outline = outline_of("src/settings/config.py", LIBRARY)
    tops = {s.qualname: s for s in outline.symbols}
    assert set(tops) == {"DEFAULT_TIMEOUT", "_PRIVATE_LIMIT", "_normalise", "load", "Config", "fetch"}
    assert tops["load"].start == LIBRARY.splitlines().index("@functools.lru_cache(maxsize=None)") + 1  # decorator
    assert tops["load"].line == tops["load"].start + 1
    config = tops["Config"]
    methods = [c.name for c in config.children if c.kind == "method"]
    assert methods == ["__init__", "get", "get", "get", "__getitem__", "__iter__", "__len__", "name", "name", "parse"]
    assert [c.name for c in config.children if c.kind == "field"] == ["separator", "defaults"]
    meta = next(c for c in config.children if c.kind == "class")
    assert meta.qualname == "Config.Meta" and [c.qualname for c in meta.children] == ["Config.Meta.version",
                                                                                     "Config.Meta.describe"]
    assert "async" in tops["fetch"].marks
    lines = LIBRARY.splitlines()
    assert lines[config.end - 1].strip() == 'return "meta"'


def line_of(fragment: str, text: str = LIBRARY) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


def test_the_outline_counts_each_name_once_and_marks_overloads_and_properties() -> None:
    text = render(outline_of("src/settings/config.py", LIBRARY))
    first, config_line = text.splitlines()[0], next(line for line in text.splitlines() if "class Config " in line)
    assert first.startswith("src/settings/config.py: ") and "1 class, 3 functions (2 public, 1 private), 2 constants" in first
    end = line_of('return "meta"')
    assert f"(lines {line_of('class Config:')}-{end};" in config_line
    assert "7 methods (3 public, 4 special __x__), 2 fields, 1 class" in config_line
    get, name = line_of("    @overload"), line_of("    @property")
    for item in ("__init__ ", f"get {get} (2 overloads)", "__getitem__ ", "__iter__ ", "__len__ ",
                 f"name {name} (property with setter)", f"parse {line_of('@staticmethod')} (static)"):
        assert item in config_line, item
    assert config_line.count("get ") == 1
    assert "  class Config.Meta (lines " in text and "1 method, 1 field" in text
    assert (f"functions (3): _normalise {line_of('def _normalise')}-{line_of('return key.strip')}, "
            f"load {line_of('@functools')}-{line_of('return Config()')}, "
            f"fetch {line_of('async def fetch')}-{line_of('return b')} (async)") in text
    assert f"constants (2): DEFAULT_TIMEOUT {line_of('DEFAULT_TIMEOUT')}, _PRIVATE_LIMIT {line_of('_PRIVATE')}" in text
    assert "lower_case" not in text and "inner" not in text


def test_a_huge_module_is_outlined_within_the_budget_with_exact_counts() -> None:
    text = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(1, 2001))
    text += "class Big:\n" + "".join(f"    def m{i}(self):\n        return {i}\n\n" for i in range(300))
    out = render(outline_of("big.py", text))
    assert len(out) <= 3200
    assert out.splitlines()[0] == f"big.py: {text.count(chr(10))} lines; 1 class, 2000 functions"
    assert "300 methods" in out and "more" in out


def test_test_counts_and_a_file_that_does_not_parse_falls_back_to_patterns() -> None:
    tests = "def test_a():\n    pass\n\n\nclass TestB:\n    def test_c(self):\n        pass\n"
    assert "(2 tests)" in render(outline_of("tests/test_x.py", tests)).splitlines()[0]
    broken = "def ok():\n    pass\n\ndef broken(:\n    pass\n"
    outline = outline_of("m.py", broken)
    assert outline.language == "pattern" and "does not parse (line 4" in outline.error
    assert [s.name for s in outline.symbols] == ["ok", "broken"]
    assert "found by pattern" in render(outline)


def test_lookup_by_name_qualified_name_and_the_forms_models_write() -> None:
    symbols = outline_of("c.py", LIBRARY).symbols
    assert {s.qualname for s in find(symbols, "Config.get")} == {"Config.get"}
    assert len(find(symbols, "get")) == 3  # a method found by its own name when no function has it
    assert [s.qualname for s in find(symbols, "describe")] == ["Config.Meta.describe"]
    assert find(symbols, "Config.nope") == [] and find(symbols, "Nope.get") == []
    for written in ("Config::get", "Config#get()", "def get", "c.py:Config.get", "`Config.get`"):
        assert normalize(written) == ("get" if written == "def get" else "Config.get"), written
    line = line_of("return self.data.get(_normalise(key), default)")
    assert enclosing(symbols, line).qualname == "Config.get"
    assert enclosing(symbols, 1) is None


def test_hostile_input_never_raises() -> None:
    for text in ("(" * 5000, "def f(:\n" * 100, "\0\0", "class A:\n" + "    " * 200 + "pass\n", ""):
        outline = outline_of("x.py", text)
        assert isinstance(render(outline), str)
        list(walk(outline.symbols))
