"""The fix pipeline: localise by running the tests, sample candidates, try each in a throwaway copy, propose
only one that passes (real repo, real bwrap, real pytest, the scripted server through the real ollama client)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git, make_repo
from tests.engine.pipelines.helpers import edits, js, pipeline_turn
from tui.protocol.proposals import Decision

CALC = "def mul(a, b):\n    \"\"\"The product of a and b.\"\"\"\n    return a + b\n\n\ndef add(a, b):\n    return a + b\n"
TESTS = "from calc import add, mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def _repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"calc.py": CALC, "tests/test_calc.py": TESTS, "pytest.ini": "[pytest]\n"})


async def test_only_the_candidate_that_passes_is_proposed(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    wrong1 = {"code": "def mul(a, b):\n    return a - b\n"}
    right = {"code": "def mul(a, b):\n    return a * b\n"}
    wrong2 = {"code": "def mul(a, b):\n    return b + a\n"}
    events, done, approver = await pipeline_turn(repo, ollama_server, "the tests fail, fix it",
                                                 [js({"kind": "fix"}), js(wrong1), js(right), js(wrong2)])
    proposed = edits(approver)
    assert len(proposed) == 1, [p.summary for p in proposed]
    assert "+    return a * b" in proposed[0].diff
    text = (repo / "calc.py").read_text()
    assert "return a * b" in text and '"""The product of a and b."""' in text  # the docstring the model left out
    assert "Fixed mul" in done.text and "passed" in done.text
    tried = [e.arguments for e in events if e.type == "tool_call" and e.name == "try"]
    assert [t["candidate"] for t in tried if "with" not in t] == ["candidate 1", "candidate 2", "candidate 3"]
    assert [t["candidate"] for t in tried if "with" in t] == ["candidate 2"], \
        "every candidate's targeted tests first, then the whole suite only for the one that passed them"


async def test_a_rejection_with_a_reason_shapes_the_next_round(tmp_path: Path, ollama_server) -> None:
    repo = _repo(tmp_path)
    right = {"code": "def mul(a, b):\n    return a * b\n"}
    other = {"code": "def mul(a, b):\n    result = a * b\n    return result\n"}
    events, done, approver = await pipeline_turn(
        repo, ollama_server, "the tests fail, fix it",
        [js({"kind": "fix"}), js(right), js(right), js(right), js(other), js(other), js(other)],
        decisions=[Decision("approve"), Decision("reject", reason="use a local variable"), Decision("approve")])
    proposed = edits(approver)
    assert len(proposed) == 2 and proposed[0].diff != proposed[1].diff
    second_round = ollama_server.requests[-1]["messages"][-1]["content"]
    assert "use a local variable" in second_round
    assert "result = a * b" in (repo / "calc.py").read_text()


async def test_a_failure_after_the_last_commit_is_first_tried_as_that_commit_undone(tmp_path: Path,
                                                                                   ollama_server) -> None:
    repo = make_repo(tmp_path / "repo", {"calc.py": CALC.replace("a + b\n\n\ndef add", "a * b\n\n\ndef add"),
                                         "tests/test_calc.py": TESTS, "pytest.ini": "[pytest]\n"})
    (repo / "calc.py").write_text(CALC)
    git(repo, "commit", "-qam", "calc: simpler mul")
    events, done, approver = await pipeline_turn(repo, ollama_server, "tests fail since my last commit",
                                                 [js({"kind": "fix"})])
    assert len(ollama_server.requests) == 1, "the program's own candidate passed: the model was asked nothing more"
    assert "return a * b" in (repo / "calc.py").read_text()
    assert "before the recent change" in edits(approver)[0].summary


async def test_work_in_progress_elsewhere_does_not_hide_the_commit_that_broke_the_test(tmp_path: Path,
                                                                                    ollama_server) -> None:
    """The last commit broke mul; uncommitted work renamed another function on many lines (an approved rename, say).
    The commit is still undone first, and the renamed function is not taken for the cause."""
    other = ('def total(xs):\n    """Sum of xs."""\n    out = 0\n    for x in xs:\n        out = add(out, x)\n'
             '    return out\n')
    repo = make_repo(tmp_path / "repo", {"calc.py": CALC.replace("a + b\n\n\ndef add", "a * b\n\n\ndef add"),
                                         "stats.py": "from calc import add\n\n\n" + other,
                                         "tests/test_calc.py": TESTS, "pytest.ini": "[pytest]\n"})
    (repo / "calc.py").write_text(CALC)
    git(repo, "commit", "-qam", "calc: simpler mul")
    (repo / "stats.py").write_text("from calc import add\n\n\n" + other.replace("total", "sum_all")
                                   .replace("out", "acc"))
    events, done, approver = await pipeline_turn(repo, ollama_server, "tests/test_calc.py::test_mul fails, fix it",
                                                 [js({"kind": "fix"})])
    assert "return a * b" in (repo / "calc.py").read_text()
    assert "before the recent change" in edits(approver)[0].summary
    assert "sum_all" in (repo / "stats.py").read_text(), "the work in progress is left alone"


async def test_nothing_failing_is_not_a_fix(tmp_path: Path, ollama_server) -> None:
    repo = make_repo(tmp_path / "repo", {"calc.py": CALC.replace("a + b\n\n\ndef add", "a * b\n\n\ndef add"),
                                         "tests/test_calc.py": TESTS, "pytest.ini": "[pytest]\n"})
    events, done, approver = await pipeline_turn(repo, ollama_server, "fix the tests",
                                                 [js({"kind": "fix"}), js({"definition": "mul"}),
                                                  js({"code": "assert 1 == 2"})] + [js({"code": "x"})] * 6)
    details = [e.text for e in events if e.type == "detail"]
    assert any("no test fails" in d for d in details)
    assert edits(approver) == []


async def test_candidates_are_tried_where_ignored_caches_sit_beside_the_code(tmp_path: Path, ollama_server) -> None:
    """An ignored __pycache__ inside the package must not hide the candidate's file in the throwaway copy."""
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/calc.py": CALC, ".gitignore": "__pycache__/\n",
                                         "tests/test_calc.py": TESTS.replace("from calc", "from pkg.calc"),
                                         "pytest.ini": "[pytest]\n"})
    (repo / "pkg/__pycache__").mkdir()
    (repo / "pkg/__pycache__/stale.txt").write_text("x")
    right = {"code": "def mul(a, b):\n    return a * b\n"}
    events, done, approver = await pipeline_turn(repo, ollama_server, "the tests fail, fix it",
                                                 [js({"kind": "fix"}), js(right), js(right), js(right)])
    assert "return a * b" in (repo / "pkg/calc.py").read_text()


async def test_a_fix_where_no_tests_can_run_is_a_change_of_behaviour(tmp_path: Path, ollama_server) -> None:
    """Nothing shows a failure (no suite at all): the request is done as a change, not handed to the general loop."""
    repo = make_repo(tmp_path / "repo", {"calc.py": CALC})
    events, done, approver = await pipeline_turn(repo, ollama_server, "mul in calc.py is wrong, make it multiply",
                                                 [js({"kind": "fix"})] + [js({"code": "x"})] * 12)
    details = [e.text for e in events if e.type == "detail"]
    assert any("handled as a change of behaviour" in d for d in details), details
