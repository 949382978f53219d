"""Issue 30, class 3: undo must never overwrite or delete content that no checkpoint holds, and checkpoints give
back the exact bytes that were on disk.

Checkpoints cover tracked and untracked files that are not ignored, and leave nested repositories out. An approved
command can move the line between covered and not covered under a file the developer keeps working on: it ignores
the file (a rule in .gitignore, a directory rule, a .gitignore of its own directory), makes the file's directory a
nested repository, or turns a path the checkpoint holds as a file into a directory holding ignored files or a
whole repository. Undo then wrote the old copy over the developer's later edit (or deleted the directory), and
undoing the undo deleted the file. And git's own conversions (``eol``, ``text``, ``ident``, ``working-tree-encoding``
from .gitattributes, ``core.autocrlf`` from the developer's config) changed the bytes on the way into a
checkpoint, so undo wrote back something else; a planted ``working-tree-encoding`` made every checkpoint, and so
every approved command and undo, fail.

Each attack: real git, real bwrap, everything approved; the developer's later content must be on disk or in a
checkpoint after the undo, and back on disk after the undo of the undo.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.attacks.harness import Attack, Run, call, devagent
from tests.conftest import git, make_repo
from tests.ollama_server import ScriptedOllama

LATER = b"the developer's later edit, which no checkpoint had seen\n"


def held(repo: Path, data: bytes) -> bool:
    """Some checkpoint holds a file with exactly these bytes."""
    sha = subprocess.run(["git", "hash-object", "--stdin"], cwd=repo, input=data, capture_output=True).stdout
    objects = git(repo, "rev-list", "--objects", "--glob=refs/devagent/*")
    return sha.decode().strip() in objects


def kept(repo: Path, path: str, data: bytes) -> bool:
    """The developer's content is on disk at ``path`` or in a checkpoint."""
    full = repo / path
    return (full.is_file() and full.read_bytes() == data) or held(repo, data)


def undo(repo: Path) -> Run:
    run = devagent(repo, "undo", "--yes")
    assert not run.hung and "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr[-800:]
    assert run.rc in (0, 3), (run.rc, run.stderr[-800:])  # restored, or refused with a message
    return run


def undo_twice(repo: Path, path: str) -> tuple[Run, Run]:
    """Undo, then undo the undo; the developer's later content survives both."""
    first = undo(repo)
    assert kept(repo, path, LATER), f"undo lost {path}: {first.stdout[-800:]}{first.stderr[-800:]}"
    second = undo(repo)
    assert (repo / path).is_file() and (repo / path).read_bytes() == LATER, \
        f"undo of the undo: {path} is {(repo / path).read_bytes()[:80] if (repo / path).exists() else 'gone'}; " \
        f"{second.stdout[-600:]}{second.stderr[-600:]}"
    return first, second


def user_file(repo: Path, path: str, data: bytes = b"the developer's first draft\n") -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_bytes(data)


@pytest.mark.parametrize(("path", "command"), [
    ("notes.txt", "echo notes.txt >> .gitignore"),  # a rule for the file
    ("drafts/plan.md", "printf 'drafts/\\n' > .gitignore"),  # a rule for its directory
    ("docs/draft.md", "printf '*.md\\n' > docs/.gitignore"),  # a .gitignore of its own directory
])
def test_a_command_ignores_the_developers_untracked_file(tmp_path: Path, ollama_server: ScriptedOllama, path: str,
                                                         command: str) -> None:
    repo = make_repo(tmp_path / "repo")
    user_file(repo, path)
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "tidy up", call("run_command", command=command))
    assert "ignored" in git(repo, "status", "--porcelain", "--ignored", "--", path).replace("!!", "ignored"), \
        run.stdout[-1500:]
    (repo / path).write_bytes(LATER)
    attack.check(run, *undo_twice(repo, path))


def test_a_command_makes_the_files_directory_a_nested_repository(tmp_path: Path,
                                                                 ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    user_file(repo, "notes/todo.md")
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "version notes", call("run_command", command="git init -q notes"))
    assert (repo / "notes" / ".git").is_dir(), run.stdout[-1500:]
    (repo / "notes" / "todo.md").write_bytes(LATER)
    attack.check(run, *undo_twice(repo, "notes/todo.md"))


def test_undo_never_deletes_a_nested_repository_where_a_file_was(tmp_path: Path,
                                                                   ollama_server: ScriptedOllama) -> None:
    """The checkpoint holds ``lib`` as a file; a command made ``lib`` a repository with a commit of its own."""
    repo = make_repo(tmp_path / "repo")
    user_file(repo, "lib")
    attack = Attack(repo)
    make = ("rm lib && git init -q lib && echo 'work = 1' > lib/work.py && git -C lib add -A && "
            "git -C lib -c user.name=a -c user.email=a@b.invalid commit -qm work")
    run = attack.run_agent(ollama_server, "make lib a repo", call("run_command", command=make))
    assert (repo / "lib" / ".git").is_dir(), run.stdout[-1500:]
    commit = git(repo / "lib", "rev-parse", "HEAD")
    first = undo(repo)
    attack.check(run, first)
    assert (repo / "lib" / ".git").is_dir() and git(repo / "lib", "rev-parse", "HEAD") == commit, first.stdout[-800:]
    assert (repo / "lib" / "work.py").read_text() == "work = 1\n"
    assert first.rc == 3 and "nested repository" in first.stderr, first.stderr[-800:]


def test_undo_never_deletes_ignored_files_where_a_file_was(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    """The checkpoint holds ``out`` as a file; a command made ``out/`` an ignored directory the developer uses."""
    repo = make_repo(tmp_path / "repo")
    user_file(repo, "out")
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "make out a dir",
                           call("run_command", command="rm out && mkdir out && echo out/ >> .gitignore"))
    (repo / "out" / "results.csv").write_bytes(LATER)
    attack.check(run, *undo_twice(repo, "out/results.csv"))


def _converting_repo(root: Path) -> tuple[Path, dict[str, bytes]]:
    """Committed files whose bytes git's conversions would change: CRLF and mixed line endings under
    ``text eol=crlf``, UTF-16 under ``working-tree-encoding``, an expanded ``$Id$`` under ``ident``."""
    repo = make_repo(root, {".gitattributes": "*.txt text eol=crlf\n*.u16 working-tree-encoding=UTF-16LE\n*.c ident\n",
                            "README.md": "# demo\n"})
    files = {"mixed.txt": b"one\r\ntwo\nthree\r\n", "crlf.txt": b"a\r\nb\r\n",
             "names.u16": "caf\u00e9\n".encode("utf-16-le"), "main.c": b"/* $Id: 0123456789abcdef $ */\nint x;\n"}
    for name, data in files.items():
        (repo / name).write_bytes(data)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "files git converts")
    for name, data in files.items():  # what the developer's editor keeps on disk, whatever git stored
        (repo / name).write_bytes(data)
    return repo, files


def test_undo_gives_back_the_exact_bytes_under_conversion_attributes(tmp_path: Path,
                                                                     ollama_server: ScriptedOllama) -> None:
    repo, files = _converting_repo(tmp_path / "repo")
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "rewrite", call("run_command",
                                                          command="for f in *.txt *.u16 *.c; do echo x > $f; done"))
    assert (repo / "crlf.txt").read_bytes() == b"x\n", run.stdout[-1500:]
    first = undo(repo)
    attack.check(run, first, allow_rc=(0,))
    assert {name: (repo / name).read_bytes() for name in files} == files


def test_the_developers_autocrlf_does_not_change_bytes(tmp_path: Path, ollama_server: ScriptedOllama) -> None:
    repo = make_repo(tmp_path / "repo")
    git(repo, "config", "core.autocrlf", "true")
    user_file(repo, "win.txt", b"dos\r\nlines\r\n")
    attack = Attack(repo)
    run = attack.run_agent(ollama_server, "rewrite", call("run_command", command="echo x > win.txt"))
    first = undo(repo)
    attack.check(run, first, allow_rc=(0,))
    assert (repo / "win.txt").read_bytes() == b"dos\r\nlines\r\n"


def test_planted_attributes_change_neither_bytes_nor_break_checkpoints(tmp_path: Path,
                                                                        ollama_server: ScriptedOllama) -> None:
    """A command writes a .gitattributes that converts every file (a UTF-16 working-tree-encoding makes git refuse
    to add any file without a BOM; eol=crlf rewrites line endings): the next approved step and undo still work."""
    repo = make_repo(tmp_path / "repo")
    user_file(repo, "notes.txt", b"lf only\nlines\n")
    attack = Attack(repo)
    plant = "printf '* working-tree-encoding=UTF-16\\n*.txt text eol=crlf\\n' > .gitattributes && echo x > notes.txt"
    run = attack.run_agent(ollama_server, "attrs", call("run_command", command=plant),
                           call("write_file", path="new.txt", content="written after\n"))
    assert (repo / "new.txt").exists(), run.stdout[-2000:]  # (git apply writes it through the attributes)
    first = undo(repo)  # the write_file step
    listed = json.loads(devagent(repo, "checkpoints", "--json").stdout)
    before_command = next(c["name"] for c in listed if c["label"].startswith("before printf"))
    second = devagent(repo, "undo", "--yes", before_command)  # the command
    attack.check(run, first, second, allow_rc=(0,))
    assert (repo / "notes.txt").read_bytes() == b"lf only\nlines\n" and not (repo / ".gitattributes").exists()
