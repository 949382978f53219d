"""Every git setting that names a program, set where a command can write it, is ignored by devagent's own git.

test_host_git.py tries core.fsmonitor and filters; these try the rest at once, in the two places a command
can write git config: a nested repository's own .git/config (in a registered submodule's directory, which a
clone leaves empty), and a file in the work tree that the developer's global config includes (dotfiles kept
in the project, a repository that is also a home). The payload names are distinct so a failure says which
key ran. Defended (tui/git/gitsafe.py): no marker appears for any entry point.
"""

from __future__ import annotations

from pathlib import Path

from tests.attacks.harness import Attack, Markers, call, devagent, git_digest
from tests.attacks.hostile import nested_repo, register_submodule
from tests.conftest import git, make_repo
from tests.ollama_server import ScriptedOllama

KEYS = ["core.fsmonitor", "core.pager", "core.editor", "core.sshCommand", "core.askPass", "credential.helper",
        "diff.external", "diff.evil.command", "diff.evil.textconv", "merge.evil.driver", "filter.evil.clean",
        "filter.evil.smudge", "filter.evil.process", "gpg.program", "gpg.ssh.program", "pager.status",
        "pager.log", "pager.diff", "sequence.editor", "interactive.diffFilter", "alias.st"]


def config_text(markers: Markers, hooks: Path) -> str:
    payload = markers.shell()
    lines = ["[core]", f"\tfsmonitor = {payload}", f"\tpager = {payload}", f"\teditor = {payload}",
             f"\tsshCommand = {payload}", f"\taskPass = {payload}", f"\thooksPath = {hooks}",
             "[credential]", f"\thelper = !{payload}", "[diff]", f"\texternal = {payload}",
             '[diff "evil"]', f"\tcommand = {payload}", f"\ttextconv = {payload}",
             '[merge "evil"]', f"\tdriver = {payload}",
             '[filter "evil"]', f"\tclean = {payload}", f"\tsmudge = {payload}", f"\tprocess = {payload}",
             "[gpg]", f"\tprogram = {payload}", '[gpg "ssh"]', f"\tprogram = {payload}",
             "[pager]", f"\tstatus = {payload}", f"\tlog = {payload}", f"\tdiff = {payload}",
             "[sequence]", f"\teditor = {payload}", "[interactive]", f"\tdiffFilter = {payload}",
             "[commit]", "\tgpgSign = true", "[alias]", f"\tst = !{payload}"]
    return "\n".join(lines) + "\n"


def hooks_dir(where: Path, markers: Markers) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    for name in ("pre-commit", "post-commit", "reference-transaction", "post-index-change", "post-checkout",
                 "pre-auto-gc", "post-rewrite"):
        (where / name).write_text(f"#!/bin/sh\n{markers.shell()}\n")
        (where / name).chmod(0o755)
    return where


def staged_change(repo: Path) -> None:
    """A staged change for review (made before the payload is planted: the test's own git honours it)."""
    (repo / "app.py").write_text("x = 2\n")
    git(repo, "add", "app.py")
    (repo / "README.md").write_text("# changed\n")


def every_entry_point(repo: Path, attack: Attack, server: ScriptedOllama) -> None:
    run = attack.run_agent(server, "go", call("git_status"), call("git_diff"), call("git_log"),
                           call("search", pattern="add"), call("list_files"),
                           call("write_file", path="notes.txt", content="hi\n"),
                           call("run_command", command="echo x > made.txt"))
    undo = devagent(repo, "undo", "--yes")
    listing = devagent(repo, "checkpoints")
    review = devagent(repo, "review", "--staged", "--no-model", "--no-interactive")
    tests = devagent(repo, "test", "--list")
    attack.check(run, undo, listing, review, tests)
    assert run.rc == 0 and undo.rc == 0, (run.stderr[-800:], undo.stderr[-800:])


def test_a_nested_repository_sets_every_program_key(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "# r\n", "app.py": "x = 1\n",
                                         ".gitattributes": "* diff=evil merge=evil filter=evil\n"})
    sub = nested_repo(repo / "sub", files={".gitattributes": "* diff=evil merge=evil filter=evil\n"})
    register_submodule(repo, "sub")
    staged_change(repo)
    attack = Attack(repo)
    (sub / ".git" / "config").write_text((sub / ".git" / "config").read_text() +
                                         config_text(attack.markers, hooks_dir(sub / "hooks", attack.markers)))
    (sub / "x").write_text("changed\n")  # a dirty submodule: git would look inside if it were allowed to
    every_entry_point(repo, attack, ollama_server)


def test_a_work_tree_file_the_developers_config_includes(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "# r\n", "app.py": "x = 1\n",
                                         ".gitattributes": "* diff=evil merge=evil filter=evil\n"})
    staged_change(repo)
    attack = Attack(repo)
    (repo / "dotfiles").mkdir()
    (repo / "dotfiles" / "gitconfig").write_text(config_text(attack.markers,
                                                             hooks_dir(repo / "dotfiles" / "hooks", attack.markers)))
    git(repo, "config", "include.path", str(repo / "dotfiles" / "gitconfig"))  # the developer's own choice
    attack.before = git_digest(repo)
    every_entry_point(repo, attack, ollama_server)
