"""Depth-bounded parsing (tui/safety/parsing.py): the shapes that overflow json, tomllib and ast, the limits, and a
scan of ``tui/`` for any parser call that does not go through it (the attacks: tests/attacks/test_parse_depth.py)."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

from tui.protocol.errors import DevagentError
from tui.safety import parsing
from tui.safety.parsing import MAX_DEPTH, MAX_PY_DEPTH, TooDeep, compile_check, loads_json, loads_toml, parse_python

ROOT = Path(__file__).resolve().parents[2]
# Parser calls that read no repo content, no sandbox output and nothing the model says: devagent's own files and
# the developer's own channels. Every other call in tui/ must go through tui/safety/parsing.py.
ALLOWED = {
    ("tui/engine/store.py", "json.loads"): "devagent's own session store (.git is read-only to every command)",
    ("tui/engine/repomap.py", "json.loads"): "devagent's own symbol cache under .git/devagent",
    ("tui/sandbox/status.py", "json.loads"): "bwrap's own status lines on a pipe devagent opened",
    ("tui/acp/transport.py", "json.loads"): "the editor driving devagent (the developer's own client)",
    ("tui/headless.py", "json.loads"): "the developer's decisions on stdin",
    ("tui/serve/server.py", "json.loads"): "the developer's browser, behind the URL's token",
    ("tui/llm/embedded.py", "json.loads"): "the start-up lines of devagent's own llama.cpp child process",
    ("tui/llm/errors.py", "json.loads"): "an error string the HTTP client already decoded (a server's message)",
    ("tui/llm/parse.py", "ast.literal_eval"): "literals of a call parse_python bounded, or text under except Exception",
    ("tui/safety/parsing.py", "json.loads"): "the one wrapper",
    ("tui/safety/parsing.py", "tomllib.loads"): "the one wrapper",
    ("tui/safety/parsing.py", "ast.parse"): "the one wrapper",
    ("tui/safety/parsing.py", "compile"): "the one wrapper",
    ("tui/safety/parsing.py", "yaml.safe_load_all"): "the one wrapper",
    ("tui/refactor/repair_json.py", "json_repair.loads"): "text repair_text checked for depth; RecursionError caught",
    ("tui/refactor/pysig.py", "ast.parse"): "one default value, at most 200 characters (refused above), RecursionError caught",
}
PARSERS = {"json.loads", "json.load", "tomllib.loads", "tomllib.load", "ast.parse", "ast.literal_eval", "compile",
           "yaml.load", "yaml.safe_load", "yaml.load_all", "yaml.safe_load_all", "json_repair.loads"}


def _calls(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = (f"{func.value.id}.{func.attr}" if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                else func.id if isinstance(func, ast.Name) else "")
        if name in PARSERS:
            found.add(name)
    return found


def test_every_parser_of_hostile_input_goes_through_the_bounded_wrappers() -> None:
    stray = sorted((rel, name) for path in (ROOT / "tui").rglob("*.py")
                   for rel in [path.relative_to(ROOT).as_posix()] for name in _calls(path)
                   if (rel, name) not in ALLOWED)
    assert not stray, f"parse these with tui/safety/parsing.py (or add a reason to ALLOWED): {stray}"


def nested(kind: str, levels: int) -> str:
    return {"json": "[" * levels + "]" * levels, "toml": "x = " + "[" * levels + "]" * levels,
            "inline": "x = " + "{a = " * levels + "1" + "}" * levels,
            "dotted": "[" + ".".join(["t"] * levels) + "]\nx = 1\n"}[kind]


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 900, 50_000])
def test_json_past_the_limit_is_too_deep_at_any_depth(levels: int) -> None:
    with pytest.raises(TooDeep) as err:
        loads_json(nested("json", levels), "data.json")
    assert isinstance(err.value, (DevagentError, ValueError))
    assert err.value.message == f"data.json: nested more than {MAX_DEPTH} levels deep; not parsed" and err.value.hint


def test_json_at_the_limit_and_ordinary_errors() -> None:
    assert loads_json(nested("json", MAX_DEPTH)) == json.loads(nested("json", MAX_DEPTH))
    assert loads_json('{"a": {"b": [1, 2]}}') == {"a": {"b": [1, 2]}}
    with pytest.raises(json.JSONDecodeError):
        loads_json("{nope")


@pytest.mark.parametrize("kind", ["toml", "inline", "dotted"])
@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 5_000])
def test_toml_nested_by_brackets_inline_tables_or_dotted_keys(kind: str, levels: int) -> None:
    with pytest.raises(TooDeep, match="pyproject.toml: nested more than"):
        loads_toml(nested(kind, levels), "pyproject.toml")


def test_toml_at_the_limit() -> None:
    assert loads_toml(nested("dotted", MAX_DEPTH - 1))["t"]


SHAPES = {  # expression trees that need no parenthesis, so the tokenizer's limit of 200 never applies
    "plus": lambda n: "x = " + " + ".join(["a"] * n),
    "attribute": lambda n: "x = a" + ".b" * n,
    "unary": lambda n: "x = " + "-" * n + "1",
    "not": lambda n: "x = " + "not " * n + "a",
    "subscript": lambda n: "x = a" + "[0]" * n,
    "lambda": lambda n: "x = " + "lambda: " * n + "1",
    "conditional": lambda n: "x = " + "a if b else " * n + "c",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("levels", [MAX_PY_DEPTH + 5, 900, 100_000])
def test_python_too_deep_for_the_parser_or_for_what_walks_the_tree(shape: str, levels: int) -> None:
    with pytest.raises(TooDeep, match="gen.py: nested more than"):
        parse_python(SHAPES[shape](levels), "gen.py")


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_python_at_the_limit_survives_every_recursive_walk(shape: str) -> None:
    """What parse_python lets through, pyflakes, ast.unparse, ast.dump and a NodeVisitor all walk, even from a
    caller already deep in its stack."""
    from pyflakes import checker

    levels = MAX_PY_DEPTH
    while parsing.tree_depth_over(ast.parse(SHAPES[shape](levels)), MAX_PY_DEPTH):
        levels -= 1
    tree = parse_python(SHAPES[shape](levels), "gen.py")

    def deep(frames: int) -> None:
        if frames:
            return deep(frames - 1)
        checker.Checker(tree, "gen.py")
        ast.unparse(tree)
        ast.dump(tree)
        ast.NodeVisitor().visit(tree)
        return None

    deep(sys.getrecursionlimit() - 600)


def test_python_without_a_walk_only_refuses_what_the_parser_cannot_do() -> None:
    assert parse_python(SHAPES["plus"](600), limit=None).body
    with pytest.raises(TooDeep):
        parse_python(SHAPES["plus"](100_000), limit=None)
    with pytest.raises(SyntaxError):
        parse_python("def (:")
    with pytest.raises((SyntaxError, ValueError)):  # NUL bytes: which one depends on the Python version
        parse_python("x = 1\0")


@pytest.mark.parametrize("text", ["a:\n" + "".join(" " * i + "a:\n" for i in range(1, 3000)) + " " * 3000 + "b\n",
                                  "- " * 3000 + "x\n", "x: " + "[" * 5000 + "]" * 5000 + "\n"])
def test_yaml_nested_by_indentation_dashes_or_brackets(text: str) -> None:
    with pytest.raises(TooDeep, match="ci.yml: nested more than"):
        parsing.yaml_documents(text, "ci.yml")


def test_yaml_at_the_limit() -> None:
    assert parsing.yaml_documents("- " * (MAX_DEPTH - 1) + "x\n---\nb: 1\n")[1] == {"b": 1}


def test_compile_check() -> None:
    compile_check("x = 1\n", "<run_python>")
    with pytest.raises(SyntaxError):
        compile_check("return 1\n", "<run_python>")
    with pytest.raises(TooDeep):
        compile_check(SHAPES["unary"](100_000), "<run_python>")
