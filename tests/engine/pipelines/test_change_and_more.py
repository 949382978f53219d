"""Changes, new code, new tests, data files, docs, history and scaffolds through their pipelines: the program
places what the model writes, checks it in the throwaway copy, and proposes one diff (real repo, bwrap, pytest,
git; the scripted model's replies are the JSON each narrow question is decoded under)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import git, make_repo
from tests.engine.pipelines.helpers import edits, js, pipeline_turn

FMT = ('__all__ = ["size", "ratio"]\n\n\ndef size(n, digits=1):\n    """n bytes as kB."""\n'
       '    return f"{n / 1000:.{digits}f} kB"\n\n\ndef ratio(a, b):\n    return a / b\n')
INIT = "from .fmt import ratio, size\n\n__all__ = [\"size\", \"ratio\"]\n"
TESTS = "from pkg.fmt import size\n\n\ndef test_size():\n    assert size(1500) == '1.5 kB'\n"


def _repo(tmp_path: Path, **extra: str) -> Path:
    return make_repo(tmp_path / "repo", {"pkg/__init__.py": INIT, "pkg/fmt.py": FMT, "tests/test_fmt.py": TESTS,
                                         "pytest.ini": "[pytest]\n", **extra})


async def test_a_change_is_checked_against_a_check_that_fails_before(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    check_now_true = {"code": "from pkg.fmt import size\nassert size(1500) == '1.5 kB'"}
    check = {"code": "from pkg.fmt import size\nassert size(1500) == '1.50 kB'"}
    keeps = {"code": 'def size(n, digits=1):\n    return f"{n / 1000:.{digits}f} kB"\n'}
    right = {"code": 'def size(n, digits=2):\n    return f"{n / 1000:.{digits}f} kB"\n'}
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Make `size` show two decimals by default.",
        [js({"kind": "change"}), js(check_now_true), js(check), js(check), js(keeps), js(right), js(keeps),
         js({"code": "def test_size():\n    assert size(1500) == '1.50 kB'\n"})] * 1 + [js({"code": "x"})] * 2)
    proposed = edits(approver)
    assert len(proposed) == 1 and "digits=2" in proposed[0].diff, _debug(events)
    assert "digits=2" in (repo / "pkg/fmt.py").read_text()
    assert '"""n bytes as kB."""' in (repo / "pkg/fmt.py").read_text()
    assert "'1.50 kB'" in (repo / "tests/test_fmt.py").read_text(), "the test that pinned the old default follows it"
    assert "tests/test_fmt.py" in proposed[0].files


async def test_new_code_goes_to_its_module_with_the_exports_kept_in_step(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    code = 'def percent(x):\n    """x as a percentage."""\n    return f"{x * 100:.0f}%"\n'
    check = {"code": "from pkg.fmt import percent\nassert percent(0.5) == '50%'"}
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Add a function percent(x) to pkg/fmt.py that formats 0.5 as '50%'.",
        [js({"kind": "add"}), js(check), js(check), js(check), js({"code": code}), js({"code": code}),
         js({"code": code})])
    text = (repo / "pkg/fmt.py").read_text()
    assert "def percent(x):" in text, _debug(events)
    assert "def percent(x):" in text and '"percent"' in text.split("\n")[0]
    assert "percent" in (repo / "pkg/__init__.py").read_text(), "the package re-exports its module's names one by one"


async def test_a_new_test_must_pass_and_the_file_must_gain_it(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    failing = {"code": "def test_ratio_half():\n    assert ratio(1, 2) == 0.25\n"}
    passing = {"code": "def test_ratio_half():\n    from pkg.fmt import ratio\n    assert ratio(1, 2) == 0.5\n"}
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Add a test for `ratio` in tests/test_fmt.py",
        [js({"kind": "add_test"}), js(failing), js(passing), js(failing)])
    proposed = edits(approver)
    assert len(proposed) == 1 and "== 0.5" in proposed[0].diff
    assert "test_size" in (repo / "tests/test_fmt.py").read_text(), "the existing tests stay"


async def test_a_data_file_is_changed_by_the_script_most_candidates_agree_on(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path, **{"data/rows.csv": "name,n\n b ,2\na,1\n\na,1\n"})
    good = ("import csv\nrows = list(csv.reader(open('data/rows.csv')))\nhead, body = rows[0], rows[1:]\n"
            "seen = []\nfor r in body:\n    r = [c.strip() for c in r]\n    if r and any(r) and r not in seen:\n"
            "        seen.append(r)\nw = csv.writer(open('data/rows.csv', 'w', newline=''), lineterminator='\\n')\n"
            "w.writerow(head)\nw.writerows(seen)\n")
    other = "open('data/rows.csv', 'w').write('name,n\\n')\n"
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "Clean up data/rows.csv: strip spaces, drop blank and duplicate rows.",
        [js({"kind": "data"}), js({"code": good}), js({"code": other}), js({"code": good})])
    assert (repo / "data/rows.csv").read_text() == "name,n\nb,2\na,1\n"
    assert "2 agree" in edits(approver)[0].summary


async def test_a_broken_json_file_is_repaired_by_program(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path, **{"conf/app.json": '{"name": "x", "tags": ["a", "b",], // comment\n "n": 1,}\n'})
    events, done, approver = await pipeline_turn(repo, ollama_server, "conf/app.json is broken, repair it",
                                                 [js({"kind": "data"})])
    assert json.loads((repo / "conf/app.json").read_text()) == {"name": "x", "tags": ["a", "b"], "n": 1}
    assert len(ollama_server.requests) == 1, "the repair needs no model"


async def test_a_docstring_is_placed_by_program(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    events, done, approver = await pipeline_turn(repo, ollama_server, "Give `ratio` a docstring",
                                                 [js({"kind": "docs"}), js({"text": "a divided by b."})])
    text = (repo / "pkg/fmt.py").read_text()
    assert 'def ratio(a, b):\n    """a divided by b."""\n    return a / b' in text


async def test_a_history_question_quotes_the_commits_it_rests_on(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    (repo / "pkg/fmt.py").write_text(FMT.replace("a / b", "a / b if b else 0.0"))
    git(repo, "commit", "-qam", "fmt: ratio of nothing is zero")
    head = git(repo, "rev-parse", "--short", "HEAD").strip()
    events, done, _ = await pipeline_turn(repo, ollama_server, "Which commit changed `ratio`?", [
        js({"kind": "history"}), lambda body: js({"answer": "The latest one.", "commits": [head]})])
    assert head in done.text and "ratio of nothing is zero" in done.text
    asked = ollama_server.requests[-1]["messages"][-1]["content"]
    assert "Commits that changed ratio" in asked


def _debug(events):  # pragma: no cover - a failing test prints what the pipeline said
    return "\n".join(f"{e.type}: {getattr(e, 'text', getattr(e, 'summary', ''))}" for e in events if e.type in ("detail", "tool_result"))
