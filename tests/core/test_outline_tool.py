"""The outline tool on a real repo: a file, one symbol's source, a directory, and the refusals."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from tests.conftest import make_repo
from tui.protocol.errors import PathRefused
from tui.config import Config
from tui.tools.base import ToolContext, ToolResult
from tui.tools.outline import run

FILES = {
    "src/shop/cart.py": ("class Cart:\n    def __init__(self):\n        self.items = []\n\n"
                         "    def add(self, item):\n        self.items.append(item)\n\n"
                         "    def total(self):\n        return sum(i.price for i in self.items)\n\n\n"
                         "def empty():\n    return Cart()\n"),
    "src/shop/price.py": "TAX = 0.2\n\n\ndef total(prices):\n    return sum(prices) * (1 + TAX)\n",
    "web/app.ts": "export function total(xs: number[]): number {\n  return xs.reduce((a, b) => a + b, 0);\n}\n",
    "README.md": "# shop\n",
    "logo.bin": "\0\0\0",
}


def call(repo: Path, **args: str) -> ToolResult:
    ctx = ToolContext(repo=repo.resolve(), config=Config(), emit=lambda event: None)
    return asyncio.run(run(ctx, args))


def test_a_file_outline_and_one_symbol_source(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    result = call(repo, path="src/shop/cart.py")
    assert result.ok and result.output.splitlines() == [
        "src/shop/cart.py: 13 lines; 1 class, 1 function",
        "class Cart (lines 1-9; 3 methods (2 public, 1 special __x__)): __init__ 2, add 5, total 8",
        "functions (1): empty 12-13"]
    assert result.summary == "outline src/shop/cart.py: 1 class, 1 function"
    one = call(repo, path="src/shop/cart.py", symbol="Cart.total")
    assert one.ok and one.output == ("src/shop/cart.py lines 8-9: method Cart.total\n"
                                     "    def total(self):\n        return sum(i.price for i in self.items)")
    missing = call(repo, path="src/shop/cart.py", symbol="Cart.totl")
    assert not missing.ok and "no definition named 'Cart.totl'. Close names: Cart.total" in missing.output


def test_a_directory_says_where_a_name_is_defined(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    where = call(repo, path=".", symbol="total")
    assert where.ok and where.output.splitlines() == [
        "total is defined in 3 places:",
        "src/shop/cart.py: method Cart.total (lines 8-9)",
        "src/shop/price.py: function total (lines 4-5)",
        "web/app.ts: function total (lines 1-3)"]
    single = call(repo, path="src", symbol="empty")
    assert single.ok and single.output.startswith("src/shop/cart.py lines 12-13: function empty\ndef empty():")
    counts = call(repo, path="src/shop")
    assert counts.output.splitlines() == ["src/shop/cart.py: 13 lines; 1 class, 1 function",
                                          "src/shop/price.py: 5 lines; 1 function, 1 constant"]
    assert not call(repo, path=".", symbol="nothing").ok


def test_refusals_are_messages_not_tracebacks(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    assert "does not exist. Did you mean: src/shop/cart.py?" in call(repo, path="cart.py").output
    assert "binary" in call(repo, path="logo.bin").output
    assert "use read_file" in call(repo, path="README.md").output
    os.mkfifo(repo / "pipe.py")  # a FIFO is not read (it would block)
    assert not call(repo, path="pipe.py").ok
    with pytest.raises(PathRefused):  # the agent turns it into the tool's error message
        call(repo, path="../../etc/passwd")


def test_a_cut_read_of_source_points_to_the_outline(tmp_path: Path) -> None:
    from tui.tools.read_file import run as read

    big = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(400))
    repo = make_repo(tmp_path / "repo", {"big.py": big, "small.py": "X = 1\n", "notes.txt": "word " * 5000})
    ctx = ToolContext(repo=repo.resolve(), config=Config(), emit=lambda event: None)
    cut = asyncio.run(read(ctx, {"path": "big.py"})).output
    assert "characters of the file omitted" in cut
    assert cut.endswith('[Only part of big.py is shown: outline(path="big.py") lists all its definitions with counts.]')
    assert "outline" not in asyncio.run(read(ctx, {"path": "small.py"})).output
    assert "outline" not in asyncio.run(read(ctx, {"path": "notes.txt"})).output


def test_a_long_file_read_shows_the_definitions_the_request_names(tmp_path: Path) -> None:
    """Seen on pluggy (outside the benchmark): asked to change DistFacade.project_name in a 528-line module, the
    1.5B model read the file and got its imports and its end, never the method."""
    from tui.tools.read_file import run as read

    head = "".join(f"import mod{i}\n" for i in range(60))
    funcs = [f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(300)]
    cls = "class Facade:\n    @property\n    def project_name(self):\n        return self.meta['name']\n\n\n"
    repo = make_repo(tmp_path / "repo", {"big.py": head + "".join(funcs[:150]) + cls + "".join(funcs[150:])})
    ctx = ToolContext(repo=repo.resolve(), config=Config(), emit=lambda event: None)
    ctx.extras["request"] = "Make Facade.project_name return the name in lower case"
    out = asyncio.run(read(ctx, {"path": "big.py"})).output
    assert "    def project_name(self):\n        return self.meta['name']" in out
    assert "which the request names" in out and "import mod0" not in out
    assert out.endswith('[Only part of big.py is shown: outline(path="big.py") lists all its definitions with counts.]')
    ctx.extras["request"] = "Make f10 and f11 faster"  # two named: both, as one window when adjacent
    out = asyncio.run(read(ctx, {"path": "big.py"})).output
    assert "def f10(x):\n    return x + 10\n\n\ndef f11(x):\n    return x + 11" in out and "def f12" not in out
    ctx.extras["request"] = "what does this module do"  # nothing named: the head and tail as before
    assert "import mod0" in asyncio.run(read(ctx, {"path": "big.py"})).output


def test_several_names_at_once_show_each_definition(tmp_path: Path) -> None:
    """The 1.5B model asked for "hasKey, isNumber, isConstructorOrProto" in one call (minimist, outside the
    benchmark) and was told no such definition exists."""
    repo = make_repo(tmp_path / "repo", FILES)
    both = call(repo, path="src/shop/cart.py", symbol="Cart.add, empty, nothing")
    assert both.ok
    assert "def add(self, item):\n        self.items.append(item)" in both.output
    assert "def empty():\n    return Cart()" in both.output
    assert both.output.endswith("[src/shop/cart.py has no definition named nothing]")
    assert not call(repo, path="src/shop/cart.py", symbol="nothing, nowhere").ok


def test_a_listing_says_how_many_files_it_shows(tmp_path: Path) -> None:
    """Asked how many test files minimist has (outside the benchmark), the 1.5B model counted 14 in a list of 15."""
    from tui.tools.list_files import run as list_files

    repo = make_repo(tmp_path / "repo", {**{f"test/t{i}.js": "" for i in range(15)}, "index.js": ""})
    ctx = ToolContext(repo=repo.resolve(), config=Config(), emit=lambda event: None)
    out = asyncio.run(list_files(ctx, {"path": "test"})).output
    assert out.splitlines()[:2] == ["test/t0.js", "test/t1.js"] and out.endswith("\n[15 files under test]")
    assert asyncio.run(list_files(ctx, {})).output.endswith("\n[16 files]")


def test_a_json_file_outline_counts_a_keys_entries(tmp_path: Path) -> None:
    """Fresh held-out qs: "How many devDependencies does qs have?" The model asked outline(package.json,
    devDependencies), heard there was no such definition, read the file and counted 20 of 29 by eye."""
    import json

    dev = {f"tool-{i}": f"^{i}.0.0" for i in range(29)}
    package = {"name": "qs", "version": "6.13.0", "scripts": {"test": "tape"}, "devDependencies": dev,
               "files": ["lib", "dist"]}
    repo = make_repo(tmp_path / "repo", {"package.json": json.dumps(package, indent=2) + "\n"})
    result = call(repo, path="package.json", symbol="devDependencies")
    assert result.ok and result.output.splitlines()[0] == "devDependencies: object with 29 keys (JSON, package.json)"
    assert "tool-28" in result.output and "29 keys" in result.summary
    top = call(repo, path="package.json")
    assert top.ok and "devDependencies: object with 29 keys" in top.output and "files: list of 2 items" in top.output
    assert call(repo, path="package.json", symbol="scripts.test").output == 'scripts.test = "tape"'
    missing = call(repo, path="package.json", symbol="peerDependencies")
    assert not missing.ok and "its top-level keys: name, version, scripts, devDependencies, files" in missing.output
