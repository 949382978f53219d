"""Data-file repair on real-world breakage (several classes per format), refusals where a value would be guessed,
and hostile inputs (deep nesting, huge files, symlinks out of the tree, FIFOs) failing closed."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest
import yaml

from tui.refactor.base import RefactorError
from tui.refactor.repair import repair_file


def write(tmp_path: Path, name: str, text: str) -> Path:
    (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


PACKAGE_JSON = """{
  // devDependencies for the docs site
  "name": 'docs-site',
  "version": "1.2.0",
  scripts: {
    "build": "vite build",
    "test": "vitest run",   /* CI runs this */
  },
  "keywords": ["docs", "site",],
  "private": true
  "files": ["dist"]
}
"""


def test_json_comments_quotes_trailing_and_missing_commas(tmp_path: Path) -> None:
    outcome = repair_file(write(tmp_path, "package.json", PACKAGE_JSON), "package.json")
    after = outcome.changes[0].after.decode()
    assert json.loads(after) == {"name": "docs-site", "version": "1.2.0", "scripts": {"build": "vite build",
                                 "test": "vitest run"}, "keywords": ["docs", "site"], "private": True, "files": ["dist"]}
    assert '  "version": "1.2.0",\n' in after and '    "build": "vite build",\n' in after  # layout kept
    assert outcome.engine.startswith("json-repair")
    assert outcome.changes[0].before == PACKAGE_JSON.encode()


def test_json_brackets_left_open_at_the_end(tmp_path: Path) -> None:
    text = '{\n  "compilerOptions": {\n    "strict": true,\n    "lib": ["es2020", "dom"]\n'
    after = repair_file(write(tmp_path, "settings.json", text), "settings.json").changes[0].after.decode()
    assert json.loads(after) == {"compilerOptions": {"strict": True, "lib": ["es2020", "dom"]}}
    assert after.startswith(text.rstrip())


@pytest.mark.parametrize("text, line", [('{\n  "a": 1,\n  "b": ,\n  "c": 3\n}\n', 3),
                                        ('{\n  "a": "never closed,\n  "b": 2\n}\n', 2),
                                        ('{\n  "a": [1, 2}\n', 2),
                                        ('{\n  "a"\n}\n', 3)])
def test_json_refused_where_a_value_would_be_guessed(tmp_path: Path, text: str, line: int) -> None:
    with pytest.raises(RefactorError, match=rf"data.json:{line}: .*guess"):
        repair_file(write(tmp_path, "data.json", text), "data.json")


def test_toml_slips(tmp_path: Path) -> None:
    text = ('[project]\nname = "demo"\nversion = "0.3\ndescription: "A demo"\nlicense = MIT\n'
            'keywords = ["cli" "tool",]\n\n[tool.ruff\nline-length = 100\n')
    after = repair_file(write(tmp_path, "pyproject.toml", text), "pyproject.toml").changes[0].after.decode()
    assert tomllib.loads(after) == {"project": {"name": "demo", "version": "0.3", "description": "A demo",
                                                "license": "MIT", "keywords": ["cli", "tool"]},
                                    "tool": {"ruff": {"line-length": 100}}}


def test_toml_refused_without_a_value(tmp_path: Path) -> None:
    with pytest.raises(RefactorError, match=r"cfg.toml:2: .*guess"):
        repair_file(write(tmp_path, "cfg.toml", "[a]\nx = \ny = 1\n"), "cfg.toml")


def test_yaml_tabs_quotes_colon_and_indentation(tmp_path: Path) -> None:
    text = ("name: ci\non:\n  push:\n    branches: [main]\njobs:\n  test:\n\truns-on: ubuntu-latest\n"
            "\tsteps:\n\t  - run: make test\nserver:\n  host: \"localhost\n  port:8080\n   debug: true\n")
    after = repair_file(write(tmp_path, "ci.yml", text), "ci.yml").changes[0].after.decode()
    data = yaml.safe_load(after)
    assert data["jobs"] == {"test": {"runs-on": "ubuntu-latest", "steps": [{"run": "make test"}]}}
    assert data["server"] == {"host": "localhost", "port": 8080, "debug": True}


def test_yaml_refused_between_two_levels(tmp_path: Path) -> None:
    with pytest.raises(RefactorError, match=r"x.yaml:4: .*between two levels"):
        repair_file(write(tmp_path, "x.yaml", "a:\n    b:\n        c: 1\n      d: 2\n"), "x.yaml")


def test_valid_file_needs_no_repair(tmp_path: Path) -> None:
    with pytest.raises(RefactorError, match="already valid JSON"):
        repair_file(write(tmp_path, "ok.json", '{"a": 1}'), "ok.json")


def test_hostile_inputs_fail_closed(tmp_path: Path) -> None:
    deep = "[" * 5000 + "]" * 4999
    with pytest.raises(RefactorError, match="nested more than"):
        repair_file(write(tmp_path, "deep.json", deep), "deep.json")
    (tmp_path / "huge.json").write_bytes(b'{"a": "' + b"x" * 6_000_000 + b'",}')
    with pytest.raises(RefactorError, match="bytes; devagent repairs data files up to"):
        repair_file(tmp_path, "huge.json")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.json"
    outside.write_text('{"secret": 1,}')
    os.symlink(outside, tmp_path / "link.json")
    with pytest.raises(RefactorError, match="symlink that leaves the repository"):
        repair_file(tmp_path, "link.json")
    os.mkfifo(tmp_path / "pipe.json")
    with pytest.raises(RefactorError, match="FIFO"):
        repair_file(tmp_path, "pipe.json")
    with pytest.raises(RefactorError, match="outside the repository"):
        repair_file(tmp_path, "../x.json")
    with pytest.raises(RefactorError, match="not a JSON, TOML or YAML"):
        repair_file(write(tmp_path, "a.txt", "x"), "a.txt")
