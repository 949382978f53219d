"""What a destructive command would throw away, shown before you approve it.

Computed before approval, so it must never do what the proposal asks: every git call here is
read-only and built from an allow-list (fixed subcommand and flags; the proposal contributes only
pathspecs after ``--``, exclude patterns as ``--exclude=...`` values and branch names that exist).
No flag of the proposal is passed through: `git clean --no-dry-run --forc` once deleted files here.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tui.git.facade import GitRepo
from tui.safety.risk import where
from tui.safety.shell_parse import ParsedCommand, parse


def _git(repo: Path, *args: str) -> list[str]:
    try:
        out = GitRepo(repo, timeout=10).run_text(*args, env={"GIT_OPTIONAL_LOCKS": "0"})
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [line for line in out.stdout.splitlines() if line.strip()] if out.returncode == 0 else []


def _paths_after(cmd: ParsedCommand, skip: int) -> list[str]:
    return [w for w, _ in cmd.positionals()[skip:]]


def _clean_flags(args: list[str]) -> tuple[set[str], list[str], list[str], bool]:
    """(d/x/X/n seen, -e patterns, pathspecs, every flag understood) from `git clean`'s arguments."""
    seen: set[str] = set()
    excludes: list[str] = []
    paths: list[str] = []
    known = True
    words = iter(args)
    long_names = {"--force": "f", "--dry-run": "n", "--quiet": "q", "--interactive": "i"}
    for word in words:
        if word == "--":
            paths += list(words)
        elif word.startswith("--exclude="):
            excludes.append(word.split("=", 1)[1])
        elif word == "--exclude":
            excludes.append(next(words, ""))
        elif word in long_names:
            seen.add(long_names[word])
        elif word.startswith("--"):
            known = False  # --no-dry-run, an abbreviation (--forc), anything new: assume the widest clean
        elif word.startswith("-") and len(word) > 1:
            for i, ch in enumerate(word[1:], 1):
                if ch == "e":
                    excludes.append(word[i + 1:] or next(words, ""))
                    break
                if ch not in "dfinqxX":
                    known = False
                seen.add(ch)
        else:
            paths.append(word)
    return seen, [e for e in excludes if e], paths, known


def clean_preview(cmd: ParsedCommand, repo: Path) -> list[str]:
    """What `git clean` with these flags would delete, from `git ls-files --others` (read-only)."""
    seen, excludes, paths, known = _clean_flags(cmd.args[cmd.args.index(cmd.subcommand) + 1:])
    dirs, ignored, only_ignored = "d" in seen or not known, "x" in seen or not known, "X" in seen and known
    argv = ["ls-files", "--others", "--directory", "--no-empty-directory"]
    if only_ignored:
        argv += ["--ignored", "--exclude-standard"]
    elif not ignored:
        argv.append("--exclude-standard")
    argv += [f"--exclude={pattern}" for pattern in excludes]
    found = _git(repo, *argv, "--", *paths)
    lines = [f for f in found if dirs or not f.endswith("/")]
    return lines + ([] if known else ["(flags devagent does not know: showing everything git clean could delete)"])


def _rm_preview(cmd: ParsedCommand, repo: Path, limit: int) -> list[str]:
    """rm of ignored files: checkpoints cannot bring those back, so list them."""
    paths = [w for w, d in cmd.positionals() if not d and where(w, False, repo) == "repo"]
    if not paths:
        return []
    found = _git(repo, "ls-files", "--others", "--ignored", "--exclude-standard", "--directory", "--", *paths)
    if not found:
        return []
    lines = ["rm would delete ignored files that checkpoints do not cover:"]
    lines += [f"  {line}" for line in found[:limit]]
    if len(found) > limit:
        lines.append(f"  ... and {len(found) - limit} more")
    return lines


def _git_preview(cmd: ParsedCommand, repo: Path) -> tuple[str, list[str]]:
    """(title, lines) for one destructive git command; ("", []) when it loses nothing we can list."""
    flags, sub = cmd.flags(), cmd.subcommand
    rest = _paths_after(cmd, 1)
    if sub == "clean" and not flags & {"-n", "--dry-run"}:
        return "git clean would delete these untracked files", clean_preview(cmd, repo)
    if sub == "reset" and flags & {"--hard", "--merge", "--keep"}:
        return ("git reset --hard would discard uncommitted changes in",
                _git(repo, "status", "--porcelain=v1", "--untracked-files=no"))
    if (sub == "checkout" and ("--" in cmd.args or "." in rest or flags & {"-f", "--force"})) \
            or (sub == "restore" and not flags & {"--staged", "-S"}) \
            or (sub == "switch" and flags & {"-f", "--force", "--discard-changes"}):
        paths = rest if "--" in cmd.args or sub == "restore" or "." in cmd.args else []
        return f"git {sub} would discard uncommitted changes in", _git(repo, "diff", "--name-status", "--", *paths)
    if sub == "stash" and rest[:1] in (["drop"], ["clear"]):
        found = _git(repo, "stash", "list")
        return "git stash would delete", found[:1] if rest[0] == "drop" else found
    if sub == "branch" and "-D" in flags:
        branches = set(_git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads"))
        found = [f"{b}: {c}" for b in rest if b in branches
                 for c in _git(repo, "log", "--oneline", f"HEAD..refs/heads/{b}", "--")]
        return "git branch -D would drop commits not on the current branch", found
    return "", []


def loss_preview(command: str, repo: Path, limit: int = 20) -> list[str]:
    """What destructive git commands (and rm of ignored files) in ``command`` would throw away, before approval."""
    try:
        commands = parse(command)
    except ValueError:
        return []
    lines: list[str] = []
    for cmd in commands:
        if cmd.program == "rm":
            lines += _rm_preview(cmd, repo, limit)
        if cmd.program != "git" or not cmd.positionals():
            continue
        title, found = _git_preview(cmd, repo)
        if found:
            lines.append(f"{title}:")
            lines += [f"  {line}" for line in found[:limit]]
            if len(found) > limit:
                lines.append(f"  ... and {len(found) - limit} more")
        elif title:
            lines.append(f"{title}: nothing (no matching changes right now)")
    return lines
