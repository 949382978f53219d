"""The repo map: tracked files and symbols, ranked for the request, within budget, cached incrementally."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.core import fixtures_repos as fx
from tui.engine.context.repomap import RepoMap, build_repo_map, symbols_for

FILES = {
    **{f"web/{k}": v for k, v in fx.NEXT_JEST_FILES.items()},
    "web/src/components/Button/Button.tsx": "export default function Button() {\n  return null;\n}\n"
                                            "export const BUTTON_SIZES = ['s'];\n",
    "api/billing/invoice.py": "class Invoice:\n    def total(self):\n        return 0\n\n    def _hidden(self):\n"
                              "        pass\n\n\ndef send_invoice(inv):\n    pass\n\n\ndef _private():\n    pass\n",
    "api/users.py": "def create_user(name):\n    return name\n",
    "svc/main.go": "package main\n\ntype Server struct{}\n\nfunc (s *Server) Serve() {}\n\nfunc helper() {}\n\n"
                   "func main() {}\n",
    ".gitignore": "secret/\n",
    "docs/notes.md": "# notes\n",
}


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _repo(tmp_path: Path) -> Path:
    repo = fx.build(tmp_path / "repo", FILES)
    (repo / "secret").mkdir()
    (repo / "secret" / "keys.py").write_text("def leaked():\n    pass\n")
    (repo / "untracked.py").write_text("def draft():\n    pass\n")
    return repo


def test_symbols_per_language() -> None:
    py = symbols_for("a.py", FILES["api/billing/invoice.py"])
    assert py == ["class Invoice [total]", "send_invoice()", "_private()"]
    ts = symbols_for("B.tsx", FILES["web/src/components/Button/Button.tsx"])
    assert ts == ["Button", "BUTTON_SIZES"]
    assert symbols_for("main.go", FILES["svc/main.go"]) == ["Server", "Serve", "main"]
    assert symbols_for("broken.py", "def (:\n") == []


def test_ranked_by_request_and_within_budget(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    text = build_repo_map(repo, "fix the total on invoices", 400)
    lines = text.splitlines()
    assert lines[0] == "api/billing/invoice.py: class Invoice [total], send_invoice()"
    assert "secret/keys.py" not in text and "untracked.py" not in text  # tracked files only
    button = build_repo_map(repo, "make the Button bigger", 400).splitlines()
    assert button[0].startswith("web/src/components/Button/Button.tsx: Button")
    small = build_repo_map(repo, "invoice", 30)
    assert len(small) <= 30 * 4 and "invoice.py" in small and "more files" in small


def test_cache_is_incremental_and_persisted(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    first = RepoMap(repo)
    first.refresh()
    assert first.parsed == len(git(repo, "ls-files").split())
    first.refresh()
    assert first.parsed == 0
    (repo / "api/users.py").write_text("def create_user(name):\n    return name\n\n\ndef delete_user(name):\n    pass\n")
    first.refresh()
    assert first.parsed == 1 and first.entries["api/users.py"].symbols == ["create_user()", "delete_user()"]
    git(repo, "rm", "-q", "docs/notes.md")
    first.refresh()
    assert "docs/notes.md" not in first.entries and first.parsed == 0
    second = RepoMap(repo)  # a new process: the cache on disk is reused
    second.refresh()
    assert second.parsed == 0 and second.entries["api/users.py"].symbols[-1] == "delete_user()"
    assert "delete_user" in build_repo_map(repo, "delete a user", 200)


def test_what_git_said_is_reused_only_until_the_index_or_head_moves(tmp_path: Path) -> None:
    """The map asks git for the tracked files and the last commits once, then again only when the index or HEAD
    changed: a file added and committed outside devagent is in the next map, and a commit moves it up."""
    repo = _repo(tmp_path)
    repo_map = RepoMap(repo)
    assert "ledger" not in repo_map.render("ledger", 400)
    (repo / "api/ledger.py").write_text("def post_entry(amount):\n    return amount\n")
    git(repo, "add", "api/ledger.py")
    assert "api/ledger.py: post_entry()" in repo_map.render("ledger", 400)
    assert repo_map.recent()["api/ledger.py"] == 2.0  # staged
    git(repo, "commit", "-q", "-m", "ledger")
    assert repo_map.recent().get("api/ledger.py") == 1.5  # the newest commit's file now
    (repo / "api/ledger.py").write_text("def post_entry(amount):\n    return amount\n\n\ndef void_entry():\n    pass\n")
    assert "void_entry()" in repo_map.render("ledger", 400), "a change in the work tree alone is seen too"

OVERLOADED = """from typing import overload


class Table:
    \"\"\"A mapping with a few overloads and dunders, as real libraries write them.\"\"\"

    def __init__(self, rows):
        self.rows = rows

    @overload
    def get(self, key: int) -> str: ...
    @overload
    def get(self, key: str) -> str: ...
    def get(self, key):
        return self.rows[key]

    @property
    def size(self):
        return len(self.rows)

    @size.setter
    def size(self, value):
        raise AttributeError

    def __getitem__(self, key):
        return self.rows[key]

    def __iter__(self):
        return iter(self.rows)

    def _cache(self):
        pass
"""


def test_classes_list_their_methods_once_with_dunders() -> None:
    assert symbols_for("t.py", OVERLOADED) == ["class Table [__init__, get, size, __getitem__, __iter__]"]


def test_the_request_ranks_files_and_what_it_names_survives_a_short_line(tmp_path: Path) -> None:
    methods = "".join(f"    def method_{i}(self):\n        pass\n\n" for i in range(80))
    files = {f"pkg/mod_{i}.py": f"def helper_{i}():\n    pass\n" for i in range(30)}
    files["pkg/table.py"] = OVERLOADED
    files["pkg/big.py"] = "class Store:\n" + methods + "    def __iter__(self):\n        return iter([])\n"
    repo = fx.build(tmp_path / "repo", files)
    lines = build_repo_map(repo, "Make Store iterable in reverse: change __iter__", 150).splitlines()
    assert lines[0].startswith("pkg/big.py: class Store [__iter__")  # named method first, even in a cut line
    assert len("\n".join(lines)) <= 150 * 4 and "more files" in lines[-1]
    table = build_repo_map(repo, "what does Table.get return for a missing key?", 150).splitlines()
    assert table[0].startswith("pkg/table.py: class Table [get")


def test_private_definitions_are_found_and_shown_only_when_asked_for(tmp_path: Path) -> None:
    """"How many methods does _DictSAXHandler have": the map had no private names, so nothing found the class."""
    repo = _repo(tmp_path)
    index = RepoMap(repo, persist=False)
    assert index.where_defined("_private") == ["api/billing/invoice.py"]
    assert "_private" not in build_repo_map(repo, "send an invoice", 600)
    assert "_private()" in build_repo_map(repo, "what does _private in the invoice module do", 600)
