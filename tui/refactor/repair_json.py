"""JSON repair: json-repair's reading of the damaged text, written back into the original layout by a token patcher.

The patcher keeps every token and all whitespace, and changes only: comments (dropped), single-quoted strings and
bare keys or words (double-quoted), trailing commas (dropped), a comma missing between two values (inserted after the
first), brackets left open at the end (closed, each on its own line). Where the structure leaves a value to guess
(``"a": ,``, a string that never ends, a bracket that closes the wrong thing, two values with no colon) it refuses.
The patched text must parse strictly and be the same data json-repair reads; otherwise nothing is proposed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from tui.refactor.base import RefactorError
from tui.safety.parsing import TooDeep, loads_json

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/|\#[^\n]*)
  | (?P<dq>"(?:[^"\\\n]|\\.)*")
  | (?P<sq>'(?:[^'\\\n]|\\.)*')
  | (?P<open>[\[{])
  | (?P<close>[\]}])
  | (?P<colon>:)
  | (?P<comma>,)
  | (?P<number>-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.]))
  | (?P<word>[A-Za-z_$][\w$-]*)
""", re.X | re.S)
_LITERALS = {"true", "false", "null"}


@dataclass
class _Frame:
    closer: str
    indent: str
    state: str  # key | colon | value | next


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _refuse(rel: str, text: str, pos: int, why: str) -> RefactorError:
    return RefactorError(f"{rel}:{_line(text, pos)}: {why}; not repaired (it would have to guess)",
                         "Fix that place by hand; devagent repairs syntax only where every value is certain.")


def _indent_at(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    return re.match(r"[ \t]*", text[start:]).group(0)  # type: ignore[union-attr]


def _quoted(token: str, kind: str) -> str:
    if kind == "dq":
        return token
    if kind == "sq":
        body = token[1:-1].replace("\\'", "'")
        return json.dumps(loads_json('"' + body.replace('"', '\\"') + '"'), ensure_ascii=False)
    return json.dumps(token)


def patch(text: str, rel: str) -> str:
    out: list[str] = []
    stack: list[_Frame] = []
    top_done = False
    last_value_end = -1  # index in out just after the last value (or closer) emitted
    last_comma = -1  # index in out of a comma that may turn out to be trailing
    pos = 0

    def start(at: int, as_key: bool) -> None:
        nonlocal top_done
        if not stack:
            if top_done:
                raise _refuse(rel, text, at, "a second value after the document's end")
            return
        frame = stack[-1]
        if frame.state == "next":
            out.insert(last_value_end, ",")  # the missing comma, right after the previous value
            frame.state = "key" if frame.closer == "}" else "value"
        if frame.closer == "]":
            frame.state = "next"
        elif frame.state == "key":
            if not as_key:
                raise _refuse(rel, text, at, "a key must be a string")
            frame.state = "colon"
        elif frame.state == "colon":
            raise _refuse(rel, text, at, "a value where a ':' should be")
        else:
            frame.state = "next"

    def done() -> None:
        nonlocal last_value_end, last_comma, top_done
        last_value_end, last_comma = len(out), -1
        if not stack:
            top_done = True

    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            if text[pos] in "\"'":
                raise _refuse(rel, text, pos, "a string that is not closed on its line")
            raise _refuse(rel, text, pos, f"unexpected {text[pos]!r}")
        kind, token = m.lastgroup or "", m.group(0)
        at, pos = pos, m.end()
        frame = stack[-1] if stack else None
        if kind == "ws":
            out.append(token)
        elif kind == "comment":
            before = out[-1] if out else "\n"
            if text[pos:pos + 1] == "\n" and "\n" in before and before[before.rfind("\n") + 1:].strip(" \t") == "":
                out[-1] = before[: before.rfind("\n") + 1]  # a comment on its own line goes with its line
                pos += 1
            elif text[pos:pos + 1] in ("\n", "") and out and out[-1].strip(" \t") == "" and "\n" not in out[-1]:
                out[-1] = ""  # the spaces before a comment that ended the line
        elif kind == "open":
            start(at, False)
            out.append(token)
            stack.append(_Frame("}" if token == "{" else "]", _indent_at(text, at), "key" if token == "{" else "value"))
            last_comma = -1
        elif kind == "close":
            if frame is None or frame.closer != token:
                raise _refuse(rel, text, at, f"{token!r} closes nothing that is open here")
            if frame.closer == "}" and frame.state in ("colon", "value"):
                raise _refuse(rel, text, at, "a key without a value")
            stack.pop()
            if last_comma >= 0:
                out[last_comma] = ""
            out.append(token)
            done()
        elif kind == "colon":
            if frame is None or frame.state != "colon":
                raise _refuse(rel, text, at, "a ':' out of place")
            frame.state = "value"
            out.append(token)
        elif kind == "comma":
            if frame is None or frame.state != "next":
                raise _refuse(rel, text, at, "a ',' where a value is missing")
            frame.state = "key" if frame.closer == "}" else "value"
            last_comma = len(out)
            out.append(token)
        else:
            is_key = frame is not None and frame.closer == "}" and frame.state in ("key", "next")
            if kind == "word" and token in ("NaN", "Infinity", "undefined") and not is_key:
                raise _refuse(rel, text, at, f"{token} has no JSON equivalent")
            start(at, is_key)
            quote = kind in ("dq", "sq") or kind == "word" and (is_key or token not in _LITERALS)
            out.append(_quoted(token, kind) if quote else token)
            if is_key:
                last_comma = -1
            else:
                done()
    if stack and stack[-1].closer == "}" and stack[-1].state in ("colon", "value"):
        raise _refuse(rel, text, len(text), "the file ends where a value should be")
    if last_comma >= 0 and stack:
        out[last_comma] = ""
    whole = "".join(out)
    body = whole.rstrip()
    closing = "".join(f"\n{frame.indent}{frame.closer}" for frame in reversed(stack))
    return body + closing + whole[len(body):] if closing else whole


def repair_json_text(text: str, rel: str) -> tuple[str, str]:
    from importlib.metadata import version

    import json_repair

    try:
        loads_json(text, rel)
    except TooDeep:
        raise
    except ValueError:
        pass
    else:
        raise RefactorError(f"{rel} is already valid JSON; nothing to repair")
    if not text.strip():
        raise RefactorError(f"{rel} is empty; there is nothing to keep", "An empty file has no value to repair.")
    fixed = patch(text, rel)
    try:
        data = loads_json(fixed, rel)
    except TooDeep:
        raise
    except ValueError as exc:
        raise RefactorError(f"{rel}:{exc.lineno}: could not be repaired exactly ({exc.msg} in the repaired text)",  # type: ignore[attr-defined]
                            "Fix it by hand.") from None
    reading = json_repair.loads(text)
    if reading != data:
        raise RefactorError(f"{rel}: the repair is not certain: json-repair reads the file differently from the "
                            "token repair (a value would be guessed)", "Fix it by hand.")
    return fixed, f"json-repair {version('json-repair')} + token patch"
