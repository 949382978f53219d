"""scripts/bench_real.py without a model: the task data's shape, the pinned sources, the self-check on real
fixtures (real upstream archives from PyPI/npm, real virtualenvs, each project's own test runner), and a run
against the scripted Ollama server through the real `devagent run` (held-out details stay off the console).

The archives and test dependencies are downloaded once into the bench cache (``$DEVAGENT_BENCH_CACHE``, else
~/.cache/devagent/bench) and reused.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import bench_real  # noqa: E402
from bench_common import Outcome  # noqa: E402
from benchreal import sources  # noqa: E402
from benchreal.fixtures import Fixtures, apply_edits  # noqa: E402
from benchreal.projects import NEW_PROJECTS, PROJECTS, all_tasks  # noqa: E402
from benchreal.selfcheck import prepare, selfcheck  # noqa: E402
from benchreal.report import Result, console_line, summary, write_transcript  # noqa: E402
from benchreal.selfcheck import SelfCheck  # noqa: E402
from benchreal.spec import HALVES, HIDDEN_HALVES, NEW_KINDS, OLD_KINDS, Write  # noqa: E402
from benchreal.suite import run_code  # noqa: E402

from tests.ollama_server import Reply, ScriptedOllama  # noqa: E402


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory: pytest.TempPathFactory) -> Fixtures:
    """One work dir for the module: each project's environment is built once and shared by its tests."""
    return Fixtures(tmp_path_factory.mktemp("bench-real"))


OLD_PROJECTS = [p for p in PROJECTS if p not in NEW_PROJECTS]


def test_task_data_has_the_promised_shape() -> None:
    tasks = [t for _, t in all_tasks()]
    assert len({t.id for t in tasks}) == len(tasks), "task ids are unique, across all halves"
    tasks = [t for p in OLD_PROJECTS for t in p.tasks if not t.id.startswith("dev2_")]  # dev2: session 12's
    assert len(tasks) >= 40 and len(OLD_PROJECTS) >= 4  # tuning tasks of the new kinds (tasks_dev2.py)
    kinds = Counter(t.kind for t in tasks)
    assert set(kinds) == set(OLD_KINDS) and min(kinds.values()) >= 3, kinds
    layouts = {p.env.layout for p in OLD_PROJECTS}
    assert {"repo-venv", "active-venv", "pythonpath", "node"} <= layouts
    assert {p.suite.parser for p in OLD_PROJECTS} >= {"pytest", "unittest", "tape"}
    for project in OLD_PROJECTS:
        assert len(project.source.sha256) == 64
        halves = Counter(t.half for t in project.tasks)
        assert set(halves) - {"dev", "fresh"} == {"tune", "heldout"}, project.name
        assert abs(halves["tune"] - halves["heldout"]) <= 1, project.name  # the dev set (session 7) and the
        # fresh half are extra: the two original halves stay balanced
        assert halves["fresh"] == 5, project.name
        for task in project.tasks:
            assert set(task.plants) <= set(project.plants), task.id
            if not task.reference.edits:
                assert task.reference.wrong, f"{task.id}: a question needs a wrong answer to fail on"
    for kind in OLD_KINDS:
        halves = Counter(t.half for t in tasks if t.kind == kind)
        assert abs(halves["tune"] - halves["heldout"]) <= 1, kind
    fresh = Counter(t.kind for t in tasks if t.half == "fresh")
    assert fresh == dict.fromkeys(OLD_KINDS, 2), fresh  # the fresh half: every kind twice


def test_the_new_half_is_registered_hidden_and_complete() -> None:
    """Issue 29's untouched half: its own projects (none used before), >= 25 tasks over every work kind (each at
    least twice), >= 2 of the projects in JavaScript/TypeScript, every task with a reference and a wrong one."""
    assert "new" in HALVES and "new" in HIDDEN_HALVES
    tasks = [t for _, t in all_tasks() if t.half == "new"]
    assert len(tasks) >= 25 and len({t.id for t in tasks}) == len(tasks)
    assert {t.id for p in NEW_PROJECTS for t in p.tasks} == {t.id for t in tasks}, "only new projects carry it"
    assert len(NEW_PROJECTS) >= 5
    old_names = {p.source.name for p in OLD_PROJECTS} | {"more-itertools", "iniconfig"}
    assert not old_names & {p.source.name for p in NEW_PROJECTS}, "projects nobody here had used"
    assert sum(p.env.layout == "node" for p in NEW_PROJECTS) >= 2
    assert any(p.suite.parser == "jest" and "tsc" in " ".join(p.suite.argv) for p in NEW_PROJECTS), \
        "a TypeScript project judged by its own type checker"
    kinds = Counter(t.kind for t in tasks)
    assert set(kinds) == set(NEW_KINDS) and min(kinds.values()) >= 2, kinds
    for project in NEW_PROJECTS:
        assert len(project.tasks) >= 5, project.name
        for task in project.tasks:
            assert set(task.plants) <= set(project.plants), task.id
            assert task.reference.edits or task.reference.wrong, task.id
            assert task.reference.wrong or task.reference.wrong_edits, f"{task.id}: something wrong must fail"
    assert bench_real.main(["--list", "--half", "new"]) == 0


def test_hidden_halves_keep_their_details_off_the_console_and_json(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert HIDDEN_HALVES == {"heldout", "fresh", "new"}
    rows = [Result(f"t_{half}", "qs", "count", half, False, 1.5, why=f"SECRET-{half}", tools=["run_tests"])
            for half in ("tune", "heldout", "dev", "fresh")]
    for row in rows:
        hidden = row.half in HIDDEN_HALVES
        assert ("why" in row.public()) is not hidden and ("tools" in row.public()) is not hidden, row.half
        assert ("SECRET" in console_line(row)) is not hidden, row.half
        write_transcript(tmp_path, row, Outcome(events=[], answer="", rc=0, seconds=1.5), "", "prompt")
        assert (tmp_path / row.half / row.task / "result.json").exists(), "a transcript goes to OUT/<half>/ only"
    summ = summary(rows)
    assert list(summ) == ["tune", "heldout", "dev", "fresh"]
    assert summ["fresh"]["projects"]["qs"]["total"] == 1 and summ["fresh"]["kinds"]["count"]["passed"] == 0
    # a failing self-check of a hidden half does not print why (the reason quotes the task's check)
    fresh = next((p, t) for p, t in all_tasks() if t.half == "fresh")
    tune = next((p, t) for p, t in all_tasks() if t.half == "tune")
    monkeypatch.setattr(bench_real, "selfcheck", lambda _f, _p, task: SelfCheck(task.id, False, "SECRET-REASON"))
    assert bench_real.run_selfcheck(None, [fresh, tune]) == 1  # type: ignore[arg-type]
    out = capsys.readouterr().out
    assert out.count("SECRET-REASON") == 1 and f"FAIL  fresh   {fresh[1].id}" in out
    bench_real.run_selfcheck(None, [fresh], show_hidden=True)  # type: ignore[arg-type]
    assert "SECRET-REASON" in capsys.readouterr().out


def test_an_archive_that_changed_upstream_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEVAGENT_BENCH_CACHE", str(tmp_path))
    source = PROJECTS[0].source
    fake = tmp_path / "src" / source.filename
    fake.parent.mkdir(parents=True)
    fake.write_bytes(b"not the release")
    with pytest.raises(sources.BenchError, match="sha256"):
        sources.fetch(source)
    assert not fake.exists(), "a mismatching archive is deleted, never used"


def _pick(project_name: str) -> list[str]:
    """A question, a planted-bug task and a test-writing task of one project: every kind of check."""
    project = next(p for p in PROJECTS if p.name == project_name)
    wanted = []
    for kinds in (("count", "where"), ("fix_bug", "run_suite"), ("add_test", "multi_step")):
        wanted.append(next(t.id for t in project.tasks if t.kind in kinds))
    return wanted


@pytest.mark.slow
@pytest.mark.parametrize("project_name", [p.name for p in OLD_PROJECTS])
def test_selfcheck_proves_checks_of_every_project(project_name: str, fixtures: Fixtures) -> None:
    project = next(p for p in PROJECTS if p.name == project_name)
    for task in (t for t in project.tasks if t.id in _pick(project_name)):
        result = selfcheck(fixtures, project, task)
        assert result.ok, f"{task.id}: {result.why}"
    repo, _ = fixtures.fresh(project, None)
    status = subprocess.run(["git", "status", "--porcelain", "--ignored=no"], cwd=repo, capture_output=True, text=True)
    assert status.stdout == "", "the agent starts on a clean tree: the project's environment is git-ignored"


@pytest.mark.slow
def test_a_fix_that_edits_the_tests_fails(fixtures: Fixtures) -> None:
    project = next(p for p in PROJECTS if p.name == "xmltodict")
    task = next(t for t in project.tasks if t.kind == "fix_bug")
    ctx = prepare(fixtures, project, task)
    apply_edits(ctx.repo, task.reference.edits)
    assert task.check(ctx)[0], "the reference fix passes"
    apply_edits(ctx.repo, (Write("tests/test_xmltodict.py", "import unittest\n"),))
    ok, why = task.check(ctx)
    assert not ok and "test file was edited" in why


def _answers(body: dict[str, Any]) -> Reply:
    """A scripted model that answers the tune question right and the held-out question wrong."""
    prompt = next((m.get("content", "") for m in body.get("messages", []) if m.get("role") == "user"), "")
    if "exactly 1 byte" in prompt:
        return Reply("naturalsize(1) returns '1 Byte'.")
    return Reply("SECRET-WRONG-ANSWER: it returns '1.2 million'.")


@pytest.mark.slow
def test_a_run_scores_both_halves_and_keeps_heldout_details_off_the_console(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedOllama() as server:
        server.default_reply = _answers  # type: ignore[assignment]
        rc = bench_real.main(["--host", server.url, "--half", "all", "--only",
                              "hz_behaviour_one_byte,hz_behaviour_intword", "--work", str(tmp_path / "w"),
                              "--out", str(tmp_path / "out"), "--json", str(tmp_path / "r.json"), "--timeout", "120"])
    console = capsys.readouterr().out
    assert rc == 1, console
    assert "PASS  tune    hz_behaviour_one_byte" in console
    assert "FAIL  heldout hz_behaviour_intword" in console
    assert "SECRET-WRONG-ANSWER" not in console
    assert re.search(r"^FAIL  heldout hz_behaviour_intword +[\d.]+ s$", console, re.M), "no failure detail for held-out"
    held = tmp_path / "out" / "heldout" / "hz_behaviour_intword"
    assert "SECRET-WRONG-ANSWER" in (held / "events.jsonl").read_text(), "the transcript is kept, in its own half"
    assert (tmp_path / "out" / "tune" / "hz_behaviour_one_byte" / "diff.patch").exists()
    data = json.loads((tmp_path / "r.json").read_text())
    rows = {r["task"]: r for r in data["results"]}
    assert rows["hz_behaviour_one_byte"]["ok"] and "why" in rows["hz_behaviour_one_byte"]
    assert not rows["hz_behaviour_intword"]["ok"] and "why" not in rows["hz_behaviour_intword"]
    assert data["summary"]["tune"]["all"]["passed"] == 1 and data["summary"]["heldout"]["all"]["passed"] == 0


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed (apt-get install bubblewrap)")
def test_checks_run_the_models_code_confined_to_the_work_dir(tmp_path: Path) -> None:
    fixtures = Fixtures(tmp_path)
    qs = next(p for p in PROJECTS if p.name == "qs")
    outside = Path.home() / f".bench-real-escape-{os.getpid()}"
    inside = tmp_path / "written.txt"
    write = "require('fs').writeFileSync({}, 'x')"
    ok, why = run_code(fixtures, qs, tmp_path, write.format(json.dumps(str(outside))))
    assert not ok and not outside.exists(), "code the model wrote cannot write outside the work dir"
    ok, why = run_code(fixtures, qs, tmp_path, write.format(json.dumps(str(inside))))
    assert ok and inside.exists(), why


def test_devagent_option_refuses_a_directory_that_is_no_checkout(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_real.main(["--list", "--devagent", str(tmp_path)]) == 2
    assert "no devagent checkout there" in capsys.readouterr().err


FAKE_DEVAGENT = '''import json, sys
print(json.dumps({"type": "turn_done", "text": "naturalsize(1) returns '1 Byte'. (from " + __file__ + ")"}))
'''


@pytest.mark.slow
def test_devagent_option_runs_the_other_checkouts_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--devagent PATH: `python -m tui` with PATH first on PYTHONPATH, so a baseline runs an older checkout's
    agent (here a stand-in checkout whose `tui` answers without a model) on the same tasks and checks."""
    other = tmp_path / "other-checkout"
    (other / "tui").mkdir(parents=True)
    (other / "tui" / "__init__.py").write_text("")
    (other / "tui" / "__main__.py").write_text(FAKE_DEVAGENT)
    rc = bench_real.main(["--host", "http://127.0.0.1:9", "--only", "hz_behaviour_one_byte", "--devagent", str(other),
                          "--work", str(tmp_path / "w"), "--out", str(tmp_path / "out"),
                          "--json", str(tmp_path / "r.json"), "--timeout", "120"])
    captured = capsys.readouterr()
    assert rc == 0, captured.out + captured.err
    assert f"devagent from {other}" in captured.err
    answer = json.loads((tmp_path / "out" / "tune" / "hz_behaviour_one_byte" / "result.json").read_text())["answer"]
    assert str(other / "tui" / "__main__.py") in answer, "the other checkout's tui ran"
    assert str(other) in json.loads((tmp_path / "r.json").read_text())["devagent"]
