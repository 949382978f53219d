"""What devagent's subcommands print for a person is shown literally: no raw control, bidi or invisible character.

Found by this suite: `devagent undo` printed the diff it was about to restore (and asked "Restore this
checkpoint?") with the file's escape sequences raw, so `\\x1b[2J` or a right-to-left override could hide what
is restored; `devagent commit` showed the model's message raw before asking; `devagent test` streamed the
test run's output raw (a test can set the terminal title or write the clipboard with OSC 52);
`devagent checkpoints` and `devagent review` printed file names a command chose raw. Each now shows
escapes (`\\x1b`, `\\u202e`) and, where something is approved, a `!!` line naming the character.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from tests.attacks.harness import Attack, call, devagent
from tests.attacks.policy_kit import stage
from tests.conftest import git, make_repo
from tests.ollama_server import ScriptedOllama

RLO = "\u202e"
HOSTILE = f"clear\x1b[2J\x1b]52;c;cHduZWQ=\x07title\x1b]0;pwned\x07{RLO}gpj.exe\u200b"


def raw_hidden(text: str) -> list[str]:
    """Characters a terminal would act on or hide: controls (but newline and tab), format, private, unassigned."""
    return sorted({f"U+{ord(ch):04X}" for ch in text
                   if unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cn") and ch not in "\n\t"})


def test_undo_shows_the_diff_it_restores_literally(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "go", call("write_file", path="notes.txt", content=HOSTILE + "\n"))
    undo = devagent(repo, "undo", "--yes")
    attack.check(run, undo, allow_rc=(0,))
    assert raw_hidden(undo.stdout) == [], raw_hidden(undo.stdout)
    assert "\\x1b[2J" in undo.stdout and "\\u202e" in undo.stdout
    assert "!! " in undo.stdout and "U+202E" in undo.stdout


def test_checkpoints_lists_file_names_literally(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    attack = Attack(repo)
    make = "printf x > \"$(printf 'evil\\342\\200\\256gpj.sh')\""
    run = attack.run_agent(ollama_server, "go", call("run_command", command=make),
                           call("write_file", path="notes.txt", content="hi\n"))
    listing = devagent(repo, "checkpoints")
    attack.check(run, listing, allow_rc=(0,))
    assert (repo / f"evil{RLO}gpj.sh").exists(), run.stdout[-1500:]
    assert raw_hidden(listing.stdout) == [] and "evil\\u202egpj.sh" in listing.stdout, listing.stdout


def test_devagent_test_streams_the_runs_output_literally(tmp_path: Path) -> None:
    test = (f"def test_x():\n    print({HOSTILE!r})\n    assert False, {HOSTILE!r}\n\n"
            f"def test_{'a'}():\n    print({HOSTILE!r}, flush=True)\n")
    repo = make_repo(tmp_path / "repo", {"test_t.py": test, "pytest.ini": "[pytest]\naddopts = -s\n"})
    attack = Attack(repo)
    run = devagent(repo, "test", timeout=90)
    attack.check(run, allow_rc=(1,))
    assert "1 failed" in run.stdout, run.stdout[-1500:]
    assert raw_hidden(run.stdout) == [], raw_hidden(run.stdout)


def test_commit_shows_the_message_literally(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    stage(repo, f"a{RLO}txt.py", "x = 1\n")
    attack = Attack(repo)
    run = devagent(repo, "commit", "--yes", "--no-model", "-m", f"fix{RLO} it\x1b[2J")
    attack.before = Attack(repo).before  # the commit itself moves the branch
    attack.check(run, allow_rc=(0,))
    assert raw_hidden(run.stdout) == [], raw_hidden(run.stdout)
    assert "!! " in run.stdout and "U+202E" in run.stdout
    assert git(repo, "log", "-1", "--format=%s").startswith(f"fix{RLO} it")  # committed exactly as given


def test_review_prints_findings_literally(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    stage(repo, f"b{RLO}txt.py", "<<<<<<< HEAD\na = 1\n=======\na = 2\n>>>>>>> other\n")
    attack = Attack(repo)
    run = devagent(repo, "review", "--staged", "--no-model", "--no-interactive", timeout=30)
    attack.check(run)
    assert run.rc != 0 and "\\u202e" in run.stdout, run.stdout
    assert raw_hidden(run.stdout) == [], raw_hidden(run.stdout)


def test_test_list_shows_suite_names_and_paths_literally(tmp_path: Path) -> None:
    name = f"svc{RLO}gpj\x1b[2J"
    repo = make_repo(tmp_path / "repo", {"test_a.py": "def test_a():\n    pass\n",
                                         f"{name}/package.json": '{"name": "x\\u202e", "scripts": {"test": "node t.js"}}\n',
                                         f"{name}/t.js": "\n"})
    attack = Attack(repo)
    run = devagent(repo, "test", "--list")
    attack.check(run, allow_rc=(0,))
    assert "svc\\u202egpj" in run.stdout, run.stdout
    assert raw_hidden(run.stdout) == [], raw_hidden(run.stdout)
