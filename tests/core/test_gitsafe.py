"""The git façade (tui/git/facade.py) with gitsafe's settings: every git devagent runs on the host goes through
one prefix, and that prefix runs nothing the repository (or a nested one, or an attribute) names. Real git, real
repos; the scan keeps the façade the only way."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import git, make_repo
from tui.git import checkpoints, gitsafe
from tui.git.facade import GitRepo, argv
from tui.git.repo import Repo

TUI = Path(__file__).resolve().parents[2] / "tui"
_SPAWNERS = {"run", "Popen", "call", "check_call", "check_output", "create_subprocess_exec", "create_subprocess_shell",
             "system", "execv", "execvp", "execvpe", "spawnv", "spawnvp", "getoutput", "getstatusoutput"}


def _starts_git(node: ast.AST, shell: bool = True) -> bool:
    """An argv whose first word is "git"; with ``shell``, also a command line "git ..." (a tuple of messages
    such as ("git reset --hard would ...", lines) is not a command)."""
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
        return _starts_git(node.elts[0], shell=False)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value == "git" or (shell and node.value.startswith("git "))
    if isinstance(node, ast.JoinedStr) and node.values:
        return _starts_git(node.values[0], shell)
    return False


def git_invocations(source: str) -> list[int]:
    """Lines that start git outside the façade: an argv literal beginning with "git", a spawn whose first argument
    is "git..." (shell strings too), or GitPython opened directly."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts and _starts_git(node.elts[0], shell=False):
            found.append(node.lineno)
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in _SPAWNERS and node.args and _starts_git(node.args[0]):
                found.append(node.lineno)
            if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                    and node.func.value.id == "git" and node.func.attr in ("Repo", "Git"):
                found.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "git":
            found.append(node.lineno)
    return sorted(set(found))


def test_every_git_call_in_tui_goes_through_the_facade() -> None:
    offenders = []
    for path in sorted(TUI.rglob("*.py")):
        if path.name == "facade.py" and path.parent.name == "git":
            continue
        offenders += [f"{path.relative_to(TUI.parent)}:{line}" for line in git_invocations(path.read_text())]
    assert offenders == []


@pytest.mark.parametrize("snippet", [
    'subprocess.run(["git", "status"], cwd=repo)',
    'await asyncio.create_subprocess_exec("git", "diff", cwd=repo)',
    'subprocess.run(f"git -C {repo} status", shell=True)',
    'os.system("git status")',
    'argv = ("git", "add", "-A")',
    'repo = git.Repo(root)',
    'from git import Repo',
])
def test_the_scan_finds_a_direct_git_call(snippet: str) -> None:
    assert git_invocations(snippet) == [1]


def test_the_scan_leaves_other_uses_of_the_word_alone() -> None:
    assert git_invocations('if cmd.program == "git":\n    x = {"git": 1}\nprint("git status failed")') == []


def payload(tmp_path: Path, name: str) -> tuple[str, Path]:
    marker = tmp_path / f"ran-{name}"
    return f"touch {marker}", marker


def test_a_nested_repos_fsmonitor_and_filter_never_run(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    sub = make_repo(repo / "sub")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{git(sub, 'rev-parse', 'HEAD').strip()},sub")
    fsmonitor, ran_fsmonitor = payload(tmp_path, "fsmonitor")
    clean, ran_clean = payload(tmp_path, "clean")
    git(sub, "config", "core.fsmonitor", fsmonitor)
    git(sub, "config", "filter.x.clean", f"{clean}; cat")
    (sub / ".gitattributes").write_text("* filter=x\n")
    git(repo, "status")  # plain git does run them: the setup is live
    assert ran_fsmonitor.exists() or ran_clean.exists()
    ran_fsmonitor.unlink(missing_ok=True)
    ran_clean.unlink(missing_ok=True)
    r = Repo(repo)
    r.status()
    r.diff_worktree()
    checkpoints.create(r, "cp", "s")
    r.gitpython.git.status()
    assert not ran_fsmonitor.exists() and not ran_clean.exists()


def test_filters_from_the_work_tree_never_run_and_the_developers_run_except_in_checkpoints(tmp_path: Path) -> None:
    """A driver defined in a config file inside the work tree (here an include) is the repository's: blanked.
    The developer's own (in .git/config, like Git LFS) keeps diffs and staging right, but a checkpoint stores
    the bytes on disk, so undo gives back exactly what was there."""
    repo = make_repo(tmp_path / "repo")
    (repo / ".gitattributes").write_text("*.txt filter=mine\n*.md filter=theirs\n")
    (repo / "x.txt").write_text("x\n")
    (repo / "y.md").write_text("y\n")
    mine, ran_mine = payload(tmp_path, "mine")
    theirs, ran_theirs = payload(tmp_path, "theirs")
    git(repo, "config", "filter.mine.clean", f"{mine}; cat")
    git(repo, "config", "include.path", "../project.gitconfig")  # resolved next to .git/config: in the work tree
    checkpoints.create(repo, "one", "s")
    (repo / "project.gitconfig").write_text(f'[filter "theirs"]\n\tclean = "{theirs}; cat"\n')  # picked up
    (repo / "y.md").write_text("changed\n")
    (repo / "x.txt").write_text("changed\n")
    checkpoints.create(repo, "two", "s")
    assert not ran_mine.exists() and not ran_theirs.exists()
    Repo(repo).diff_worktree()
    assert ran_mine.exists() and not ran_theirs.exists()
    assert "filter.theirs.clean=" in " ".join(argv(repo, "status"))
    assert "filter.mine.clean=" in " ".join(argv(repo, "add", raw=True))


def test_external_diff_textconv_and_pager_are_off(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    ext, ran_ext = payload(tmp_path, "ext")
    conv, ran_conv = payload(tmp_path, "conv")
    git(repo, "config", "diff.external", ext)
    git(repo, "config", "diff.t.textconv", f"sh -c '{conv}; cat \"$1\"' --")
    git(repo, "config", "core.pager", ext)
    (repo / ".gitattributes").write_text("*.py diff=t\n")
    (repo / "app.py").write_text("changed\n")
    out = GitRepo(repo).run("diff")
    log = GitRepo(repo).run("log", "-p", "-1")
    assert out.returncode == 0 and b"+changed" in out.stdout and log.returncode == 0
    assert not ran_ext.exists() and not ran_conv.exists()


def test_no_hook_runs_for_devagents_own_calls_but_the_commit_runs_them(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    hooks = repo / ".git" / "hooks"
    markers = {}
    for name in ("reference-transaction", "post-index-change", "pre-commit"):
        cmd, markers[name] = payload(tmp_path, name)
        (hooks / name).write_text(f"#!/bin/sh\n{cmd}\n")
        (hooks / name).chmod(0o755)
    r = Repo(repo)
    (repo / "app.py").write_text("changed\n")
    checkpoints.create(r, "cp", "s")
    r.stage(["app.py"])
    assert not any(m.exists() for m in markers.values())
    assert r.commit("change app").ok
    assert markers["pre-commit"].exists()  # the developer's commit: hooks by design


def test_signing_is_off_for_checkpoints_and_on_for_the_commit(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    fake_gpg = tmp_path / "gpg"
    ran = tmp_path / "gpg-ran"
    fake_gpg.write_text(f"#!/bin/sh\ntouch {ran}\nexit 1\n")
    fake_gpg.chmod(0o755)
    git(repo, "config", "commit.gpgSign", "true")
    git(repo, "config", "gpg.program", str(fake_gpg))
    (repo / "app.py").write_text("changed\n")
    checkpoints.create(repo, "cp", "s")
    assert not ran.exists()
    r = Repo(repo)
    r.stage(["app.py"])
    result = r.commit("signed")
    assert ran.exists() and not result.ok  # the developer asked for signing; their (failing) gpg ran


def test_no_transport_and_no_prompt(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    out = GitRepo(repo).run("ls-remote", str(tmp_path / "repo"), timeout=20)
    assert out.returncode != 0 and b"transport" in out.stderr
    env = gitsafe.environment({"GIT_OPTIONAL_LOCKS": "0"})
    assert env["GIT_TERMINAL_PROMPT"] == "0" and env["GIT_OPTIONAL_LOCKS"] == "0"


def test_program_variables_are_dropped_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cmd, ran = payload(tmp_path, "envdiff")
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", cmd)
    monkeypatch.setenv("GIT_SSH_COMMAND", cmd)
    repo = make_repo(tmp_path / "repo")
    (repo / "app.py").write_text("changed\n")
    assert b"+changed" in GitRepo(repo).run("diff").stdout
    assert not ran.exists()
    assert "GIT_SSH_COMMAND" not in gitsafe.environment() and "GIT_SSH_COMMAND" in gitsafe.environment(hooks=True)


def test_global_options_other_than_c_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        argv(tmp_path, "-C", "/elsewhere", "status")


def test_capped_output_stops_git_at_the_limit(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (repo / "big.txt").write_text("x\n" * 2_000_000)
    code, out, cut = GitRepo(repo).run_capped("diff", "--no-index", "--", "/dev/null", "big.txt", limit=100_000)
    assert cut and code == 0 and len(out) == 100_000 and out.startswith(b"diff --git")
    code, out, cut = GitRepo(repo).run_capped("log", "--format=%s", limit=100_000)
    assert not cut and code == 0 and out == b"initial commit\n"


def test_a_config_git_cannot_read_is_not_remembered_as_having_no_filters(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    config = repo / ".git" / "config"
    good = config.read_text()
    config.write_text(good + "[broken\n")
    assert "filter.a.clean=" not in argv(repo, "add", raw=True)
    config.write_text(good + '[filter "a"]\n\tclean = cat\n')
    assert "filter.a.clean=" in argv(repo, "add", raw=True)
