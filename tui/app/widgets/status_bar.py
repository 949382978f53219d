"""One line at the bottom: repo and branch, dirty/staged counts, model and server health,
sandbox strength and the keys that matter right now. All text is literal."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

_HEALTH = {"connected": "●", "reconnecting": "◌", "down": "✗", "connecting": "◌"}


class StatusBar(Static):
    """Reactives are set by the app's handlers; the bar re-renders itself."""

    DEFAULT_CSS = """
    StatusBar { dock: bottom; height: 1; background: $panel; color: $text; padding: 0 1; }
    """

    repo_name: reactive[str] = reactive("")
    branch: reactive[str] = reactive("")
    dirty: reactive[int] = reactive(0)
    staged: reactive[int] = reactive(0)
    model: reactive[str] = reactive("")
    server: reactive[str] = reactive("connecting")
    sandbox: reactive[str] = reactive("")
    sandbox_strong: reactive[bool] = reactive(True)
    context: reactive[str] = reactive("")
    keys: reactive[str] = reactive("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", markup=False, **kwargs)

    def render(self) -> Text:  # type: ignore[override]
        variables = self.app.get_css_variables()
        health_style = {
            "connected": variables.get("success", "green"),
            "down": variables.get("error", "red"),
        }.get(self.server, variables.get("warning", "yellow"))
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(self.repo_name or "?", style="bold")
        if self.branch:
            text.append(f" ⎇ {self.branch}")
        text.append(f"  ±{self.dirty} ●{self.staged}")
        text.append("  ")
        model = f"{self.model or 'model'} " if self.size.width >= 100 else ""
        text.append(f"{_HEALTH.get(self.server, '?')} {model}{self.server}", style=health_style)
        text.append("  ")
        sandbox_style = "" if self.sandbox_strong else f"bold {variables.get('error', 'red')}"
        text.append(f"sandbox: {self.sandbox or '…'}" if self.size.width >= 100 else (self.sandbox or "…"),
                    style=sandbox_style)
        if self.context:
            text.append(f"  {self.context}")
        if self.keys:
            text.append("  │ ")
            text.append(self.keys, style="dim")
        return text


def parse_porcelain(out: str) -> tuple[str, int, int]:
    """Branch, dirty (unstaged + untracked) and staged counts from ``git status --porcelain=v2 --branch -z``."""
    branch, dirty, staged = "", 0, 0
    entries = out.split("\0")
    skip = False
    for entry in entries:
        if skip:
            skip = False
            continue
        if entry.startswith("# branch.head "):
            branch = entry[len("# branch.head "):]
        elif entry[:2] in ("1 ", "2 ", "u "):
            xy = entry[2:4]
            staged += xy[0] not in ".?"
            dirty += xy[1] != "."
            skip = entry.startswith("2 ")  # renames carry the original path as the next entry
        elif entry.startswith("? "):
            dirty += 1
    return branch, dirty, staged


async def _git(repo: Path, *args: str) -> str:
    proc = await asyncio.create_subprocess_exec(
        "git", *args, cwd=repo, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        out, _ = await proc.communicate()
    except asyncio.CancelledError:
        proc.kill()
        await proc.wait()
        raise
    return out.decode("utf-8", "replace")


async def git_status(repo: Path) -> tuple[str, int, int, str]:
    """(branch, dirty, staged, working-tree diff) through the git CLI, without GitPython."""
    status, diff = await asyncio.gather(
        _git(repo, "status", "--porcelain=v2", "--branch", "-z"), _git(repo, "diff", "--no-color", "--no-ext-diff")
    )
    branch, dirty, staged = parse_porcelain(status)
    return branch, dirty, staged, diff
