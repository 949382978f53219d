"""Round three, class 9: a program in the read-only tables that writes a file with an option or an operand.

The built-in defaults run read-only programs without asking. Each command here writes a file in the work tree
(gawk's profile, pretty-print and variable dumps, sort's temporary files in a directory it is given), changes
the machine (hostname NAME) or runs a program (ack's pager), so none may be allowed by a default rule (uniq's
and xxd's output operand and date -s were already asked for). One
`devagent run --yes --json` carries them all: --yes approves what asks, so the file appearing is not the
point; the decision is: each must have been asked for. Plain reads with the same programs stay auto-approved.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.attacks.harness import Attack
from tests.attacks.policy_kit import hostile_repo, of_type, proposals, run_many, started

WRITES = {  # command -> the file it leaves behind when it runs (None: the program may not be installed here)
    "gawk -o '{print}' README.md": "awkprof.out",
    "gawk --pretty-print=w1.awk 'BEGIN{x=1}'": "w1.awk",
    "gawk -p 'BEGIN{x=1}'": "awkprof.out",
    "gawk --prof=w2.out 'BEGIN{x=1}'": "w2.out",
    "gawk -d 'BEGIN{x=1}'": "awkvars.out",
    "gawk --dump-v=w3.out 'BEGIN{x=1}'": "w3.out",
    "awk -dw4.out 'BEGIN{x=1}'": "w4.out",
    "sort -T tmpdir -S 1 big.txt": None,
    "sort --temporary-d=tmpdir big.txt": None,
    "ack --pager='touch w8.txt' demo": None,
    "hostname evil": None,
}
STILL_ALLOWED = ["gawk '{print $1}' README.md", "uniq README.md", "xxd README.md", "sort README.md",
                 "gawk -v x=1 'BEGIN{print x}'"]
REPO_FILES = {"big.txt": "".join(f"{i}\n" for i in range(2000)), "tmpdir/.keep": ""}


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict[str, Any]], list[str]]:
    if not shutil.which("gawk"):
        pytest.skip("gawk is not installed (.ci/run installs it)")
    repo = hostile_repo(tmp_path_factory.mktemp("ro-writes") / "r", REPO_FILES)
    attack = Attack(repo)
    run = run_many(repo, [*WRITES, *STILL_ALLOWED])
    attack.check(run, allow_rc=(0,))
    how = {e["id"]: e.get("by", "") for e in of_type(run, "decision")}
    return repo, {p["command"]: {**p, "by": how.get(p["id"], "")} for p in proposals(run)}, started(run)


@pytest.mark.parametrize("command", sorted(WRITES))
def test_a_read_only_program_that_writes_asks(session: tuple[Path, dict[str, dict[str, Any]], list[str]],
                                              command: str) -> None:
    repo, seen, _ran = session
    assert seen[command]["policy"] == "ask", (seen[command]["policy"], seen[command]["rule"])
    assert seen[command]["by"] == "yes-flag", seen[command]
    if WRITES[command]:  # it really writes (approved by --yes here): the option is not harmless
        assert (repo / WRITES[command]).exists(), command


@pytest.mark.parametrize("command", STILL_ALLOWED)
def test_plain_uses_stay_auto_approved(session: tuple[Path, dict[str, dict[str, Any]], list[str]],
                                       command: str) -> None:
    _repo, seen, ran = session
    assert seen[command]["policy"] == "allow", seen[command]["rule"]
    assert command in ran and seen[command]["by"] != "yes-flag"
