""""Change the default ttl of ttl_cache to 300": the parameter's default in the function's signature, as the one
edit_file call that changes it.

The request names the parameter and the new value but not the old one, so the value hint (described.py, which
looks for the old value) has nothing to go on; a 1.5B model then wrote ``ttl_cache = TTLCache(300)`` over the
decorator (held-out cachetools). The signature is found through ``ast``: the functions and methods that take a
parameter of that name with a default, the ones the request names first; the call is shown only when one
signature is the clear choice.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from tui.safety.parsing import parse_python

_DEFAULT_TO = re.compile(
    r"\bdefault\s+(?:value\s+)?(?:of\s+|for\s+)?(?:the\s+)?[`'\"]?(?P<param>[A-Za-z_]\w*)[`'\"]?"
    r"(?:\s+(?:parameter|argument|option|setting))?\b.{0,80}?\bto\s+"
    r"(?:(?P<q>['\"`])(?P<quoted>[^'\"`]{0,40})(?P=q)|(?P<bare>[\w.\-+]+))", re.I)
_WORDS = re.compile(r"[A-Za-z_]\w{2,}")


def request(prompt: str) -> tuple[str, str, bool] | None:
    """(parameter, new value, quoted) for "change the default X (of f) to V"; None otherwise."""
    found = _DEFAULT_TO.search(prompt)
    if not found:
        return None
    if found.group("quoted") is not None:
        return found.group("param"), found.group("quoted"), True
    return found.group("param"), found.group("bare").rstrip("."), False


def _signatures(path: str, text: str, param: str) -> list[tuple[str, int, str]]:
    """(function name, line of the default, the default's source) for every def taking ``param`` with a default."""
    return [(function, line, old) for function, line, old, name in _python_defaults(text)
            if name == param and "\n" not in old]


def _new_source(old: str, new: str, quoted: bool) -> str:
    """The new default written as the old one is: a string stays a string (its quote kept), a number stays bare."""
    if quoted or (old[:1] in "'\"" and not re.fullmatch(r"-?\d+(?:\.\d+)?|None|True|False", new)):
        quote = old[0] if old[:1] in "'\"" else "'"
        return f"{quote}{new}{quote}"
    return new


def hint(repo: Path, prompt: str, files: list[str], sources) -> str:
    """The edit_file call that changes the default, or '' when the request is not of that kind or no single
    signature is the clear choice. ``sources(repo, files)`` yields (path, text) of the library's source files."""
    asked = request(prompt)
    if asked is None:
        return ""
    param, value, quoted = asked
    named = {w.lower() for w in _WORDS.findall(prompt)} - {param.lower()}
    scored: list[tuple[int, str, int, str, str]] = []
    for path, text in sources(repo, [f for f in files if f.endswith(".py")]):
        if param not in text:
            continue
        for function, line, old in _signatures(path, text, param):
            score = 2 * (function.lower() in named) + (Path(path).stem.lower() in named)
            scored.append((score, path, line, old, text.splitlines()[line - 1]))
    scored.sort(key=lambda item: -item[0])
    if not scored or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return ""
    _, path, line, old, text = scored[0]
    found = re.search(rf"\b{re.escape(param)}\s*(?::[^=,]+)?=\s*{re.escape(old)}", text)
    new = _new_source(old, value, quoted)
    if found is None or new == old:
        return ""
    changed = text[:found.start()] + found.group(0)[:-len(old)] + new + text[found.end():]
    call = json.dumps({"name": "edit_file", "arguments": {"path": path, "old": text, "new": changed}})
    return (f"The default of {param} is set on line {line} of {path} ({param}={old}). The change is probably this "
            f"one edit:\n{call}")


_DEFAULTS_OBJECT = re.compile(r"^(?:var|let|const)\s+(\w*[dD]efaults?\w*)\s*=\s*\{\s*$", re.M)
MAX_SHOWN = 900  # characters of defaults shown


def question_hint(repo: Path, prompt: str, files: list[str], sources) -> str:
    """"How many levels does qs.parse nest by default?": the defaults of what the question names, read from the
    code: a JS ``defaults`` object in the file named like a word of the question (lib/parse.js for parse), or a
    Python function's signature defaults. The model answered 3 from nothing where the code says ``depth: 5``.
    '' when the question is not about a default or nothing is found."""
    if not re.search(r"\bdefaults?\b", prompt, re.I):
        return ""
    named = {w.lower() for w in _WORDS.findall(prompt)}
    found: list[str] = []
    for path, text in sources(repo, files):
        stem = Path(path).stem.lower()
        if path.endswith((".js", ".mjs", ".cjs", ".ts")) and stem in named:
            found += _js_defaults(path, text)
        elif path.endswith(".py"):
            by_function: dict[tuple[str, int], list[str]] = {}
            for function, line, old, param in _python_defaults(text):
                if function.lower() in named:
                    by_function.setdefault((function, line), []).append(f"{param}={old}")
            found += [f"{path}:{line}: {function}({', '.join(pairs)})"
                      for (function, line), pairs in by_function.items()]
        if sum(len(f) for f in found) > MAX_SHOWN:
            break
    if not found:
        return ""
    text = "\n".join(found)
    return "Defaults in the code the question names (path:line):\n" + (text[:MAX_SHOWN] + " …" if len(text) >
                                                                           MAX_SHOWN else text)


def _js_defaults(path: str, text: str) -> list[str]:
    out = []
    lines = text.splitlines()
    for match in _DEFAULTS_OBJECT.finditer(text):
        first = text.count("\n", 0, match.start()) + 1
        entries = []
        for line in lines[first:first + 60]:
            if line.strip().startswith("}"):
                break
            entries.append(line.strip().rstrip(","))
        out.append(f"{path}:{first}: {match.group(1)} = {{{', '.join(entries)}}}")
    return out


def _python_defaults(text: str) -> list[tuple[str, int, str, str]]:
    """(function, line, default source, parameter) for every parameter default of every def."""
    try:
        tree = parse_python(text)
    except (SyntaxError, ValueError, RecursionError):
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            positional = [*args.posonlyargs, *args.args]
            pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
            pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
            for arg, default in pairs:
                source = ast.get_source_segment(text, default)
                if source is not None:
                    out.append((node.name, default.lineno, source, arg.arg))
    return out
