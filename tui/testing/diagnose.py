"""Why a test run has no meaningful counts: it could not start, could not collect its tests, or ran none.

Such a run must never read "0 passed, 0 failed": the model would report that as the suite's result and
look for a bug that is not there. Each case gets its first error line and what to do about it.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from tui.testing.parsers import Parsed, strip_ansi

RAN, COLLECTION, NOT_STARTED, NO_TESTS, NO_COUNTS, KILLED = (
    "ran", "collection_error", "not_started", "no_tests", "no_counts", "killed")

EXECVP = re.compile(r"bwrap: execvp (?P<prog>\S+): (?P<why>.+)")
SH_NOT_FOUND = re.compile(r"^(?:\S+: )*(?:line \d+: )?(?P<prog>[^\s:]+): (?:command )?not found\s*$", re.M)
NO_MODULE = re.compile(r"No module named '?(?P<mod>[\w.]+)'?")
NO_PYTEST = re.compile(r"^\S*: No module named pytest\s*$", re.M)
COLLECTING = re.compile(r"^_+ ERROR collecting (?P<file>\S+) _+$", re.M)
IMPORTING = re.compile(r"^ImportError while (?P<what>importing test module|loading conftest) '(?P<file>[^']+)'", re.M)
E_LINE = re.compile(r"^E\s+(?P<text>\S.*)$", re.M)
UNITTEST_IMPORT = re.compile(r"^ImportError: Failed to import test module: (?P<mod>\S+)", re.M)
NO_TESTS_TEXT = re.compile(r"NO TESTS RAN|no tests ran|collected 0 items|No tests found|no test files", re.I)
ERRORISH = re.compile(r"\b\w*(?:Error|Exception)\b:|\berror\b|ERR!|not found|No such file|cannot|Cannot|failed", re.I)


@dataclass(frozen=True)
class Diagnosis:
    status: str = RAN
    problem: str = ""  # the first error line, made readable
    hint: str = ""  # what to do


def _rel(path: str, repo: Path) -> str:
    try:
        return Path(path).resolve().relative_to(repo).as_posix()
    except (ValueError, OSError):
        return path


def first_error(output: str) -> str:
    """The first line that looks like an error, else the last non-empty line."""
    lines = [ln.strip() for ln in strip_ansi(output).splitlines() if ln.strip() and not set(ln.strip()) <= set("=-_!*~ ")]
    hit = next((ln for ln in lines if ERRORISH.search(ln)), lines[-1] if lines else "")
    return hit[:300]


def _own_package(module: str, repo: Path, cwd: Path) -> str:
    """Where this repo keeps ``module`` when it is the repo's own code ('' otherwise)."""
    top = module.split(".")[0]
    for base in dict.fromkeys((cwd, repo)):
        for parent in ("src", "lib", "python", "."):
            for name in (top, f"{top}.py"):
                candidate = base / parent / name
                if candidate.exists():
                    return _rel(str(candidate), repo)
    return ""


def import_hint(module: str, repo: Path, cwd: Path, interpreter: str) -> str:
    where = _own_package(module, repo, cwd)
    used = interpreter.removeprefix("python: ") or "this interpreter"
    if where:
        parent = os.path.dirname(where) or "."
        return (f"{module.split('.')[0]} is this repo's own code ({where}) but {used} cannot import it: install the "
                f"project into that environment (pip install -e .), or give it PYTHONPATH={parent} "
                f"(project.env in .devagent.toml). Tell the developer; editing the code will not fix this.")
    return (f"{module} is not installed for {used}: install it into the project's environment, or run devagent "
            "with that environment activated (or set project.python). Tell the developer; if the import itself "
            "is wrong (a typo), fix the import.")


def _collection(output: str, repo: Path, cwd: Path, interpreter: str, parsed: Parsed) -> Diagnosis | None:
    text = strip_ansi(output)
    imp = IMPORTING.search(text)
    if imp:
        after = E_LINE.findall(text[imp.end():])
        error = after[0] if after else first_error(text[imp.end():])
        missing = NO_MODULE.search(error)
        detail = missing.group(0) if missing else error
        problem = f"ImportError while {imp.group('what')} {_rel(imp.group('file'), repo)}: {detail}"
        hint = import_hint(missing.group("mod"), repo, cwd, interpreter) if missing else \
            "Fix the error in that file (it stops the whole suite from being collected)."
        return Diagnosis(COLLECTION, problem, hint)
    coll = COLLECTING.search(text)
    if coll:
        after = E_LINE.findall(text[coll.end():])
        error = next((ln for ln in after if re.match(r"\w+(Error|Exception)\b", ln)), after[-1] if after else "")
        return Diagnosis(COLLECTION, f"could not collect {coll.group('file')}: {error or first_error(text[coll.end():])}",
                         "Fix that file: while it does not import, its tests do not run.")
    unit = UNITTEST_IMPORT.search(text)
    if unit:
        tail = [ln.strip() for ln in text[unit.end():].splitlines() if ln.strip() and not ln.startswith(" ")]
        error = next((ln for ln in tail if re.match(r"\w+(Error|Exception)\b", ln)), "")
        missing = NO_MODULE.search(error)
        module = next((f.file for f in parsed.failures if f.kind == "error" and f.file and f.test_id == f.file),
                      unit.group("mod"))
        problem = f"ImportError while importing test module {module}: {missing.group(0) if missing else error}"
        hint = import_hint(missing.group("mod"), repo, cwd, interpreter) if missing else "Fix that test module."
        return Diagnosis(COLLECTION, problem, hint)
    return None


def _not_started(output: str, exit_code: int | None, interpreter: str) -> Diagnosis | None:
    text = strip_ansi(output)
    m = EXECVP.search(text)
    if m:
        prog = m.group("prog")
        where = ("it exists on this machine but not inside the sandbox" if shutil.which(prog) else
                 "it is not installed (or not on PATH)")
        return Diagnosis(NOT_STARTED, f"cannot start {prog}: {m.group('why').strip()}",
                         f"{where}. Tell the developer (devagent doctor shows which interpreter is used and why).")
    if NO_PYTEST.search(text):
        return Diagnosis(NOT_STARTED, f"No module named pytest in {interpreter.removeprefix('python: ') or 'python'}",
                         "pytest is not installed in the project's environment: install it there (python -m pip "
                         "install pytest), or point devagent at the environment that has it (project.python). "
                         "Tell the developer; no code change fixes this.")
    m = SH_NOT_FOUND.search(text)
    if exit_code == 127 or m:
        prog = m.group("prog") if m else "the command"
        return Diagnosis(NOT_STARTED, f"{prog}: command not found (exit {exit_code})",
                         "Install it or its dependencies (commands have no network unless approved), or set "
                         "tests.command. Tell the developer.")
    if exit_code == 126:
        return Diagnosis(NOT_STARTED, f"permission denied: {first_error(text)}", "Make the program executable.")
    return None


def diagnose(kind: str, output: str, exit_code: int | None, killed: str, parsed: Parsed, repo: Path, cwd: Path,
             interpreter: str = "", selection: str = "") -> Diagnosis:
    """Classify one run. ``parsed`` is what the parsers found; ``interpreter`` the one-line choice (Python)."""
    if killed:
        return Diagnosis(KILLED, f"stopped by devagent ({killed})",
                         "Run a subset (a file or a test id) or raise the time limit.")
    total = parsed.passed + parsed.failed + parsed.errored + parsed.skipped
    collection = _collection(output, repo, cwd, interpreter, parsed) if kind in ("pytest", "unittest", "custom", "make",
                                                                            "tox", "nox") else None
    if collection:
        return collection
    if total == 0:
        started = _not_started(output, exit_code, interpreter)
        if started:
            return started
        if exit_code == 5 or NO_TESTS_TEXT.search(output):
            what = f" matching {selection!r}" if selection else ""
            return Diagnosis(NO_TESTS, f"no tests were collected{what}",
                             "Check the selection (a file path, test id or name) and the test files' names.")
        if parsed.unread:  # the runner's report was there but devagent would not parse it
            return Diagnosis(NO_COUNTS, parsed.unread, "Read the output below; the report could not be used.")
        if exit_code == 0:
            return Diagnosis(NO_COUNTS, "the command succeeded but printed no test counts",
                             "Read the output below; the counts could not be parsed.")
        return Diagnosis(NO_COUNTS, f"exit {exit_code} before any test result: {first_error(output)}",
                         "Read the output below: the suite did not get as far as running tests.")
    return Diagnosis()
