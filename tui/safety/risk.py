"""Risk labels for shell commands, from a real shell parser (bashlex), for display and for policy rules.

When the parser cannot read a command the label is "unparseable", the
highest risk: we cannot say what it does, so nothing may auto-approve it.
Labels describe intent; containment is the sandbox's job (tui/sandbox/runner.py).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from tui.safety import program_checks as P
from tui.safety import risk_tables as T
from tui.safety.shell_parse import ParsedCommand, parse, recursive_spawn


@dataclass
class Risk:
    label: str
    labels: list[str]
    reasons: list[str]
    commands: list[ParsedCommand]


# ---------------------------------------------------------------- labelling


def where(word: str, dynamic: bool, repo: Path, cwd: Path | None = None) -> str:
    """'repo' | 'git' | 'outside' | 'device' | 'null' for a path argument (dynamic words count as outside)."""
    if word in ("/dev/null", "/dev/stdout", "/dev/stderr") or word.startswith("/dev/fd/"):
        return "null"
    if dynamic or word.startswith("~") or "\0" in word:  # a NUL cannot be in a real path: assume the worst
        return "outside"
    if word.startswith("/dev/"):
        return "device"
    base = cwd or repo
    full = os.path.normpath(os.path.join(base, word))
    real_repo = os.path.realpath(repo)
    for candidate in (full, os.path.realpath(full)):
        if os.path.commonpath([candidate, real_repo]) != real_repo and \
                os.path.commonpath([candidate, os.path.abspath(repo)]) != os.path.abspath(repo):
            return "outside"
    rel = os.path.relpath(os.path.realpath(full), real_repo)
    if any(part.lower() == ".git" for part in Path(rel).parts):
        return "git"
    return "repo"


class _Labeller:
    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.labels: set[str] = set()
        self.reasons: list[str] = []
        self.targets: list[str] = []  # every path word the command writes (for the hard-deny list)

    def add(self, label: str, reason: str) -> None:
        self.labels.add(label)
        if reason not in self.reasons:
            self.reasons.append(reason)

    def target(self, word: str, dynamic: bool, what: str) -> None:
        self.targets.append(word)
        place = where(word, dynamic, self.repo)
        if place == "repo":
            self.add("writes-repo", f"{what} {word}")
        elif place == "device":
            self.add("privilege", f"{what} device {word}")
            self.add("destructive", f"{what} device {word}")
        elif place == "outside":
            self.add("writes-outside", f"{what} {word} (outside the repo)")
        elif place == "git":
            self.add("writes-outside", f"{what} {word} (inside .git, which commands may not change)")

    def command(self, cmd: ParsedCommand) -> None:
        before = set(self.labels)
        for op, target in cmd.redirects:
            if "/dev/tcp/" in target or "/dev/udp/" in target:
                self.add("network", f"opens a network connection through {target}")
            elif op in (">", ">>", ">|", "&>", "&>>") or (op == ">&" and not target.isdigit() and target != "-"):
                self.target(target, "$" in target or target.startswith("~"), "writes")
        for wrapper in cmd.wrappers:
            if wrapper in T.PRIVILEGE:
                self.add("privilege", f"runs as another user ({wrapper})")
            if wrapper in ("nohup", "setsid"):
                self.add("background", f"detaches a process ({wrapper})")
        if cmd.background:
            self.add("background", f"runs in the background: {cmd.text.strip()[:60]}")
        for name in cmd.assigns:
            if not T.SAFE_ASSIGN.fullmatch(name):
                self.add("shell-exec", f"sets {name} for the command, which can make it load or run other code")
        if not cmd.program:
            self.add("shell-exec", "the program name is computed at run time")
            return
        if cmd.program == "function":
            return
        read_only = _program_labels(self, cmd)
        if self.labels == before and not read_only:
            self.add("writes-repo", f"{cmd.program} may change files in the repo")


def _program_labels(lab: _Labeller, cmd: ParsedCommand) -> bool:
    """Add labels for one command; True when it is a known read-only program (so no labels is right)."""
    prog, flags, pos = cmd.program, cmd.flags(), cmd.positionals()
    sub = cmd.subcommand
    if prog in T.PRIVILEGE or prog.startswith("mkfs"):
        lab.add("privilege", f"{prog} needs or changes system privileges")
    if prog in T.BACKGROUND:
        lab.add("background", f"{prog} starts a detached or scheduled process")
    _network_labels(lab, cmd, prog, sub)
    _exec_labels(lab, cmd, prog, flags, pos)
    if prog == "git":
        return _git_labels(lab, cmd)
    if prog in T.PERMISSION_PROGRAMS:
        targets = pos[1:] if prog != "chattr" else pos
        mode = pos[0][0] if pos else ""
        if any(where(w, d, lab.repo) != "repo" for w, d in targets) or "s" in mode or mode[:1] in ("4", "2", "6"):
            lab.add("privilege", f"{prog} on {' '.join(w for w, _ in targets) or '?'}")
        else:
            lab.add("writes-repo", f"{prog} changes permissions in the repo")
    if prog in T.WRITES_ARGS:
        verb = "deletes" if prog in ("rm", "rmdir", "unlink", "shred", "srm", "wipe") else "writes"
        for word, dyn in pos:
            lab.target(word, dyn, verb)
        if prog in ("rm", "srm") and P.has_option(cmd.args, "-r", "-R", "--recursive"):
            lab.add("destructive", f"rm -r deletes whole directories: {' '.join(w for w, _ in pos)}")
        if prog in ("shred", "srm", "wipe"):
            lab.add("destructive", f"{prog} destroys file contents")
    if prog in T.WRITES_LAST_ARG and pos:
        lab.target(*pos[-1], "writes")
        if prog == "rsync" and "--delete" in flags:
            lab.add("destructive", "rsync --delete removes files at the destination")
    if prog == "dd":
        for arg in cmd.args:
            if arg.startswith("of="):
                lab.target(arg[3:], "$" in arg, "writes")
    if prog == "find" and "-delete" in cmd.args:
        lab.add("destructive", "find -delete removes every match")
    if prog == "find" and set(P.FIND_WRITES) & set(cmd.args):
        lab.add("writes-repo", "find writes a file")
    if (prog == "sed" and P.sed_risk(cmd.args) == "edits") or \
            (prog == "perl" and (any(f.startswith("-i") for f in cmd._flag_words()) or "--in-place" in flags)):
        for word, dyn in pos[1:] if prog == "sed" else pos:
            lab.target(word, dyn, "edits")
    writes, runs = P.OPTIONS.get(prog, ((), ()))
    if writes and P.has_option(cmd.args, *writes):
        lab.add("writes-repo", f"{prog} {P.has_option(cmd.args, *writes)[:20]} writes a file")
    if runs and P.has_option(cmd.args, *runs):
        lab.add("shell-exec", f"{prog} {P.has_option(cmd.args, *runs)[:20]} runs another program")
    if prog in ("xxd", "uniq") and len(pos) >= 2:
        lab.target(*pos[1], "writes")
    if prog == "date" and P.has_option(cmd.args, "-s", "--set"):
        lab.add("privilege", "date --set changes the system clock")
    if prog == "hostname" and (pos or P.has_option(cmd.args, "-F", "--file", "-b", "--boot")):
        lab.add("privilege", "hostname NAME changes the host name")
    if prog in ("curl", "wget") and (flags & {"-o", "-O", "--output", "--remote-name"} or prog == "wget"):
        lab.add("writes-repo", f"{prog} saves a download")
    if prog in ("truncate", "mkfs", "wipefs", "fdisk", "parted"):
        lab.add("destructive", f"{prog} can destroy data")
    if prog in ("kill", "pkill", "killall") and any(w in ("-1", "1") for w, _ in pos):
        lab.add("destructive", "kills every process it can")
    return prog in T.READ_ONLY


def _network_labels(lab: _Labeller, cmd: ParsedCommand, prog: str, sub: str) -> None:
    if prog in T.NETWORK:
        lab.add("network", f"{prog} uses the network")
    elif prog in T.NETWORK_SUBCOMMANDS:
        subs = T.NETWORK_SUBCOMMANDS[prog]
        if subs is None or sub in subs:
            lab.add("network", f"{prog} {sub}".strip() + " uses the network")
    if prog == "rsync" and any(":" in w for w, _ in cmd.positionals()):
        lab.add("network", "rsync to or from another host")
    if prog in T.INTERPRETERS and " ".join(cmd.args[:2]) in ("-m pip", "-m ensurepip"):
        if "install" in cmd.args or "download" in cmd.args:
            lab.add("network", "pip install uses the network")


def _exec_labels(lab: _Labeller, cmd: ParsedCommand, prog: str, flags: set[str], pos: list[tuple[str, bool]]) -> None:
    interp = prog in T.SHELLS or prog in T.INTERPRETERS or re.fullmatch(r"python\d(\.\d+)?", prog)
    if interp:
        inline = flags & T.INLINE_CODE_FLAGS if prog not in T.SHELLS else flags & {"-c"}
        if inline:
            code = " ".join(cmd.args)
            lab.add("shell-exec", f"{prog} runs inline code")
            if any(h in code for h in T.NETWORK_CODE_HINTS):
                lab.add("network", f"{prog} code opens network connections")
            if re.search(r"rmtree|unlink|remove\(|rm -r|rmdir|os\.system|subprocess", code):
                lab.add("destructive", f"{prog} code deletes files or runs commands")
        elif pos and pos[0][1]:
            lab.add("shell-exec", f"{prog} runs a script computed at run time ({pos[0][0]})")
        elif not pos and cmd.stdin_from:
            upstream = set(cmd.stdin_from.split(" | "))
            how = "decodes or prints text and pipes it" if upstream & T.DECODERS else f"pipes {cmd.stdin_from}"
            lab.add("shell-exec", f"{how} into {prog}")
    if prog in T.EVALUATORS:
        lab.add("shell-exec", f"{prog} runs text as commands")
    if prog in ("awk", "gawk", "mawk", "nawk", "busybox-awk") and P.awk_runs(cmd.args):
        lab.add("shell-exec", f"{prog} program may run commands, read or write other files, or load code")
    if prog == "sed" and P.sed_risk(cmd.args) == "runs":
        lab.add("shell-exec", "sed script is not only p/d/q/s///: it may run commands or read or write files")
    if prog in ("find",) and {"-exec", "-execdir", "-ok", "-okdir"} & set(cmd.args):
        lab.add("shell-exec", "find -exec runs a command on every match")


_GIT_FORCE_PUSH = {"-f", "--force", "--force-with-lease", "--mirror", "--delete", "-d", "--prune"}


def _git_labels(lab: _Labeller, cmd: ParsedCommand) -> bool:
    flags = cmd.flags()
    pos = [w for w, _ in cmd.positionals()]
    sub = pos[0] if pos else ""
    rest = pos[1:]
    before = cmd.args[:cmd.args.index(sub)] if sub else cmd.args
    odd = [w for w in before if w not in P.GIT_PLAIN_GLOBALS]
    if odd:  # --git-dir=, --work-tree=, --exec-path=, --config-env=, -c, -C...: another repository, config or program
        lab.add("shell-exec", f"git {odd[0][:30]} chooses another repository, config or program to run")
        return False
    if sub in T.GIT_READ_ONLY or sub == "":
        return _git_read_options(lab, cmd, sub)
    if sub in ("branch", "tag", "remote", "stash", "worktree", "config", "reflog", "notes", "submodule"):
        listing = {"branch": not rest and not flags & {"-d", "-D", "-m", "-M", "-c", "-C", "--delete", "--move",
                                                        "--set-upstream-to", "-u", "--unset-upstream", "--copy"},
                   "tag": not rest or bool(flags & {"-l", "--list"}),
                   "remote": not rest or rest[0] in ("-v", "show", "get-url"),
                   "stash": rest[:1] in (["list"], ["show"]),
                   "worktree": rest[:1] == ["list"],
                   "config": bool(flags & {"--get", "--get-all", "--list", "-l", "--get-regexp", "--show-origin"}),
                   "reflog": rest[:1] in ([], ["show"]),
                   "notes": rest[:1] in ([], ["list", ], ["show"]),
                   "submodule": rest[:1] in ([], ["status"], ["summary"])}
        if listing.get(sub):
            return True
    destructive = ""
    if sub == "reset" and flags & {"--hard", "--merge", "--keep"}:
        destructive = "git reset --hard discards uncommitted changes"
    elif sub == "clean" and not flags & {"-n", "--dry-run"}:
        destructive = "git clean deletes untracked files"
    elif sub == "checkout" and ("--" in cmd.args or "." in rest or flags & {"-f", "--force"}):
        destructive = "git checkout -- discards uncommitted changes"
    elif sub == "restore" and (not flags & {"--staged", "-S"} or flags & {"-W", "--worktree"}):
        destructive = "git restore discards uncommitted changes"
    elif sub == "switch" and flags & {"-f", "--force", "--discard-changes"}:
        destructive = "git switch --discard-changes discards uncommitted changes"
    elif sub == "push" and (flags & _GIT_FORCE_PUSH or any(r.startswith("+") or r.startswith(":") for r in rest[1:])):
        destructive = "git push --force/--delete rewrites or deletes remote history"
    elif sub == "branch" and ("-D" in flags or (flags & {"-d", "--delete"} and flags & {"-f", "--force"})):
        destructive = "git branch -D deletes a branch even if unmerged"
    elif sub == "stash" and rest[:1] in (["drop"], ["clear"]):
        destructive = f"git stash {rest[0]} deletes stashed work"
    elif sub == "reflog" and rest[:1] in (["expire"], ["delete"]):
        destructive = "git reflog expire removes recovery points"
    elif sub in ("filter-branch", "filter-repo", "replace"):
        destructive = f"git {sub} rewrites history"
    elif sub == "gc" and any(a.startswith("--prune") for a in cmd.args):
        destructive = "git gc --prune drops unreachable commits"
    elif sub == "update-ref" and "-d" in flags:
        destructive = "git update-ref -d deletes a ref"
    elif sub == "rm" and flags & {"-f", "--force"}:
        destructive = "git rm -f deletes files with uncommitted changes"
    if destructive:
        lab.add("destructive", destructive)
    if sub not in ("push", "ls-remote", "send-email", "request-pull"):
        lab.add("writes-repo", f"git {sub} changes the repository")
    return False


def write_targets(cmd: ParsedCommand, repo: Path) -> list[str]:
    """The path words one simple command writes to (redirects, dd of=, tee/cp/mv targets...)."""
    lab = _Labeller(repo)
    lab.command(cmd)
    return lab.targets


def _git_read_options(lab: _Labeller, cmd: ParsedCommand, sub: str) -> bool:
    """Read-only git, unless an option writes a file (--output) or runs a program (grep -O, --ext-diff)."""
    quiet = True
    args = iter(cmd.args)
    runs = (*T.GIT_RUNS_OPTION.get(sub, ()), *T.GIT_RUNS_OPTION["*"], *(P.GIT_HELP_VIEWERS if sub == "help" else ()))
    for arg in args:
        name = arg.split("=", 1)[0]
        if arg.startswith("--") and P.has_option([arg], *T.GIT_WRITES_OPTION):  # git takes --outp for --output
            lab.target(arg.split("=", 1)[1] if "=" in arg else next(args, ""), False, f"git {sub} --output writes")
            quiet = False
        if P.has_option([arg], *runs):
            lab.add("shell-exec", f"git {sub} {name[:20]} runs another program")
            quiet = False
    return quiet


def command_labels(cmd: ParsedCommand, repo: Path) -> list[str]:
    """Labels of one simple command (policy rules are matched per command)."""
    lab = _Labeller(repo)
    lab.command(cmd)
    return _sorted(lab.labels) or ["read-only"]


def _sorted(labels: set[str]) -> list[str]:
    return [label for label in T.SEVERITY if label in labels]


def assess(command: str, repo: Path) -> Risk:
    """Labels for every part of ``command``; ``label`` is the most severe one."""
    try:
        commands = parse(command)
    except ValueError as exc:
        return Risk("unparseable", ["unparseable"],
                    [f"the shell parser could not read this command ({exc}); assume it can do anything"], [])
    lab = _Labeller(repo)
    for cmd in commands:
        lab.command(cmd)
        if recursive_spawn(cmd):
            lab.add("destructive", f"{cmd.function} starts copies of itself: a fork bomb")
            lab.add("background", "function starts copies of itself")
    if not lab.labels:
        lab.add("read-only", "only reads")
    labels = _sorted(lab.labels)
    if len(labels) > 1 and "read-only" in labels:
        labels.remove("read-only")
    return Risk(labels[0], labels, lab.reasons, commands)
