"""The built-in hard-deny list: commands nothing but your user config's ``unlock`` can let through.

Checked on every parsed command, nested ones included (``bash -c``, ``eval``, ``find -exec``...),
with each path normalised first (``//``, ``/.``, ``..``, ``~user``, ``$HOME``) and, for a program name
computed at run time, every literal word it could be. Commands the parser cannot read fall back
to patterns on the raw text.
"""

from __future__ import annotations

import dataclasses
import os
import pwd
import re
from pathlib import Path

from tui.safety import risk_tables as T
from tui.safety.program_checks import has_option
from tui.safety.risk import write_targets
from tui.safety.shell_parse import ParsedCommand, recursive_spawn

HARD_DENY: dict[str, str] = {
    "sudo": "runs as root or another user (sudo, su, doas, pkexec)",
    "mkfs": "formats or repartitions disks (mkfs, wipefs, fdisk, parted)",
    "write-device": "writes straight to a disk device (dd of=/dev/sda, > /dev/sda, tee /dev/sda)",
    "rm-root": "recursively deletes /, a system directory, a home or a directory above the repo",
    "fork-bomb": "a fork bomb (a function that starts copies of itself)",
    "pipe-to-shell": "pipes a download into a shell or interpreter (curl ... | sh)",
    "shutdown": "shuts down or reboots the machine",
    "chmod-system": "changes permissions or owners of system directories recursively",
}
_DISKS = re.compile(r"^/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-|loop|mapper/|sg|sr|nbd|zram|mtd)")
_RAW_HARD = [
    ("fork-bomb", re.compile(r"(\S+)\s*\(\)\s*\{[^}]*\1\s*(\||&)")),
    ("sudo", re.compile(r"(^|[;&|(`$'\"]\s*|\s)(sudo|doas|pkexec|su)(\s|$)")),
    ("pipe-to-shell", re.compile(r"\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|z|da|k)?sh\b")),
    ("rm-root", re.compile(r"\brm\s+(-[a-zA-Z]*[rR][a-zA-Z]*\s+)+(/+\.?|~\w*|\$HOME)/?\s*($|[;&|'\"])")),
    ("mkfs", re.compile(r"\bmkfs(\.\w+)?\b")),
]
_SYSTEM_ROOTS = frozenset({"usr", "var", "etc", "lib", "lib32", "lib64", "libx32", "boot", "opt", "bin", "sbin",
                           "dev", "proc", "sys", "srv", "snap", "nix", "System", "Library", "Applications"})
_SCRATCH = frozenset({"/tmp", "/var/tmp", "/dev/shm"})
_PRIVILEGE = frozenset({"sudo", "sudoedit", "su", "doas", "pkexec", "runuser"})
_POWER = frozenset({"reboot", "poweroff", "halt", "kexec", "suspend", "hibernate", "rescue", "emergency", "soft-reboot"})
_HOME_VAR = re.compile(r"^(\$HOME|\$\{HOME(?:[^}]*)\})")  # $HOME, ${HOME}, ${HOME%/}, ${HOME:-/}...
_CWD_VAR = re.compile(r"^(\$PWD|\$\{PWD(?:[^}]*)\}|\$\(pwd\)|`pwd`)")


def _homes() -> list[str]:
    from tui.sandbox.profile import home_dirs

    found = {str(h) for h in home_dirs()} | {"/root"}
    try:
        found |= {p.pw_dir for p in pwd.getpwall() if p.pw_dir.startswith(("/home/", "/Users/", "/root"))}
    except OSError:
        pass
    return sorted(found)


def resolve(word: str, repo: Path, cwd: str | None = None) -> str | None:
    """The absolute, normalised path a path word names (relative to ``cwd``, by default the repo); None when
    computed at run time."""
    base = cwd or str(repo)
    if word.startswith("~"):
        user, sep, rest = word[1:].partition("/")
        try:
            home = pwd.getpwnam(user).pw_dir if user else os.path.expanduser("~")
        except KeyError:
            home = f"/home/{user}"  # an unknown user's home is still somebody's home
        word = home + ("/" + rest if sep else "")
    home, here = _HOME_VAR.match(word), _CWD_VAR.match(word)
    if home:
        word = os.path.expanduser("~") + word[home.end():]
    elif here:
        word = base + word[here.end():]
    if "$" in word or "`" in word:
        return None
    norm = os.path.normpath(os.path.join(base, word))
    return "/" + norm.lstrip("/") if norm.startswith("//") else norm


def protected(path: str, repo: Path) -> bool:
    """/, any top-level directory, system directories, homes, and every directory above the repo or a home."""
    if any(ch in path for ch in "*?["):  # a glob's matches are the children of its first glob-free directory
        head = path.split("/")
        cut = next(i for i, part in enumerate(head) if any(ch in part for ch in "*?["))
        path = "/".join(head[:cut]) or "/"
    real_repo = os.path.realpath(repo)
    for keep in (*_homes(), str(repo), real_repo):
        if keep.startswith(path.rstrip("/") + "/") or (path == keep and keep not in (str(repo), real_repo)):
            return True  # a home, or a directory above a home or the repo
    if path in _SCRATCH:
        return False
    parts = [p for p in path.split("/") if p]
    return len(parts) <= 1 or (len(parts) == 2 and (parts[0] in _SYSTEM_ROOTS or parts[0] in ("home", "Users")))


def _deleted(cmd: ParsedCommand, inner: list[ParsedCommand]) -> list[tuple[str, bool]]:
    """Path words a command deletes recursively (rm -r, find -delete / -exec rm, rsync --delete)."""
    prog, flags, pos = cmd.program, cmd.flags(), cmd.positionals()
    if prog in ("rm", "srm") and has_option(cmd.args, "-r", "-R", "--recursive"):  # also --rec, --recu...
        return pos
    if prog == "find" and ("-delete" in cmd.args or any(c.program in ("rm", "unlink", "shred", "srm") for c in inner)):
        starts = []
        for arg, dyn in zip(cmd.args, cmd.dynamic):
            if arg.startswith(("-", "(", "!")):
                break
            starts.append((arg, dyn))
        return starts or [(".", False)]
    if prog == "rsync" and any(f.startswith("--del") for f in flags) and pos:
        return [pos[-1]]
    return []


def _views(cmd: ParsedCommand) -> list[ParsedCommand]:
    """The command as parsed, or once per literal word its computed program name could be."""
    if cmd.program or not cmd.candidates:
        return [cmd]
    return [dataclasses.replace(cmd, program=os.path.basename(c)) for c in cmd.candidates if c]


def _one(cmd: ParsedCommand, commands: list[ParsedCommand], repo: Path, cwd: str | None) -> list[str]:
    hits: list[str] = []
    prog, pos = cmd.program, [w for w, _ in cmd.positionals()]
    if {prog, *cmd.wrappers} & _PRIVILEGE:
        hits.append("sudo")
    if prog.startswith("mkfs") or prog in ("wipefs", "fdisk", "sfdisk", "parted"):
        hits.append("mkfs")
    targets = [resolve(t, repo) for t in write_targets(cmd, repo)]
    if any(t and _DISKS.match(t) for t in targets):
        hits.append("write-device")
    inner = [c for c in commands if c.nested and c is not cmd]
    deleted = [(w, dyn) for w, dyn in _deleted(cmd, inner)]
    if cwd == "":  # after a `cd` to somewhere unknown (HOME, `cd -`, `cd $X`), a relative delete may be anything
        paths = [resolve(w, repo) if w.startswith(("/", "~", "$")) else "/" for w, _dyn in deleted]
    else:
        paths = [resolve(w, repo, cwd) for w, dyn in deleted if not dyn or _HOME_VAR.match(w) or _CWD_VAR.match(w)
                 or w.startswith("~")]
    if any(p and protected(p, repo) for p in paths) or (prog == "rm" and "--no-preserve-root" in cmd.args):
        hits.append("rm-root")
    if prog in ("chmod", "chown", "chgrp") and has_option(cmd.args, "-R", "--recursive") and \
            any((p := resolve(w, repo, cwd or None)) and protected(p, repo) for w in pos[1:]):
        hits.append("chmod-system")
    if prog in ("shutdown", "reboot", "halt", "poweroff") or (prog in ("init", "telinit") and pos[:1] in (["0"], ["6"])) \
            or (prog in ("systemctl", "loginctl") and bool(set(pos[:1]) & _POWER)):
        hits.append("shutdown")
    runs_code = prog in T.SHELLS or prog in T.INTERPRETERS or re.fullmatch(r"python\d(\.\d+)?", prog or "-")
    if runs_code and (set(cmd.stdin_from.split(" | ")) & T.NETWORK or (any(cmd.dynamic) and any(
            c.nested and c.program in T.NETWORK for c in commands))):
        hits.append("pipe-to-shell")
    if recursive_spawn(cmd):
        hits.append("fork-bomb")
    return hits


def hard_denies(command: str, commands: list[ParsedCommand] | None, repo: Path) -> list[str]:
    """Names from HARD_DENY that ``command`` hits; ``commands`` None (unparseable) falls back to raw patterns."""
    if commands is None:
        return list(dict.fromkeys(name for name, rx in _RAW_HARD if rx.search(command)))
    hits: list[str] = []
    cwd: str | None = None  # where the next command runs: None = the repo, "" = somewhere unknown
    for cmd in commands:  # in the order written; a `cd` anywhere before a delete counts (subshells too: to be safe)
        if cmd.program in ("cd", "pushd", "popd"):
            cwd = _moved(cmd, repo, cwd)
        hits += [hit for view in _views(cmd) for hit in _one(view, commands, repo, cwd)]
    return list(dict.fromkeys(hits))


def _moved(cmd: ParsedCommand, repo: Path, cwd: str | None) -> str | None:
    """The directory after ``cd``/``pushd``/``popd``: '' when it cannot be known (bare `cd` is HOME, `cd -`...)."""
    pos = [(w, d) for w, d in cmd.positionals()]
    if cmd.program == "popd" or len(pos) != 1 or pos[0][0] == "-" or cwd == "":
        return ""
    word, dyn = pos[0]
    target = resolve(word, repo, cwd) if not dyn or _HOME_VAR.match(word) or word.startswith("~") else None
    return target if target else ""
