"""The Python refactoring engine on small real repositories: what it does exactly, what it reports instead of
guessing (ambiguous names, names looked up at run time, ``*`` imports), and hostile input (symlinks out of the
tree, huge files, deeply nested code, a repository that tries to make rope run its code)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from tui.refactor import ops
from tui.refactor.base import Outcome, RefactorError
from tui.refactor.proposal import exact_proposal, optional_proposal

LIB = {
    "pkg/__init__.py": "from pkg.text import slugify\n\n__all__ = [\"slugify\"]\n",
    "pkg/text.py": ('"""Text helpers."""\nimport re\n\n__all__ = ["slugify", "clean"]\n\n\n'
                    "def clean(s):\n    return s.strip()\n\n\n"
                    "def slugify(s, sep=\"-\"):\n    \"\"\"Make a slug.\n\n    >>> slugify(\"A b\")\n    'a-b'\n"
                    "    \"\"\"\n    return re.sub(r\"\\W+\", sep, clean(s)).lower()\n"),
    "pkg/text.pyi": "def clean(s: str) -> str: ...\ndef slugify(s: str, sep: str = ...) -> str: ...\n",
    "pkg/views.py": "from pkg.text import slugify\n\n\ndef title(s):\n    # slugify the title\n"
                    "    return slugify(s)\n",
    "tests/test_text.py": "from pkg import slugify\n\n\ndef test_slugify():\n    assert slugify(\"A b\") == \"a-b\"\n",
    "README.md": "# pkg\n\nCall `slugify(text)` to make a slug.\n",
    "CHANGELOG.md": "- 1.0: added slugify\n",
    "docs/versions.rst": "1.0\n---\n\n* added slugify\n",  # a changelog by another name (more-itertools' own)
}


def run(repo: Path, op: str, **args: object) -> Outcome:
    return ops.run(op, repo, tests=False, **args)


def after(outcome: Outcome, path: str) -> str:
    return next(c.after for c in outcome.changes if c.path == path).decode()  # type: ignore[union-attr]


def test_rename_changes_code_exports_stubs_doctests_and_tests_and_offers_prose_apart(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", LIB)
    outcome = run(repo, "rename", name="slugify", new_name="make_slug")
    assert set(outcome.files) == {"pkg/__init__.py", "pkg/text.py", "pkg/text.pyi", "pkg/views.py",
                                  "tests/test_text.py"}
    text = after(outcome, "pkg/text.py")
    assert "def make_slug(" in text and '"make_slug", "clean"' in text and ">>> make_slug(\"A b\")" in text
    assert '__all__ = ["make_slug"]' in after(outcome, "pkg/__init__.py")
    assert "def make_slug(s: str" in after(outcome, "pkg/text.pyi")
    assert "# slugify the title" in after(outcome, "pkg/views.py")  # a comment is prose: the optional part
    optional = {c.path: c.after.decode() for c in outcome.optional}  # type: ignore[union-attr]
    assert set(optional) == {"README.md", "pkg/views.py"}  # the changelog keeps its history
    assert "`make_slug(text)`" in optional["README.md"] and "# make_slug the title" in optional["pkg/views.py"]
    assert {c.name: c.ok for c in outcome.checks} == {"parse": True, "pyflakes": True}
    assert git(repo, "status", "--porcelain") == ""  # only a copy was changed


def test_the_proposals_say_the_engine_the_checks_and_what_was_left(tmp_path: Path) -> None:
    files = dict(LIB, **{"pkg/dyn.py": "import pkg.text\n\nf = getattr(pkg.text, 'slugify')\n"})
    repo = make_repo(tmp_path / "r", files)
    outcome = run(repo, "rename", name="slugify", new_name="make_slug")
    assert outcome.unhandled == ["pkg/dyn.py:3: getattr(..., 'slugify') looks the name up at run time; left as it is"]
    proposal = exact_proposal(outcome, {"operation": "rename"})
    assert proposal.kind == "edit" and "rope " in proposal.summary and "parse ok, pyflakes ok" in proposal.summary
    assert "not handled: pkg/dyn.py:3: getattr" in "\n".join(proposal.warnings)
    assert "README.md" not in proposal.files and "diff --git a/pkg/text.pyi" in (proposal.diff or "")
    current = {c.path: c.before for c in outcome.optional}
    current["README.md"] = b"changed meanwhile\n"
    optional = optional_proposal(outcome, current.get, {})
    assert optional is not None and optional.files == ["pkg/dyn.py", "pkg/views.py"] or optional.files == [
        "pkg/views.py"]
    assert any("left out: README.md (changed since)" in w for w in optional.warnings)


def test_an_ambiguous_name_is_refused_with_each_place_and_in_picks_one(tmp_path: Path) -> None:
    files = {"a/__init__.py": "", "a/util.py": "def helper():\n    return 1\n", "b/__init__.py": "",
             "b/util.py": "def helper():\n    return 2\n",
             "b/use.py": "from b.util import helper\n\nprint(helper())\n"}
    repo = make_repo(tmp_path / "r", files)
    with pytest.raises(RefactorError, match=r"ambiguous.*a/util.py:1.*b/util.py:1") as err:
        run(repo, "rename", name="helper", new_name="aid")
    assert err.value.exit_code == 2
    outcome = run(repo, "rename", name="helper", new_name="aid", within="b")
    assert set(outcome.files) == {"b/util.py", "b/use.py"}
    # without __init__.py rope cannot follow the import: the place is named, not guessed
    loose = make_repo(tmp_path / "loose", {k: v for k, v in files.items() if not k.endswith("__init__.py")})
    outcome = run(loose, "rename", name="helper", new_name="aid", within="b")
    assert outcome.files == ["b/util.py"] and any(u.startswith("b/use.py:1: ") for u in outcome.unhandled)


def test_unknown_names_clashes_and_bad_names_are_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", LIB)
    with pytest.raises(RefactorError, match="no definition of nothere"):
        run(repo, "rename", name="nothere", new_name="x")
    with pytest.raises(RefactorError, match="clean is already defined"):
        run(repo, "rename", name="slugify", new_name="clean")
    with pytest.raises(RefactorError, match="not a valid Python name"):
        run(repo, "rename", name="slugify", new_name="class")


def test_star_imports_and_keyword_names_are_reported_not_guessed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": "def go():\n    return 1\n",
                                      "star.py": "from m import *\n\nx = go()\n",
                                      "table.py": "TABLE = dict(go=1)\n"})
    outcome = run(repo, "rename", name="go", new_name="run")
    assert "m.py" in outcome.files
    assert any(u.startswith("table.py:1: a keyword argument go=") for u in outcome.unhandled), outcome.unhandled
    assert "star.py" in outcome.files or any(u.startswith("star.py:3:") for u in outcome.unhandled)


def test_method_rename_follows_the_class_and_its_doctests(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {
        "shapes.py": ("class Box:\n    \"\"\"A box.\n\n    >>> Box().area()\n    0\n    \"\"\"\n\n"
                      "    def area(self):\n        return 0\n\n\nclass Other:\n    def area(self):\n        return 1\n"),
        "use.py": "from shapes import Box, Other\n\nprint(Box().area(), Other().area())\n"})
    outcome = run(repo, "rename", name="Box.area", new_name="size")
    shapes = after(outcome, "shapes.py")
    assert ">>> Box().size()" in shapes and "def size(self)" in shapes and "    def area(self):\n        return 1" in shapes
    assert "print(Box().size(), Other().area())" in after(outcome, "use.py")
    renamed = run(repo, "rename", name="Box", new_name="Crate")
    assert "class Crate:" in after(renamed, "shapes.py") and ">>> Crate().area()" in after(renamed, "shapes.py")
    assert "from shapes import Crate, Other" in after(renamed, "use.py")


def test_module_rename_moves_the_file_and_its_importers(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", LIB)
    outcome = run(repo, "rename", name="pkg/text.py", new_name="strings")
    created = {c.path for c in outcome.changes if c.before is None}
    deleted = {c.path for c in outcome.changes if c.after is None}
    assert created == {"pkg/strings.py", "pkg/strings.pyi"} and deleted == {"pkg/text.py", "pkg/text.pyi"}
    assert "from pkg.strings import slugify" in after(outcome, "pkg/views.py")


def test_move_keeps_a_public_name_importable_from_where_it_was(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", LIB)
    outcome = run(repo, "move", name="clean", to_module="pkg/cleaning.py")
    assert "def clean(s):" in after(outcome, "pkg/cleaning.py")
    text = after(outcome, "pkg/text.py")
    assert "def clean" not in text and "from pkg.cleaning import clean" in text and '"clean"' in text
    assert all(c.ok for c in outcome.checks), outcome.checks


def test_move_into_an_existing_module_that_imports_the_old_one_says_so(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", LIB)
    outcome = run(repo, "move", name="clean", to_module="pkg.views")
    views, text = after(outcome, "pkg/views.py"), after(outcome, "pkg/text.py")
    assert "def clean(s):" in views and "def title(s):" in views and "def clean" not in text
    assert "from pkg.views import clean" in text
    assert any("pkg/text.py and pkg/views.py now import each other" in u for u in outcome.unhandled), \
        outcome.unhandled


def test_signature_add_and_default_change_the_definition_its_overloads_and_stub(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", LIB)
    added = run(repo, "signature", name="slugify", add="lower=True")
    assert 'def slugify(s, sep="-", lower=True):' in after(added, "pkg/text.py")
    assert "def slugify(s: str, sep: str = ..., lower=...) -> str: ..." in after(added, "pkg/text.pyi")
    assert set(added.files) == {"pkg/text.py", "pkg/text.pyi"}  # callers need no change
    changed = run(repo, "signature", name="slugify", default="sep='_'")
    assert "def slugify(s, sep='_'):" in after(changed, "pkg/text.py") and changed.files == ["pkg/text.py"]
    with pytest.raises(RefactorError, match="not a plain value"):
        run(repo, "signature", name="slugify", default="sep=__import__('os').system('id')")
    with pytest.raises(RefactorError, match="already has a parameter sep"):
        run(repo, "signature", name="slugify", add="sep=1")


def test_signature_add_goes_after_star_args_as_keyword_only(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"f.py": "def f(a, *rest, b=1, **kw):\n    return a\n\n\n"
                                               "class Base:\n    def m(self, x):\n        return x\n\n\n"
                                               "class Sub(Base):\n    def m(self, x):\n        return -x\n"})
    outcome = run(repo, "signature", name="f", add="strict=False")
    assert "def f(a, *rest, b=1, strict=False, **kw):" in after(outcome, "f.py")
    method = run(repo, "signature", name="Base.m", add="scale=1")
    assert "def m(self, x, scale=1):" in after(method, "f.py")
    assert any(u.startswith("f.py:11: Sub.m overrides Base.m") for u in method.unhandled), method.unhandled


def test_extract_lines_into_a_function(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"calc.py": "def total(items):\n    s = 0\n    for i in items:\n"
                                                  "        s += i\n    return s * 2\n"})
    outcome = run(repo, "extract", path="calc.py", start=2, end=4, new_name="summed")
    text = after(outcome, "calc.py")
    assert "s = summed(items)" in text and "\n\n\ndef summed(items):" in text
    with pytest.raises(RefactorError, match="is not a range"):
        run(repo, "extract", path="calc.py", start=4, end=99, new_name="x")


def test_symlinks_out_of_the_tree_and_huge_files_are_left_out_and_named(tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("def slugify():\n    pass\n")
    repo = make_repo(tmp_path / "r", LIB, commit=False)
    (repo / "pkg" / "linked.py").symlink_to(outside)
    (repo / "pkg" / "big.py").write_text("slugify = None\n" + "x = 1\n" * 800_000)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "c")
    outcome = run(repo, "rename", name="slugify", new_name="make_slug", within="pkg/text.py")
    assert "pkg/linked.py: a symlink (not followed); not analysed" in outcome.unhandled
    assert any(u.startswith("pkg/big.py: too large") for u in outcome.unhandled)
    assert outside.read_text() == "def slugify():\n    pass\n"
    assert "pkg/linked.py" not in outcome.files and "pkg/big.py" not in outcome.files


def test_deeply_nested_code_is_said_plainly(tmp_path: Path) -> None:
    nested = "x = " + "(" * 3000 + "1" + ")" * 3000 + "\n"
    deep = "def f():\n" + "".join("    " * (i + 1) + "if x:\n" for i in range(90)) + "    " * 91 + "pass\n"
    repo = make_repo(tmp_path / "r", dict(LIB, **{"pkg/deep.py": nested + deep}))
    try:
        outcome = run(repo, "rename", name="slugify", new_name="make_slug")
    except RefactorError as err:
        assert "nested" in err.message or "parse" in err.message, err.message
    else:
        assert "pkg/text.py" in outcome.files


def test_a_repository_cannot_make_the_engine_run_its_code(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    payload = f"open({str(marker)!r}, 'w').write('ran')\n"
    repo = make_repo(tmp_path / "r", dict(LIB, **{
        "evil.py": payload + "def factory(*a, **k):\n    return None\n",
        ".ropeproject/config.py": payload + "def set_prefs(prefs):\n    pass\n",
        "pyproject.toml": "[tool.rope]\nextension_modules = [\"evil\"]\n"
                          "type_hinting_factory = \"evil.factory\"\npython_path = [\".\"]\n",
        "sitecustomize.py": payload, "rope.py": payload, "libcst.py": payload, "json.py": payload}))
    run(repo, "rename", name="slugify", new_name="make_slug")
    run(repo, "move", name="clean", to_module="pkg/cleaning.py")
    run(repo, "signature", name="slugify", add="lower=True")
    run(repo, "extract", path="pkg/text.py", start=8, end=8, new_name="stripped")
    assert not marker.exists()


def test_other_languages_go_to_their_engines(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"src/app.ts": "export function go() { return 1 }\n",
                                      "data.json": "{\"a\": 1,}\n"})
    assert ops.engine_for(repo, "rename", {"name": "go"}) == "typescript"
    assert ops.engine_for(repo, "rename", {"name": "x", "within": "src/app.ts"}) == "typescript"
    assert ops.engine_for(repo, "repair", {"path": "data.json"}) == "data"
    if importlib.util.find_spec("tui.refactor.ts") is None:
        with pytest.raises(RefactorError, match="not available yet"):
            ops.run("rename", repo, name="go", new_name="run")
    both = make_repo(tmp_path / "both", {"a.py": "def go():\n    pass\n", "b.ts": "export function go() {}\n"})
    with pytest.raises(RefactorError, match="both Python and TypeScript"):
        ops.engine_for(both, "rename", {"name": "go"})


def test_the_worker_guard_refuses_imports_from_the_tree_processes_and_sockets(tmp_path: Path) -> None:
    """What the worker promises for the rest of its life once it starts reading a repository."""
    import subprocess
    import sys

    (tmp_path / "evil.py").write_text("print('imported')\n")
    code = ("import sys, socket, subprocess; from tui.refactor.pyworker import guard; guard(sys.argv[1]); "
            "sys.path.insert(0, sys.argv[1])\n"
            "for attempt in (lambda: __import__('evil'), lambda: subprocess.run(['true']),\n"
            "                lambda: socket.create_connection(('127.0.0.1', 9))):\n"
            "    try:\n        attempt()\n        print('allowed')\n"
            "    except (ImportError, RuntimeError, OSError) as err:\n        print('refused', type(err).__name__)\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.stdout.split("\n")[:3] == ["refused ImportError", "refused RuntimeError", "refused RuntimeError"], \
        done.stdout + done.stderr


def test_a_move_the_old_module_cannot_reexport_keeps_the_packages_star_export(tmp_path: Path) -> None:
    """``pkg/__init__.py`` takes the old module's names with ``*``; the new module needs the old one, so the old
    module cannot re-export the moved name: the package imports it from the new module instead, and
    ``pkg.pick`` keeps working for code outside the repository."""
    repo = make_repo(tmp_path / "r", {
        "pkg/__init__.py": '"""A package."""\n\nfrom .core import *  # noqa\n',
        "pkg/core.py": "__all__ = ['last', 'pick']\n\n\ndef last(xs):\n    return xs[-1]\n\n\n"
                       "def pick(xs, n):\n    return xs[n] if n < len(xs) else last(xs)\n",
        "tests/test_core.py": "import pkg\n\n\ndef test_pick():\n    assert pkg.pick([1, 2], 5) == 2\n",
        "pytest.ini": "[pytest]\n",
    })
    from tui.config import load_config

    outcome = ops.run("move", repo, config=load_config(repo), tests=True, name="pick", to_module="pkg/picking.py")
    assert "def pick(" in after(outcome, "pkg/picking.py") and "def pick" not in after(outcome, "pkg/core.py")
    assert "from .picking import pick" in after(outcome, "pkg/__init__.py")
    assert any("import each other" in u for u in outcome.unhandled)
    assert {c.name: c.ok for c in outcome.checks}.get("tests") is True, outcome.checks


def test_typescript_prose_mentions_leave_changelogs_as_they_were(tmp_path: Path) -> None:
    from tui.refactor.tsprose import prose_changes

    for rel, text in {"README.md": "Call `isRegExp(x)`.\n", "CHANGELOG.md": "- 1.2: isRegExp added\n",
                      "docs/releases.md": "isRegExp is new\n", "docs/guide.md": "Use isRegExp.\n"}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    found = prose_changes(tmp_path, ["README.md", "CHANGELOG.md", "docs/releases.md", "docs/guide.md"],
                          "isRegExp", "isRegex", set())
    assert sorted(c.path for c in found) == ["README.md", "docs/guide.md"]
