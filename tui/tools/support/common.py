"""Small helpers shared by tools: bounded text, async git, tool-argument checks."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tui.git.facade import GitRepo
from tui.protocol.errors import ToolError

CHARS_PER_TOKEN = 4  # a rough, conservative estimate for code-heavy text


def bound(text: str, max_chars: int, what: str = "output") -> str:
    """Keep the head and the tail of ``text`` with a marker saying how much was cut."""
    if len(text) <= max_chars:
        return text
    head = max_chars * 2 // 3
    tail = max_chars - head
    dropped = len(text) - head - tail
    return f"{text[:head]}\n[... {dropped} characters of {what} omitted ...]\n{text[-tail:]}"


def str_arg(args: dict[str, Any], name: str, *, required: bool = True, default: str = "") -> str:
    value = args.get(name, default)
    if value is None:
        value = default
    if required and (value == "" and name not in args):
        raise ToolError(f"missing argument '{name}'")
    if not isinstance(value, str):
        if isinstance(value, (int, float, bool)):
            return str(value)
        raise ToolError(f"argument '{name}' must be a string")
    return value


def int_arg(args: dict[str, Any], name: str, default: int | None, *, lo: int = 1, hi: int = 10**6) -> int | None:
    value = args.get(name, default)
    if value is None or value == "":
        return default
    try:
        number = int(float(value))
    except (TypeError, ValueError):
        raise ToolError(f"argument '{name}' must be a number, got {value!r}") from None
    return max(lo, min(hi, number))


def bool_arg(args: dict[str, Any], name: str, default: bool = False) -> bool:
    value = args.get(name, default)
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "y", "on")
    return bool(value)


async def git_out(repo: Path, *args: str, timeout: float = 30.0) -> tuple[int, str]:
    """Run a read-only git command (outside the sandbox, so through the façade) and return (code, stdout+stderr).
    A git that does not finish in ``timeout`` (or cannot start) is a failed call, never an exception."""
    try:
        code, out, _ = await GitRepo(repo).run_async(*args, env={"GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"},
                                                     timeout=timeout, merge_stderr=True)
    except asyncio.TimeoutError:
        return 124, f"git {args[0] if args else ''} did not finish within {timeout:.0f}s"
    except OSError as exc:
        return 127, f"git cannot run: {exc.strerror or exc}"
    return code, out.decode("utf-8", "replace")


async def repo_files(repo: Path) -> list[str]:
    """Tracked and untracked files that git does not ignore."""
    code, out = await git_out(repo, "ls-files", "--cached", "--others", "--exclude-standard")
    return [line for line in out.splitlines() if line] if code == 0 else []


async def same_name_file(repo: Path, wanted: str) -> str:
    """The one file the repository has under the base name of ``wanted``, a path that does not exist ('' when
    it exists, or no file or several have that name). Small models guess directories (``src/xmltodict.py`` for a
    flat ``xmltodict.py``) and then repeat the guess whatever the error says."""
    from tui.protocol.errors import PathRefused
    from tui.safety.paths import resolve_in_repo

    if not wanted or wanted.endswith("/"):
        return ""
    try:
        if resolve_in_repo(repo, wanted).exists():
            return ""
    except (PathRefused, OSError, ValueError):
        return ""
    base = wanted.rsplit("/", 1)[-1]
    same = [f for f in await repo_files(repo) if f.rsplit("/", 1)[-1] == base]
    return same[0] if len(same) == 1 else ""


async def did_you_mean(repo: Path, wanted: str, limit: int = 3) -> str:
    """Small models guess paths ("src/app.py"): name the closest real files, so the retry succeeds."""
    import difflib

    files = await repo_files(repo)
    if not files:
        return ""
    base = wanted.rstrip("/").rsplit("/", 1)[-1]
    same_name = [f for f in files if f.rsplit("/", 1)[-1] == base]
    close = same_name or difflib.get_close_matches(wanted, files, n=limit, cutoff=0.5)
    if not close:
        close = difflib.get_close_matches(base, [f.rsplit("/", 1)[-1] for f in files], n=limit, cutoff=0.6)
        close = [f for f in files if f.rsplit("/", 1)[-1] in close]
    return f" Did you mean: {', '.join(close[:limit])}?" if close else ""
