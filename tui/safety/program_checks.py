"""Which arguments turn an otherwise read-only program into one that runs programs or writes files.

The built-in defaults auto-approve read-only programs (tui/policy/rules.py), so this errs towards "asks":
``sed`` and ``awk`` scripts are code, and only the plain shapes are read-only here (sed: addresses with
p/d/q/n/s///[gpiIm0-9]/y..., no r/R/w/W/e and no s///w or s///e; awk: no ``system``, pipes, redirections,
``getline`` or ``@`` extensions, and no program from a file); long options are matched by any prefix,
as GNU getopt_long and git accept them (``sort --compress-prog=sh``, ``sed --in-pl``, ``rm --rec``).
"""

from __future__ import annotations

import re

# program -> (options that write a file, options that run another program)
OPTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "sort": (("-o", "--output", "-T", "--temporary-directory"), ("--compress-program",)),
    "tree": (("-o", "--output", "-R"), ()),
    "iconv": (("-o", "--output"), ()),
    "file": (("-C", "--compile"), ()),
    "rg": ((), ("--pre", "--pre-glob", "-z", "--search-zip")),
    "ag": ((), ("--pager",)),
    "ack": ((), ("--pager",)),
    "fd": ((), ("-x", "--exec", "-X", "--exec-batch")),
    "fdfind": ((), ("-x", "--exec", "-X", "--exec-batch")),
    "bat": ((), ("--pager",)),
    "batcat": ((), ("--pager",)),
}
FIND_WRITES = ("-fprint", "-fprint0", "-fprintf", "-fls")
# git options before the subcommand that change nothing about what git reads or runs
GIT_PLAIN_GLOBALS = frozenset({"--no-pager", "-P", "-p", "--paginate", "--no-optional-locks", "--literal-pathspecs",
                               "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects",
                               "--no-advice", "--version", "--help", "-h"})
GIT_HELP_VIEWERS = ("-w", "--web", "-i", "--info")


def has_option(args: list[str], *names: str) -> str:
    """The first word of ``args`` (before ``--``) that is one of ``names``: long ones also abbreviated or with
    ``=value``, short ones also in a bundle (``-uo``) or with the value attached (``-ofile``); '' when none."""
    for word in args:
        if word == "--":
            return ""
        if word.startswith("--"):
            given = word.split("=", 1)[0]
            if len(given) > 2 and any(n.startswith("--") and n.startswith(given) for n in names):
                return word
        elif word.startswith("-") and len(word) > 1:
            letters = word[1:]
            if any(len(n) == 2 and n[1] in letters for n in names if not n.startswith("--")):
                return word
    return ""


# ---------------------------------------------------------------- sed

_SED_PLAIN = set("pdqQ=lnNPDhHgGxzF")
_S_FLAGS = set("gpiImM0123456789")


def _sed_address(s: str, i: int) -> int:
    """The index after one address at ``i`` (or ``i`` when there is none); -1 when it cannot be read."""
    if i < len(s) and s[i].isdigit():
        while i < len(s) and s[i].isdigit():
            i += 1
        if i < len(s) and s[i] == "~":
            i += 1
            while i < len(s) and s[i].isdigit():
                i += 1
        return i
    if i < len(s) and s[i] == "$":
        return i + 1
    if i < len(s) and s[i] == "/":
        i = _delimited(s, i + 1, "/")
        while 0 <= i < len(s) and s[i] in "IM":
            i += 1
        return i
    if i < len(s) and s[i] == "\\":
        return -1  # \cREGEXc: another delimiter; not read here
    return i


def _delimited(s: str, i: int, delim: str) -> int:
    """The index after the closing ``delim`` of a part that starts at ``i``; -1 when it never closes."""
    while i < len(s):
        if s[i] == "\\":
            i += 2
            continue
        if s[i] == delim:
            return i + 1
        i += 1
    return -1


def sed_plain(script: str) -> bool:
    """True when every command of the sed ``script`` only prints, deletes or substitutes text."""
    s, i = script, 0
    while i < len(s):
        if s[i] in " \t\n;}":
            i += 1
            continue
        if s[i] == "#":
            i = s.find("\n", i) if "\n" in s[i:] else len(s)
            continue
        i = _sed_address(s, i)
        if 0 <= i < len(s) and s[i] == ",":
            i = i + 1 if i + 1 < len(s) and s[i + 1] in "+~" else i
            i = _sed_address(s, i + 1)
        while 0 <= i < len(s) and s[i] in " \t!":
            i += 1
        if i < 0 or i >= len(s):
            return False
        c = s[i]
        i += 1
        if c == "{" or c in _SED_PLAIN:
            while c in "qQlL" and i < len(s) and s[i].isdigit():
                i += 1
        elif c in "btT:":
            m = re.compile(r"[^;\n]*").match(s, i)
            i = m.end() if m else len(s)
        elif c in "sy":
            if i >= len(s) or s[i] in "\n\\":
                return False
            delim = s[i]
            i = _delimited(s, i + 1, delim)
            i = _delimited(s, i, delim) if i >= 0 else -1
            if i < 0:
                return False
            while c == "s" and i < len(s) and s[i] in _S_FLAGS:
                i += 1
            if i < len(s) and s[i] not in " \t\n;}":
                return False  # w FILE, e, or something this reader does not know
        else:
            return False  # r R w W e a i c v ... : reads or writes files, runs commands, or is not read here
    return True


def sed_risk(args: list[str]) -> str:
    """'edits' (in place), 'runs' (a script that runs commands, writes or reads other files, or cannot be
    read) or '' for a plain sed."""
    scripts: list[str] = []
    words, plain_pos = iter(args), []
    edits = False
    for word in words:
        if word == "--":
            plain_pos += list(words)
            break
        if word.startswith("--"):
            name, _, value = word.partition("=")
            if has_option([name], "--in-place"):
                edits = True
            elif has_option([name], "--expression"):
                scripts.append(value if "=" in word else next(words, ""))
            elif has_option([name], "--file"):
                return "runs"
            elif has_option([name], "--line-length") and "=" not in word:
                next(words, "")
        elif word.startswith("-") and len(word) > 1:
            for k, ch in enumerate(word[1:], 1):
                if ch == "i":
                    edits = True
                    break  # -iSUFFIX
                if ch in "ef":
                    rest = word[k + 1:] or next(words, "")
                    if ch == "f":
                        return "runs"
                    scripts.append(rest)
                    break
                if ch == "l":
                    if not word[k + 1:]:
                        next(words, "")  # the line length
                    break
        else:
            plain_pos.append(word)
    if not scripts and plain_pos:
        scripts.append(plain_pos[0])
    if edits:
        return "edits"
    return "" if scripts and all(sed_plain(s) for s in scripts) else "runs"


# ---------------------------------------------------------------- awk

_AWK_RUNS = re.compile(r"\bsystem\b|\bgetline\b|\||>|@")
# a program or extension from a file, mawk's -W options, and gawk's options that write a file (the profile,
# the pretty-printed program, the variable dump: each to awkprof.out/awkvars.out when no name is given) or
# read debugger commands
_AWK_FILE_OPTS = ("-f", "--file", "-E", "--exec", "-i", "--include", "-l", "--load", "-W", "-o", "--pretty-print",
                  "-p", "--profile", "-d", "--dump-variables", "-D", "--debug")


def awk_runs(args: list[str]) -> bool:
    """True when an awk command line may run a command, write or read another file, or load code: a program
    from a file or an extension, or program text with system(), a pipe, a redirection, getline or @."""
    if has_option(args, *_AWK_FILE_OPTS):
        return True
    return any(_AWK_RUNS.search(word) for word in args)  # the program, -e/--source text, and (to be safe) the rest
