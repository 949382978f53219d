"""Scaffolding follows each fixture repo's conventions, and what it writes imports, parses and passes its test."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.core import fixtures_repos as fx
from tui.protocol.proposals import Decision
from tui.config import load_config
from tui.protocol.errors import PathRefused, ToolError
from tui.scaffold import build_scaffold, detect_project, scaffold_diff, validate
from tui.testing import detect_suites, plan_run, run_plan
from tui.tools import scaffold as scaffold_tool
from tui.tools.base import ToolContext

ROOT = Path(__file__).resolve().parents[2]


def _ctx(repo: Path) -> ToolContext:
    return ToolContext(repo=repo.resolve(), config=load_config(repo), emit=lambda event: None)


async def _approve(repo: Path, kind: str, name: str, **options: str) -> dict:
    ctx = _ctx(repo)
    proposal = await scaffold_tool.SPEC.propose(ctx, {"kind": kind, "name": name, "options": options})
    assert proposal.kind == "scaffold" and proposal.diff
    for rel in proposal.files:
        assert not (repo / rel).exists(), "a proposal writes nothing"
    result = await scaffold_tool.SPEC.execute(ctx, proposal, Decision("approve"))
    assert result.ok, result.output
    return {"files": proposal.files, "test": result.data.get("test_selection", "")}


async def _run_tests(repo: Path, selection: str):
    config = load_config(repo)
    suite = detect_suites(repo, config)[0]
    return await run_plan(plan_run(suite, selection, repo), repo, config, runner=fx.runner_for(repo, config))


def test_project_kinds(tmp_path: Path) -> None:
    kinds = {"py": (fx.PY_FILES, "python"), "jest": (fx.NEXT_JEST_FILES, "nextjs"),
             "node": (fx.NODE_TEST_FILES, "node"), "textual": (fx.TEXTUAL_FILES, "textual"), "go": (fx.GO_FILES, "go"),
             "rust": ({"Cargo.toml": "[package]\nname = \"x\"\n", "src/lib.rs": ""}, "rust")}
    for name, (files, kind) in kinds.items():
        assert detect_project(fx.build(tmp_path / name, files)).kind == kind, name


def test_next_jest_conventions(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "web", fx.NEXT_JEST_FILES)
    scaffold = build_scaffold(repo, "component", "Button")
    assert sorted(scaffold.files) == ["src/components/Button/Button.module.css", "src/components/Button/Button.tsx",
                                      "src/components/Button/__tests__/Button.test.tsx"]
    source = scaffold.files["src/components/Button/Button.tsx"]
    assert "export default function Button" in source and "styles.root" in source
    test = scaffold.files[scaffold.test_file]
    assert "import Button from '../Button';" in test and "vitest" not in test
    assert "@testing-library/react" in test
    assert build_scaffold(repo, "page", "settings").files.keys() == {"src/app/settings/page.tsx"}
    assert build_scaffold(repo, "route", "users").files.keys() == {"src/app/api/users/route.ts"}


def test_next_vitest_conventions(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "web", fx.NEXT_VITEST_FILES)
    scaffold = build_scaffold(repo, "component", "PrimaryButton")
    assert sorted(scaffold.files) == ["components/primary-button.spec.tsx", "components/primary-button.stories.tsx",
                                      "components/primary-button.tsx"]
    assert "export function PrimaryButton" in scaffold.files["components/primary-button.tsx"]
    assert 'className="' in scaffold.files["components/primary-button.tsx"]
    test = scaffold.files["components/primary-button.spec.tsx"]
    assert "from 'vitest'" in test and "import { PrimaryButton } from './primary-button';" in test
    for rel, content in scaffold.files.items():  # every relative import points at a file that will exist
        for target in [line.split("'")[1] for line in content.splitlines() if line.startswith("import") and "'./" in line]:
            assert (Path(rel).parent / (target + ".tsx")).as_posix() in scaffold.files
    if shutil.which("tsc"):
        (repo / "components").mkdir(exist_ok=True)
        for rel, content in scaffold.files.items():
            (repo / rel).write_text(content)
        out = subprocess.run(["tsc", "--noEmit", "--jsx", "preserve", "--skipLibCheck", "components/primary-button.tsx"],
                             cwd=repo, capture_output=True, text=True)
        assert "error TS1" not in out.stdout  # syntax errors only: react types are not installed


def test_fresh_next_app_defaults(tmp_path: Path) -> None:
    files = {"package.json": '{"dependencies": {"next": "14", "react": "18"}}\n', "tsconfig.json": "{}\n",
             "app/page.tsx": "export default function Home() {\n  return <main />;\n}\n",
             "app/layout.tsx": "export default function Layout({ children }) {\n  return children;\n}\n"}
    repo = fx.build(tmp_path / "fresh", files)
    scaffold = build_scaffold(repo, "component", "Button")
    assert sorted(scaffold.files) == ["components/Button.test.tsx", "components/Button.tsx"]
    assert "export function Button" in scaffold.files["components/Button.tsx"]  # route files' default exports ignored
    test = scaffold.files["components/Button.test.tsx"]
    assert "renderToString" in test and "@testing-library" not in test  # the repo does not use it


async def test_python_module_imports_and_its_test_passes(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "py", fx.PY_FILES)
    done = await _approve(repo, "module", "text_utils")
    assert done["files"] == ["src/calc/text_utils.py", "tests/test_text_utils.py"]
    env = {**os.environ, "PYTHONPATH": str(repo / "src")}
    subprocess.run([sys.executable, "-c", "import calc.text_utils"], cwd=repo, env=env, check=True)
    run = await _run_tests(repo, done["test"])
    assert (run.passed, run.failed, run.exit_code) == (1, 0, 0)


async def test_node_module_parses_and_its_test_passes(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "node", fx.NODE_TEST_FILES)
    done = await _approve(repo, "module", "slugify")
    assert done["files"] == ["src/slugify.js", "test/slugify.test.js"]
    for rel in done["files"]:
        subprocess.run(["node", "--check", rel], cwd=repo, check=True)
    run = await _run_tests(repo, done["test"])
    assert (run.passed, run.failed, run.exit_code) == (1, 0, 0)


async def test_textual_widget_with_pilot_test(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "tapp", {**fx.TEXTUAL_FILES, "pyproject.toml": fx.TEXTUAL_FILES["pyproject.toml"]
                                        + "\n[tool.pytest.ini_options]\n" + fx.PYTEST_QUIET})
    done = await _approve(repo, "widget", "StatusBar")
    assert done["files"] == ["tapp/status_bar.py", "tests/test_status_bar.py"]
    subprocess.run([sys.executable, "-c", "import tapp.status_bar"], cwd=repo, check=True)
    run = await _run_tests(repo, done["test"])
    assert (run.passed, run.failed, run.exit_code) == (1, 0, 0), run.output_tail


async def test_go_package(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "go", fx.GO_FILES)
    scaffold = build_scaffold(repo, "package", "circles")
    assert sorted(scaffold.files) == ["circles/circles.go", "circles/circles_test.go"]
    assert scaffold.files["circles/circles.go"].splitlines()[1] == "package circles"
    if shutil.which("go") is None:
        pytest.skip("go is not installed: the scaffolded Go package was not compiled")
    await _approve(repo, "package", "circles")
    run = await _run_tests(repo, "./circles")
    assert run.ok


def test_name_validation(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "web", fx.NEXT_JEST_FILES)
    bad = [("component", "button"), ("component", "my-button"), ("component", "Header/Foo"), ("component", "../X"),
           ("module", "class"), ("module", "two words"), ("widget", "status_bar"), ("package", "Shapes"),
           ("page", "Settings"), ("page", "a/b"), ("nope", "X")]
    for kind, name in bad:
        with pytest.raises(ToolError):
            validate(kind, name)
    with pytest.raises(ToolError, match="PascalCase"):
        build_scaffold(repo, "component", "button")
    with pytest.raises(ToolError, match="already exists"):
        build_scaffold(repo, "component", "Header")
    with pytest.raises(PathRefused):
        build_scaffold(repo, "route", "users", directory="../outside")
    with pytest.raises(ToolError, match="no widget template"):
        build_scaffold(repo, "widget", "StatusBar")


def test_repo_template_override(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "py", {**fx.PY_FILES, ".devagent/templates/module/module.py.tmpl":
                                      '"""House style: ${name}."""\n\nVALUE = "${import_path}"\n'})
    scaffold = build_scaffold(repo, "module", "house")
    assert scaffold.files["src/calc/house.py"] == '"""House style: house."""\n\nVALUE = "calc.house"\n'
    (repo / ".devagent/templates/module/module.py.tmpl").write_text("${nope}\n")
    with pytest.raises(ToolError, match="unknown placeholder"):
        build_scaffold(repo, "module", "house")


async def test_rejected_file_is_not_written(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "web", fx.NEXT_VITEST_FILES)
    ctx = _ctx(repo)
    proposal = await scaffold_tool.SPEC.propose(ctx, {"kind": "component", "name": "Card"})
    assert proposal.files == ["components/card.tsx", "components/card.spec.tsx", "components/card.stories.tsx"]
    result = await scaffold_tool.SPEC.execute(ctx, proposal, Decision("approve", hunks=(0, 1)))
    assert result.ok
    assert (repo / "components/card.tsx").exists() and not (repo / "components/card.stories.tsx").exists()
    assert scaffold_diff(build_scaffold(repo, "component", "Deck")).count("new file mode") == 3


async def test_a_name_written_as_the_new_files_path_is_that_name_in_that_directory(tmp_path: Path) -> None:
    """Models (and people) often pass the file's path as the name; it still cannot leave the repo."""
    repo = fx.build(tmp_path / "py", fx.PY_FILES)
    proposal = await scaffold_tool.SPEC.propose(_ctx(repo), {"kind": "module", "name": "src/calc/helpers.py"})
    assert "src/calc/helpers.py" in proposal.files
    with pytest.raises(ToolError):
        await scaffold_tool.SPEC.propose(_ctx(repo), {"kind": "module", "name": "../outside.py"})
    assert not (tmp_path / "outside.py").exists()
    with pytest.raises(ToolError):  # a file of another language than the project's
        await scaffold_tool.SPEC.propose(_ctx(repo), {"kind": "module", "name": "src/calc/helpers.ts"})


async def test_a_module_named_by_a_kebab_case_path_is_written_to_that_file(tmp_path: Path) -> None:
    """JS and TS projects often name files in kebab case: "src/path-utils.js" is the module pathUtils written to
    src/path-utils.js (not refused as "a name, not a path", not renamed), its test where the project keeps tests,
    loading it by that path; the template's test passes with the project's runner."""
    repo = fx.build(tmp_path / "node", fx.NODE_TEST_FILES)
    for name, options in (("src/path-utils.js", {}), ("path-utils.js", {"dir": "src"})):
        proposal = await scaffold_tool.SPEC.propose(_ctx(repo), {"kind": "module", "name": name, "options": options})
        assert proposal.files == ["src/path-utils.js", "test/path-utils.test.js"], proposal.files
    scaffold = build_scaffold(repo, "module", "pathUtils", None, "src/path-utils.js")
    assert "require('../src/path-utils.js')" in scaffold.files["test/path-utils.test.js"]
    for rel, text in scaffold.files.items():
        (repo / rel).write_text(text)
    ran = subprocess.run(["node", "--test", "test/path-utils.test.js"], cwd=repo, capture_output=True, text=True,
                         timeout=60)
    assert ran.returncode == 0 and "# pass 1" in ran.stdout, ran.stdout + ran.stderr


def test_cli_asks_and_writes_only_on_yes(tmp_path: Path) -> None:
    repo = fx.build(tmp_path / "py", fx.PY_FILES)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "tui", "scaffold", "module", "greet"]
    out = subprocess.run(cmd, cwd=repo, input="n\n", capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 1 and "+++ b/src/calc/greet.py" in out.stdout and "nothing written" in out.stdout
    assert not (repo / "src/calc/greet.py").exists()
    out = subprocess.run(cmd, cwd=repo, input="y\n", capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert (repo / "src/calc/greet.py").exists() and "devagent test tests/test_greet.py" in out.stdout
    out = subprocess.run([*cmd[:-1], "Bad/Name", "--yes"], cwd=repo, capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == ToolError.exit_code and "a name, not a path" in out.stderr


async def test_agent_scaffolds_then_runs_the_new_test(tmp_path: Path, ollama_server) -> None:  # type: ignore[no-untyped-def]
    """The issue's "done when", in a Python repo: scaffold a module with its test, approve, run the tests."""
    from tests.core.agent_helpers import ScriptedApprover, of, run_prompt, sent_text
    from tests.ollama_server import Reply

    repo = fx.build(tmp_path / "py", fx.PY_FILES)
    ollama_server.push(
        Reply(tool_calls=[{"name": "scaffold", "arguments": {"kind": "module", "name": "greet"}}]),
        Reply(tool_calls=[{"name": "run_tests", "arguments": {"selection": "tests/test_greet.py"}}]),
        Reply("Added calc.greet with a passing test."),
    )
    approver = ScriptedApprover([Decision("approve"), Decision("approve")])
    events, done, _ = await run_prompt(repo, ollama_server.url, "add a greet module with a test and run the tests",
                                       approver)
    assert done.reason == "complete"
    scaffold_proposal, test_proposal = approver.asked
    assert scaffold_proposal.kind == "scaffold" and scaffold_proposal.files == ["src/calc/greet.py",
                                                                                "tests/test_greet.py"]
    assert test_proposal.kind == "command" and test_proposal.command.endswith("tests/test_greet.py")
    assert (repo / "src/calc/greet.py").exists()
    results = {e.name: e for e in of(events, "tool_result")}
    assert results["scaffold"].ok and results["run_tests"].ok
    assert "pytest: 1 passed, 0 failed" in sent_text(ollama_server.requests[2]), "the structured result reached the model"
