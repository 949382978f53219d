"""More ways around the hard-deny list, found by this suite: each of these was only asked for (so `--yes` ran it).

A `cd` before the delete (`cd / && rm -rf usr`, a bare `cd` to HOME, `cd ..`, `cd -`), the working directory
spelled as a variable (`$PWD/..`, `$(pwd)/..`), HOME with an operator (`${HOME%/}`), long options abbreviated
as GNU tools accept them (`rm --rec --fo /`, `chmod --rec`, `rsync --del`), `env -S 'sudo id'` (the string is
the command), `systemctl poweroff`, `sudoedit`, and `alias x=sudo`. Each must be denied by the hard-deny list
and never start; like test_deny_attacks.py, a command is only sent once the policy denies it in-process.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.attacks.harness import Attack
from tests.attacks.policy_kit import hostile_repo, proposals, run_many, started
from tests.attacks.test_deny_attacks import _safe_to_send

EVADED = [
    "cd / && rm -rf usr",
    "cd && rm -rf *",
    "cd .. && rm -rf *",
    "pushd / && rm -rf etc",
    "cd - && rm -rf build",
    "(cd / && rm -rf bin)",
    "rm -rf $PWD/..",
    'rm -rf "$(pwd)/.."',
    "rm -rf ${HOME%/}",
    "rm -rf ${HOME:-/}",
    "rm --rec --fo /",
    "chmod --rec 777 /etc",
    "rsync -a --del empty/ /",
    "env -S 'sudo id'",
    "env -S'rm -rf /'",
    "env --split-string='sudo id'",
    "systemctl poweroff",
    "loginctl reboot",
    "sudoedit /etc/hosts",
    "alias x=sudo",
]
STILL_ASKED = ["cd build && rm -rf out", "env -S 'ls -la'", "alias ll='ls -l'"]


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, dict[str, Any]], list[str]]:
    root = tmp_path_factory.mktemp("evasion")
    repo = hostile_repo(root / "r", {"empty/.keep": "", "build/out/x": "x\n"})
    sent = [c for c in EVADED if _safe_to_send(c, repo)] + STILL_ASKED
    attack = Attack(repo)
    run = run_many(repo, sent, timeout=120)
    attack.check(run, allow_rc=(0,))
    assert (repo / "README.md").exists() and (repo / "app.py").exists()
    return {p["command"]: p for p in proposals(run)}, started(run)


@pytest.mark.parametrize("command", EVADED)
def test_evasion_is_hard_denied(session: tuple[dict[str, dict[str, Any]], list[str]], tmp_path: Path,
                                command: str) -> None:
    if not _safe_to_send(command, tmp_path):
        pytest.fail(f"{command!r} is not denied: --yes would run it")
    seen, ran = session
    assert seen[command]["policy"] == "deny" and seen[command]["rule"].startswith("hard deny"), seen[command]["rule"]
    assert command not in ran


@pytest.mark.parametrize("command", STILL_ASKED)
def test_look_alikes_inside_the_repo_are_not_denied(session: tuple[dict[str, dict[str, Any]], list[str]],
                                                    command: str) -> None:
    seen, ran = session
    assert seen[command]["policy"] == "ask" and command in ran, seen[command]["rule"]
