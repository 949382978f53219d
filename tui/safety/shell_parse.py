"""Shell commands as structure, from a real shell parser (bashlex): every simple command, unwrapped.

``sudo env X=1 rm -r a`` becomes program ``rm`` with wrappers ``sudo, env``; substitutions,
pipelines, lists and redirects are walked, and so is every script a command hands to a shell
(``bash -c '...'``, ``eval``, ``watch``, ``find -exec sh -c``, here-strings and heredocs fed to a
shell, ``echo ... | sh``), so nothing nested hides from the risk labels and the policy rules
(tui/safety/risk.py, tui/policy/rules.py). A computed program name (``$(echo sudo) id``, ``$X id``) keeps
the literal words it could be as ``candidates``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from tui.safety import risk_tables as T
from tui.safety.shell_words import dequote

MAX_DEPTH = 6  # shells in shells deeper than this are "unparseable" (always asked for)


@dataclass
class ParsedCommand:
    """One simple command after unwrapping (``sudo env X=1 rm -r a`` -> program ``rm``, wrappers sudo, env)."""

    program: str  # basename of the command word; "" when computed at run time
    args: list[str]  # words after the program, quotes removed
    dynamic: list[bool]  # per arg: contains $var, $(...), `...`, ~ or <(...)
    redirects: list[tuple[str, str]] = field(default_factory=list)  # (operator, target word)
    wrappers: list[str] = field(default_factory=list)
    background: bool = False  # ended with & (or run under nohup/setsid)
    stdin_from: str = ""  # the programs piping into this one, "curl | tee" ("" = none)
    nested: bool = False  # inside $(...), `...`, <(...) or a script handed to a shell
    text: str = ""
    assigns: list[str] = field(default_factory=list)  # NAME of each NAME=value set for this command
    candidates: list[str] = field(default_factory=list)  # computed program name: literal words it may be
    function: str = ""  # inside the body of this shell function
    in_pipeline: bool = False  # one part of a pipeline with two or more parts
    heredocs: list[str] = field(default_factory=list)  # here-documents and here-strings fed to it

    def flags(self) -> set[str]:
        """Flags, short bundles split (-rf -> -r -f), long flags without their =value."""
        found: set[str] = set()
        for arg in self._flag_words():
            if arg.startswith("--"):
                found.add(arg.split("=", 1)[0])
            elif len(arg) > 2 and not arg[1:].isdigit():
                found.update(f"-{ch}" for ch in arg[1:])
            else:
                found.add(arg)
        return found

    def _flag_words(self) -> list[str]:
        out: list[str] = []
        for arg in self.args:
            if arg == "--":
                break
            if arg.startswith("-") and arg != "-":
                out.append(arg)
        return out

    def positionals(self) -> list[tuple[str, bool]]:
        """(word, dynamic) for non-flag arguments, in order."""
        out: list[tuple[str, bool]] = []
        after_dashdash = False
        for arg, dyn in zip(self.args, self.dynamic):
            if arg == "--" and not after_dashdash:
                after_dashdash = True
                continue
            if after_dashdash or not arg.startswith("-") or arg == "-":
                out.append((arg, dyn))
        return out

    @property
    def subcommand(self) -> str:
        pos = self.positionals()
        return pos[0][0] if pos else ""


def parse(command: str, depth: int = 0) -> list[ParsedCommand]:
    """Every simple command in ``command`` (including nested ones). Raises ValueError if unparseable."""
    import bashlex  # type: ignore[import-untyped]

    if depth > MAX_DEPTH:
        raise ValueError(f"shells nested more than {MAX_DEPTH} deep")
    if not command.strip():
        return []
    try:
        trees = bashlex.parse(command)
    except Exception as exc:  # bashlex raises ParsingError, NotImplementedError, IndexError, RecursionError...
        raise ValueError(str(exc) or type(exc).__name__) from None
    walker = _Walker(command, depth)
    for tree in trees:
        walker.walk(tree, background=False, stdin_from="", nested=depth > 0)
    return walker.out


class _Walker:
    def __init__(self, src: str, depth: int) -> None:
        self.src = src
        self.depth = depth
        self.out: list[ParsedCommand] = []
        self.values: dict[str, list[str]] = {}  # NAME -> literal values assigned earlier in this command line
        self.function = ""
        self.last: ParsedCommand | None = None  # the last simple command walked (not a substitution in it)

    def walk(self, node: Any, *, background: bool, stdin_from: str, nested: bool) -> None:
        kind = node.kind
        if kind == "list":
            parts = node.parts
            for i, part in enumerate(parts):
                if part.kind == "operator":
                    continue
                bg = background or (i + 1 < len(parts) and parts[i + 1].kind == "operator" and parts[i + 1].op == "&")
                self.walk(part, background=bg, stdin_from=stdin_from, nested=nested)
        elif kind == "pipeline":
            self._pipeline(node, background=background, stdin_from=stdin_from, nested=nested)
        elif kind == "command":
            self._command(node, background=background, stdin_from=stdin_from, nested=nested)
        elif kind == "function":
            self.out.append(ParsedCommand("function", [node.parts[0].word], [False], background=background,
                                          text=self.src[node.pos[0]:node.pos[1]], nested=nested))
            outer, self.function = self.function, node.parts[0].word
            for part in node.parts[1:]:
                self.walk(part, background=background, stdin_from=stdin_from, nested=nested)
            self.function = outer
        elif kind == "compound":
            for part in node.list:
                self.walk(part, background=background, stdin_from=stdin_from, nested=nested)
        elif kind in ("if", "for", "while", "until"):
            for part in node.parts:
                self.walk(part, background=background, stdin_from=stdin_from, nested=nested)
        elif kind == "word":
            self._substitutions(node)
        elif kind not in ("reservedword", "operator", "pipe"):
            for part in getattr(node, "parts", []) or []:
                self.walk(part, background=background, stdin_from=stdin_from, nested=nested)

    def _pipeline(self, node: Any, *, background: bool, stdin_from: str, nested: bool) -> None:
        prev, upstream = stdin_from, None
        parts = [p for p in node.parts if p.kind not in ("pipe", "reservedword")]
        for part in parts:
            before = len(self.out)
            self.last = None
            self.walk(part, background=background, stdin_from=prev, nested=nested)
            for cmd in self.out[before:]:
                cmd.in_pipeline = len(parts) > 1
            head = self.last
            if head is not None and upstream is not None and _reads_script_from_stdin(head) and \
                    upstream.program in ("echo", "printf") and not any(upstream.dynamic):
                self._nested(" ".join(a for a in upstream.args if not re.fullmatch(r"-[neE]+", a)))
            program = head.program or "?" if head else "?"
            prev = f"{prev} | {program}" if prev else program
            upstream = head

    def _substitutions(self, word: Any) -> bool:
        """Walk $(...), `...` and <(...) inside a word; True if the word is dynamic."""
        dynamic = False
        for part in getattr(word, "parts", []) or []:
            if part.kind in ("commandsubstitution", "processsubstitution"):
                dynamic = True
                self.walk(part.command, background=False, stdin_from="", nested=True)
            elif part.kind in ("parameter", "tilde"):
                dynamic = True
            elif part.kind == "word":
                dynamic = self._substitutions(part) or dynamic
        return dynamic

    def _command(self, node: Any, *, background: bool, stdin_from: str, nested: bool) -> None:
        words: list[str] = []
        dyn: list[bool] = []
        candidates: list[list[str]] = []  # per word: what a computed word may turn into
        assigns: list[tuple[str, str]] = []
        redirects: list[tuple[str, str]] = []
        heredocs: list[str] = []
        for part in node.parts:
            if part.kind == "word":
                before = len(self.out)
                substituted = self._substitutions(part)
                value, expands = dequote(self.src[part.pos[0]:part.pos[1]])
                dyn.append(expands or (substituted and len(self.out) > before))
                candidates.append(self._candidates(part, self.out[before:]) if dyn[-1] else [])
                words.append(value)
            elif part.kind == "assignment":
                before = len(self.out)
                self._substitutions(part)
                name, _, value = dequote(self.src[part.pos[0]:part.pos[1]])[0].partition("=")
                assigns.append((name, value))
                self.values.setdefault(name, []).extend(
                    [value, *(w for c in self.out[before:] for w in (c.program, *c.args))])
            elif part.kind == "redirect":
                target = part.output
                if getattr(part, "heredoc", None) is not None:
                    heredocs.append(part.heredoc.value.rsplit("\n", 1)[0])
                if hasattr(target, "word"):
                    self._substitutions(target)
                    value, _expands = dequote(self.src[target.pos[0]:target.pos[1]])
                    redirects.append((part.type, value))
                    if part.type == "<<<":
                        heredocs.append(value)
                else:
                    redirects.append((part.type, str(target)))
        text = self.src[node.pos[0]:node.pos[1]]
        if not words:
            if redirects:
                self.out.append(ParsedCommand(":", [], [], redirects, text=text, stdin_from=stdin_from, nested=nested,
                                              function=self.function))
            return
        cmd = ParsedCommand("", [], [], redirects, background=background, stdin_from=stdin_from, nested=nested,
                            text=text, assigns=[n for n, _ in assigns], function=self.function, heredocs=heredocs)
        _unwrap(cmd, words, dyn)
        if not cmd.program:
            cmd.candidates = candidates[len(words) - len(cmd.args) - 1]
        self.out.append(cmd)
        self.last = cmd
        for script in _scripts(cmd):
            self._nested(script)
        if cmd.program == "find":
            self._find_exec(cmd)

    def _candidates(self, word: Any, inner: list[ParsedCommand]) -> list[str]:
        """Literal words a computed command word may turn into (over-approximated, for the hard-deny list)."""
        found = [w for c in inner for w in (c.program, *c.args) if w]
        for name in re.findall(r"\$\{?(\w+)", word.word):
            found += self.values.get(name, [])
        printed = [" ".join(c.args) for c in inner if c.program in ("echo", "printf")]
        literal = re.sub(r"\$\((?:[^()]|\([^()]*\))*\)|`[^`]*`|\$\{?\w+\}?", "\0", word.word)
        if printed and literal.count("\0") == 1:
            found.append(literal.replace("\0", printed[0]))
        return list(dict.fromkeys(found))

    def _nested(self, script: str) -> None:
        for inner in parse(script, self.depth + 1):
            inner.nested = True
            self.out.append(inner)

    def _find_exec(self, cmd: ParsedCommand) -> None:
        """``find ... -exec CMD ... ;`` runs CMD: label it as a command of its own."""
        args = cmd.args
        for i, arg in enumerate(args):
            end = next((j for j in range(i + 1, len(args)) if args[j] in (";", "+")), len(args))
            if arg in ("-exec", "-execdir", "-ok", "-okdir") and end > i + 1:
                inner = ParsedCommand("", [], [], nested=True, text=" ".join(args[i + 1:end]))
                _unwrap(inner, args[i + 1:end], list(cmd.dynamic[i + 1:end]))
                self.out.append(inner)
                for script in _scripts(inner):
                    self._nested(script)


def _unwrap(cmd: ParsedCommand, words: list[str], dyn: list[bool]) -> None:
    i = last_wrapper = 0
    while i < len(words):
        name = os.path.basename(words[i]) if not dyn[i] else ""
        if name not in T.WRAPPERS or i + 1 >= len(words):
            break
        cmd.wrappers.append(name)
        last_wrapper = i
        if name in ("nohup", "setsid"):
            cmd.background = True
        i += 1
        value_opts = T.WRAPPER_VALUE_OPTS.get(name, frozenset())
        skip = T.WRAPPER_POSITIONAL_SKIP.get(name, 0)
        while i < len(words):
            word = words[i]
            if word == "--":
                i += 1
                break
            if name == "env" and (word in ("-S", "--split-string") or word.startswith(("-S", "--split-string="))):
                given = word.split("=", 1)[1] if "=" in word else word[2:] if word.startswith("-S") and word != "-S" \
                    else (words[i + 1] if i + 1 < len(words) else "")
                used = 1 if word not in ("-S", "--split-string") else 2
                split = given.split()  # env -S 'sudo id': the string is the command's words
                words = [*words[:i], *split, *words[i + used:]]
                dyn = [*dyn[:i], *([any(dyn[i:i + used])] * len(split)), *dyn[i + used:]]
                continue
            if word.startswith("-"):
                i += 2 if word in value_opts else 1
            elif name == "env" and "=" in word:
                cmd.assigns.append(word.split("=", 1)[0])
                i += 1
            elif skip:
                skip -= 1
                i += 1
            else:
                break
    if i >= len(words):  # only wrapper options, no wrapped command (`env -i`): the wrapper is the program
        cmd.wrappers.pop()
        i = last_wrapper
    cmd.program = "" if dyn[i] else os.path.basename(words[i])
    cmd.args = words[i + 1:]
    cmd.dynamic = dyn[i + 1:]


_SHELL_VALUE_OPTS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})


def _shell_script(cmd: ParsedCommand) -> str | None:
    """The command string of ``sh -c STRING`` (also ``-ec``, ``-lc``...), None when there is none."""
    args = cmd.args
    i, has_c = 0, False
    while i < len(args) and args[i][:1] in ("-", "+") and args[i] not in ("-", "--"):
        word = args[i]
        if not word.startswith("--") and "c" in word[1:]:
            has_c = True
        i += 2 if word in _SHELL_VALUE_OPTS else 1
    if args[i:i + 1] == ["--"]:
        i += 1
    return args[i] if has_c and i < len(args) else None


def _reads_script_from_stdin(cmd: ParsedCommand) -> bool:
    return cmd.program in T.SHELLS and _shell_script(cmd) is None and not cmd.positionals()


def _scripts(cmd: ParsedCommand) -> list[str]:
    """Shell code ``cmd`` runs: ``sh -c``, here-strings/heredocs fed to a shell, eval, watch, su -c, flock -c."""
    prog = cmd.program
    if prog in T.SHELLS:
        script = _shell_script(cmd)
        if script is not None:
            return [script]
        return list(cmd.heredocs) if _reads_script_from_stdin(cmd) else []
    if prog == "eval":
        return [" ".join(cmd.args)] if cmd.args else []
    if prog == "alias":  # alias x='sudo'; x id: what an alias stands for is checked like a command
        return [a.split("=", 1)[1] for a in cmd.args if "=" in a]
    if prog == "watch":
        return [" ".join(w for w, _ in cmd.positionals()[1 if "-n" in cmd.args else 0:])] if cmd.args else []
    if prog in ("su", "runuser", "flock", "script") and "-c" in cmd.args:
        at = cmd.args.index("-c")
        return cmd.args[at + 1:at + 2]
    return []


def recursive_spawn(cmd: ParsedCommand) -> bool:
    """A function calling itself in the background or in a pipeline: each call starts more copies (a fork bomb)."""
    return bool(cmd.function) and cmd.program == cmd.function and (cmd.background or cmd.in_pipeline)
