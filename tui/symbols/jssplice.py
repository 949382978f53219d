"""Replace or add a JS/TS definition by name; the code and the result must balance.

Without a parser, "valid" means what the scanner can check: every bracket matched, no
unterminated string, comment or template. A replaced definition keeps its ``export`` keyword (never one for a
name exported through ``module.exports``: that would make a CommonJS file an ES module) when the
code leaves it out; ``function f`` given for a method loses the keyword (and a method-shaped
``f() {}`` given for a function gains it). Methods go before the class's closing brace.
"""

from __future__ import annotations

from tui.protocol.errors import ToolError
from tui.symbols.indent import clean_code, convert_unit, indent_block, indent_unit
from tui.symbols.jsscan import scan
from tui.symbols.jssyms import Parser, js_symbols
from tui.symbols.model import Symbol, find, walk
from tui.symbols.splice_common import (Spliced, ambiguous_names, insert_lines, located, no_parent,
                                            prepared)

_DECLARES = ("export", "function", "async", "class", "const", "let", "var", "interface", "type", "enum", "abstract",
             "declare", "@")


def _template_rows(code: str) -> set[int]:
    """Rows that begin inside a template literal: their leading whitespace is content."""
    result = scan(code)
    rows: set[int] = set()
    for tok in result.tokens:
        if tok.kind == "tmpl":
            first, last = result.line_of(tok.start), result.line_of(tok.end - 1)
            rows.update(range(first, last))  # 0-based rows after the first line of the literal
    return rows


def _shape(code: str) -> str:
    """'method' for ``name(...) {``-shaped code, 'function' for a declaration, '' otherwise."""
    result = scan(code)
    tokens = result.tokens
    if not tokens:
        return ""
    parser = Parser(result)
    if tokens[0].text not in _DECLARES or tokens[0].text == "async" and parser.tok(1).text != "function":
        members = parser.members(0, len(tokens), "")
        if members and members[0].kind == "method" and "signature" not in members[0].marks:
            return "method"  # ``name(...) {`` with a body; ``it('x', function (t) {...});`` is a call
    return "function" if js_symbols(code)[0] else ""


def _reshape(code: str, target: Symbol | None, in_class: bool) -> str:
    """Match the code's form to where it goes: keyword, ``export``."""
    shape = _shape(code)
    stripped = code.lstrip()
    if in_class and stripped.startswith(("function ", "async function ")):
        code = code.replace("function ", "", 1)
    elif not in_class and shape == "method" and (target is None or target.kind == "function"):
        code = ("async function " + code[len("async "):]) if stripped.startswith("async ") else "function " + code
    if target is not None and "exported" in target.marks and "commonjs" not in target.marks and \
            not stripped.startswith(("export ", "@")):
        code = ("export default " if "default" in target.marks else "export ") + code
    return code


def _problem(error: str, where: str) -> str:
    """'line 3: x' -> 'x (line 3 of the code)'."""
    head, _, message = error.partition(": ")
    return f"{message} ({head} {where})"


class _Splice:
    def __init__(self, text: str, rel: str) -> None:
        self.text, self.rel = text, rel
        self.symbols, self.error = js_symbols(text)
        self.unit = indent_unit(text, default="  ")
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()

    def block(self, code: str, indent: str) -> list[str]:
        return indent_block(convert_unit(code, self.unit, _template_rows(code)), indent)

    def replace(self, targets: list[Symbol], code: str) -> tuple[str, int, int]:
        first, last = targets[0], targets[-1]
        start, end = first.span[0], last.span[1]
        line_start = self.text.rfind("\n", 0, start) + 1
        block = self.block(code, first.indent)
        if not self.text[line_start:start].strip():
            start = line_start
        else:  # something else precedes it on its line: the block continues that line
            block[0] = block[0][len(first.indent):]
        tail = self.text[end:].split("\n", 1)[0]
        joined = "\n".join(block)
        if tail.strip()[:1] in (";", ",") and joined.rstrip().endswith(tail.strip()[0]):
            joined = joined.rstrip()[:-1]
        new_text = self.text[:start] + joined + self.text[end:]
        first_line = self.text.count("\n", 0, start) + 1
        return new_text, first_line, first_line + len(block) - 1

    def add(self, parent: Symbol | None, code: str) -> tuple[str, int, int]:
        if parent is not None:
            indent = parent.body_indent or parent.indent + self.unit
            block = self.block(code, indent)
            close = parent.close_line
            if close <= parent.line or not self.lines[close - 1].strip().startswith("}"):
                raise ToolError(f"class {parent.qualname} ends on the line it starts; add the method with edit_file")
            before = self.lines[:close - 1]
            while before and not before[-1].strip():
                before.pop()
            gap = [] if before and before[-1].rstrip().endswith("{") else [""]
            self.lines[:] = before + gap + block + self.lines[close - 1:]
            first_line = len(before) + len(gap) + 1
        else:
            tops = [s for s in self.symbols if s.kind != "const" or s.children]
            at = max((s.end for s in tops), default=len(self.lines))
            block = self.block(code, "")
            first_line = insert_lines(self.lines, at, block, blank=1)
        return "\n".join(self.lines) + "\n", first_line, first_line + len(block) - 1


def splice_js(text: str, symbol: str, code: str, rel: str) -> Spliced:
    """``text`` with ``symbol`` replaced by (or, when it does not exist, extended with) ``code``."""
    text, bom, wanted = prepared(text, symbol)
    code = clean_code(code)
    if not code.strip():
        raise ToolError("argument 'code' is empty: give the whole new definition")
    checked = scan(code)
    if checked.error:
        raise ToolError(f"your code does not balance: {_problem(checked.error, 'of the code')}; nothing was changed")
    splice = _Splice(text, rel)
    found = find(splice.symbols, wanted)
    if len(found) == 1 and found[0].kind == "class" and _shape(code) == "method":  # a class named, a method given
        shaped = scan(code)
        wanted = f"{found[0].qualname}.{Parser(shaped).members(0, len(shaped.tokens), '')[0].name}"
        found = find(splice.symbols, wanted)
    name = wanted.rsplit(".", 1)[-1]
    if len({s.qualname for s in found}) > 1:
        raise ToolError(ambiguous_names(wanted, found, rel))
    note = ""
    if found:
        bodies = [s for s in found if "signature" not in s.marks]
        targets = found if len(bodies) != 1 or len(found) == 1 else bodies
        in_class = found[0].kind in ("method", "field")
        new_text, first, last = splice.replace(targets, _reshape(code, targets[0], in_class))
        action, defined = "replaced", found[0].qualname
    else:
        head = wanted.rpartition(".")[0]
        parent = next((s for s in walk(splice.symbols) if s.kind == "class" and s.qualname == head), None)
        if head and parent is None:
            raise ToolError(no_parent(head, splice.symbols, rel))
        classes = [s for s in splice.symbols if s.kind == "class"]
        if parent is None and _shape(code) == "method" and len(classes) == 1:
            parent, note = classes[0], f"added to class {classes[0].name} because the code is a method"
        new_text, first, last = splice.add(parent, _reshape(code, None, parent is not None))
        action, defined = "added", f"{parent.qualname}.{name}" if parent else name
    after = scan(new_text)
    if after.error and not splice.error:
        raise ToolError(f"the result would not balance: {_problem(after.error, 'of ' + rel)}; nothing was changed")
    start, end = located(js_symbols(new_text)[0], defined, first, last)
    return Spliced(bom + new_text, action, defined, start, end, note)
