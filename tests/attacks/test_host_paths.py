"""Class 2: symlinks. devagent reads and writes repo paths on the host, so a symlink (in any component) that
leaves the work tree or enters a git dir must be refused: by undo's restore, the scaffold templates, the file
tools, the repo map, the test runner's report, the hook installer."""

from __future__ import annotations

from pathlib import Path

from tests.attacks.harness import SECRET, Attack, call, devagent, sent_to_model
from tests.attacks.hostile import commit_all, nested_repo, outside_secret
from tests.conftest import git, make_repo
from tests.ollama_server import ScriptedOllama


def test_undo_through_an_ignored_symlink_to_dot_git(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """The issue's attack: d/ holds hooks/pre-commit and config when a checkpoint is taken; then d becomes an
    ignored symlink to .git; undo restored d/* into .git (a pre-commit hook and core.fsmonitor)."""
    repo = make_repo(tmp_path / "repo")
    attack = Attack(repo)
    payload = attack.markers.shell()
    plant = (f"mkdir -p d/hooks && printf '#!/bin/sh\\n{payload}\\n' > d/hooks/pre-commit && "
             f"chmod +x d/hooks/pre-commit && printf '[core]\\n\\tfsmonitor = {payload}\\n' > d/config")
    run = attack.run_agent(ollama_server, "go", call("run_command", command=plant),
                           call("run_command", command="rm -rf d && ln -s .git d && echo d >> .gitignore"))
    assert (repo / "d").is_symlink(), run.stdout[-2000:]
    undo = devagent(repo, "undo", "--yes")
    git(repo, "status")  # what the developer runs next (their git honours .git/config)
    attack.check(run, undo)
    assert (repo / "d").is_symlink() and "refusing to restore" in undo.stderr.lower()


def test_undo_through_a_symlink_into_a_nested_repos_git_dir(tmp_path: Path,
                                                            ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    sub = nested_repo(repo / "vendor" / "lib")
    config = (sub / ".git" / "config").read_bytes()
    attack = Attack(repo)
    plant = f"mkdir -p d && printf '[core]\\n\\tfsmonitor = {attack.markers.shell()}\\n' > d/config"
    run = attack.run_agent(ollama_server, "go", call("run_command", command=plant),
                           call("run_command", command="rm -rf d && ln -s vendor/lib/.git d && echo d >> .gitignore"))
    undo = devagent(repo, "undo", "--yes")
    attack.check(run, undo)
    assert (sub / ".git" / "config").read_bytes() == config


def test_undo_through_a_symlink_out_of_the_repo(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    attack = Attack(repo)
    name = attack.markers.paths[1].name  # the marker's name in $HOME
    run = attack.run_agent(ollama_server, "go", call("run_command", command=f"mkdir -p d && echo x > d/{name}"),
                           call("run_command", command=f"rm -rf d && ln -s {Path.home()} d && echo d >> .gitignore"))
    undo = devagent(repo, "undo", "--yes")
    attack.check(run, undo)


def test_scaffold_template_override_symlinked_to_a_private_key(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": "[project]\nname = 'demo'\n", "demo/__init__.py": ""})
    key = outside_secret(tmp_path)
    templates = repo / ".devagent" / "templates" / "module"
    templates.mkdir(parents=True)
    for name in ("module.py.tmpl", "test_module.py.tmpl"):
        (templates / name).symlink_to(key)
    attack = Attack(repo)
    run = devagent(repo, "scaffold", "module", "text_utils", "--yes")
    attack.check(run)
    assert "symlink" in run.stderr + run.stdout


def test_scaffold_templates_dir_symlinked_out(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pyproject.toml": "[project]\nname = 'demo'\n", "demo/__init__.py": ""})
    key = outside_secret(tmp_path)
    (key.parent / "module").mkdir()
    (key.parent / "module" / "module.py.tmpl").write_text(key.read_text())
    (repo / ".devagent").mkdir()
    (repo / ".devagent" / "templates").symlink_to(key.parent)
    attack = Attack(repo)
    run = devagent(repo, "scaffold", "module", "text_utils", "--yes")
    attack.check(run)


def test_file_tools_refuse_symlinks_out_and_into_git(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "notes.md").symlink_to(outside_secret(tmp_path))
    (repo / "g").symlink_to(".git")
    (repo / "d").symlink_to(".git")
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "read notes.md please",
                           call("read_file", path="notes.md"), call("read_file", path="g/config"),
                           call("edit_file", path="notes.md", old="", new="x"),
                           call("write_file", path="d/hooks/post-commit", content="#!/bin/sh\n" +
                                attack.markers.shell() + "\n"))
    attack.check(run, allow_rc=(0,))
    assert SECRET not in sent_to_model(ollama_server)


def test_repo_map_through_a_directory_swapped_for_a_symlink(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """A tracked lib/mod.py, then lib replaced by a symlink to a private folder: the map read what it found there."""
    repo = make_repo(tmp_path / "repo", {"lib/mod.py": "def public():\n    pass\n"})
    private = tmp_path / "private"
    private.mkdir()
    token = "leaked_" + SECRET.rsplit("-", 1)[-1]
    (private / "mod.py").write_text(f"def {token}():\n    pass\n")
    for path in (repo / "lib").iterdir():
        path.unlink()
    (repo / "lib").rmdir()
    (repo / "lib").symlink_to(private)
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "what is in lib?")
    attack.check(run, allow_rc=(0,))
    assert token not in sent_to_model(ollama_server)


def test_test_report_swapped_for_a_symlink_to_a_private_file(tmp_path: Path) -> None:
    """The sandboxed test run is hostile: a conftest replaces the junit report devagent reads afterwards."""
    private = tmp_path / "private.xml"
    private.write_text(f'<testsuite><testcase classname="t" name="test_x" file="test_t.py" line="1">'
                       f'<failure message="{SECRET}">{SECRET}</failure></testcase></testsuite>')
    conftest = ("import os\n\ndef pytest_unconfigure(config):\n    path = getattr(config.option, 'xmlpath', None)\n"
                f"    if path:\n        os.remove(path)\n        os.symlink({str(private)!r}, path)\n")
    repo = make_repo(tmp_path / "repo", {"conftest.py": conftest, "test_t.py": "def test_x():\n    assert True\n"})
    attack = Attack(repo)
    run = devagent(repo, "test", timeout=90)
    attack.check(run)


def test_hook_install_writes_through_a_planted_temp_symlink(tmp_path: Path) -> None:
    """core.hooksPath in the developer's config points into the repo; the repo plants devagent's temp name."""
    repo = make_repo(tmp_path / "repo")
    git(repo, "config", "core.hooksPath", ".githooks")
    attack = Attack(repo)
    (repo / ".githooks").mkdir()
    (repo / ".githooks" / ".pre-commit.devagent-tmp").symlink_to(attack.markers.paths[1])
    commit_all(repo, "hooks dir")
    attack.before = Attack(repo).before
    run = devagent(repo, "hook", "install")
    attack.check(run)
