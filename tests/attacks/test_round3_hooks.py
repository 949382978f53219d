"""Round three, class 7: a hook the work tree controls, changed by an approved command, runs at the next commit.

`devagent commit` (and `c` in the app) runs the repository's hooks on the host: that is what a commit is. When
the hooks live in the work tree (husky's `core.hooksPath = .husky`, a `.git/hooks` entry that is a symlink
into the tree, a helper script the hooks source), a sandboxed command can rewrite or add one, and the next
commit runs it outside the sandbox. Each attack lets an approved command change the hooks in a different way,
then commits as a script would (`devagent commit --yes`). Defended: a hook that changed since the session
began is shown and asked for; without an answer nothing runs (no marker appears on the host), and HEAD stays.
The app's commit screen is driven too: its first ctrl+s shows the changed hook instead of running it.
"""

from __future__ import annotations

import stat
from pathlib import Path

from tests.attacks.harness import Attack, Markers, devagent
from tests.attacks.policy_kit import run_call, stage
from tests.conftest import git, make_repo
from tests.ollama_server import Reply, ScriptedOllama

BENIGN = "#!/bin/sh\necho lint ok\n"


def executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC | stat.S_IXGRP | stat.S_IXOTH)


def husky_repo(root: Path) -> Path:
    repo = make_repo(root / "repo", {"README.md": "# r\n", "app.py": "x = 1\n"})
    executable(repo / ".husky" / "pre-commit", BENIGN)
    executable(repo / ".husky" / "_" / "h", "#!/bin/sh\ntrue\n")
    executable(repo / ".husky" / "commit-msg", '#!/bin/sh\n. "$(dirname "$0")/_/h"\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "husky", "--no-verify")
    git(repo, "config", "core.hooksPath", ".husky")  # what `npm install` (husky's prepare script) sets
    return repo


def command_then_commit(repo: Path, command: str) -> None:
    """A session in which an approved command runs ``command``; then a scripted `devagent commit --yes`."""
    attack = Attack(repo)
    payload = attack.markers.shell()
    user = repo.parent / "user.toml"
    user.write_text('[model]\npipelines = "off"\n')  # the scripted replies are the agent's steps
    with ScriptedOllama() as server:
        server.push(Reply(tool_calls=[run_call(command.replace("PAYLOAD", payload))]), Reply("done"))
        run = devagent(repo, "run", "--yes", "--json", "tidy up", url=server.url, env={"DEVAGENT_CONFIG": str(user)})
    head = git(repo, "rev-parse", "HEAD")
    stage(repo, "app.py", "x = 2\n")
    commit = devagent(repo, "commit", "--yes", "-m", "change x", "--no-model")
    attack.check(run, commit)
    assert git(repo, "rev-parse", "HEAD") == head
    assert commit.rc == 1 and "hook" in (commit.stdout + commit.stderr).lower(), (commit.stdout, commit.stderr)


def test_a_husky_hook_rewritten(tmp_path: Path) -> None:
    command_then_commit(husky_repo(tmp_path), "printf '#!/bin/sh\\n%s\\n' 'PAYLOAD' > .husky/pre-commit")


def test_a_hook_added_where_there_was_none(tmp_path: Path) -> None:
    command_then_commit(husky_repo(tmp_path), "printf '#!/bin/sh\\n%s\\n' 'PAYLOAD' > .husky/prepare-commit-msg"
                                              " && chmod +x .husky/prepare-commit-msg")


def test_a_helper_the_hooks_source(tmp_path: Path) -> None:
    command_then_commit(husky_repo(tmp_path), "printf '%s\\n' 'PAYLOAD' >> .husky/_/h")


def test_a_git_hooks_symlink_into_the_tree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "# r\n", "app.py": "x = 1\n"})
    executable(repo / "scripts" / "pre-commit.sh", BENIGN)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "hook script")
    (repo / ".git" / "hooks" / "pre-commit").symlink_to(repo / "scripts" / "pre-commit.sh")
    command_then_commit(repo, "printf '%s\\n' 'PAYLOAD' >> scripts/pre-commit.sh")


async def test_the_apps_commit_screen_shows_a_changed_hook_first(tmp_path: Path) -> None:
    from tests.app.snapshot_apps.factory import build_app, wait_for
    from tui.app.screens.commit import CommitScreen
    from tui.app.widgets.agent_pane import AgentPane

    repo = husky_repo(tmp_path)
    markers = Markers()
    stage(repo, "app.py", "x = 2\n")
    head = git(repo, "rev-parse", "HEAD")
    server = ScriptedOllama().__enter__()
    app = build_app(repo, server_url=server.url, git_refresh=False)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await wait_for(pilot, lambda: app.main is not None and getattr(app.main, "session", None) is not None,
                           what="session")
            executable(repo / ".husky" / "pre-commit", f"#!/bin/sh\n{markers.shell()}\n")  # what a command did
            app.main.query_one(AgentPane).focus()
            await pilot.pause()
            await pilot.press("c")
            await wait_for(pilot, lambda: isinstance(app.screen, CommitScreen) and app.screen.is_mounted,
                           what="commit screen")
            screen = app.screen
            await wait_for(pilot, lambda: screen.message.strip() != "", what="message")
            hooks = screen.query_one("#commit-hooks")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: any("pre-commit" in line for line in hooks.lines) or
                           not isinstance(app.screen, CommitScreen), what="the hook shown (or the commit)")
            assert not markers.found(), "the changed hook ran without being shown"
            assert git(repo, "rev-parse", "HEAD") == head
    finally:
        server.__exit__(None, None, None)
        markers.cleanup()
