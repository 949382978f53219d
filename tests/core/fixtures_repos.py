"""Fixture repos for the test-runner, scaffold and repo-map tests (files only: nothing is npm-installed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from tests.conftest import make_repo

if TYPE_CHECKING:
    from tui.sandbox.runner import Sandbox

# The outer test environment's plugins (textual snapshots, hypothesis, ...) cost seconds per inner run.
PYTEST_QUIET = 'addopts = "-p no:textual-snapshot -p no:syrupy -p no:hypothesispytest -p no:benchmark -p no:anyio"\n'

PY_FILES = {
    "pyproject.toml": '[project]\nname = "calc"\nversion = "0.1"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["src"]\n' + PYTEST_QUIET,
    "src/calc/__init__.py": "",
    "src/calc/ops.py": "def add(a, b):\n    return a + b\n\n\nclass Calculator:\n    def total(self, xs):\n        return sum(xs)\n",
    "tests/__init__.py": "",
    "tests/test_ops.py": (
        "from calc.ops import add\n\n\n"
        "def test_add():\n    assert add(1, 2) == 3\n\n\n"
        "def test_add_zero():\n    assert add(0, 0) == 0\n\n\n"
        "def test_add_wrong():\n    assert add(2, 2) == 5\n"
    ),
}

NODE_TEST_FILES = {
    "package.json": json.dumps({"name": "strs", "version": "1.0.0", "type": "commonjs",
                                "scripts": {"test": "node --test test/"}}, indent=2) + "\n",
    "package-lock.json": "{}\n",
    "src/shout.js": "function shout(s) {\n  return s.toUpperCase() + '!';\n}\nmodule.exports = { shout };\n",
    "src/whisper.js": "exports.whisper = (s) => s.toLowerCase();\n",
    "test/shout.test.js": (
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "const { shout } = require('../src/shout.js');\n\n"
        "test('shouts', () => {\n  assert.strictEqual(shout('hi'), 'HI!');\n});\n\n"
        "test('shouts twice', () => {\n  assert.strictEqual(shout('a'), 'AA!');\n});\n"
    ),
    "test/whisper.test.js": (
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "const { whisper } = require('../src/whisper.js');\n\n"
        "test('whispers', () => {\n  assert.strictEqual(whisper('HI'), 'hi');\n});\n"
    ),
}

_NEXT_PKG = {"name": "web", "version": "0.1.0", "private": True,
             "dependencies": {"next": "14.2.0", "react": "18.3.0", "react-dom": "18.3.0"}}

NEXT_JEST_FILES = {
    "package.json": json.dumps({**_NEXT_PKG, "scripts": {"dev": "next dev", "test": "jest"},
                                "devDependencies": {"jest": "29.7.0", "@testing-library/react": "14.0.0",
                                                    "typescript": "5.4.0"}}, indent=2) + "\n",
    "package-lock.json": "{}\n",
    "tsconfig.json": '{ "compilerOptions": { "jsx": "preserve", "strict": true } }\n',
    "next.config.js": "module.exports = {};\n",
    "jest.config.js": "module.exports = { testEnvironment: 'jsdom' };\n",
    "src/app/page.tsx": "export default function Home() {\n  return <main>Home</main>;\n}\n",
    "src/components/Header/Header.tsx": (
        "import styles from './Header.module.css';\n\n"
        "export default function Header({ title }: { title: string }) {\n"
        "  return <header className={styles.root}>{title}</header>;\n}\n"
    ),
    "src/components/Header/Header.module.css": ".root {\n  display: flex;\n}\n",
    "src/components/Header/__tests__/Header.test.tsx": (
        "import { render, screen } from '@testing-library/react';\nimport Header from '../Header';\n\n"
        "test('renders the title', () => {\n  render(<Header title=\"Hi\" />);\n"
        "  expect(screen.getByText('Hi')).toBeTruthy();\n});\n"
    ),
}

NEXT_VITEST_FILES = {
    "package.json": json.dumps({**_NEXT_PKG, "scripts": {"test": "vitest"},
                                "devDependencies": {"vitest": "1.6.0", "tailwindcss": "3.4.0"}}, indent=2) + "\n",
    "pnpm-lock.yaml": "lockfileVersion: '6.0'\n",
    "tsconfig.json": '{ "compilerOptions": { "jsx": "preserve" } }\n',
    "next.config.mjs": "export default {};\n",
    "tailwind.config.ts": "export default { content: ['./app/**/*.tsx'] };\n",
    "app/page.tsx": "export default function Page() {\n  return <main className=\"p-4\">Hi</main>;\n}\n",
    "components/nav-bar.tsx": (
        "export function NavBar() {\n  return <nav className=\"flex gap-2\">nav</nav>;\n}\n"
    ),
    "components/nav-bar.spec.tsx": (
        "import { describe, it, expect } from 'vitest';\nimport { render } from '@testing-library/react';\n"
        "import { NavBar } from './nav-bar';\n\n"
        "describe('NavBar', () => {\n  it('renders', () => {\n    expect(render(<NavBar />)).toBeTruthy();\n  });\n});\n"
    ),
    "components/nav-bar.stories.tsx": "import { NavBar } from './nav-bar';\nexport default { component: NavBar };\n",
}

TEXTUAL_FILES = {
    "pyproject.toml": '[project]\nname = "tapp"\nversion = "0.1"\ndependencies = ["textual"]\n',
    "tapp/__init__.py": "",
    "tapp/app.py": "from textual.app import App\n\n\nclass TApp(App):\n    pass\n",
    "tests/test_app.py": "def test_nothing():\n    assert True\n",
}

GO_FILES = {
    "go.mod": "module example.com/shapes\n\ngo 1.21\n",
    "area.go": "package shapes\n\n// Square returns the area of a square.\nfunc Square(x int) int { return x * x }\n",
    "area_test.go": (
        "package shapes\n\nimport \"testing\"\n\n"
        "func TestSquare(t *testing.T) {\n\tif Square(3) != 9 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n\n"
        "func TestSquareWrong(t *testing.T) {\n\tif Square(2) != 5 {\n\t\tt.Errorf(\"Square(2) = %d, want 5\", Square(2))\n\t}\n}\n"
    ),
}

CARGO_FILES = {
    "Cargo.toml": '[package]\nname = "adder"\nversion = "0.1.0"\nedition = "2021"\n',
    ".gitignore": "target/\n",
    "src/lib.rs": (
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
        "    #[test]\n    fn adds() {\n        assert_eq!(add(1, 2), 3);\n    }\n\n"
        "    #[test]\n    fn adds_wrong() {\n        assert_eq!(add(2, 2), 5);\n    }\n}\n"
    ),
}


def tool_works(*argv: str) -> bool:
    """Installed AND usable (rustup without a default toolchain is installed but not usable)."""
    import subprocess

    try:
        return subprocess.run(list(argv), capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def build(path: Path, files: dict[str, str], commit: bool = True) -> Path:
    return make_repo(path, files, commit=commit)


def runner_for(repo: Path, config: object) -> "Sandbox":
    """The one command runner (bubblewrap when it works): tests run suites exactly as devagent does."""
    from tui.sandbox.runner import Sandbox

    return Sandbox(repo, config)  # type: ignore[arg-type]


# Reports captured from real runs (jest 29 / vitest 1.6 on src/sum.test.js: 1 passed, 1 failed, 1 skipped),
# trimmed to the fields the parser reads. ROOT stands for the project directory.
JEST_REPORT = {
    "numPassedTests": 1, "numFailedTests": 1, "numPendingTests": 1, "numTodoTests": 0, "success": False,
    "testResults": [{"name": "ROOT/src/sum.test.js", "status": "failed", "message": "  ● sum › adds wrong",
                     "assertionResults": [
                         {"fullName": "sum adds", "status": "passed", "failureMessages": [],
                          "location": {"column": 3, "line": 3}},
                         {"fullName": "sum adds wrong", "status": "failed", "location": {"column": 3, "line": 6},
                          "failureMessages": [
                              "Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 5\n"
                              "Received: 4\n    at Object.toBe (ROOT/src/sum.test.js:7:23)\n"
                              "    at Promise.then.completed (ROOT/node_modules/jest-circus/build/utils.js:298:28)"]},
                         {"fullName": "sum later", "status": "pending", "failureMessages": [],
                          "location": {"column": 8, "line": 9}}]}],
}
VITEST_REPORT = {
    "numPassedTests": 2, "numFailedTests": 1, "numPendingTests": 0, "numTodoTests": 0, "success": False,
    "testResults": [{"name": "ROOT/src/sum.test.js", "status": "failed", "message": "",
                     "assertionResults": [
                         {"fullName": " sum adds", "status": "passed", "failureMessages": [], "location": None},
                         {"fullName": " sum adds wrong", "status": "failed", "location": {"line": 8, "column": 23},
                          "failureMessages": ["expected 4 to be 5 // Object.is equality"]},
                         {"fullName": " sum later", "status": "skipped", "failureMessages": [], "location": None}]}],
}
