"""The built-in read-only defaults run without asking, so nothing they allow may run a program or write a file.

Found by this suite: every command in RUNS_OR_WRITES was allowed by a default rule (no question), and 18 of them
really ran a program or wrote their file inside the sandbox (find -fprint0, sort --compress-program and
--outp, awk `"cmd" | getline`, `print | cmd`, `-f prog.awk`, a program after `-v x=1` or `-F :`, sed `1w`,
`s///gw`, `1e`, `-e '1w'`, `-f script`, `--in-pl` and `-ni` (in-place edits), git --git-dir= a committed bare
repository whose config sets core.fsmonitor, git --config-env=core.fsmonitor= a variable the repo's config
sets, file -C); tree -R, git help -w, less -o and git log --ext-d were allowed but did nothing on this machine.
One `devagent run --yes --json` carries them all (--yes approves what asks): each must have been asked for,
never allowed by a rule; plain reads stay auto-approved.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.attacks.harness import Attack
from tests.attacks.policy_kit import hostile_repo, of_type, proposals, run_many, started
from tests.conftest import git

RUNS_OR_WRITES = {  # command -> the file it would leave
    "find . -maxdepth 1 -fprint0 w01.txt": "w01.txt",
    "sort -S 1 --compress-program=./evil.sh big.txt": "w02.txt",
    "sort --compress-prog=./evil.sh -S 1 big.txt": "w02.txt",
    "sort --outp=w03.txt README.md": "w03.txt",
    "awk 'BEGIN{\"touch w04.txt\" | getline}'": "w04.txt",
    "awk 'BEGIN{c=\"sh\"; print \"touch w05.txt\" | c}'": "w05.txt",
    "awk -f evil.awk README.md": "w06.txt",
    "awk -v x=1 'BEGIN{system(\"touch w07.txt\")}'": "w07.txt",
    "awk -F : 'BEGIN{print \"x\" > \"w08.txt\"}'": "w08.txt",
    "sed -n '1w w09.txt' README.md": "w09.txt",
    "sed 's/d/x/gw w10.txt' README.md": "w10.txt",
    "sed '1e touch w11.txt' README.md": "w11.txt",
    "sed -e '1w w12.txt' README.md": "w12.txt",
    "sed -f evil.sed README.md": "w13.txt",
    "sed --in-pl=.w14 's/demo/x/' README.md": "README.md.w14",
    "sed -ni.w15 's/demo/x/p' README.md": "README.md.w15",
    "git --exec-path=. help -w log": "w16.txt",
    "git --git-dir=bare --work-tree=. status": "w17.txt",
    "git --config-env=core.fsmonitor=NODE_ENV status": "w18.txt",
    "file -C -m magic": "magic.mgc",
    "less -o w19.txt README.md": "w19.txt",
    "git log --ext-d -p": "w20.txt",
    "tree -R -H . -L 1": "00Tree.html",
}
STILL_ALLOWED = ["sed -n '1,2p' README.md", "sed 's/demo/x/g' README.md", "awk '{print $1}' README.md",
                 "git --no-pager log --oneline -1", "sort -u README.md", "find . -maxdepth 1 -name '*.md'",
                 "file README.md"]
REPO_FILES = {
    "evil.sh": "#!/bin/sh\ntouch w02.txt\ncat\n", "evil.awk": "BEGIN{system(\"touch w06.txt\")}\n",
    "evil.sed": "1w w13.txt\n", "git-web--browse": "#!/bin/sh\ntouch w16.txt\n", "magic": "0 string hi hi\n",
    "fsmonitor.sh": "#!/bin/sh\ntouch w17.txt\n", "big.txt": "".join(f"{i}\n" for i in range(20000)),
    ".devagent.toml": '[project.env]\nNODE_ENV = "touch w18.txt; false"\n',
    ".gitattributes": "*.md diff=evil\n",
}


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict[str, Any]], list[str]]:
    root = tmp_path_factory.mktemp("auto")
    repo = hostile_repo(root / "r", REPO_FILES)
    for name in ("evil.sh", "git-web--browse", "fsmonitor.sh"):
        os.chmod(repo / name, 0o755)
    git(repo, "clone", "-q", "--bare", str(repo), "bare")  # a bare repository committed as plain files
    git(repo / "bare", "config", "core.fsmonitor", "./fsmonitor.sh")
    git(repo / "bare", "config", "core.bare", "false")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a committed bare repository")
    git(repo, "config", "diff.evil.command", "touch w20.txt; true")  # the developer's own (trusted) config
    attack = Attack(repo)
    run = run_many(repo, [*RUNS_OR_WRITES, *STILL_ALLOWED])
    attack.check(run, allow_rc=(0,))
    how = {e["id"]: e.get("by", "") for e in of_type(run, "decision")}
    return repo, {p["command"]: {**p, "by": how.get(p["id"], "")} for p in proposals(run)}, started(run)


@pytest.mark.parametrize("command", sorted(RUNS_OR_WRITES))
def test_a_default_that_runs_or_writes_asks(session: tuple[Path, dict[str, dict[str, Any]], list[str]],
                                            command: str) -> None:
    _repo, seen, _ran = session
    assert seen[command]["policy"] == "ask", (seen[command]["policy"], seen[command]["rule"])
    assert seen[command]["by"] == "yes-flag", seen[command]  # approved only because --yes answered the question


@pytest.mark.parametrize("command", STILL_ALLOWED)
def test_plain_reads_stay_auto_approved(session: tuple[Path, dict[str, dict[str, Any]], list[str]],
                                        command: str) -> None:
    _repo, seen, ran = session
    assert seen[command]["policy"] == "allow", seen[command]["rule"]
    assert command in ran and seen[command]["by"] != "yes-flag"
