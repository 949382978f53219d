"""Shell commands as structure, from a real shell parser (bashlex): every simple command, unwrapped.

``sudo env X=1 rm -r a`` becomes program ``rm`` with wrappers ``sudo, env``; substitutions,
pipelines, lists and redirects are walked, so nothing nested hides from the risk labels and the
policy rules (core/risk.py, core/policy.py) built on it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from tui.core import risk_tables as T


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
    nested: bool = False  # inside $(...), `...` or <(...)
    text: str = ""

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



def parse(command: str) -> list[ParsedCommand]:
    """Every simple command in ``command`` (including nested substitutions). Raises ValueError if unparseable."""
    import bashlex  # type: ignore[import-untyped]

    if not command.strip():
        return []
    try:
        trees = bashlex.parse(command)
    except Exception as exc:  # bashlex raises ParsingError, NotImplementedError, IndexError...
        raise ValueError(str(exc) or type(exc).__name__) from None
    out: list[ParsedCommand] = []
    for tree in trees:
        _walk(tree, command, out, background=False, stdin_from="", nested=False)
    return out


def _walk(node: Any, src: str, out: list[ParsedCommand], *, background: bool, stdin_from: str, nested: bool) -> None:
    kind = node.kind
    if kind == "list":
        parts = node.parts
        for i, part in enumerate(parts):
            if part.kind == "operator":
                continue
            bg = background or (i + 1 < len(parts) and parts[i + 1].kind == "operator" and parts[i + 1].op == "&")
            _walk(part, src, out, background=bg, stdin_from=stdin_from, nested=nested)
    elif kind == "pipeline":
        prev = stdin_from
        for part in node.parts:
            if part.kind in ("pipe", "reservedword"):
                continue
            before = len(out)
            _walk(part, src, out, background=background, stdin_from=prev, nested=nested)
            program = next((c.program or "?" for c in out[before:] if not c.nested), "?")
            prev = f"{prev} | {program}" if prev else program
    elif kind == "command":
        _command(node, src, out, background=background, stdin_from=stdin_from, nested=nested)
    elif kind == "function":
        out.append(ParsedCommand("function", [node.parts[0].word], [False], text=src[node.pos[0]:node.pos[1]],
                                 background=background, nested=nested))
        for part in node.parts[1:]:
            _walk(part, src, out, background=background, stdin_from=stdin_from, nested=nested)
    elif kind == "compound":
        for part in node.list:
            _walk(part, src, out, background=background, stdin_from=stdin_from, nested=nested)
    elif kind in ("if", "for", "while", "until"):
        for part in node.parts:
            _walk(part, src, out, background=background, stdin_from=stdin_from, nested=nested)
    elif kind == "word":
        _substitutions(node, src, out)
    elif kind in ("reservedword", "operator", "pipe"):
        return
    else:
        for part in getattr(node, "parts", []) or []:
            _walk(part, src, out, background=background, stdin_from=stdin_from, nested=nested)


def _substitutions(word: Any, src: str, out: list[ParsedCommand]) -> bool:
    """Walk $(...), `...` and <(...) inside a word; True if the word is dynamic."""
    dynamic = False
    for part in getattr(word, "parts", []) or []:
        if part.kind in ("commandsubstitution", "processsubstitution"):
            dynamic = True
            _walk(part.command, src, out, background=False, stdin_from="", nested=True)
        elif part.kind in ("parameter", "tilde"):
            dynamic = True
        elif part.kind == "word":
            dynamic = _substitutions(part, src, out) or dynamic
    return dynamic


def _command(node: Any, src: str, out: list[ParsedCommand], *, background: bool, stdin_from: str,
             nested: bool) -> None:
    words: list[str] = []
    dyn: list[bool] = []
    redirects: list[tuple[str, str]] = []
    for part in node.parts:
        if part.kind == "word":
            dyn.append(_substitutions(part, src, out))
            words.append(part.word)
        elif part.kind == "assignment":
            _substitutions(part, src, out)
        elif part.kind == "redirect":
            target = part.output
            if hasattr(target, "word"):
                _substitutions(target, src, out)
                redirects.append((part.type, target.word))
            else:
                redirects.append((part.type, str(target)))
    text = src[node.pos[0]:node.pos[1]]
    if not words:
        if redirects:
            out.append(ParsedCommand(":", [], [], redirects, text=text, stdin_from=stdin_from, nested=nested))
        return
    cmd = ParsedCommand("", [], [], redirects, background=background, stdin_from=stdin_from, nested=nested,
                        text=text)
    _unwrap(cmd, words, dyn)
    out.append(cmd)
    if cmd.program == "find":
        _find_exec(cmd, out)


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
            if word.startswith("-"):
                i += 2 if word in value_opts else 1
            elif name == "env" and "=" in word:
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


def _find_exec(cmd: ParsedCommand, out: list[ParsedCommand]) -> None:
    """``find ... -exec CMD ... ;`` runs CMD: label it as a command of its own."""
    args = cmd.args
    for i, arg in enumerate(args):
        end = next((j for j in range(i + 1, len(args)) if args[j] in (";", "+")), len(args))
        if arg in ("-exec", "-execdir", "-ok", "-okdir") and end > i + 1:
            inner = ParsedCommand("", [], [], nested=True, text=" ".join(args[i + 1:end]))
            _unwrap(inner, args[i + 1:end], list(cmd.dynamic[i + 1:end]))
            out.append(inner)
