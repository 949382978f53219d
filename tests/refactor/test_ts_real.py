"""The TypeScript engine on two real TypeScript projects (tsconfig-paths 4.2.0, ml-random 1.0.1; tests/refactor/
tsprojects.py), each with its own typescript: every operation's proposal is checked by the engine in its scratch copy
(the changed files parse, the project's ``tsc --noEmit``, the project's own jest suite, all in the sandbox), and the
old name or location must be gone from the proposed code. node runs only inside bubblewrap, as in devagent.

Each project is prepared once for the module and shared: the engine never writes the work tree (a test checks that
after every operation), so the operations cannot disturb each other. The suites' sizes are the pinned releases' own
(74 tests in tsconfig-paths, 13 in ml-random): a check that ran fewer, or none, would not match.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Iterator

import pytest

from tui.refactor import ts
from tui.refactor.base import Outcome, RefactorError
from tests.refactor import tsprojects
from tests.refactor.tsprojects import after

pytestmark = pytest.mark.skipif(not (shutil.which("node") and shutil.which("npm") and shutil.which("bwrap")),
                                reason="node, npm and bubblewrap are needed (apt-get install nodejs npm bubblewrap)")

SUITES = {"tsconfig-paths": 74, "ml-random": 13}


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    try:
        return {name: tsprojects.make(name, tmp_path_factory.mktemp(name)) for name in SUITES}
    except tsprojects.sources.BenchError as exc:  # the registry cannot be reached and nothing is cached
        pytest.skip(f"the pinned projects could not be fetched: {exc}")


@pytest.fixture(autouse=True)
def work_trees_untouched(projects: dict[str, Path]) -> Iterator[None]:
    yield
    for name, repo in projects.items():
        assert tsprojects.git(repo, "status", "--porcelain") == "", f"the engine wrote {name}'s work tree"


def checked(outcome: Outcome, project: str, tsc: bool = True) -> None:
    """Every check passed: the files parse, tsc (when expected), and the whole suite of the project."""
    checks = {c.name: c for c in outcome.checks}
    assert sorted(checks) == sorted(["parse", "tests"] + (["tsc"] if tsc else [])), outcome.checks
    assert all(c.ok for c in checks.values()), outcome.checks
    assert re.search(rf"\b{SUITES[project]} passed, 0 failed\b", checks["tests"].detail), checks["tests"].detail
    if tsc:
        assert checks["tsc"].detail.endswith(": no errors"), checks["tsc"].detail


def code_after(repo: Path, outcome: Outcome) -> str:
    """Every TypeScript file of the project as the proposal's exact part leaves it."""
    changed = {c.path: c.after for c in outcome.changes}
    texts = []
    for path in sorted(repo.glob("src/**/*.ts")):
        rel = path.relative_to(repo).as_posix()
        data = changed.pop(rel) if rel in changed else path.read_bytes()
        texts.append((data or b"").decode())
    texts += [(data or b"").decode() for rel, data in changed.items() if rel.endswith(".ts")]  # new modules
    return "\n".join(texts)


def line_of(repo: Path, rel: str, needle: str, start: int = 0) -> int:
    lines = (repo / rel).read_text().splitlines()
    return next(i + 1 for i in range(start, len(lines)) if needle in lines[i])


# -- rename ------------------------------------------------------------------------------------------------------------

def test_rename_function_used_in_three_files_and_its_test(projects: dict[str, Path]) -> None:
    repo = projects["tsconfig-paths"]
    outcome = ts.run("rename", repo, old="createMatchPath", new="makeMatchPath")
    assert {c.path for c in outcome.changes} == {"src/index.ts", "src/register.ts", "src/match-path-sync.ts",
                                                 "src/__tests__/match-path-sync.test.ts"}
    assert "README.md" in {c.path for c in outcome.optional}  # prose is the optional part
    assert outcome.engine.startswith("TypeScript 5.9.3 language service (the project's)")
    checked(outcome, "tsconfig-paths")
    assert not re.search(r"\bcreateMatchPath\b", code_after(repo, outcome))
    assert "makeMatchPath," in after(outcome, "src/index.ts")  # the package's export of it


def test_rename_method_across_class_and_tests(projects: dict[str, Path]) -> None:
    repo = projects["ml-random"]
    outcome = ts.run("rename", repo, old="Random.randInt", new="randomInt")
    assert {c.path for c in outcome.changes} == {"src/index.ts", "src/__tests__/test.ts"}
    checked(outcome, "ml-random")
    code = code_after(repo, outcome)
    assert not re.search(r"\brandInt\b", code.replace("describe('random.randInt'", ""))
    assert "public randomInt(low: number, high?: number): number" in code
    assert "rand1.randomInt(2)" in after(outcome, "src/__tests__/test.ts")
    # the test's title names the method in a string: the optional part, on top of the exact one
    optional = {c.path: c.after.decode() for c in outcome.optional if c.after}
    assert "describe('random.randomInt'" in optional["src/__tests__/test.ts"]


# -- move --------------------------------------------------------------------------------------------------------------

def test_move_function_to_new_module_updates_importers(projects: dict[str, Path]) -> None:
    repo = projects["tsconfig-paths"]
    outcome = ts.run("move", repo, name="getPathsToTry", to="src/paths-to-try.ts")
    by_path = {c.path: c for c in outcome.changes}
    assert by_path["src/paths-to-try.ts"].before is None
    assert {"src/try-path.ts", "src/match-path-sync.ts", "src/match-path-async.ts",
            "src/__tests__/try-path.test.ts"} <= set(by_path)
    checked(outcome, "tsconfig-paths")
    assert "getPathsToTry" not in after(outcome, "src/try-path.ts")  # not a public module: no re-export left behind
    assert "export function getPathsToTry" in after(outcome, "src/paths-to-try.ts")
    # match-path-sync.ts reaches it through `import * as TryPath`: it now imports the new module the same way
    sync = after(outcome, "src/match-path-sync.ts")
    assert 'import * as pathsToTry from "./paths-to-try";' in sync and "pathsToTry.getPathsToTry(" in sync
    assert "TryPath.getPathsToTry" not in sync


def test_move_out_of_a_public_module_keeps_it_exported_there(projects: dict[str, Path]) -> None:
    repo = projects["ml-random"]
    # src/index.ts (the package's main) re-exports all of RandomNumberGenerator.ts: the name stays importable there
    outcome = ts.run("move", repo, name="RandomNumberGenerator", to="src/Options.ts")
    assert {c.path for c in outcome.changes} == {"src/Options.ts", "src/RandomNumberGenerator.ts", "src/choice.ts",
                                                 "src/index.ts"}
    checked(outcome, "ml-random")
    assert "export type RandomNumberGenerator = () => number;" in after(outcome, "src/Options.ts")
    # the project's quotes and semicolons, in the re-export and in the importers the compiler rewrote
    assert after(outcome, "src/RandomNumberGenerator.ts") == "export type { RandomNumberGenerator } from './Options';\n"
    assert "import { RandomNumberGenerator } from './Options';" in after(outcome, "src/choice.ts")


# -- signature ---------------------------------------------------------------------------------------------------------

def test_signature_new_unused_parameter_is_caught_by_tsc_then_a_default_changes(projects: dict[str, Path]) -> None:
    # tsconfig-paths compiles with noUnusedParameters: the check says so instead of passing the change silently
    repo = projects["tsconfig-paths"]
    outcome = ts.run("signature", repo, name="createMatchPath", add="caseSensitive: boolean = true", tests=False)
    tsc = {c.name: c for c in outcome.checks}["tsc"]
    assert not tsc.ok and "1 new errors" in tsc.detail and "TS6133" in tsc.detail and "caseSensitive" in tsc.detail, \
        tsc.detail
    outcome = ts.run("signature", repo, name="createMatchPath", default="addMatchAll=true && true")
    checked(outcome, "tsconfig-paths")
    assert "addMatchAll: boolean = true && true" in after(outcome, "src/match-path-sync.ts")


def test_signature_of_an_overloaded_function_adds_to_every_signature(projects: dict[str, Path]) -> None:
    repo = projects["ml-random"]
    outcome = ts.run("signature", repo, name="randomChoice", add="unique: boolean = false",
                     default="options={ replace: false }")
    assert [c.path for c in outcome.changes] == ["src/choice.ts"]
    checked(outcome, "ml-random")
    text = after(outcome, "src/choice.ts")
    # both overload signatures get it as optional; the implementation gets the default and the new default
    assert len(re.findall(r"\n  random\?: RandomNumberGenerator,\n  unique\?: boolean,\n\): ", text)) == 2
    assert "options: ChoiceOptions = { replace: false },\n  random: RandomNumberGenerator = Math.random,\n  " \
           "unique: boolean = false,\n): Array<T | number> {" in text


# -- extract -----------------------------------------------------------------------------------------------------------

def test_extract_lines_into_function(projects: dict[str, Path]) -> None:
    repo = projects["tsconfig-paths"]
    first = line_of(repo, "src/try-path.ts", "const physicalPath = physicalPathPattern")
    last = line_of(repo, "src/try-path.ts", "(e) => ({ type: \"index\"", first) + 2
    outcome = ts.run("extract", repo, path="src/try-path.ts", start=first, end=last, name="pushPhysicalPaths")
    checked(outcome, "tsconfig-paths")
    text = after(outcome, "src/try-path.ts")
    assert "function pushPhysicalPaths(" in text and "pushPhysicalPaths(physicalPathPattern" in text
    assert "\n  const physicalPath" in text  # the file's two-space indentation, not the compiler's four


def test_extract_on_second_project(projects: dict[str, Path]) -> None:
    repo = projects["ml-random"]
    first = line_of(repo, "src/choice.ts", "cumSum = [probabilities[0]];")
    outcome = ts.run("extract", repo, path="src/choice.ts", start=first, end=first + 3, name="cumulativeSum")
    checked(outcome, "ml-random")
    text = after(outcome, "src/choice.ts")
    assert re.search(r"^function cumulativeSum\(", text, re.M)
    assert "cumSum = cumulativeSum(cumSum, probabilities);" in text
    assert text.count("cumSum[i] = cumSum[i - 1] + probabilities[i];") == 1


# -- what it will not do -----------------------------------------------------------------------------------------------

def test_ambiguous_or_unknown_names_are_refused_with_places(projects: dict[str, Path]) -> None:
    repo = projects["tsconfig-paths"]
    with pytest.raises(RefactorError, match="no definition named noSuchThing"):
        ts.run("rename", repo, old="noSuchThing", new="other", checks=False)
    with pytest.raises(RefactorError, match=r"would clash: .*getPathsToTry"):
        ts.run("rename", repo, old="matchStar", new="getPathsToTry", checks=False)
    with pytest.raises(RefactorError, match="cannot be extracted"):
        ts.run("extract", repo, path="src/try-path.ts", start=1, end=3, name="x", checks=False)


def test_a_compiler_failure_is_said_plainly(projects: dict[str, Path]) -> None:
    # TypeScript 5.9.3's "Move to file" asserts on a class that uses a default import of `export default name`
    # (Random uses choice.ts's): the developer is told the compiler failed and nothing changed, not shown a stack
    with pytest.raises(RefactorError) as caught:
        ts.run("move", projects["ml-random"], name="Random", to="src/Random.ts", checks=False)
    assert caught.value.message.startswith("the TypeScript 5.9.3 compiler failed while computing the move: ")
    assert " at " not in caught.value.message and "Nothing was changed" in caught.value.hint


def test_rename_a_commonjs_export_renames_its_exported_name_and_its_uses_in_other_files(tmp_path: Path) -> None:
    """qs-style CommonJS: ``var isRegExp = function isRegExp() {}`` exported as ``module.exports = { isRegExp:
    isRegExp }`` and used as ``utils.isRegExp(...)`` elsewhere. Renaming the binding alone left the exported name
    and every use in other files as they were; the export's property and the function expression's name go too."""
    import subprocess

    repo = tmp_path / "cjs"
    (repo / "lib").mkdir(parents=True)
    (repo / "lib/utils.js").write_text("'use strict';\n\nvar isRegExp = function isRegExp(obj) {\n"
                                       "    return Object.prototype.toString.call(obj) === '[object RegExp]';\n};\n\n"
                                       "exports.other = 1;\nmodule.exports = {\n    isRegExp: isRegExp\n};\n")
    (repo / "lib/parse.js").write_text("'use strict';\n\nvar utils = require('./utils');\n\nmodule.exports = "
                                       "function (d) {\n    return utils.isRegExp(d) ? 'regexp' : typeof d;\n};\n")
    (repo / "package.json").write_text('{"name": "cjs", "version": "1.0.0", "main": "lib/parse.js"}\n')
    modules = tsprojects.sources.node_modules("refactor-ts")
    subprocess.run(["cp", "-al", str(modules), str(repo / "node_modules")], check=True)
    (repo / ".gitignore").write_text("node_modules\n")
    tsprojects.git(repo, "init", "-q")
    tsprojects.git(repo, "add", "-A")
    tsprojects.git(repo, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm", "cjs")
    outcome = ts.run("rename", repo, old="isRegExp", new="isRegex")
    code = "\n".join(after(outcome, rel) for rel in ("lib/utils.js", "lib/parse.js"))
    assert not re.search(r"\bisRegExp\b", code), code
    assert "isRegex: isRegex" in code and "utils.isRegex(d)" in code and "function isRegex(obj)" in code
