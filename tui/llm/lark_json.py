"""A reply's JSON schema as an llguidance (Lark) grammar whose strings may also hold ``\\'``.

A small model writing JavaScript inside a JSON string escapes a quote in a single-quoted string the way the
language does (``'the string \\'a\\''``). ``\\'`` is not a JSON escape, so under the server's own JSON grammar
the backslash cannot be written and the string is closed there instead: the code arrives cut off at its first
such quote (seen on qs: every candidate test ended at "for the string "). The grammar built here is the same
JSON, with ``\\'`` allowed inside strings; the reply is read back with tui.llm.requote.quote_escapes (the
backslash stays where the code's own single-quoted literal needs it).

Only the shapes devagent's narrow questions use are converted (objects with properties, strings, string enums,
arrays, numbers, integers, booleans); for anything else ``lark_grammar`` returns None and the caller sends the
schema itself.
"""

from __future__ import annotations

import json
from typing import Any

_LEXEMES = (
    r'STR: /"(?:[^"\\\x00-\x1f]|\\["\\\/bfnrt' + "'" + r']|\\u[0-9a-fA-F]{4})*"/',
    r"INT: /-?(?:0|[1-9][0-9]{0,15})/",
    r"NUM: /-?(?:0|[1-9][0-9]{0,15})(?:\.[0-9]{1,16})?(?:[eE][+-]?[0-9]{1,3})?/",
    r"WS: /[ \t\n]{0,20}/",
)
_KNOWN = {"type", "properties", "required", "items", "minItems", "maxItems", "enum", "description", "title",
          "additionalProperties"}


class _Unsupported(Exception):
    pass


def _literal(value: str) -> str:
    """A Lark string literal matching the JSON text of ``value``."""
    return json.dumps(json.dumps(value))


def _node(schema: Any, depth: int = 0) -> str:
    if not isinstance(schema, dict) or depth > 8 or set(schema) - _KNOWN:
        raise _Unsupported
    if "enum" in schema:
        values = schema["enum"]
        if not values or not all(isinstance(v, str) for v in values):
            raise _Unsupported
        return "(" + " | ".join(_literal(v) for v in values) + ")"
    kind = schema.get("type")
    if kind == "string":
        return "STR"
    if kind == "integer":
        return "INT"
    if kind == "number":
        return "NUM"
    if kind == "boolean":
        return '("true" | "false")'
    if kind == "array":
        return _array(schema, depth)
    if kind == "object":
        return _object(schema, depth)
    raise _Unsupported


def _array(schema: dict[str, Any], depth: int) -> str:
    item = _node(schema.get("items", {"type": "string"}), depth + 1)
    low, high = int(schema.get("minItems") or 0), schema.get("maxItems")
    if high is not None and (int(high) < low or int(high) > 12):
        raise _Unsupported
    more = f'(WS "," WS {item})'
    if low == 0:
        inner = f"({item} {more}*)?" if high is None else \
            ("" if int(high) == 0 else f"({item}" + f" {more}?" * (int(high) - 1) + ")?")
    else:
        inner = f"{item}" + f" {more}" * (low - 1) + (f" {more}*" if high is None else f" {more}?" * (int(high) - low))
    return f'"[" WS {inner} WS "]"'


def _object(schema: dict[str, Any], depth: int) -> str:
    props = schema.get("properties") or {}
    if not isinstance(props, dict) or not props:
        raise _Unsupported
    required = [k for k in props if k in (schema.get("required") or [])]
    optional = [k for k in props if k not in required]
    if not required:
        raise _Unsupported
    pairs = [f"{_literal(k)} WS \":\" WS {_node(props[k], depth + 1)}" for k in required]
    body = ' WS "," WS '.join(pairs)
    body += "".join(f' (WS "," WS {_literal(k)} WS ":" WS {_node(props[k], depth + 1)})?' for k in optional)
    return f'"{{" WS {body} WS "}}"'


def lark_grammar(schema: Any) -> str | None:
    """The llguidance grammar for ``schema`` with lenient strings; None when the schema has a shape not handled."""
    try:
        start = _node(schema)
    except (_Unsupported, TypeError, ValueError):
        return None
    return "%llguidance {}\nstart: " + start + "\n" + "\n".join(_LEXEMES) + "\n"
