"""The attack suite's shared parts: markers that prove code ran outside the sandbox, a digest of
``.git`` that proves nothing there changed, and `devagent` run as a user runs it, with a hang limit.

Every attack ends with ``Attack.check()``: no marker exists (host /tmp, $HOME, /etc), the secret
planted in devagent's environment appears in no file of the repo and in no output, ``.git`` holds the
same files with the same bytes (devagent's own store and checkpoint refs excepted), and devagent
exited by itself within its time limit without a traceback.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.ollama_server import Reply, ScriptedOllama

SECRET = "devagent-secret-" + uuid.uuid4().hex  # put in devagent's own environment; must never leak
# Paths under .git that devagent itself owns or that git rewrites on its own (not attack surface):
OWN_GIT_PATHS = ("devagent/", "refs/devagent/", "logs/refs/devagent/", "objects/", "index", "logs/HEAD",
                 "FETCH_HEAD", "ORIG_HEAD", "COMMIT_EDITMSG")


@dataclass
class Markers:
    """Files an attack payload tries to create on the host; any of them existing means it escaped."""

    token: str = field(default_factory=lambda: uuid.uuid4().hex[:12])

    @property
    def paths(self) -> list[Path]:
        name = f"devagent-pwned-{self.token}"
        return [Path("/tmp") / name, Path.home() / name, Path("/etc") / name]

    def shell(self) -> str:
        """A shell payload that creates every marker it can (errors ignored)."""
        return " ; ".join(f"touch {p} 2>/dev/null" for p in self.paths) + " ; true"

    def python(self) -> str:
        """The same payload as Python source."""
        return ("import pathlib\nfor p in %r:\n    try: pathlib.Path(p).touch()\n    except OSError: pass\n"
                % ([str(p) for p in self.paths],))

    def found(self) -> list[Path]:
        return [p for p in self.paths if p.exists()]

    def cleanup(self) -> None:
        for p in self.paths:
            try:
                p.unlink()
            except OSError:
                pass


def git_digest(repo: Path) -> dict[str, str]:
    """sha256 of every file under .git that an attack could use (config, hooks, refs, info...)."""
    git_dir = repo / ".git"
    out: dict[str, str] = {}
    for path in sorted(git_dir.rglob("*")):
        rel = path.relative_to(git_dir).as_posix()
        if any(rel == own.rstrip("/") or rel.startswith(own) for own in OWN_GIT_PATHS):
            continue
        if path.is_symlink():
            out[rel] = "symlink:" + os.readlink(path)
        elif path.is_file():
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif path.is_dir():
            out[rel + "/"] = "dir"
    return out


@dataclass
class Run:
    rc: int | None
    stdout: str
    stderr: str
    hung: bool

    def events(self) -> list[dict[str, Any]]:
        found = []
        for line in self.stdout.splitlines():
            try:
                found.append(json.loads(line))
            except ValueError:
                continue
        return found


def devagent(cwd: Path, *args: str, url: str = "", stdin: str = "", timeout: float = 60,
             env: dict[str, str] | None = None) -> Run:
    """`python -m tui ARGS` from a neutral directory's interpreter, SECRET in its environment, killed
    (whole process group) when it runs past ``timeout``: a hang is a result, not a stuck test."""
    full = {**os.environ, "DEVAGENT_API_KEY": SECRET, "OPENAI_API_KEY": SECRET, "AWS_SECRET_ACCESS_KEY": SECRET,
            **(env or {})}
    if url:
        full["OLLAMA_HOST"] = url
    return run_bounded([sys.executable, "-m", "tui", *args], cwd, full, stdin, timeout)


def run_bounded(argv: list[str], cwd: Path, env: dict[str, str], stdin: str, timeout: float) -> Run:
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
        return Run(proc.returncode, out, err, False)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return Run(None, out, err, True)


class Attack:
    """One attack on one repo: snapshot before, ``check()`` after."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.markers = Markers()
        self.before = git_digest(repo)

    def run_agent(self, server: ScriptedOllama, prompt: str, *calls: dict[str, Any], yes: bool = True,
                  timeout: float = 60, args: tuple[str, ...] = ()) -> Run:
        """The scripted model makes ``calls`` (one per reply), then answers; every proposal is approved."""
        server.push(*[Reply(tool_calls=[c]) for c in calls], Reply("done"))
        flags = ("--yes",) if yes else ()
        return devagent(self.repo, "run", *flags, "--json", *args, prompt, url=server.url, timeout=timeout)

    def check(self, *runs: Run, allow_rc: tuple[int | None, ...] = ()) -> None:
        try:
            found = self.markers.found()
            assert not found, f"code ran outside the sandbox: {found}"
            after = git_digest(self.repo)
            changed = sorted(k for k in set(self.before) | set(after) if self.before.get(k) != after.get(k))
            assert not changed, f".git changed: {changed}"
            for path in self.repo.rglob("*"):
                if ".git" in path.relative_to(self.repo).parts or path.is_symlink() or not path.is_file():
                    continue
                try:
                    with path.open("rb") as fh:  # bounded: an attack may leave a huge (sparse) file behind
                        data = fh.read(5_000_000)
                except OSError:
                    continue
                assert SECRET.encode() not in data, f"the secret reached {path}"
            for run in runs:
                assert not run.hung, f"devagent hung; stderr: {run.stderr[-500:]}"
                assert "Traceback" not in run.stderr, run.stderr[-2000:]
                assert SECRET not in run.stdout and SECRET not in run.stderr, "the secret reached devagent's output"
                if allow_rc:
                    assert run.rc in allow_rc, (run.rc, run.stderr[-500:])
        finally:
            self.markers.cleanup()


# -- more generic helpers (appended: the parts above are shared and stay as they are) ---------------------------

def call(name: str, **arguments: Any) -> dict[str, Any]:
    """One scripted tool call, as `Attack.run_agent` takes them."""
    return {"name": name, "arguments": arguments}


def devagent_cli(cwd: Path, *args: str, url: str = "", stdin: str = "", timeout: float = 60,
                 env: dict[str, str] | None = None) -> Run:
    """The installed `devagent` console script, as a user types it (sys.path[0] is its bin directory, never
    the repo): for attacks that plant Python modules in the repo, which `python -m tui` run there would import."""
    script = Path(sys.executable).with_name("devagent")
    full = {**os.environ, "DEVAGENT_API_KEY": SECRET, "OPENAI_API_KEY": SECRET, "AWS_SECRET_ACCESS_KEY": SECRET,
            **(env or {})}
    if url:
        full["OLLAMA_HOST"] = url
    return run_bounded([str(script), *args], cwd, full, stdin, timeout)


def sent_to_model(server: ScriptedOllama) -> str:
    """Everything devagent sent the scripted model, as one string (for "the secret never reached the model")."""
    return json.dumps(server.requests)
