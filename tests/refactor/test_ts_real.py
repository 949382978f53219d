"""The TypeScript engine on two real projects (tsconfig-paths 4.2.0, hashids 2.3.0; tests/refactor/tsprojects.py):
each operation's proposal is applied, then the project's own tsc and jest run (in the sandbox) and must pass, and the
old name or location must be gone. node runs only inside bubblewrap, as in devagent."""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path

import pytest

from tui.config import Config
from tui.refactor import ts
from tui.refactor.base import RefactorError
from tui.sandbox.runner import Sandbox
from tests.refactor import tsprojects

pytestmark = pytest.mark.skipif(not (shutil.which("node") and shutil.which("npm") and shutil.which("bwrap")),
                                reason="node, npm and bubblewrap are needed (apt-get install nodejs npm bubblewrap)")


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    try:
        return {name: tsprojects.make(name, tmp_path_factory.mktemp(name)) for name in tsprojects.PROJECTS}
    except tsprojects.sources.BenchError as exc:  # the registry cannot be reached and nothing is cached
        pytest.skip(f"the pinned projects could not be fetched: {exc}")


def fresh(projects: dict[str, Path], name: str, tmp_path: Path) -> Path:
    repo = tmp_path / name
    shutil.copytree(projects[name], repo, symlinks=True, ignore=shutil.ignore_patterns("node_modules"))
    shutil.copytree(projects[name] / "node_modules", repo / "node_modules", symlinks=True,
                    copy_function=lambda s, d: __import__("os").link(s, d))
    return repo


def own_checks(repo: Path) -> tuple[str, str]:
    """tsc --noEmit and jest of the project itself on the changed work tree, sandboxed: (tsc output, jest output)."""
    async def both() -> tuple[str, str]:
        box = Sandbox(repo, Config())
        tsc = await box.run(["node", "node_modules/typescript/lib/tsc.js", "--noEmit", "-p", "tsconfig.json"],
                            timeout=300)
        jest = await box.run(["node", "node_modules/jest/bin/jest.js", "--ci"], timeout=300)
        assert tsc.exit_code == 0, tsc.output[-2000:]
        assert jest.exit_code == 0, jest.output[-2000:]
        return tsc.output, jest.output
    return asyncio.run(both())


def checks_of(outcome) -> dict[str, tuple[bool, str]]:  # type: ignore[no-untyped-def]
    return {c.name: (c.ok, c.detail) for c in outcome.checks}


def code(repo: Path) -> str:
    return "\n".join(p.read_text() for p in sorted((repo / "src").rglob("*.ts")))


def test_rename_function_used_in_three_files_and_its_test(projects: dict[str, Path], tmp_path: Path) -> None:
    repo = fresh(projects, "tsconfig-paths", tmp_path)
    outcome = ts.run("rename", repo, old="createMatchPath", new="makeMatchPath")
    assert {c.path for c in outcome.changes} == {"src/index.ts", "src/register.ts", "src/match-path-sync.ts",
                                                 "src/__tests__/match-path-sync.test.ts"}
    assert "README.md" in {c.path for c in outcome.optional}  # prose is the optional part
    checks = checks_of(outcome)
    assert checks["parse"][0] and checks["tsc"][0] and checks["tests"][0], checks
    assert re.search(r"\b74 passed, 0 failed", checks["tests"][1])
    assert outcome.engine.startswith("TypeScript 5.9.3")
    tsprojects.apply(repo, outcome)
    assert not re.search(r"\bcreateMatchPath\b", code(repo))
    own_checks(repo)


def test_rename_method_across_class_and_tests(projects: dict[str, Path], tmp_path: Path) -> None:
    repo = fresh(projects, "hashids", tmp_path)
    outcome = ts.run("rename", repo, old="Hashids.encodeHex", new="encodeHexString")
    paths = {c.path for c in outcome.changes}
    assert "src/hashids.ts" in paths and any(p.startswith("src/tests/") for p in paths)
    assert all(ok for ok, _ in checks_of(outcome).values()), outcome.checks
    # the test titles that say 'encodeHex/decodeHex' are strings: the optional part, applied here too
    assert "src/tests/default-params-hex.test.ts" in {c.path for c in outcome.optional}
    tsprojects.apply(repo, outcome, optional=True)
    assert not re.search(r"\bencodeHex\b", code(repo))


def test_move_function_to_new_module_updates_importers(projects: dict[str, Path], tmp_path: Path) -> None:
    repo = fresh(projects, "tsconfig-paths", tmp_path)
    outcome = ts.run("move", repo, name="getPathsToTry", to="src/paths-to-try.ts")
    by_path = {c.path: c for c in outcome.changes}
    assert by_path["src/paths-to-try.ts"].before is None
    assert {"src/try-path.ts", "src/match-path-sync.ts", "src/match-path-async.ts",
            "src/__tests__/try-path.test.ts"} <= set(by_path)
    assert all(ok for ok, _ in checks_of(outcome).values()), outcome.checks
    tsprojects.apply(repo, outcome)
    assert "function getPathsToTry" not in (repo / "src/try-path.ts").read_text()  # not public: no re-export
    assert "getPathsToTry" not in (repo / "src/try-path.ts").read_text()
    assert "export function getPathsToTry" in (repo / "src/paths-to-try.ts").read_text()
    own_checks(repo)


def test_move_to_existing_module_keeps_public_name(projects: dict[str, Path], tmp_path: Path) -> None:
    repo = fresh(projects, "hashids", tmp_path)
    # hashids.ts is the package's entry ("source" in package.json): a name moved out of it stays exported there
    (repo / "src/hashids.ts").write_text((repo / "src/hashids.ts").read_text()
                                         + "\nexport const describeId = (id: string): string => `hashid ${id}`\n")
    tsprojects.git(repo, "commit", "-qam", "x", "--author", "t <t@example.invalid>")
    outcome = ts.run("move", repo, name="describeId", to="src/util.ts")
    assert all(ok for ok, _ in checks_of(outcome).values()), outcome.checks
    tsprojects.apply(repo, outcome)
    assert "export const describeId" in (repo / "src/util.ts").read_text()
    assert re.search(r"export \{ describeId \} from '\./util'", (repo / "src/hashids.ts").read_text())


def test_signature_add_parameter_with_default(projects: dict[str, Path], tmp_path: Path) -> None:
    repo = fresh(projects, "hashids", tmp_path)
    outcome = ts.run("signature", repo, name="Hashids.isValidId", add="strict: boolean = false")
    assert [c.path for c in outcome.changes] == ["src/hashids.ts"]
    assert all(ok for ok, _ in checks_of(outcome).values()), outcome.checks
    tsprojects.apply(repo, outcome)
    assert "isValidId(id: string, strict: boolean = false)" in (repo / "src/hashids.ts").read_text()


def test_signature_new_unused_parameter_is_caught_by_tsc(projects: dict[str, Path], tmp_path: Path) -> None:
    # tsconfig-paths compiles with noUnusedParameters: the check says so instead of passing the change silently
    repo = fresh(projects, "tsconfig-paths", tmp_path)
    outcome = ts.run("signature", repo, name="createMatchPath", add="caseSensitive: boolean = true", tests=False)
    ok, detail = checks_of(outcome)["tsc"]
    assert not ok and "caseSensitive" in detail and "TS6133" in detail
    outcome = ts.run("signature", repo, name="createMatchPath", default="addMatchAll=true && true")
    assert all(ok for ok, _ in checks_of(outcome).values()), outcome.checks
    tsprojects.apply(repo, outcome)
    assert "addMatchAll: boolean = true && true" in (repo / "src/match-path-sync.ts").read_text()


def line_of(path: Path, needle: str, start: int = 0) -> int:
    lines = path.read_text().splitlines()
    return next(i + 1 for i in range(start, len(lines)) if needle in lines[i])


def test_extract_lines_into_function(projects: dict[str, Path], tmp_path: Path) -> None:
    repo = fresh(projects, "hashids", tmp_path)
    util = repo / "src/util.ts"
    first = line_of(util, "const a = transformed[i]!")
    outcome = ts.run("extract", repo, path="src/util.ts", start=first, end=first + 3, name="swapAt")
    assert all(ok for ok, _ in checks_of(outcome).values()), outcome.checks
    tsprojects.apply(repo, outcome)
    text = util.read_text()
    assert re.search(r"^function swapAt\(", text, re.M) and "swapAt(transformed, i, j)" in text.replace(", j, i", ", i, j") \
        or "swapAt(" in text
    assert "  const a = transformed[i]!\n    const b" not in text


def test_extract_on_second_project(projects: dict[str, Path], tmp_path: Path) -> None:
    repo = fresh(projects, "tsconfig-paths", tmp_path)
    path = repo / "src/try-path.ts"
    first = line_of(path, "const physicalPath = physicalPathPattern")
    last = line_of(path, "(e) => ({ type: \"index\"", first) + 2
    outcome = ts.run("extract", repo, path="src/try-path.ts", start=first, end=last, name="pushPhysicalPaths")
    assert all(ok for ok, _ in checks_of(outcome).values()), outcome.checks
    tsprojects.apply(repo, outcome)
    text = path.read_text()
    assert "function pushPhysicalPaths(" in text and "pushPhysicalPaths(physicalPathPattern" in text
    assert "\n  const physicalPath" in text  # the file's two-space indentation, not the compiler's four
    own_checks(repo)


def test_ambiguous_or_unknown_names_are_refused_with_places(projects: dict[str, Path], tmp_path: Path) -> None:
    repo = fresh(projects, "tsconfig-paths", tmp_path)
    with pytest.raises(RefactorError, match="no definition named noSuchThing"):
        ts.run("rename", repo, old="noSuchThing", new="other", checks=False)
    with pytest.raises(RefactorError, match=r"would clash: .*getPathsToTry"):
        ts.run("rename", repo, old="matchStar", new="getPathsToTry", checks=False)
    with pytest.raises(RefactorError, match="cannot be extracted"):
        ts.run("extract", repo, path="src/try-path.ts", start=1, end=3, name="x", checks=False)
