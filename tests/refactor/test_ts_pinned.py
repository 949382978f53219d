"""devagent's pinned TypeScript, for a plain JavaScript project that has none of its own: minimist 1.2.8 (tape suite,
no typescript anywhere in its node_modules; tests/refactor/tsprojects.py).

Without consent nothing is downloaded and the error says what would be installed and how to allow it. With consent,
the real install runs: ``npm ci`` of devagent's lock file in the sandbox with the network on for that command (the npm
registry must be reachable, as it is here and in CI), into devagent's cache ($DEVAGENT_TS_CACHE, a temporary directory
here); then a rename in the JavaScript project (no tsconfig: read with allowJs) is checked by the project's own suite.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path

import pytest

from tui.config import Config
from tui.refactor import ts, tsenv
from tui.refactor.base import RefactorError
from tests.refactor import tsprojects
from tests.refactor.tsprojects import after

pytestmark = pytest.mark.skipif(not (shutil.which("node") and shutil.which("npm") and shutil.which("bwrap")),
                                reason="node, npm and bubblewrap are needed (apt-get install nodejs npm bubblewrap)")

MINIMIST_TESTS = 153  # minimist 1.2.8's own tape suite


@pytest.fixture(scope="module")
def minimist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        repo = tsprojects.make("minimist", tmp_path_factory.mktemp("minimist"))
    except tsprojects.sources.BenchError as exc:  # the registry cannot be reached and nothing is cached
        pytest.skip(f"the pinned project could not be fetched: {exc}")
    assert not list(repo.glob("node_modules/**/typescript/package.json"))  # plain JavaScript all the way down
    return repo


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ts-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DEVAGENT_TS_CACHE", str(root))
        yield root


def test_without_consent_nothing_is_downloaded_and_the_error_says_what_and_how(minimist: Path, cache: Path) -> None:
    asked: list[str] = []
    for consent in (None, lambda message: asked.append(message) or False):  # no way to ask; the developer said no
        with pytest.raises(RefactorError) as caught:
            ts.run("rename", minimist, old="isNumber", new="isNumeric", consent=consent)
        error = caught.value
        assert "the project has no typescript in node_modules" in error.message
        assert f"typescript {tsenv.PINNED_VERSION} (about 23 MB, from the npm registry" in error.message
        assert str(cache / tsenv.PINNED_VERSION) in error.message and "nothing was downloaded" in error.message
        assert "--yes allows it" in error.hint and "devDependencies" in error.hint
    assert len(asked) == 1 and f"install typescript {tsenv.PINNED_VERSION}" in asked[0]
    assert "network on for that one command" in asked[0] and str(cache / tsenv.PINNED_VERSION) in asked[0]
    assert list(cache.iterdir()) == []  # not even a partial download
    assert tsprojects.git(minimist, "status", "--porcelain") == ""


def test_with_consent_the_pinned_compiler_is_installed_and_a_rename_is_checked_by_the_suite(
        minimist: Path, cache: Path) -> None:
    asked: list[str] = []
    shown: list[str] = []
    outcome = ts.run("rename", minimist, old="isNumber", new="isNumeric",
                     consent=lambda message: asked.append(message) or True,
                     on_progress=lambda p: shown.append(f"{p.stage}: {p.detail}"))
    assert len(asked) == 1
    assert shown[0] == f"running: installing typescript {tsenv.PINNED_VERSION} (npm ci in the sandbox, network on for it)"
    installed = cache / tsenv.PINNED_VERSION / "node_modules" / "typescript"
    assert (installed / "lib" / "typescript.js").is_file()
    assert f'"version": "{tsenv.PINNED_VERSION}"' in (installed / "package.json").read_text()
    assert [p.name for p in cache.iterdir()] == [tsenv.PINNED_VERSION]  # the temporary install directory is gone
    assert outcome.engine == f"TypeScript {tsenv.PINNED_VERSION} language service (devagent's)"
    checks = {c.name: c for c in outcome.checks}
    assert sorted(checks) == ["parse", "tests"]  # no tsconfig and no compiler of its own: no tsc check
    assert all(c.ok for c in checks.values()), outcome.checks
    assert re.search(rf"\b{MINIMIST_TESTS} passed, 0 failed\b", checks["tests"].detail), checks["tests"].detail
    text = after(outcome, "index.js")
    assert "function isNumeric(x) {" in text and len(re.findall(r"\bisNumeric\(", text)) == 3
    assert not re.search(r"\bisNumber\b", text)
    assert not (minimist / "node_modules" / "typescript").exists()  # nothing was written to the project
    assert tsprojects.git(minimist, "status", "--porcelain") == ""

    # installed once: the next operation finds it without asking
    found = asyncio.run(tsenv.choose(minimist, Config(), consent=None))
    assert (found.source, found.version, found.package) == ("pinned", tsenv.PINNED_VERSION, installed)
