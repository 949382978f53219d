#!/usr/bin/env python3
"""Everyday repo tasks run end to end through `devagent run --yes --json` on a real local model.

Each task gets a fresh copy of a small fixture repo this script builds, and is scored by
what changed on disk and what the answer says, so the figures reflect what a developer sees.

usage: scripts/bench_model.py [--model 1.5b|0.5b] [--model-file PATH] [--only NAME,...] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from bench_common import ROOT, Outcome, run_agent, write_user_config

MODEL_FILES = {"1.5b": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "0.5b": "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"}

FIXTURE: dict[str, str] = {
    "README.md": "# Pelican\n\nPelican is a tiny toolkit of helpers for numbers, text and CSV files.\n",
    "config.py": "\"\"\"Settings.\"\"\"\n\nDEFAULT_TIMEOUT = 30\nRETRIES = 3\n",
    "calc.py": (
        "\"\"\"Arithmetic helpers.\"\"\"\n\n\n"
        "def add(a, b):\n    return a + b\n\n\n"
        "def sub(a, b):\n    return a - b\n\n\n"
        "def mul(a, b):\n    return a * b\n\n\n"
        "def div(a, b):\n    if b == 0:\n        raise ValueError(\"division by zero\")\n    return a / b\n"
    ),
    "text_utils.py": (
        "\"\"\"Text helpers.\"\"\"\n\n\n"
        "def slugify(text):\n    \"\"\"'Hello World' -> 'hello-world'.\"\"\"\n"
        "    return text.strip().lower().replace(\" \", \"_\")\n"
    ),
    "test_calc.py": (
        "from calc import add, sub\n\n\n"
        "def test_add():\n    assert add(2, 3) == 5\n\n\n"
        "def test_sub():\n    assert sub(5, 3) == 2\n"
    ),
    "test_text_utils.py": (
        "from text_utils import slugify\n\n\n"
        "def test_slugify():\n    assert slugify(\"Hello World\") == \"hello-world\"\n"
    ),
    "data/people.csv": "name,city\n Ada , London\nGrace,New York \n\nAda,London\nLinus , Helsinki\n\n",
}
CLEAN_CSV = ["name,city", "Ada,London", "Grace,New York", "Linus,Helsinki"]


@dataclass
class Result:
    task: str
    ok: bool
    seconds: float
    why: str
    tools: list[str] = field(default_factory=list)
    answer: str = ""  # the end of what the model said, to see why a task failed


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout


def build_fixture(path: Path) -> Path:
    """A committed git repo with a little code, tests (one failing) and a messy CSV."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    for name, text in FIXTURE.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git(path, "add", "-A")
    git(path, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false",
        "commit", "-q", "-m", "fixture")
    return path


def _py(repo: Path, code: str) -> bool:
    return subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, timeout=60).returncode == 0


def _pytest(repo: Path, *selection: str) -> tuple[int, str]:
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *selection], cwd=repo,
                         capture_output=True, text=True, timeout=120)
    return out.returncode, out.stdout[-300:]


def _unchanged(repo: Path) -> bool:
    return git(repo, "status", "--porcelain") == ""


Check = Callable[[Path, Outcome], tuple[bool, str]]


def _says(*patterns: str, readonly: bool = True) -> Check:
    def check(repo: Path, run: Outcome) -> tuple[bool, str]:
        missing = [p for p in patterns if not re.search(p, run.answer, re.I)]
        if missing:
            return False, f"answer lacks {missing}"
        if readonly and not _unchanged(repo):
            return False, "a question changed the working tree"
        return True, "answer right"
    return check


def _file_has(path: str, pattern: str, *, python: str = "") -> Check:
    def check(repo: Path, run: Outcome) -> tuple[bool, str]:
        target = repo / path
        if not target.is_file() or not re.search(pattern, target.read_text(), re.M):
            return False, f"{path} lacks /{pattern}/"
        if python and not _py(repo, python):
            return False, f"{path} changed but does not work"
        return True, f"{path} edited"
    return check


def _tests_pass(extra: str = "", *selection: str) -> Check:
    """The suite (or ``selection``: the fixture's slugify test fails on purpose, for fix_failing_test) passes."""
    def check(repo: Path, run: Outcome) -> tuple[bool, str]:
        if extra and not re.search(extra, (repo / "test_calc.py").read_text()):
            return False, f"test_calc.py lacks /{extra}/"
        rc, tail = _pytest(repo, *selection)
        return (rc == 0, "tests pass" if rc == 0 else f"tests fail: {tail.strip().splitlines()[-1:]}")
    return check


def _csv_clean(repo: Path, run: Outcome) -> tuple[bool, str]:
    lines = [ln.rstrip("\r") for ln in (repo / "data/people.csv").read_text().splitlines()]
    return (lines == CLEAN_CSV, "csv clean" if lines == CLEAN_CSV else f"csv is {lines}")


def _ran_tests(repo: Path, run: Outcome) -> tuple[bool, str]:
    ran = any(e.get("type") == "command_started" for e in run.events) or "run_tests" in run.tool_names()
    if not ran:
        return False, "no test run"
    if not re.search(r"\b(1|one)\b[^.\n]*fail|fail\w*\W+(\w+\W+){0,3}(1|one)\b", run.answer, re.I):
        return False, "answer does not say one test fails"
    return True, "ran tests, reported 1 failure"


TASKS: list[tuple[str, str, Check]] = [
    ("q_constant", "What value is DEFAULT_TIMEOUT set to in config.py?", _says(r"\b30\b")),
    ("q_behaviour", "What does the div function in calc.py do when b is 0?", _says(r"ValueError|raise")),
    ("q_readme", "What is the name of this project, according to README.md?", _says(r"Pelican")),
    ("q_where", "Which file defines the slugify function?", _says(r"text_utils")),
    ("edit_constant", "Change DEFAULT_TIMEOUT in config.py from 30 to 60.",
     _file_has("config.py", r"^DEFAULT_TIMEOUT\s*=\s*60\b", python="import config; assert config.RETRIES == 3")),
    ("edit_add_function", "Add a function square(x) to calc.py that returns x * x.",
     _file_has("calc.py", r"def square\(", python="import calc; assert calc.square(3) == 9 and calc.add(1, 2) == 3")),
    ("edit_rename", "Rename the function sub in calc.py to subtract. Only change calc.py.",
     _file_has("calc.py", r"def subtract\(", python="import calc; assert calc.subtract(5, 3) == 2")),
    ("fix_failing_test", "test_text_utils.py fails. Fix slugify in text_utils.py so that the test passes.",
     _tests_pass()),
    ("add_test", "Add a test function test_mul for the mul function to test_calc.py.", _tests_pass(r"def test_mul", "test_calc.py")),
    ("clean_csv", "Clean data/people.csv in place: strip the spaces around every value, "
                  "remove blank lines and remove duplicate rows. Keep the header.", _csv_clean),
    ("run_tests", "Run the test suite and tell me how many tests fail.", _ran_tests),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=sorted(MODEL_FILES), default="1.5b")
    parser.add_argument("--model-file", help="any GGUF file (overrides --model)")
    parser.add_argument("--only", help="comma-separated task names")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per task (hang guard)")
    parser.add_argument("--json", metavar="FILE", help="write the results here")
    parser.add_argument("--keep", action="store_true", help="keep the task repos (printed) for inspection")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(ROOT))
    from tui.llm.modelcache import model_dir

    model = Path(args.model_file) if args.model_file else model_dir() / MODEL_FILES[args.model]
    if not model.is_file():
        print(f"bench_model: {model} not found; run scripts/fetch-test-model {args.model}", file=sys.stderr)
        return 2
    wanted = set(args.only.split(",")) if args.only else None
    tasks = [t for t in TASKS if wanted is None or t[0] in wanted]
    work = Path(tempfile.mkdtemp(prefix="devagent-bench-"))
    config = write_user_config(work / "config.toml")
    results: list[Result] = []
    print(f"model {model.name}, {len(tasks)} tasks, work dir {work}")
    for name, prompt, check in tasks:
        repo = build_fixture(work / name)
        run = run_agent(repo, prompt, model, config=config, state=work / "state", timeout=args.timeout)
        try:
            ok, why = check(repo, run)
        except (OSError, subprocess.SubprocessError, UnicodeDecodeError) as exc:
            ok, why = False, f"check failed: {exc}"
        if run.rc is None or run.rc < 0 or run.seconds >= args.timeout:
            why += f" (timed out after {args.timeout:.0f} s)"
        results.append(Result(name, ok, round(run.seconds, 1), why, run.tool_names(), run.answer[-400:]))
        print(f"{'PASS' if ok else 'FAIL'}  {name:<18} {run.seconds:6.1f} s  {why}  tools={run.tool_names()}",
              flush=True)
    passed = sum(r.ok for r in results)
    total_s = sum(r.seconds for r in results)
    print(f"{passed}/{len(results)} passed, {total_s:.0f} s total, slowest {max(r.seconds for r in results):.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({"model": model.name, "passed": passed, "tasks": len(results),
                                               "results": [asdict(r) for r in results]}, indent=2))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
