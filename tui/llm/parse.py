"""Read tool calls that a model wrote as text instead of native calls.

Small local models print calls as JSON (fenced or bare, several at once, with
near-miss key names, Python-style quotes, trailing commas) or as a ```bash
block. This module turns those into ToolCalls, turns clear but broken attempts
into short error messages for the model, and never raises on any input.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from tui.llm.base import ToolCall
from tui.llm.requote import closed_at_end, closed_at_fence, quote_escapes, requote
from tui.safety.parsing import loads_json, parse_python

NAME_KEYS = ("name", "tool", "tool_name", "function", "action", "function_name")
ARG_KEYS = ("arguments", "args", "parameters", "params", "input", "action_input", "tool_input", "kwargs")
PY_LANGS = {"", "python", "py", "python3", "tool_code", "tool_call", "tool"}
SHELL_LANGS = {"bash", "sh", "shell", "console", "zsh", "shell-session", "terminal", "shellsession"}
MAX_TEXT = 400_000  # longer replies are parsed up to here (the rest stays text)
MAX_CANDIDATES = 4000
MAX_FENCES = 500
MAX_ERRORS = 3
REPAIR_BUDGET = 2_000_000
REPAIR_COST = 10_000  # budget charged per repair attempt, on top of its length
CALL_FORM = '{"name": "<tool>", "arguments": {...}}'
_PATH_MISSES = {"file": "path", "filename": "path", "file_path": "path", "filepath": "path"}
_SYMBOL_MISSES = {"name": "symbol", "function": "symbol", "function_name": "symbol", "method": "symbol",
                  "symbol_name": "symbol", "target": "symbol"}
ARG_NEAR_MISSES: dict[str, dict[str, str]] = {  # argument names small models use for these tools' own
    "edit_symbol": {**_PATH_MISSES, **_SYMBOL_MISSES, "new": "code", "new_code": "code", "content": "code",
                    "source": "code", "body": "code", "replacement": "code", "definition": "code"},
    "outline": {**_PATH_MISSES, **_SYMBOL_MISSES},
}

_FENCE = re.compile(
    r"^[ \t]*(?P<tick>`{3,}|~{3,})[ \t]*(?P<lang>[\w+.#-]*)[^\n]*\n(?P<body>.*?)(?:^[ \t]*(?P=tick)[ \t]*$|\Z)",
    re.M | re.S,
)
_NAME_KEY = re.compile(r"""['"]?\b(?:name|tool|tool_name|function|action)\b['"]?\s*:""")
_ARG_KEY = re.compile(r"""['"]?\b(?:arguments|args|parameters|params|input)\b['"]?\s*:""")
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_JSON_WORDS = re.compile(r"\b(true|false|null)\b")
_TAGS = re.compile(r"</?tool_call>|\[TOOL_CALLS\]|<\|python_tag\|>")
_EMPTY_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[\w+.#-]*\s*\1[ \t]*$", re.M)
_DECODER = json.JSONDecoder(strict=False)


@dataclass
class ParseResult:
    calls: list[ToolCall] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # short messages to send back to the model
    text: str = ""  # the reply with the call blocks removed
    prose: str = ""  # the reply without the calls and without the broken attempts at one: what a person reads


@dataclass
class _Found:
    start: int
    end: int
    calls: list[tuple[str, dict[str, Any]]]
    errors: list[str]


def extract_tool_calls(text: str, tool_names: set[str]) -> ParseResult:
    """Find text-form tool calls; unknown names and broken attempts become ``errors``. Never raises."""
    try:
        return _extract(text if isinstance(text, str) else str(text), set(tool_names))
    except Exception:  # noqa: BLE001 - model output must never crash the agent
        return ParseResult(text=text if isinstance(text, str) else "", prose=text if isinstance(text, str) else "")


def _extract(text: str, names: set[str]) -> ParseResult:
    head = text[:MAX_TEXT]
    fences = [(m.start(), m.end(), m.start("body"), m.end("body"), m.group("lang").lower())
              for m in itertools.islice(_FENCE.finditer(head), MAX_FENCES)]
    found, broken = _scan_json(head, names)
    calls: list[ToolCall] = []
    errors: list[str] = []
    spans: list[tuple[int, int]] = []
    for item in found:
        fence = next((f for f in fences if f[2] <= item.start and item.end <= f[3]), None)
        source = "fence" if fence else "json"
        calls.extend(ToolCall(name, args, source=source) for name, args in item.calls)
        errors.extend(item.errors)
        spans.append((item.start, item.end))
    for start, end in broken:
        if not any(start <= f.start < end for f in found):
            errors.append(_malformed(head[start:end]))
    for start, end, body_start, body_end, lang in fences:
        if lang in PY_LANGS and not any(start <= s < end for s, _ in spans):
            py_calls, py_errors = _python_calls(head[body_start:body_end], names)
            calls.extend(ToolCall(name, args, source="fence") for name, args in py_calls)
            errors.extend(py_errors)
            if py_calls or py_errors:
                spans.append((start, end))
    if not calls and not errors and "run_command" in names:
        for start, end, body_start, body_end, lang in fences:
            if lang in SHELL_LANGS:
                command = _shell_command(head[body_start:body_end])
                if command:
                    calls.append(ToolCall("run_command", {"command": command}, source="shell"))
                    spans.append((start, end))
    text_spans = _widen_to_fences(head, spans, fences)
    return ParseResult(calls=_dedupe(calls), errors=list(dict.fromkeys(errors))[:MAX_ERRORS],
                       text=_remove(head, text_spans) + text[MAX_TEXT:],
                       prose=_remove(head, _widen_to_fences(head, spans + broken, fences)) + text[MAX_TEXT:])


# -- finding JSON ----------------------------------------------------------

def _scan_json(text: str, names: set[str]) -> tuple[list[_Found], list[tuple[int, int]]]:
    """Decode JSON at every '{' (and '[' before a '{'); keep call-like objects, note broken attempts."""
    found: list[_Found] = []
    broken: list[tuple[int, int]] = []
    consumed = broken_until = 0
    budget = REPAIR_BUDGET  # the slow repair path is rationed, to stay linear on hostile input
    tool_word = re.compile("|".join(rf"\b{re.escape(n)}\b" for n in sorted(names)) or r"(?!)")
    for count, match in enumerate(re.finditer(r"\{|\[(?=\s*\{)", text)):
        start = match.start()
        if count > MAX_CANDIDATES:
            break
        if start < consumed:
            continue
        repair = tool_word if budget > 0 and start >= broken_until else None
        obj, end, cost = _decode_at(text, start, repair)
        budget -= cost
        if obj is _BROKEN:
            broken.append((start, end))
            broken_until = end
            continue
        if obj is None:
            continue
        calls, errors = _interpret(obj, names)
        if calls or errors:
            found.append(_Found(start, end, calls, errors))
            consumed = end
    return found, broken


_BROKEN = object()  # marker: not JSON, but clearly an attempted call


def _decode_at(text: str, start: int, tool_word: re.Pattern[str] | None) -> tuple[Any, int, int]:
    """(value, end, repair cost) for JSON at ``start``. With ``tool_word``, repairable JSON too, and
    (_BROKEN, end of the attempt, cost) for a clearly attempted call that cannot be read; (None, 0, cost) else."""
    try:
        obj, end = _DECODER.raw_decode(text, start)
        return obj, end, 0
    except (ValueError, RecursionError):
        pass
    window = text[start:start + 400]
    if tool_word is None or not (_NAME_KEY.search(window) and (_ARG_KEY.search(window) or tool_word.search(window))):
        return None, 0, 0
    close = _balanced_end(text, start)
    end = close if close is not None else len(text)
    obj = _loads_loose(text[start:close]) if close is not None else None
    if obj is None and (found := requote(text, start)) is not None:  # bare quotes inside a code argument
        obj, end = found
    if obj is None and close is None and (found := closed_at_fence(text, start, _loads_loose)) is not None:
        obj, end = found
    if obj is None and close is None and (found := closed_at_end(text, start, _loads_loose)) is not None:
        obj, end = found
    return (obj if obj is not None else _BROKEN), end, end - start + REPAIR_COST


def _balanced_end(text: str, start: int, limit: int = MAX_TEXT) -> int | None:
    """Index just past the bracket matching text[start], skipping quoted strings; None if unclosed."""
    depth = 0
    quote = ""
    escaped = False
    stop = min(len(text), start + limit)
    for index in range(start, stop):
        char = text[index]
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def _loads_loose(snippet: str) -> Any:
    """JSON, then JSON without trailing commas (and with ``\'`` read as the code meant it), then a Python literal
    (single quotes, True/None)."""
    candidates = [snippet, _TRAILING_COMMA.sub(r"\1", snippet)]
    if "\\'" in snippet:
        candidates.append(quote_escapes(candidates[1]))
    for candidate in candidates:
        try:
            return loads_json(candidate, "the model's tool call", strict=False)
        except (ValueError, RecursionError):
            pass
    pythonish = candidates[1]
    for candidate in (pythonish, _JSON_WORDS.sub(lambda m: {"true": "True", "false": "False"}.get(
            m.group(1), "None"), pythonish)):
        try:
            value = ast.literal_eval(candidate)
        except Exception:  # noqa: BLE001 - literal_eval raises many kinds
            continue
        if isinstance(value, (dict, list)):
            return value
    return None


# -- interpreting objects --------------------------------------------------

def _interpret(obj: Any, names: set[str]) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    calls: list[tuple[str, dict[str, Any]]] = []
    errors: list[str] = []
    items = obj if isinstance(obj, list) else [obj]
    for item in items:
        if not isinstance(item, dict):
            continue
        nested = item.get("tool_calls")
        if isinstance(nested, list):
            more_calls, more_errors = _interpret(nested, names)
            calls += more_calls
            errors += more_errors
            continue
        call, error = _one_call(item, names)
        if call:
            calls.append(call)
        if error:
            errors.append(error)
    return calls, errors


def _one_call(item: dict[str, Any], names: set[str]) -> tuple[tuple[str, dict[str, Any]] | None, str | None]:
    body = item
    if isinstance(item.get("function"), dict):  # {"function": {"name": ..., "arguments": ...}}
        body = {**{k: v for k, v in item.items() if k != "function"}, **item["function"]}
    name_key = next((k for k in NAME_KEYS if isinstance(body.get(k), str) and body[k].strip()), None)
    if name_key is None:
        return None, None
    raw_name = body[name_key].strip()
    arg_key = next((k for k in ARG_KEYS if k in body), None)
    tool = _match_tool(raw_name, names)
    if tool is None:
        if name_key == "name" and arg_key is None:
            return None, None  # ordinary JSON with a "name" field (package.json, ...), not a call
        return None, _unknown(raw_name, names)
    if arg_key is None:
        ignore = {name_key, "type", "id"}
        return (tool, _renamed(tool, {k: v for k, v in body.items() if k not in ignore})), None
    args = body[arg_key]
    if isinstance(args, str):
        parsed = _loads_loose(args) if args.strip() else {}
        args = parsed if isinstance(parsed, dict) else args
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return None, (f"The arguments for {tool} must be a JSON object like {{\"path\": \"app.py\"}}, "
                      f"not {json.dumps(args)[:80]}. Write the call as {CALL_FORM}.")
    return (tool, _renamed(tool, args)), None


def _renamed(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """Near-miss argument names under their real ones (never over an argument that is present)."""
    table = ARG_NEAR_MISSES.get(tool, {})
    out = dict(args)
    for wrong, right in table.items():
        if wrong in out and right not in out:
            out[right] = out.pop(wrong)
    return out


def _match_tool(name: str, names: set[str]) -> str | None:
    if name in names:
        return name
    simple = re.sub(r"^(functions|function|tools|default_api)[.:]", "", name.strip().lower())
    simple = re.sub(r"[\s-]+", "_", simple).removesuffix("()")
    lowered = {n.lower(): n for n in names}
    return lowered.get(simple)


def _unknown(name: str, names: set[str]) -> str:
    known = ", ".join(sorted(names)) or "none"
    message = f"There is no tool named {name[:80]!r}. Available tools: {known}. Write a call as {CALL_FORM}."
    if ("." in name or "/" in name) and " " not in name and "read_file" in names:
        message += f" {name!r} looks like a file path: to read it, call read_file with {{\"path\": \"{name}\"}}."
    return message


def _malformed(snippet: str) -> str:
    short = " ".join(snippet.split())[:120]
    return (f"Your tool call could not be read as JSON: {short!r}. Write exactly one JSON object, "
            f"{CALL_FORM}, with double quotes, escaped newlines and no trailing commas.")


def _python_calls(body: str, names: set[str]) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """A fence holding only ``tool(key=literal, ...)`` lines (optionally inside print()) is a call each."""
    if len(body) > 100_000 or not any(re.search(rf"\b{re.escape(n)}\s*\(", body) for n in names):
        return [], []
    try:
        tree = parse_python(body.strip())
    except Exception:  # noqa: BLE001 - not Python: not a call
        return [], []
    found: list[tuple[str, dict[str, Any]]] = []
    for stmt in tree.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print" \
                and len(call.args) == 1 and isinstance(call.args[0], ast.Call):
            call = call.args[0]
        func = call.func if isinstance(call, ast.Call) else None
        fname = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        tool = _match_tool(fname, names) if fname else None
        if tool is None or not isinstance(call, ast.Call):
            return [], []  # ordinary code, not a list of calls
        if call.args or any(kw.arg is None for kw in call.keywords):
            return [], [f"Call {tool} with named arguments, as JSON: {CALL_FORM}."]
        try:
            found.append((tool, {str(kw.arg): ast.literal_eval(kw.value) for kw in call.keywords}))
        except Exception:  # noqa: BLE001 - a non-literal argument
            return [], [f"The arguments for {tool} must be plain values. Write the call as {CALL_FORM}."]
    return found, []


# -- shell blocks and the remaining text -----------------------------------

def _shell_command(body: str) -> str:
    lines = body.splitlines()
    prompted = [line.lstrip() for line in lines if line.lstrip().startswith("$ ")]
    if prompted:  # a console transcript: keep the commands, drop their output
        lines = [line[2:] for line in prompted]
    command = "\n".join(lines).strip()
    useful = [line for line in command.splitlines() if line.strip() and not line.strip().startswith("#")]
    return command if useful else ""


def _widen_to_fences(text: str, spans: list[tuple[int, int]], fences: list[tuple[int, int, int, int, str]]
                     ) -> list[tuple[int, int]]:
    """A fence whose body holds nothing but calls is removed whole."""
    out = list(spans)
    for start, end, body_start, body_end, _lang in fences:
        inside = [s for s in spans if body_start <= s[0] and s[1] <= body_end]
        if inside and not _TAGS.sub("", _remove(text[body_start:body_end],
                                                [(s - body_start, e - body_start) for s, e in inside])).strip():
            out.append((start, end))
    return out


def _remove(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    pieces: list[str] = []
    cursor = 0
    for start, end in sorted(spans):
        if end <= cursor:
            continue
        pieces.append(text[cursor:max(start, cursor)])
        cursor = end
    pieces.append(text[cursor:])
    cleaned = _EMPTY_FENCE.sub("", _TAGS.sub("", "".join(pieces)))
    return re.sub(r"\n{3,}", "\n\n", cleaned).strip()


def _dedupe(calls: list[ToolCall]) -> list[ToolCall]:
    seen: set[str] = set()
    out: list[ToolCall] = []
    for call in calls:
        key = call.name + json.dumps(call.arguments, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            out.append(call)
    return out


# -- constrained output ------------------------------------------------------

def tool_call_schema(tools: list[dict[str, Any]], *, per_tool: bool = True) -> dict[str, Any]:
    """A JSON schema for Ollama's ``format``: one call, the name from the tools, arguments per tool.

    ``tools`` are in the function format sent to the model ({"type": "function", "function": {...}})
    or plain {"name", "parameters"} dicts. ``per_tool=False`` gives the simpler schema
    (name as an enum, arguments any object) for servers that reject ``anyOf``.
    """
    specs: list[tuple[str, dict[str, Any]]] = []
    for tool in tools:
        fn = tool.get("function", tool) if isinstance(tool, dict) else {}
        name = fn.get("name") if isinstance(fn, dict) else None
        if isinstance(name, str) and name:
            params = fn.get("parameters")
            specs.append((name, dict(params) if isinstance(params, dict) else {"type": "object"}))
    names = [name for name, _ in specs]
    simple = {"type": "object", "properties": {"name": {"type": "string", "enum": names},
                                               "arguments": {"type": "object"}},
              "required": ["name", "arguments"]}
    if not per_tool or not specs:
        return simple
    variants = []
    for name, params in specs:
        arguments = {"type": "object", "properties": params.get("properties", {}),
                     "required": list(params.get("required", []))}
        variants.append({"type": "object",
                         "properties": {"name": {"type": "string", "enum": [name]}, "arguments": arguments},
                         "required": ["name", "arguments"]})
    return variants[0] if len(variants) == 1 else {"anyOf": variants}
