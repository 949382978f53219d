"""Issue 30, class 2: deeply nested repo files. Every parser of repo content (TOML, JSON, Python, and the JSON a
sandboxed test run writes) fails closed with a clear message, never a RecursionError, MemoryError or a crash log.

The shapes: brackets nested far past any real file (json and tomllib recurse once per level), and Python whose
expression tree is deep without a single parenthesis (a chain of ``+``, of attribute accesses, of unary minus:
the tokenizer's 200-parenthesis limit does not apply, and ``ast.parse`` raises RecursionError or MemoryError);
and Python just deep enough that ``ast.parse`` succeeds but whatever walks the tree afterwards recursively
(pyflakes, ``ast.unparse``, a NodeVisitor) overflows. Each attack goes through a real entry point: the config
loader, test and interpreter detection, scaffold, the data-task skeleton, ``review --staged``, the repo map,
``outline``, the static check after an edit, and the jest report a test run leaves.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.attacks.harness import Attack, Run, call, devagent, sent_to_model
from tests.conftest import git, make_repo
from tests.ollama_server import ScriptedOllama

DEEP = 60_000  # levels: far past Python's recursion limit, still a small file
CONFIG_ERROR = 78


def deep_json(levels: int = DEEP) -> str:
    return "[" * levels + "]" * levels


def deep_toml(key: str = "x", levels: int = DEEP) -> str:
    return f"{key} = " + "[" * levels + "]" * levels + "\n"


def deep_python(kind: str, levels: int = DEEP) -> str:
    """Python with a deep expression tree and no parentheses: ``+`` and attribute chains make ast.parse raise
    RecursionError, unary minus MemoryError; ``levels`` of a few hundred parse and break what walks the tree."""
    if kind == "plus":
        return "TOTAL = " + " + ".join(["1"] * levels) + "\n"
    if kind == "attr":
        return "x = a" + ".b" * levels + "\n"
    return "x = " + "-" * levels + "1\n"


def no_crash(*runs: Run) -> str:
    """Everything the runs printed; none of them died with an internal error or a traceback."""
    text = ""
    for run in runs:
        assert not run.hung, run.stderr[-500:]
        assert "internal error" not in run.stderr and "Traceback" not in run.stderr, run.stderr[-1500:]
        assert "RecursionError" not in run.stdout + run.stderr, (run.stdout + run.stderr)[-1500:]
        text += run.stdout + run.stderr
    return text


def test_a_nested_devagent_toml_is_a_config_error(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / ".devagent.toml").write_text(deep_toml())
    attack = Attack(repo)
    runs = [attack.run_agent(ollama_server, "hello"), devagent(repo, "doctor"), devagent(repo, "test", "--list")]
    attack.check(*runs)
    text = no_crash(*runs)
    assert [run.rc for run in runs] == [CONFIG_ERROR, 1, CONFIG_ERROR], [(r.rc, r.stderr[-300:]) for r in runs]
    assert all("nested more than" in run.stdout + run.stderr for run in runs) and ".devagent.toml" in text


def test_a_nested_table_of_a_pyproject_is_a_config_error(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """Not the [tool.devagent] table: another tool's, and dotted keys as deep as the brackets."""
    for name, body in (("brackets", deep_toml("tool.other.x")), ("inline", "x = " + "{a = " * 3000 + "1" + "}" * 3000),
                       ("dotted", "[" + ".".join(["t"] * 5000) + "]\nx = 1\n")):
        repo = make_repo(tmp_path / name, {"pyproject.toml": "[project]\nname = 'demo'\n" + body + "\n"})
        attack = Attack(repo)
        run = attack.run_agent(ollama_server, "hello")
        doctor = devagent(repo, "doctor")  # goes on past the config: the interpreter check reads it too
        attack.check(run, doctor)
        assert run.rc == CONFIG_ERROR and "nested" in no_crash(run), (name, run.rc, run.stderr[-500:])
        assert doctor.rc == 1 and no_crash(doctor).count("nested more than") >= 2, doctor.stdout[-1500:]


def test_test_detection_reads_a_nested_sub_project(tmp_path: Path) -> None:
    """Sub-projects' pyproject.toml and package.json are read by test and interpreter detection only."""
    repo = make_repo(tmp_path / "repo", {
        "py/pyproject.toml": "[project]\nname = 'sub'\n" + deep_toml("tool.pytest.x"),
        "py/tests/test_a.py": "def test_a():\n    assert True\n",
        "web/package.json": '{"scripts": {"test": "jest"}, "x": ' + deep_json() + "}",
    })
    attack = Attack(repo)
    runs = [devagent(repo, "test", "--list"), devagent(repo, "doctor"), devagent(repo, "test", "--all", timeout=120)]
    attack.check(*runs)
    text = no_crash(*runs)
    assert "nested" in text and "py/pyproject.toml" in text and "web/package.json" in text


def test_scaffold_reads_a_nested_package_json(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"package.json": '{"dependencies": {"react": "18"}, "x": ' + deep_json() + "}",
                                         "src/App.jsx": "export default function App() { return null }\n"})
    attack = Attack(repo)
    run = devagent(repo, "scaffold", "component", "Button", "--yes")
    attack.check(run)
    assert "nested" in no_crash(run) and "package.json" in run.stdout + run.stderr


def test_review_staged_nested_json_toml_and_python(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    files = {"data.json": deep_json(), "conf.toml": deep_toml(), "gen_plus.py": deep_python("plus"),
             "gen_attr.py": deep_python("attr"), "gen_minus.py": deep_python("minus")}
    for name, text in files.items():
        (repo / name).write_text(text)
    git(repo, "add", *files)
    attack = Attack(repo)
    run = devagent(repo, "review", "--staged", "--no-model")
    attack.check(run)
    text = no_crash(run)
    for name in files:
        assert name in text, (name, text[-2000:])
    assert text.count("nested") >= len(files), text[-2000:]


def test_the_repo_map_and_outline_skip_nested_python(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """The map indexes every tracked .py file when a session starts; outline parses the file it is given."""
    repo = make_repo(tmp_path / "repo", {"app.py": "def add(a, b):\n    return a + b\n",
                                         "gen/plus.py": deep_python("plus"), "gen/minus.py": deep_python("minus"),
                                         "gen/mid.py": "def f():\n    pass\n\n" + deep_python("plus", 700),
                                         "gen/data.json": deep_json()})
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "what does gen do?", call("outline", path="gen/plus.py"),
                           call("outline", path="gen/mid.py"), call("outline", path="gen/data.json"),
                           call("outline", path="gen"))
    attack.check(run, allow_rc=(0,))
    no_crash(run)
    sent = sent_to_model(ollama_server)
    assert "add()" in sent  # the repo map still lists the rest of the repo (one deep file dropped all of it)
    assert sent.count("nested") >= 3, sent[-3000:]


def test_the_check_after_an_approved_edit_of_a_deep_module(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """A module that parses (700 levels) but overflows pyflakes and every recursive walk; then one that does not
    parse at all. The agent edits each (approved): the static check and the verify step read them afterwards."""
    repo = make_repo(tmp_path / "repo", {"calc.py": "def f():\n    return 1\n\n" + deep_python("plus", 700),
                                         "gen.py": "def g():\n    return 2\n\n" + deep_python("attr"),
                                         "test_calc.py": "from calc import f\n\ndef test_f():\n    assert f() == 1\n"})
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "make f return 2 in calc.py and g return 3 in gen.py",
                           call("edit_file", path="calc.py", old="    return 1", new="    return 2"),
                           call("edit_file", path="gen.py", old="    return 2", new="    return 3"), timeout=120)
    attack.check(run, allow_rc=(0,))
    no_crash(run)
    assert "return 2" in (repo / "calc.py").read_text() and "return 3" in (repo / "gen.py").read_text()


def test_a_jest_report_nested_by_the_test_run(tmp_path: Path) -> None:
    """The repo's own `jest` (run in the sandbox) writes the report devagent reads on the host."""
    fake_jest = ("#!/usr/bin/env python3\nimport sys\n"
                 "out = next(a.split('=', 1)[1] for a in sys.argv if a.startswith('--outputFile='))\n"
                 "n = 60000\nopen(out, 'w').write('{\"testResults\": [{\"assertionResults\": ' + '[' * n + ']' * n + '}]}')\n")
    repo = make_repo(tmp_path / "repo", {"package.json": '{"scripts": {"test": "jest"}}\n',
                                         "node_modules/.bin/jest": fake_jest})
    (repo / "node_modules" / ".bin" / "jest").chmod(0o755)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "jest")
    attack = Attack(repo)
    run = devagent(repo, "test", timeout=120)
    attack.check(run)
    text = no_crash(run)
    assert "nested" in text, text[-2000:]
