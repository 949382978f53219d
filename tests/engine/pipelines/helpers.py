"""Run one request through the pipelines: a real Session, repo, sandbox and ollama client against the scripted
server, whose replies are the JSON the narrow questions are decoded under."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.core.agent_helpers import ScriptedApprover, fast_config, run_prompt
from tests.ollama_server import Reply
from tui.protocol.proposals import Decision


def js(value: Any) -> Reply:
    """A constrained reply: the JSON text the model writes under the schema."""
    return Reply(json.dumps(value))


async def pipeline_turn(repo: Path, server: Any, prompt: str, replies: list[Reply],
                        decisions: list[Decision] | None = None, **model: Any) -> tuple[list[Any], Any, ScriptedApprover]:
    server.push(*replies)
    approver = ScriptedApprover(decisions if decisions is not None else [Decision("approve")] * 6)
    config = fast_config(repo, pipelines="auto", samples=3, total_timeout=60.0, **model)
    events, done, _ = await run_prompt(repo, server.url, prompt, approver=approver, config=config)
    return events, done, approver


def edits(approver: ScriptedApprover) -> list[Any]:
    return [p for p in approver.asked if p.kind == "edit"]


def ts_repo(where: Path) -> Path:
    """A small TypeScript package tested by jest through ts-jest (which checks types), its node_modules the pinned
    test dependencies of the TypeScript refactoring tests (typescript, jest, ts-jest, @types/jest)."""
    import shutil
    import subprocess
    import sys

    import pytest

    from tests.conftest import make_repo

    if not (shutil.which("node") and shutil.which("npm") and shutil.which("bwrap")):
        pytest.skip("node, npm and bwrap are needed")
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))
    from benchreal import sources

    try:
        modules = sources.node_modules("refactor-ts")
    except sources.BenchError as exc:
        pytest.skip(f"the pinned test dependencies could not be installed: {exc}")
    repo = make_repo(where, {
        "package.json": json.dumps({"name": "paths", "version": "1.0.0", "scripts": {"test": "jest"}}),
        "jest.config.js": "module.exports = { preset: 'ts-jest', testEnvironment: 'node' };\n",
        "tsconfig.json": json.dumps({"compilerOptions": {"target": "es2019", "module": "commonjs", "strict": True},
                                     "include": ["src"]}),
        ".gitignore": "node_modules\n",
        "src/trim.ts": "/** s without the slashes at its ends. */\nexport function trimSlashes(s: string): string {\n"
                       "  return s.replace(/^\\/+|\\/+$/g, '');\n}\n",
        "src/__tests__/trim.test.ts": "import { trimSlashes } from '../trim';\n\ntest('trim', () => {\n"
                                      "  expect(trimSlashes('/a/')).toBe('a');\n});\n"})
    subprocess.run(["cp", "-al", str(modules), str(repo / "node_modules")], check=True)
    return repo

