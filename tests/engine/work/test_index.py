"""What a request names, found by program: files by path, tail or unique name; definitions by name, code-like
words strong and plain words weak; Python modules as they are imported (src layouts)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import make_repo
from tui.engine.work.index import RepoIndex, is_test

FILES = {
    "src/pkg/__init__.py": "from .sizes import natural_size\n",
    "src/pkg/sizes.py": "def natural_size(n):\n    return n\n\n\nclass Cache:\n    def get(self, key):\n        return key\n\n\ndef run():\n    pass\n",
    "tests/test_sizes.py": "def test_natural_size():\n    pass\n",
    "lib/util.js": "function isEmpty(o) {\n  return true;\n}\nmodule.exports = { isEmpty };\n",
}


def test_named_files_and_definitions(tmp_path: Path) -> None:
    index = RepoIndex.build(make_repo(tmp_path / "r", FILES))
    assert index.named_files("look at pkg/sizes.py and util.js") == ["src/pkg/sizes.py", "lib/util.js"]
    named = {n.text: n for n in index.named_symbols("make natural_size and `Cache.get` faster, then run it")}
    assert named["natural_size"].strong and named["Cache.get"].strong
    assert not named["run"].strong, "a plain word that is also a name is only a weak match"
    assert [d.path for d in named["Cache.get"].definitions] == ["src/pkg/sizes.py"]
    assert index.named_symbols("isEmpty()")[0].definitions[0].path == "lib/util.js"
    assert [n.text for n in index.named_symbols("test_natural_size", tests=True)] == ["test_natural_size"]
    assert index.named_symbols("test_natural_size") == [], "tests are not code to change"


def test_modules_and_test_files(tmp_path: Path) -> None:
    index = RepoIndex.build(make_repo(tmp_path / "r", FILES))
    assert index.module_of("src/pkg/sizes.py") == "pkg.sizes"
    assert index.module_of("src/pkg/__init__.py") == "pkg"
    assert index.test_files_for("src/pkg/sizes.py") == ["tests/test_sizes.py"]
    assert is_test("tests/test_sizes.py") and is_test("src/a.spec.ts") and not is_test("src/pkg/sizes.py")
