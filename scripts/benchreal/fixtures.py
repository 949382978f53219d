"""Fixture repos and project environments.

A fixture is ``git init`` plus one commit of the unmodified upstream tree, then one commit per planted change
the task needs. Every task of a project runs in the same path (``WORK/<project>``), recreated from the
template before each task, so an editable install or a virtualenv that names the repo's path stays valid; the
git-ignored environment inside the repo (``.venv/``, ``node_modules/``) is kept aside and put back.
"""

from __future__ import annotations

import fcntl
import fnmatch
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from bench_common import GIT_ENV
from benchreal.sources import BenchError, cache_dir, extract, fetch, node_modules, wheels
from benchreal.spec import Append, Cut, Edit, Plant, Project, ReplaceAll, Task, Write

# What a project's own .gitignore would hide (sdists do not ship one); written to .git/info/exclude.
IGNORED = (".venv/", "venv/", "node_modules/", "*.egg-info/", "__pycache__/", "*.pyc", ".pytest_cache/",
           ".coverage", ".coverage.*", "coverage/", ".nyc_output/", "htmlcov/")
KEPT = (".venv", "node_modules")


def git(repo: Path, *args: str, extra_env: dict[str, str] | None = None) -> str:
    out = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                         env={**GIT_ENV, **(extra_env or {})})
    if out.returncode != 0:
        raise BenchError(f"git {' '.join(args[:2])} in {repo.name}: {out.stderr.strip()}")
    return out.stdout


def apply_edits(repo: Path, edits: tuple[Edit, ...]) -> None:
    """Apply planted or reference edits; an ``old`` text that is not there exactly once is an authoring error."""
    for edit in edits:
        target = repo / edit.path
        if isinstance(edit, Write):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(edit.text)
            continue
        if isinstance(edit, Append):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text((target.read_text() if target.exists() else "") + edit.text)
            continue
        if isinstance(edit, Cut):
            text = target.read_text()
            if (text.count(edit.start), text.count(edit.end)) != (1, 1) or text.index(edit.end) < text.index(
                    edit.start):
                raise BenchError(f"{edit.path}: no one block from {edit.start[:40]!r} to {edit.end[:40]!r}")
            a, b = text.index(edit.start), text.index(edit.end)
            dest = repo / edit.to
            dest.write_text((dest.read_text() if dest.exists() else "") + text[a:b])
            target.write_text(text[:a] + text[b:])
            continue
        if isinstance(edit, ReplaceAll):
            text = target.read_text()
            if edit.old not in text:
                raise BenchError(f"{edit.path}: the text to replace is not there: {edit.old[:60]!r}")
            target.write_text(text.replace(edit.old, edit.new))
            continue
        text = target.read_text()
        if text.count(edit.old) != 1:
            raise BenchError(f"{edit.path}: the text to replace occurs {text.count(edit.old)} times: {edit.old[:60]!r}")
        target.write_text(text.replace(edit.old, edit.new))


def _commit(repo: Path, message: str, plant: Plant | None = None, date: str = "") -> None:
    git(repo, "add", "-A")
    who = ["--author", plant.author] if plant and plant.author else []
    date = plant.date if plant and plant.date else date
    # the committer date too, so `git log` shows the planted date whichever date it prints
    when = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else {}
    git(repo, "-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", *who, "-m", message, extra_env=when)


class Fixtures:
    """Builds templates and task repos for one benchmark run under ``work``."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.templates = work / "templates"
        self.keep = work / "keep"

    def upstream(self, project: Project) -> Path:
        """The upstream tree, committed once (build leftovers such as *.egg-info and .pyc files dropped)."""
        path = self.templates / project.name
        if (path / ".git").is_dir():
            return path
        shutil.rmtree(path, ignore_errors=True)
        extract(project.source, fetch(project.source), path)
        for found in sorted(path.rglob("*"), reverse=True):
            rel = found.relative_to(path).as_posix()
            if any(fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(found.name, pat) for pat in project.source.drop):
                shutil.rmtree(found) if found.is_dir() else found.unlink()
        git(path, "init", "-q", "-b", "main")
        (path / ".git" / "info").mkdir(exist_ok=True)
        (path / ".git" / "info" / "exclude").write_text("\n".join(IGNORED) + "\n")
        _commit(path, f"{project.source.name} {project.source.version} as released ({project.source.filename})",
                date=project.source.released)
        return path

    def template(self, project: Project, plants: tuple[str, ...]) -> Path:
        """Upstream plus the named plants, one commit each, in the order given."""
        if not plants:
            return self.upstream(project)
        key = hashlib.sha256("\0".join(plants).encode()).hexdigest()[:10]
        path = self.templates / f"{project.name}-{key}"
        if (path / ".git").is_dir():
            return path
        shutil.copytree(self.upstream(project), path, symlinks=True)
        for name in plants:
            plant = project.plants[name]
            apply_edits(path, plant.edits)
            _commit(path, plant.message, plant)
        return path

    def repo_path(self, project: Project) -> Path:
        return self.work / project.name

    def fresh(self, project: Project, task: Task | None, plants: tuple[str, ...] | None = None) -> tuple[Path, str]:
        """The task's repo at the project's fixed path, with its environment; returns (path, fixture HEAD)."""
        repo = self.repo_path(project)
        self.keep.mkdir(parents=True, exist_ok=True)
        for name in KEPT:
            if (repo / name).exists():
                shutil.rmtree(self.keep / f"{project.name}{name}", ignore_errors=True)
                shutil.move(str(repo / name), self.keep / f"{project.name}{name}")
        shutil.rmtree(repo, ignore_errors=True)
        shutil.copytree(self.template(project, task.plants if task else (plants or ())), repo, symlinks=True)
        for name in KEPT:
            if (self.keep / f"{project.name}{name}").exists():
                shutil.move(str(self.keep / f"{project.name}{name}"), repo / name)
        self.ensure_env(project, repo)
        return repo, git(repo, "rev-parse", "HEAD").strip()

    # The project's environment -------------------------------------------------------------------------------

    def venv_dir(self, project: Project) -> Path:
        env = project.env
        if env.layout == "repo-venv":
            return self.repo_path(project) / ".venv"
        if env.where == "cache":
            tag = hashlib.sha256("\0".join(env.packages).encode()).hexdigest()[:8]
            return cache_dir() / "envs" / f"{project.name}-{tag}"
        return self.work / "envs" / f"{project.name}-venv"

    def ensure_env(self, project: Project, repo: Path) -> None:
        env = project.env
        if env.layout == "node":
            if not (repo / "node_modules").is_dir():
                shutil.copytree(node_modules(project.name), repo / "node_modules", symlinks=True)
            return
        venv = self.venv_dir(project)
        if (venv / ".bench-ready").is_file():
            return
        locks = cache_dir() / "locks"  # never beside the venv: a repo's own .venv would leave it in the work tree
        locks.mkdir(parents=True, exist_ok=True)
        tag = hashlib.sha256(str(venv).encode()).hexdigest()[:12]
        with open(locks / f"env-{tag}.lock", "w") as lock:  # two runs on one machine share the cache
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (venv / ".bench-ready").is_file():
                self._build_env(project, repo, venv)

    def _build_env(self, project: Project, repo: Path, venv: Path) -> None:
        env = project.env
        shutil.rmtree(venv, ignore_errors=True)
        base = getattr(sys, "_base_executable", sys.executable)
        made = subprocess.run([base, "-m", "venv", str(venv)], capture_output=True, text=True)
        if made.returncode != 0:
            raise BenchError(f"{project.name}: python -m venv failed (is python3-venv installed?): "
                             f"{made.stderr.strip()[-200:]}")
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index", "--no-deps",
               "--find-links", str(wheels(env.packages))]
        out = subprocess.run([*pip, *env.packages], capture_output=True, text=True)
        if out.returncode == 0 and env.editable:
            out = subprocess.run([*pip, "--no-build-isolation", "-e", str(repo)], capture_output=True, text=True)
        if out.returncode != 0:
            raise BenchError(f"{project.name}: building its virtualenv failed: {out.stderr.strip()[-300:]}")
        (venv / ".bench-ready").write_text("ok\n")

    def agent_env(self, project: Project, repo: Path) -> dict[str, str]:
        """The environment devagent starts in: the user's shell with this project's setup, never the bench's venv."""
        env = dict(os.environ)
        own = {str(Path(sys.prefix) / "bin"), str(Path(env.get("VIRTUAL_ENV", sys.prefix)) / "bin")}
        path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p not in own]
        for key in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "CONDA_PREFIX"):
            env.pop(key, None)
        layout = project.env.layout
        if layout == "active-venv":
            venv = self.venv_dir(project)
            env["VIRTUAL_ENV"] = str(venv)
            path.insert(0, str(venv / "bin"))
        elif layout == "pythonpath":
            env["PYTHONPATH"] = "src"
            path.insert(0, str(self.venv_dir(project) / "bin"))
        env["PATH"] = os.pathsep.join(path)
        env["XDG_CACHE_HOME"] = str(self.work / "xdg-cache")  # devagent's caches (repo maps) start empty per run
        return env

    def python(self, project: Project) -> Path:
        return self.venv_dir(project) / "bin" / "python"

    def check_env(self, project: Project, repo: Path) -> dict[str, str]:
        """The environment the harness's own checks run in (the project's, with an absolute PYTHONPATH)."""
        env = self.agent_env(project, repo)
        if project.env.layout == "pythonpath":
            env["PYTHONPATH"] = str(repo / "src")
        env["NO_COLOR"] = "1"
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        return env

