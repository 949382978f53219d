"""The model's code as text, before it is placed: the Markdown fence around it, a reply cut at its token limit, the
docstring left out of a prompt and put back, and whether a rewrite changed anything but its formatting.
"""

from __future__ import annotations

import re
from typing import Any

from tui.safety.parsing import parse_python

_OPENING = re.compile(r"\A\s*```[\w+-]*[ \t]*\n")
_CLOSING = re.compile(r"\n?```\s*\Z")


def code_of(value: Any) -> str:
    """The code of a ``{"code": ...}`` reply, without the Markdown fence a model often wraps it in (in JS a fence
    still parses, as a call of an empty template string, and fails only when run). The opening and the closing
    fence go each on its own: a reply cut at the token limit has only the first."""
    code = value.get("code") if isinstance(value, dict) else None
    if not isinstance(code, str) or not code.strip():
        return ""
    opened = _OPENING.match(code)
    if opened:
        code = _CLOSING.sub("", code[opened.end():])
    return code


def whole_python(code: str) -> str:
    """Python code cut short (a reply that reached its token limit mid-definition) without the top-level statement
    it was cut in: the longest run of whole top-level statements from the start. Code that parses, or whose start
    does not, is returned as it is (its check says what is wrong)."""
    from tui.safety.parsing import parse_python

    def parses(text: str) -> bool:
        try:
            parse_python(text)
        except (SyntaxError, ValueError, RecursionError):
            return False
        return True

    if parses(code):
        return code
    lines = code.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if i and line[:1] not in ("", " ", "\t", "\n", "#", ")", "]", "}")]
    for i in reversed(starts):
        head = "".join(lines[:i]).rstrip() + "\n"
        if head.strip() and parses(head):
            return head
    return code


def elide_docstring(code: str) -> tuple[str, str]:
    """(the definition with a long docstring left out, the docstring's lines) for a shorter prompt; a short one
    stays in the code shown, and its lines are still returned (a rewrite that drops it gets it back)."""
    import ast

    try:
        import textwrap

        node = parse_python(textwrap.dedent(code)).body[0]
    except (SyntaxError, ValueError, IndexError, RecursionError):
        return code, ""
    body = getattr(node, "body", None)
    if not body or not (isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant)
                        and isinstance(body[0].value.value, str)):
        return code, ""
    first, last = body[0].lineno, body[0].end_lineno or body[0].lineno
    lines = code.split("\n")
    doc = "\n".join(lines[first - 1:last])
    if last - first < 3:
        return code, doc
    return "\n".join(lines[:first - 1] + lines[last:]), doc


def restore_docstring(code: str, doc: str) -> str:
    """Put ``doc`` back as the first statement of ``code`` when the model's version has none (found by parsing:
    a signature over several lines, decorators and all)."""
    import ast
    import textwrap

    if not doc:
        return code
    try:
        node = parse_python(textwrap.dedent(code)).body[0]
    except (SyntaxError, ValueError, IndexError, RecursionError):
        return code
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or not node.body or \
            ast.get_docstring(node, clean=False) is not None or node.body[0].lineno <= node.lineno:
        return code
    lines = code.split("\n")
    at = node.body[0].lineno - 1
    body_indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())]
    doc_lines = doc.split("\n")
    doc_indent = doc_lines[0][:len(doc_lines[0]) - len(doc_lines[0].lstrip())]
    fixed = [body_indent + ln[len(doc_indent):] if ln.startswith(doc_indent) else ln for ln in doc_lines]
    return "\n".join(lines[:at] + fixed + lines[at:])


def same_code(rel: str, before: str, after: str) -> bool:
    """Python that parses to the same tree (quotes, spacing, comments changed, nothing else): no change at all, so
    never a candidate (it passes every check the code as it was passes)."""
    import ast

    if not rel.endswith(".py"):
        return False
    try:
        return ast.dump(parse_python(before)) == ast.dump(parse_python(after))
    except (SyntaxError, ValueError, RecursionError):
        return False


def joined_strings(code: str, limit: int = 20) -> str:
    """Python whose one-line string literals were broken by a newline (the model wrote ``\\n`` inside a quoted
    string in its JSON reply, which decoding turned into a line break): each such literal joined again with the
    ``\\n`` escape it meant, while what is broken is an unterminated one-line string. Code that parses, or whose
    fault is something else, is returned as it is."""
    for _ in range(limit):
        try:
            parse_python(code)
            return code
        except SyntaxError as err:
            if "unterminated string literal" not in str(err.msg) or not err.lineno:
                return code
            lines = code.split("\n")
            at = err.lineno - 1
            if at + 1 >= len(lines):
                return code
            lines[at:at + 2] = [lines[at] + "\\n" + lines[at + 1]]
            code = "\n".join(lines)
        except (ValueError, RecursionError):
            return code
    return code
