"""Approval policy: allow / ask / deny for each proposal, and the rule that decided, shown with it.

Rules are matched on the parsed command (program, subcommand, flags, path
arguments relative to the repo), never on the raw string. Order of strength:
hard deny (only `unlock` in the user config lifts it) > deny > ask > allow.
A repo's own config can add denies and asks; its allow rules auto-approve only
what the built-in read-only defaults would, and its test command is always asked
for. It can never loosen what the user or the hard-deny list denies.
Without a working sandbox nothing is auto-approved.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from tui.safety import risk_tables as T
from tui.protocol.proposals import Proposal
from tui.config import Config
from tui.protocol.errors import ConfigError
from tui.policy.hard_deny import HARD_DENY, hard_denies
from tui.safety.literal import literal_warnings
from tui.policy.loss_preview import loss_preview
from tui.safety.risk import assess, command_labels, where
from tui.safety.shell_parse import ParsedCommand, parse

# "Approve similar" never remembers these: a rule like `python -c *` would allow any code.
_NEVER_REMEMBERED = frozenset({"shell-exec", "destructive", "privilege", "writes-outside", "unparseable"})
_ALLOW_WRAPPERS = {"env", "time", "command", "nice", "timeout", "stdbuf"}
_SUBCOMMAND_PROGRAMS = {"git", "npm", "yarn", "pnpm", "cargo", "go", "pip", "pip3", "docker", "podman", "uv",
                        "poetry", "make", "just", "kubectl", "gh", "dotnet", "mvn", "gradle", "bundle", "rake",
                        "composer", "deno", "bun", "conda", "tox", "nox", "hatch", "pdm", "mix", "stack", "cabal"}
_FLAG_ALIASES: dict[str, dict[str, str]] = {
    "rm": {"-R": "-r", "--recursive": "-r", "--force": "-f"},
    "cp": {"-R": "-r", "--recursive": "-r", "--force": "-f"},
    "git": {"--force": "-f", "--delete": "-d"},
    "chmod": {"-R": "-R", "--recursive": "-R"},
    "chown": {"--recursive": "-R"},
}


@dataclass(frozen=True)
class Rule:
    verdict: str  # allow | ask | deny
    source: str  # hard | user | repo | session | default
    text: str
    program: str
    flags: frozenset[str]
    patterns: tuple[str, ...]
    rest: bool  # trailing `*`: any further arguments
    strict_flags: bool = False  # session rules: exactly this flag set
    labels: frozenset[str] | None = None  # session rules: no riskier than what was approved

    def describe(self) -> str:
        return f"{self.source} {self.verdict}: {self.text}"


def _norm_word(word: str, repo: Path) -> str:
    if os.path.isabs(word):
        real = os.path.realpath(repo)
        for base in (real, os.path.abspath(repo)):
            if os.path.commonpath([word, base]) == base:
                rel = os.path.relpath(word, base)
                return "." if rel == "." else rel
        return word
    while word.startswith("./") and len(word) > 2:
        word = word[2:]
    return word


def _flags(program: str, cmd: ParsedCommand) -> frozenset[str]:
    aliases = _FLAG_ALIASES.get(program, {})
    return frozenset(aliases.get(f, f) for f in cmd.flags())


def parse_rule(text: str, verdict: str, source: str, repo: Path) -> Rule:
    """``"rm -r *"`` -> Rule. ConfigError for rules that cannot be read."""
    try:
        tokens = shlex.split(text)
    except ValueError as exc:
        raise ConfigError(f"policy rule {text!r} cannot be read ({exc})", "Write rules like \"pytest *\".") from None
    if not tokens or tokens[0] in ("*", "**"):
        raise ConfigError(f"policy rule {text!r} must start with a program name", "Write rules like \"pytest *\".")
    rest = tokens[-1] == "*" and len(tokens) > 1
    if rest:
        tokens = tokens[:-1]
    cmd = ParsedCommand(os.path.basename(tokens[0]), tokens[1:], [False] * (len(tokens) - 1))
    patterns = tuple(_norm_word(w, repo) for w, _ in cmd.positionals())
    return Rule(verdict, source, text, cmd.program, _flags(cmd.program, cmd), patterns, rest)


def _matches(rule: Rule, cmd: ParsedCommand, repo: Path, labels: list[str]) -> bool:
    if cmd.program != rule.program:
        return False
    flags = _flags(cmd.program, cmd)
    if not rule.flags <= flags:
        return False
    words = [(_norm_word(w, repo), w, d) for w, d in cmd.positionals()]
    if len(words) < len(rule.patterns):
        return False
    for pattern, (norm, _raw, dyn) in zip(rule.patterns, words):
        if not fnmatch.fnmatchcase(norm, pattern) and not (dyn and rule.verdict != "allow" and "*" in pattern):
            return False
    if rule.verdict != "allow":
        return True  # deny / ask: generous, any further arguments and flags
    if rule.strict_flags and flags != rule.flags:
        return False
    if not rule.rest and (flags != rule.flags or len(words) > len(rule.patterns)):
        return False
    if rule.labels is not None and not set(labels) <= rule.labels:
        return False
    if set(cmd.wrappers) - _ALLOW_WRAPPERS or cmd.background:
        return False
    if any(not T.SAFE_ASSIGN.fullmatch(name) for name in cmd.assigns):
        return False  # LD_PRELOAD=..., GIT_EXTERNAL_DIFF=...: not the command the rule allows
    # An allow rule never reaches outside the repo: every argument and redirect must stay inside it.
    if any(where(raw, dyn, repo) not in ("repo", "null") for _n, raw, dyn in words):
        return False
    for op, target in cmd.redirects:
        if op.startswith("<") or (op == ">&" and (target.isdigit() or target == "-")):
            continue
        if where(target, "$" in target or target.startswith("~"), repo) not in ("repo", "null"):
            return False
    return True


class Policy:
    """Labels proposals. ``remember`` adds structural session rules ("approve similar for this session")."""

    def __init__(self, config: Config, sandbox_active: bool, repo: Path, sandbox_kind: str | None = None) -> None:
        self.config = config
        self.sandbox_active = sandbox_active
        self.sandbox_kind = sandbox_kind or ("bwrap" if sandbox_active else "none")
        self.repo = Path(os.path.realpath(repo))
        unknown = sorted(set(config.unlock) - set(HARD_DENY))
        if unknown:
            raise ConfigError(f"unlock: unknown hard-deny name {unknown[0]!r}", "Names: " + ", ".join(HARD_DENY))
        self.unlocked = set(config.unlock)
        self.rules: dict[str, list[Rule]] = {
            "user": self._layer(config.user_rules, "user"),
            "repo": self._layer(config.repo_rules, "repo"),
            "session": [],  # deny rules remembered from "reject always"
        }
        self.session: list[Rule] = []
        self.default_allow = self._defaults()

    def _layer(self, rules: dict[str, list[str]], source: str) -> list[Rule]:
        return [parse_rule(text, verdict, source, self.repo)
                for verdict in ("deny", "ask", "allow") for text in rules.get(verdict, [])]

    def _defaults(self) -> list[Rule]:
        """Your own test command, with any arguments; a repo's test command is always asked for."""
        test = self.config.tests.command.strip()
        if not test or "tests.command" in self.config.repo_set:
            return []
        try:
            return [parse_rule(test + " *", "allow", "default", self.repo)]
        except ConfigError:
            return []

    # -- evaluation -----------------------------------------------------------------------------

    def evaluate(self, proposal: Proposal) -> None:
        """Set policy, rule, risk, risk_reasons, warnings and sandbox on ``proposal``."""
        proposal.sandbox = self.sandbox_kind
        if proposal.kind != "command":
            self._non_command(proposal)
            return
        command = proposal.command or ""
        risk = assess(command, self.repo)
        proposal.risk, proposal.risk_reasons = risk.label, list(risk.reasons)
        literal = literal_warnings(command, command=True)
        proposal.warnings = literal + loss_preview(command, self.repo)
        proposal.policy, proposal.rule = self._decide(command, risk.commands, risk.label, bool(literal))

    def _non_command(self, proposal: Proposal) -> None:
        texts = [t for t in (proposal.code, proposal.diff, proposal.message, proposal.summary) if t]
        # what the tool itself said (a refactoring's failed checks and unhandled places) stays, after these
        own = [w for w in proposal.warnings if w]
        proposal.warnings = [w for t in texts for w in literal_warnings(t)] + own
        proposal.risk = "shell-exec" if proposal.kind == "python" else "writes-repo"
        proposal.risk_reasons = ["runs Python code" if proposal.kind == "python" else f"{proposal.kind} changes the repo"]
        proposal.policy = "ask"
        proposal.rule = f"always asks: {proposal.kind} proposals need your approval"

    def _decide(self, command: str, commands: list[ParsedCommand], label: str, literal: bool) -> tuple[str, str]:
        parsed = None if label == "unparseable" else commands
        hard = [h for h in hard_denies(command, parsed, self.repo) if h not in self.unlocked]
        if hard:
            name = hard[0]
            return "deny", (f"hard deny: {HARD_DENY[name]} (only your user config can lift it: "
                            f"unlock = [\"{name}\"])")
        if not command.strip():
            return "ask", "default: ask (empty command)"
        if label == "unparseable":
            return "ask", "unparseable: the shell parser could not read it, so it always asks"
        per_cmd = [(cmd, command_labels(cmd, self.repo)) for cmd in commands]
        for verdict in ("deny", "ask"):
            for source in ("user", "repo", "session"):
                for rule in self.rules[source]:
                    if rule.verdict == verdict and any(_matches(rule, c, self.repo, ls) for c, ls in per_cmd):
                        return verdict, rule.describe()
        if not self.sandbox_active:
            return "ask", "no sandbox: every command asks"
        if literal:
            return "ask", "hidden characters: control or bidi characters always need your eyes"
        used: list[str] = []
        for cmd, labels in per_cmd:
            rule = self._allow_rule(cmd, labels)
            if rule is None:
                return "ask", f"default: ask (no rule allows `{(cmd.text or cmd.program).strip()[:60]}`)"
            if rule not in used:
                used.append(rule)
        if not used:
            return "ask", "default: ask"
        return "allow", "; ".join(used)

    def _allow_rule(self, cmd: ParsedCommand, labels: list[str]) -> str | None:
        for source in ("user", "session"):
            rules = self.rules["user"] if source == "user" else self.session
            for rule in rules:
                if rule.verdict == "allow" and _matches(rule, cmd, self.repo, labels):
                    return rule.describe()
        read_only = self._read_only_default(cmd, labels)
        for rule in self.rules["repo"]:  # never more than the built-in read-only defaults
            if rule.verdict == "allow" and read_only and _matches(rule, cmd, self.repo, labels):
                return rule.describe()
        if read_only:
            name = f"git {cmd.subcommand}" if cmd.program == "git" else cmd.program
            return f"default allow: read-only {name}"
        for rule in self.default_allow:
            if _matches(rule, cmd, self.repo, labels):
                return f"default allow: test command {self.config.tests.command}"
        return None

    def _read_only_default(self, cmd: ParsedCommand, labels: list[str]) -> bool:
        return labels == ["read-only"] and cmd.program in T.READ_ONLY | {"git"} and not cmd.wrappers and \
            not cmd.background and all(where(w, d, self.repo) in ("repo", "null") for w, d in cmd.positionals())

    # -- session rules --------------------------------------------------------------------------

    def remember(self, proposal: Proposal, verdict: str = "allow") -> str:
        """Add a structural session rule like the command (allow: approved; deny: rejected for good); '' if none."""
        if proposal.kind != "command" or not proposal.command:
            return ""
        try:
            commands = parse(proposal.command)
        except ValueError:
            return ""
        if hard_denies(proposal.command, commands, self.repo) or not commands:
            return ""
        rules: list[Rule] = []
        for cmd in commands:
            if not cmd.program or cmd.program == "function" or cmd.assigns or (verdict == "allow" and \
                    set(command_labels(cmd, self.repo)) & _NEVER_REMEMBERED):
                return ""  # its arguments are code, or it reaches beyond the repo: "similar" would be anything
            rule = self._session_rule(cmd)
            rules.append(dataclasses.replace(rule, verdict="deny") if verdict == "deny" else rule)
        target = self.rules["session"] if verdict == "deny" else self.session
        target += [r for r in dict.fromkeys(rules) if r not in target]
        return "; ".join(dict.fromkeys(r.text for r in rules))

    def _session_rule(self, cmd: ParsedCommand) -> Rule:
        pos = [w for w, _ in cmd.positionals()]
        keep: list[str] = []
        if cmd.program in _SUBCOMMAND_PROGRAMS and pos and re.fullmatch(r"[A-Za-z][\w:.-]*", pos[0]):
            keep.append(pos[0])
            if pos[0] in ("run", "run-script", "exec") and len(pos) > 1 and re.fullmatch(r"[\w:.-]+", pos[1]):
                keep.append(pos[1])
        flags = _flags(cmd.program, cmd)
        text = " ".join([cmd.program, *keep, *sorted(flags)]) + (" *" if len(pos) > len(keep) else "")
        return Rule("allow", "session", text, cmd.program, flags, tuple(keep), True, strict_flags=True,
                    labels=frozenset(command_labels(cmd, self.repo)))
