"""`devagent doctor`: is everything devagent relies on here and working? Each problem comes with what to do.

Checks the sandbox (bwrap present AND working), git and the repository, the
config files read, the project's Python (which one and why), whether the model server answers,
and the embedded route (the llama.cpp runtime and a cached GGUF model: a working model with no
server). Exit code 0 when all is well, 1 when anything needs attention; the embedded route is
a problem only when no model server answers either.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from tui.git.facade import GitRepo

HELP = "check the sandbox, git, config files and the model server; say how to fix each problem"


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    optional: bool = False  # not ok is worth saying, but not a problem


def register(parser: argparse.ArgumentParser) -> None:
    from tui.commands.common import add_model_options

    add_model_options(parser)


def _git_check() -> Check:
    try:
        out = GitRepo(Path.cwd(), timeout=10).run("version")
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Check("git", False, f"git cannot run ({exc})", "Install git (apt-get install git) and put it on PATH.")
    text = (out.stdout or out.stderr).decode("utf-8", "replace").strip()
    return Check("git", out.returncode == 0, text, "Reinstall git.")


def _repo_check() -> tuple[Check, Path | None]:
    from tui.git.repo import find_repo
    from tui.protocol.errors import RepoError

    try:
        repo = find_repo()
    except RepoError as err:
        return Check("repo", False, err.message, err.hint or "Run devagent inside a git work tree."), None
    return Check("repo", True, str(repo)), repo


def _sandbox_check(config: object) -> Check:
    from tui.sandbox.runner import detect

    info = detect(config)  # type: ignore[arg-type]
    label = f"{info.kind} ({'active' if info.active else 'NOT active'}): {info.detail}"
    if info.active:
        from tui.sandbox.sockets import describe, socket_masks

        label += "; " + describe(socket_masks([]))
    fix = "" if info.active else (
        "Install bubblewrap (apt-get install bubblewrap / dnf install bubblewrap) and make sure unprivileged "
        "user namespaces are allowed; set sandbox.mode = \"auto\" in your user config. Until then every command "
        "asks for approval and rules never auto-approve.")
    return Check("sandbox", info.active, label, fix)


def _python_check(repo: Path | None, config: object) -> Check:
    """The project's interpreter (the one tests and run_python use), why, and what commands get from it."""
    from tui import projenv
    from tui.protocol.errors import DevagentError

    if repo is None:
        return Check("python", True, "not in a repository: no project interpreter to choose")
    try:
        project = projenv.for_command(repo, config)  # type: ignore[arg-type]
    except DevagentError as err:  # a project file it reads is refused (nested too deeply, say)
        return Check("python", False, err.message, err.hint)
    interp = project.interpreter
    if not interp.found:
        return Check("python", False, interp.line(repo), "Create the project's environment (python3 -m venv .venv), "
                     "start devagent with it activated, or set project.python in your config.")
    pytest = {True: "has pytest", False: "no pytest", None: "pytest: cannot tell"}[interp.has_pytest]
    detail = f"{interp.line(repo)}; {pytest}"
    shown = [f"{k}={v}" for k, v in sorted(project.env.items()) if k != "PATH"]
    if shown:
        detail += "; commands get " + ", ".join(shown)
    binds = projenv.hidden_roots(projenv.own_environment(), interp, repo)
    if binds:
        detail += "; shown read-only in the sandbox: " + ", ".join(binds)
    if interp.notes:
        detail += "; passed over: " + "; ".join(interp.notes)
    inside = [str(repo), *binds]
    if interp.python.startswith("/tmp/") and not any(interp.python.startswith(p + "/") for p in inside):
        return Check("python", False, detail + "; the sandbox cannot show it (under /tmp, not yours or not a "
                     "Python installation)", "Make the environment outside /tmp, or one you own.")
    return Check("python", True, detail)


def _process_check(config: object) -> Check:
    from tui.sandbox.runner import Sandbox

    limit = getattr(getattr(config, "limits", None), "max_processes", 0)
    sandbox = Sandbox(Path.cwd(), config)  # type: ignore[arg-type]
    memory = getattr(getattr(config, "limits", None), "memory_mb", 0)
    return Check("procs", True, f"at most {limit} processes per command: {sandbox.bound.detail}; at most "
                 f"{memory} MB of memory per command: {sandbox.memory.detail}")


async def _model_check(config: object, args: argparse.Namespace) -> Check:
    from tui.protocol.errors import DevagentError

    try:
        from tui.llm.factory import make_backend
    except ImportError:
        return await _http_probe(config, args)
    try:
        backend = make_backend(config, backend=args.backend, host=args.host,  # type: ignore[arg-type]
                               model_file=args.model_file)
    except DevagentError as err:
        return Check("model", False, err.message, err.hint)
    try:
        info = await asyncio.wait_for(backend.connect(args.model), timeout=30)
    except DevagentError as err:
        return Check("model", False, f"{getattr(backend, 'host', '')}: {err.message}", err.hint)
    except asyncio.TimeoutError:
        return Check("model", False, f"{getattr(backend, 'host', '')} did not answer within 30 s",
                     "Check that the model server is running and not overloaded.")
    finally:
        try:
            await backend.close()
        except Exception:  # closing a half-open client must not hide the real result
            pass
    name = getattr(info, "name", "") or str(info)
    return Check("model", True, f"{getattr(backend, 'host', '')}: model {name} ready")


async def _http_probe(config: object, args: argparse.Namespace) -> Check:
    import os

    import httpx

    host = (args.host or getattr(getattr(config, "model", None), "host", "") or os.environ.get("OLLAMA_HOST")
            or "http://127.0.0.1:11434").rstrip("/")
    if "://" not in host:
        host = f"http://{host}"
    try:
        async with httpx.AsyncClient(timeout=5) as client:
            reply = await client.get(f"{host}/api/version")
        reply.raise_for_status()
        return Check("model", True, f"{host}: Ollama {reply.json().get('version', '?')}")
    except (httpx.HTTPError, ValueError) as exc:
        return Check("model", False, f"{host} is not reachable ({type(exc).__name__})",
                     "Start Ollama (`ollama serve`) or point --host / OLLAMA_HOST / model.host at your server.")


def _embedded_check(config: object, args: argparse.Namespace) -> Check:
    """xllamacpp importable? a model cached (or configured)? and the commands that fix what is missing."""
    from tui.llm.transfer import size_text
    from tui.llm.modelcache import embedded_route_hint, model_dir, resolve_model_file, runtime_installed, shown

    configured = args.model_file or getattr(getattr(config, "model", None), "model_file", "")
    runtime = runtime_installed()
    path = resolve_model_file(configured, typed_here=bool(args.model_file))
    have = path is not None and path.is_file()
    detail = ("llama.cpp runtime (xllamacpp) installed" if runtime else "llama.cpp runtime (xllamacpp) NOT installed")
    where = f" in {model_dir()}" if have and path and shown(path) == path.name else ""
    detail += f"; model {shown(path)} ({size_text(path.stat().st_size)}){where}" if have and path else (
        f"; no model file {'at ' + str(path) if path else 'in ' + str(model_dir())}")
    fix = embedded_route_hint(configured).removeprefix("Or run a model inside devagent, with no server: ")
    return Check("embedded", runtime and have, detail, fix)


def _combine(model: Check, embedded: Check) -> None:
    """No server but the embedded route works: devagent will use it, so that is not a problem (and vice versa).

    With neither, both stay problems: the embedded line says what to run for a model with no server."""
    if not model.ok and embedded.ok and "embedded" not in model.detail:
        model.ok = True
        model.detail += f" -- devagent will run the embedded model instead ({embedded.detail.rsplit('model ', 1)[-1]})"
    elif model.ok and not embedded.ok:
        embedded.optional = True


def collect(args: argparse.Namespace) -> list[Check]:
    from tui.config import Config, load_config, user_config_path
    from tui.protocol.errors import ConfigError

    checks = [_git_check()]
    repo_check, repo = _repo_check()
    checks.append(repo_check)
    try:
        config = load_config(repo)
        sources = ", ".join(config.sources) or f"none (defaults; user config would be {user_config_path()})"
        if config.repo_set:  # what the repository's own config changed (it may only tighten)
            sources += "; the repo sets " + ", ".join(config.repo_set)
        checks.append(Check("config", True, sources))
    except ConfigError as err:
        config = Config()
        checks.append(Check("config", False, err.message, err.hint or "Fix the file named above."))
    checks.append(_sandbox_check(config))
    checks.append(_python_check(repo, config))
    checks.append(_process_check(config))
    model = asyncio.run(_model_check(config, args))
    embedded = _embedded_check(config, args)
    _combine(model, embedded)
    checks += [model, embedded]
    return checks


def render(checks: list[Check], out: TextIO) -> None:
    out.write("devagent doctor\n")
    for check in checks:
        mark = "ok  " if check.ok else ("--  " if check.optional else "FAIL")
        out.write(f"  {mark}  {check.name:<8} {check.detail}\n")
        if not check.ok and check.fix:
            out.write(f"        {'':<8} {'to set it up' if check.optional else 'fix'}: {check.fix}\n")
    problems = sum(not c.ok and not c.optional for c in checks)
    out.write("all good\n" if not problems else f"{problems} problem{'s' if problems > 1 else ''} found\n")


def run(args: argparse.Namespace) -> int:
    checks = collect(args)
    render(checks, sys.stdout)
    return 0 if all(c.ok or c.optional for c in checks) else 1
