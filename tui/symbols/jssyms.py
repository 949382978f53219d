"""JS/TS definitions from the scanner's tokens: functions, classes and members, arrow consts, types.

Found: ``function f``, ``class C`` (methods, accessors, static, ``#private``, arrow-function
fields, TS overload signatures), ``const f = (...) =>`` / ``= function``, object-literal methods
of a top-level const, ``interface``, ``type``, ``enum``, ``exports.f = ...``, ``module.exports =
function`` (named ``module.exports``); ``export`` and
``export default`` included. Statement ends follow semicolons, else a newline where the code
cannot continue (the usual automatic-semicolon rule, approximated).
"""

from __future__ import annotations

import re

from tui.symbols.jsscan import Scan, Tok, scan
from tui.symbols.model import Symbol

DECL_START = {"export", "function", "class", "const", "let", "var", "interface", "type", "enum", "import", "async",
              "@", "abstract", "declare", "namespace", "module"}
LEADING = ("export", "default", "declare", "abstract", "async")
MODIFIERS = {"public", "private", "protected", "static", "readonly", "async", "abstract", "override", "declare",
             "accessor", "get", "set"}
TYPE_CTX = {":", "<", ",", "|", "&", "=>", "extends", "keyof", "typeof"}
CONT_END = {"=", "=>", ",", "+", "-", "*", "/", "%", "&&", "||", "??", "?", ":", ".", "?.", "(", "[", "{", "|", "&",
            "<", ">", "==", "===", "!=", "!==", "<=", ">=", "!", "~", "^", "..."}
CONT_WORDS = {"new", "typeof", "in", "instanceof", "await", "yield", "extends", "keyof", "as", "return", "of"}
CONT_START = {".", "?.", "+", "-", "*", "/", "%", "&&", "||", "??", "?", ":", "=>", "=", ",", "==", "===", "!=",
              "!==", "<", ">", "<=", ">=", "|", "&", "^"}
CONT_START_WORDS = {"as", "satisfies", "instanceof", "in", "extends", "implements"}
_END = Tok("p", "", 0, 0)


class Parser:
    def __init__(self, result: Scan) -> None:
        self.s, self.t, self.text = result, result.tokens, result.text

    def tok(self, i: int) -> Tok:
        return self.t[i] if 0 <= i < len(self.t) else _END

    def after(self, i: int) -> int:
        """The index after token ``i``, past its whole bracket group when it opens one."""
        return self.s.match.get(i, i) + 1

    def new_line(self, i: int) -> bool:
        """Token ``i`` starts a line after token ``i - 1``."""
        return i > 0 and "\n" in self.text[self.t[i - 1].end:self.t[i].start]

    def continues(self, k: int, n: int) -> bool:
        a, b = self.t[k], self.t[n]
        if (a.kind == "p" and a.text in CONT_END) or (a.kind == "id" and a.text in CONT_WORDS):
            return True
        return (b.kind == "p" and b.text in CONT_START) or (b.kind == "id" and b.text in CONT_START_WORDS)

    def statement_end(self, i: int, j: int) -> int:
        """The last token of the statement starting at ``i`` (``;`` included), within ``[i, j)``."""
        k = i
        while True:
            k = self.s.match.get(k, k)
            n = k + 1
            if n >= j or self.t[k].text == ";":
                return min(k, j - 1)
            if self.new_line(n) and not self.continues(k, n):
                return k
            k = n

    def body_after(self, k: int, j: int) -> tuple[int | None, int]:
        """(index of the body ``{``, or None for a signature; index of the last token)."""
        while k < j:
            tok = self.t[k]
            if tok.text == "{" and self.tok(k - 1).text not in TYPE_CTX:
                return k, self.s.match.get(k, j - 1)
            if tok.text == ";":
                return None, k
            if self.new_line(k) and not self.continues(k - 1, k):
                return None, k - 1
            k = self.after(k)
        return None, j - 1

    def symbol(self, name: str, kind: str, first: int, name_at: int, last: int, prefix: str,
               marks: list[str]) -> Symbol:
        a, b = self.t[first], self.t[max(first, last)]
        line_start = self.s.line_start(a.start)
        before = self.text[line_start:a.start]
        indent = before if not before.strip() else before[: len(before) - len(before.lstrip())]
        return Symbol(name, kind, self.s.line_of(a.start), self.s.line_of(b.end - 1), self.s.line_of(self.t[name_at].start),
                      f"{prefix}{name}", marks, indent=indent, span=(a.start, b.end))

    # -- statements ---------------------------------------------------------------------------
    def statements(self, i: int, j: int, prefix: str = "") -> list[Symbol]:
        out: list[Symbol] = []
        while i < j:
            start = i
            while i < j and self.t[i].text == "@":
                i = self.decorator(i)
            marks: list[str] = []
            while i + 1 < j and self.t[i].text in LEADING and self.t[i + 1].kind == "id":
                marks.append({"export": "exported"}.get(self.t[i].text, self.t[i].text))
                i += 1
            word = self.tok(i).text
            if word == "function":
                sym, i = self.function(start, i, j, prefix, marks, "function")
            elif word == "class":
                sym, i = self.klass(start, i, j, prefix, marks)
            elif word in ("interface", "enum") and self.tok(i + 1).kind == "id":
                sym, i = self.braced(start, i, j, prefix, marks, word)
            elif word == "const" and self.tok(i + 1).text == "enum":
                sym, i = self.braced(start, i + 1, j, prefix, marks, "enum")
            elif word == "type" and self.tok(i + 1).kind == "id" and self.tok(i + 2).text in ("=", "<"):
                end = self.statement_end(i, j)
                sym, i = self.symbol(self.t[i + 1].text, "type", start, i + 1, end, prefix, marks), end + 1
            elif word in ("const", "let", "var") and self.tok(i + 1).kind == "id":
                sym, i = self.variable(start, i, j, prefix, marks)
            elif word in ("exports", "module") and self.tok(i + 1).text == ".":
                sym, i = self.exports(start, i, j, prefix)
            else:
                sym, i = None, self.skip(max(i, start), j)
            if sym is not None:
                out.append(sym)
            i = max(i, start + 1)
        return out

    def skip(self, i: int, j: int) -> int:
        """Past an uninteresting statement: to its ``;`` or to the next line that starts a declaration."""
        k = i
        while k < j:
            if self.t[k].text == ";":
                return k + 1
            k = self.after(k)
            if k < j and self.new_line(k) and self.t[k].text in DECL_START and not self.continues(k - 1, k):
                return k
        return j

    def decorator(self, i: int) -> int:
        i += 1
        while self.tok(i).kind == "id" or self.tok(i).text == ".":
            i += 1
        return self.after(i) if self.tok(i).text == "(" else i

    def function(self, start: int, i: int, j: int, prefix: str, marks: list[str], kind: str) -> tuple[Symbol, int]:
        k = i + 1
        if self.tok(k).text == "*":
            marks, k = [*marks, "generator"], k + 1
        name_at = k if self.tok(k).kind == "id" else i
        name = self.t[k].text if name_at == k else "default"
        while k < j and self.t[k].text != "(":
            k = self.after(k)
        body, last = self.body_after(self.after(k), j)
        if body is None:
            marks = [*marks, "signature"]
        return self.symbol(name, kind, start, name_at, last, prefix, marks), last + 1

    def klass(self, start: int, i: int, j: int, prefix: str, marks: list[str]) -> tuple[Symbol, int]:
        name_at = i + 1 if self.tok(i + 1).kind == "id" and self.tok(i + 1).text not in ("extends", "implements") else i
        name = self.t[name_at].text if name_at != i else "default"
        k = i + 1
        while k < j and not (self.t[k].text == "{" and self.tok(k - 1).text not in TYPE_CTX):
            k = self.after(k)
        close = self.s.match.get(k, j - 1)
        sym = self.symbol(name, "class", start, name_at, close, prefix, marks)
        sym.close_line = self.s.line_of(self.t[close].start) if close < len(self.t) else sym.end
        sym.children = self.members(k + 1, close, f"{sym.qualname}.")
        sym.body_indent = next((c.indent for c in sym.children if c.start > self.s.line_of(self.t[k].start)), "")
        return sym, close + 1

    def braced(self, start: int, i: int, j: int, prefix: str, marks: list[str], kind: str) -> tuple[Symbol, int]:
        k = i + 2
        while k < j and self.t[k].text != "{":
            k = self.after(k)
        close = self.s.match.get(k, j - 1)
        return self.symbol(self.t[i + 1].text, kind, start, i + 1, close, prefix, marks), close + 1

    def is_function_value(self, v: int) -> bool:
        """Does an expression starting at ``v`` begin with a function or an arrow function?"""
        if self.tok(v).text == "async":
            v += 1
        tok = self.tok(v)
        if tok.text == "function":
            return True
        if tok.kind == "id":
            return self.tok(v + 1).text == "=>"
        if tok.text == "<":
            while v < len(self.t) and self.t[v].text != "(" and self.t[v].text != ";":
                v += 1
        if self.tok(v).text != "(":
            return False
        k = self.after(v)
        if self.tok(k).text == ":":
            while k < len(self.t) and self.t[k].text not in ("=>", ";", "{") and not self.new_line(k):
                k = self.after(k)
        return self.tok(k).text == "=>"

    def variable(self, start: int, i: int, j: int, prefix: str, marks: list[str]) -> tuple[Symbol, int]:
        name_at, end = i + 1, self.statement_end(i, j)
        k = i + 2
        while k <= end and self.t[k].text != "=":
            k = self.after(k)
        value = k + 1
        kind = "const"
        if k <= end and self.is_function_value(value):
            kind = "function"
            marks = [*marks, "arrow"] if self.tok(value).text != "function" and self.tok(value + 1).text != "function" \
                else marks
            if self.tok(value).text == "async":
                marks = [*marks, "async"]
        sym = self.symbol(self.t[name_at].text, kind, start, name_at, end, prefix, marks)
        if k <= end and self.tok(value).text == "{":
            sym.children = self.object_members(value + 1, self.s.match.get(value, end), f"{sym.qualname}.")
        return sym, end + 1

    def exports(self, start: int, i: int, j: int, prefix: str) -> tuple[Symbol | None, int]:
        k = i + 2 if self.t[i].text == "exports" else i + 4
        end = self.statement_end(i, j)
        if self.tok(k - 2).text == "exports" and self.tok(k).kind == "id" and self.tok(k + 1).text == "=" \
                and self.is_function_value(k + 2):
            return self.symbol(self.t[k].text, "function", start, k, end, prefix, ["exported"]), end + 1
        if self.t[i].text == "module" and self.tok(i + 2).text == "exports" and self.tok(i + 3).text == "=" \
                and self.is_function_value(i + 4):  # the module's one function (minimist, qs's parse): named so
            return self.symbol("module.exports", "function", start, i, end, prefix, ["exported"]), end + 1
        return None, end + 1

    # -- class and object members ----------------------------------------------------------------
    def member_name(self, i: int) -> tuple[str, int, int]:
        """(name, index of the name token, index after the name) at a member's name."""
        tok = self.tok(i)
        if tok.text == "[":
            close = self.s.match.get(i, i)
            return self.text[tok.start:self.t[close].end], i, close + 1
        if tok.kind in ("id", "num"):
            return tok.text, i, i + 1
        if tok.kind == "str":
            return tok.text[1:-1], i, i + 1
        return "", i, i + 1

    def members(self, i: int, j: int, prefix: str) -> list[Symbol]:
        out: list[Symbol] = []
        while i < j:
            if self.t[i].text in (";", ","):
                i += 1
                continue
            start = i
            while i < j and self.t[i].text == "@":
                i = self.decorator(i)
            marks: list[str] = []
            while self.tok(i).text in MODIFIERS and self.tok(i + 1).text not in ("(", "=", ";", ":", "?", "!", "<", ",", "}"):
                marks.append(self.t[i].text)
                i += 1
            if self.tok(i).text == "{":  # a static initialisation block
                i = self.after(i)
                continue
            if self.tok(i).text == "*":
                marks, i = [*marks, "generator"], i + 1
            name, name_at, k = self.member_name(i)
            if not name:
                i = self.after(i)
                continue
            if name.startswith("#"):
                marks.append("private")
            if self.tok(k).text in ("?", "!"):
                k += 1
            if self.tok(k).text == "<":
                while k < j and self.t[k].text != "(":
                    k = self.after(k)
            if self.tok(k).text == "(":
                body, last = self.body_after(self.after(k), j)
                if body is None:
                    marks.append("signature")
                kind = "method"
            else:
                last = self.statement_end(k, j)
                is_fn = self.tok(k).text == "=" and self.is_function_value(k + 1)
                kind = "method" if is_fn else "field"
                if is_fn:
                    marks.append("arrow")
            out.append(self.symbol(name, kind, start, name_at, last, prefix, marks))
            i = max(last + 1, i + 1)
        return out

    def object_members(self, i: int, j: int, prefix: str) -> list[Symbol]:
        out: list[Symbol] = []
        while i < j:
            start, k = i, i
            while k < j and self.t[k].text != ",":
                k = self.after(k)
            last, marks, m = k - 1, [], i
            while self.tok(m).text in ("async", "get", "set", "*") and self.tok(m + 1).text not in ("(", ":", ","):
                marks.append(self.t[m].text)
                m += 1
            name, name_at, n = self.member_name(m)
            if name and n <= last and (self.tok(n).text == "(" or
                                        (self.tok(n).text == ":" and self.is_function_value(n + 1))):
                out.append(self.symbol(name, "method", start, name_at, last, prefix, marks))
            i = k + 1
        return out


def js_symbols(text: str) -> tuple[list[Symbol], str]:
    """The definitions of a JS/TS file, and the scanner's first problem ('' when none)."""
    result = scan(text)
    try:
        symbols = Parser(result).statements(0, len(result.tokens))
    except (IndexError, KeyError, RecursionError):  # defensive: hostile text must never crash the tool
        return [], result.error or "line 1: could not be read"
    names = commonjs_exports(text)
    for sym in symbols:
        if sym.name in names and "exported" not in sym.marks:
            sym.marks += ["exported", "commonjs"]  # by module.exports: not an ``export`` keyword to keep
    return symbols, result.error


_EXPORTS_OBJECT = re.compile(r"^\s*module\.exports\s*=\s*\{([^{}]*)\}", re.M)
_EXPORTS_NAME = re.compile(r"^\s*(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=", re.M)


def commonjs_exports(text: str) -> set[str]:
    """The names a CommonJS module exports: ``module.exports = { a: a, b }`` and ``exports.c = ...`` (qs'
    lib/utils.js exports ten of its eleven functions that way; "how many does it export" was answered 11)."""
    names = set(_EXPORTS_NAME.findall(text))
    for body in _EXPORTS_OBJECT.findall(text):
        for entry in re.split(r",", re.sub(r"//[^\n]*|/\*.*?\*/", "", body, flags=re.S)):
            key = re.match(r"\s*['\"]?([A-Za-z_$][\w$]*)['\"]?\s*(?::\s*([A-Za-z_$][\w$]*))?\s*$", entry)
            if key:
                names.add(key.group(2) or key.group(1))
    return names
