"""What devagent's own git calls turn off: the settings, argv flags and environment that stop git from
running anything the repository names. tui/git/facade.py applies them to every call (and is the one module
that starts git; a test scans ``tui/`` for any other).

git runs programs named by configuration and attributes: ``core.fsmonitor``, hooks, filter drivers
(``.gitattributes`` picks them), external diff and textconv drivers, pagers, editors, credential and ssh
helpers, signing programs, and all of that again in a nested repository it recurses into (an uninitialised
submodule's directory may hold one a command made, with its own writable config). devagent runs git outside
the sandbox, so no call may start any of them. The exceptions are the developer's own: their approved commit
runs their hooks and signing by design, and a filter driver their own config defines (Git LFS) runs where git
needs it for correct diffs and staging (never for checkpoints).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

# Settings passed with -c (command-line scope: above every config file, and inherited by any child git).
NEUTRAL: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("core.editor", "false"),
    ("sequence.editor", "false"),
    ("core.askPass", ""),
    ("credential.helper", ""),  # an empty value resets the list of helpers
    ("core.sshCommand", "false"),
    ("protocol.allow", "never"),  # no transport at all: devagent's own git never talks to a remote
    ("submodule.recurse", "false"),
    ("diff.ignoreSubmodules", "dirty"),  # never run `git status` inside a submodule (its config would apply)
    ("status.submoduleSummary", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("core.quotePath", "false"),
    ("color.ui", "false"),
)
NO_HOOKS_OR_SIGNING: tuple[tuple[str, str], ...] = (
    ("core.hooksPath", os.devnull),  # reference-transaction, post-index-change... never run for devagent's calls
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("log.showSignature", "false"),
    ("gpg.program", "false"),
    ("gpg.ssh.program", "false"),
    ("gpg.x509.program", "false"),
)
# The developer's own commit: their hooks and signing run as they configured them (and see what they would
# see in a terminal), so only what cannot matter to a hook is changed.
OWN_HOOKS: tuple[tuple[str, str], ...] = (("core.fsmonitor", "false"), ("core.pager", "cat"), ("core.editor", "false"))
# Subcommands that could run an external diff or textconv driver: both are switched off on the command line
# (an empty diff.external would be run as a program, so it cannot be blanked through config).
_DIFF_LIKE = {"diff", "log", "show"}
_DIFF_OFF = ["--no-ext-diff", "--no-textconv"]
# Environment variables that name programs git would run, or a pager; where one cannot be removed from a
# child's environment (GitPython starts from os.environ), the value that turns it off.
ENV_PROGRAMS: dict[str, str] = {
    "GIT_EXTERNAL_DIFF": "false", "GIT_SSH": "false", "GIT_SSH_COMMAND": "false", "GIT_PROXY_COMMAND": "false",
    "GIT_ASKPASS": "", "SSH_ASKPASS": "", "GIT_EDITOR": "false", "GIT_SEQUENCE_EDITOR": "false",
}
_FILTER_KEYS = (".clean", ".smudge", ".process")
TRACE2 = ("GIT_TRACE2", "GIT_TRACE2_PERF", "GIT_TRACE2_EVENT")


def pairs(settings: tuple[tuple[str, str], ...]) -> list[str]:
    """The settings as ``-c key=value`` arguments."""
    out: list[str] = []
    for key, value in settings:
        out += ["-c", f"{key}={value}"]
    return out


def blank_filters(names: list[str]) -> tuple[tuple[str, str], ...]:
    """Settings that empty the named filter drivers (and let files through when a driver is required)."""
    blanks = tuple((f"filter.{name}{suffix}", "") for name in names for suffix in _FILTER_KEYS)
    return blanks + tuple((f"filter.{name}.required", "false") for name in names)


def subcommand_args(args: tuple[str, ...] | list[str]) -> list[str]:
    """``args`` (the caller's own ``-c`` pairs, then the subcommand) with external diff and textconv off;
    ValueError for any other global option (``-C``, ``--git-dir``... would move the call elsewhere)."""
    args_list = list(args)
    i = 0
    while i < len(args_list) - 1 and args_list[i] == "-c":
        i += 2
    if i < len(args_list) and args_list[i].startswith("-"):
        raise ValueError(f"git global option {args_list[i]!r}: only -c pairs may come before the subcommand")
    if i < len(args_list) and args_list[i] in _DIFF_LIKE:
        args_list[i + 1:i + 1] = _DIFF_OFF
    return args_list


def environment(extra: Mapping[str, str] | None = None, *, hooks: bool = False) -> dict[str, str]:
    """os.environ without the variables that name programs for git to run; never a prompt or a pager."""
    env = {k: v for k, v in os.environ.items() if hooks or k not in ENV_PROGRAMS}
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat"})
    for name in TRACE2:  # trace2 targets come from the global config only, -c cannot reset them, and an include
        env.setdefault(name, "0")  # there may lead into the work tree: git would write wherever that file says
    env.update(extra or {})
    return env


def config_environment(settings: tuple[tuple[str, str], ...], base: Mapping[str, str]) -> dict[str, str]:
    """The settings as ``GIT_CONFIG_COUNT`` / ``GIT_CONFIG_KEY_n`` / ``GIT_CONFIG_VALUE_n`` entries after those
    already in ``base`` (the same command-line scope as ``-c``), for git processes GitPython starts itself."""
    start = int(base.get("GIT_CONFIG_COUNT", "0") or 0)
    env: dict[str, str] = {}
    for n, (key, value) in enumerate(settings, start):
        env[f"GIT_CONFIG_KEY_{n}"], env[f"GIT_CONFIG_VALUE_{n}"] = key, value
    env["GIT_CONFIG_COUNT"] = str(start + len(settings))
    return env


# -- the config files git reads (tui/git/configguard.py walks them and what they include) ----------------------------

def config_files() -> list[str]:
    """The config files git reads whatever the repository (system, global, XDG)."""
    home = Path.home()
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(home / ".config")
    return [os.environ.get("GIT_CONFIG_GLOBAL", ""), os.environ.get("GIT_CONFIG_SYSTEM", ""), "/etc/gitconfig",
            str(home / ".gitconfig"), os.path.join(xdg, "git", "config")]


def signature(files: list[str], cwd: str) -> tuple[object, ...]:
    """What changes when any config git reads (or a file it includes) changes."""
    sig: list[object] = [os.environ.get("GIT_CONFIG_PARAMETERS", ""), os.environ.get("GIT_CONFIG_COUNT", "")]
    for name in [*config_files(), *files]:
        if not name:
            continue
        path = name if os.path.isabs(name) else os.path.join(cwd, name)
        try:
            st = os.stat(path)
            sig.append((path, st.st_ino, st.st_size, st.st_mtime_ns))
        except OSError:
            sig.append((path, None))
    return tuple(sig)
