"""Properties: edit_symbol on any definition of a valid module keeps the module valid and touches nothing else."""

from __future__ import annotations

import ast
import io
import re
import tokenize

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.symbols import walk
from tui.symbols.jssplice import splice_js
from tui.symbols.jsscan import scan
from tui.symbols.pysplice import splice_python
from tui.symbols.pysyms import python_symbols

BODIES = [
    ["return x"],
    ["y = x + 1", "return y"],
    ["if x:", "    return 1", "else:", "    return 2"],
    ["for i in range(3):", "    x += i", "return x"],
    ['"""Docstring.', "", "    more text", '"""', "return None"],
    ["return {'a': [1,", "             2]}"],
    ["# a comment", "pass"],
    ["try:", "    return int(x)", "except ValueError:", "    return 0"],
]
UNITS = ["    ", "  ", "\t"]


@st.composite
def functions(draw: st.DrawFn, name: str, method: bool) -> list[str]:
    decorator = draw(st.sampled_from(["", "@deco", "@staticmethod"] if method else ["", "@deco"]))
    is_async = draw(st.booleans())
    args = "x" if decorator == "@staticmethod" or not method else "self, x=0"
    head = f"{'async ' if is_async else ''}def {name}({args}):"
    body = draw(st.sampled_from(BODIES))
    body = [re.sub(r"^(?: {4})+", lambda m: "\t" * (len(m.group(0)) // 4), line) for line in body]  # one unit
    return ([decorator] if decorator else []) + [head] + ["\t" + line if line else "" for line in body]


@st.composite
def modules(draw: st.DrawFn) -> tuple[str, str]:
    """(module text, indent unit): functions, classes with methods and a nested class, constants."""
    unit = draw(st.sampled_from(UNITS))
    lines = ["import os", "", "", "def deco(f):", "\treturn f", "", ""]
    for index in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["function", "class", "constant", "guarded"]))
        if kind == "function":
            lines += draw(functions(f"f{index}", False)) + ["", ""]
        elif kind == "constant":
            lines += [f"LIMIT_{index} = {index}", "", ""]
        elif kind == "guarded":
            lines += ["if os.name:", *["\t" + line for line in draw(functions(f"g{index}", False))], "", ""]
        else:
            lines.append(f"class C{index}:")
            for m in range(draw(st.integers(0, 3))):
                lines += ["\t" + line if line else "" for line in draw(functions(f"m{m}", True))] + [""]
            if draw(st.booleans()):
                lines += ["\tclass Inner:", "\t\tvalue = 1", "", "\t\tdef inner(self):", "\t\t\treturn 1", ""]
            if lines[-1] == f"class C{index}:":
                lines.append("\tpass")
            lines += ["", ""]
    text = "\n".join(line.replace("\t", unit) for line in lines).rstrip("\n") + "\n"
    return text, unit


def _others(text: str, skip: str) -> dict[str, str]:
    """Every definition's dumped tree (without positions), except ``skip`` and its enclosing definitions."""
    tree = ast.parse(text)
    out: dict[str, str] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = prefix + node.name
                if qual != skip and not skip.startswith(qual + "."):
                    out[qual] = ast.dump(node)
                if isinstance(node, ast.ClassDef):
                    visit(node.body, qual + ".")
            elif isinstance(node, ast.If):
                visit(node.body, prefix)
    visit(tree.body, "")
    return out


NEW_CODE = st.tuples(st.sampled_from(["", "    ", "        ", "\t"]), st.sampled_from(BODIES), st.booleans())


def _code(name: str, args: str, indent: str, body: list[str], is_async: bool) -> str:
    lines = [f"{'async ' if is_async else ''}def {name}({args}):", *["    " + line if line else "" for line in body]]
    return "\n".join(indent + line if line else "" for line in lines)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(module=modules(), choice=st.integers(0, 1000), new=NEW_CODE)
def test_replacing_any_function_keeps_the_module_valid_and_the_rest_unchanged(
        module: tuple[str, str], choice: int, new: tuple[str, list[str], bool]) -> None:
    text, _ = module
    symbols = [s for s in walk(python_symbols(text)[0]) if s.kind in ("function", "method")]
    target = symbols[choice % len(symbols)]
    indent, body, is_async = new
    args = "self, x=0" if target.kind == "method" and "staticmethod" not in target.decorators else "x"
    done = splice_python(text, target.qualname, _code(target.name, args, indent, body, is_async), "m.py")
    tree = ast.parse(done.text)  # valid
    assert _others(done.text, target.qualname) == _others(text, target.qualname)
    replaced = [s for s in walk(python_symbols(done.text)[0]) if s.qualname == target.qualname]
    assert len(replaced) == 1 and replaced[0].decorators == target.decorators
    assert (done.start, done.end) == (replaced[0].start, replaced[0].end)
    assert tree is not None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(module=modules(), choice=st.integers(0, 1000), new=NEW_CODE, test_file=st.booleans())
def test_adding_a_function_or_method_puts_it_in_its_scope(
        module: tuple[str, str], choice: int, new: tuple[str, list[str], bool], test_file: bool) -> None:
    text, unit = module
    classes = [s for s in walk(python_symbols(text)[0]) if s.kind == "class"]
    scopes = [None, *classes]
    scope = scopes[choice % len(scopes)]
    indent, body, is_async = new
    name = "test_added" if test_file else "added"
    symbol = f"{scope.qualname}.{name}" if scope else name
    done = splice_python(text, symbol, _code(name, "self" if scope else "x", indent, body, is_async),
                         "tests/test_m.py" if test_file else "m.py")
    tree = ast.parse(done.text)
    found = [s for s in walk(python_symbols(done.text)[0]) if s.qualname == symbol]
    assert len(found) == 1 and done.qualname == symbol
    if scope is None:
        assert any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name for n in tree.body)
    assert found[0].indent == (scope.body_indent if scope else "")
    assert all(line.startswith(found[0].indent) for line in done.text.splitlines()[found[0].start - 1:found[0].end]
               if line.strip())
    indents = {tok.string for tok in tokenize.generate_tokens(io.StringIO(done.text).readline)
               if tok.type == tokenize.INDENT}
    assert all(set(i) == {"\t"} for i in indents) if unit == "\t" else all("\t" not in i for i in indents)
    assert _others(done.text, symbol) == _others(text, symbol)


JS_BODIES = ["return 1;", "const s = `}${x}{`;\nreturn s;", "if (x) {\n  return '}';\n}\nreturn /[{]/.test(x);"]


@settings(max_examples=80, deadline=None)
@given(count=st.integers(1, 6), choice=st.integers(0, 100), body=st.sampled_from(JS_BODIES),
       indent=st.sampled_from(["", "  ", "    "]))
def test_js_replacing_any_function_keeps_the_file_balanced(count: int, choice: int, body: str, indent: str) -> None:
    parts = []
    for i in range(count):
        parts.append(f"export function f{i}(x) {{\n  const t = `${{x}}}}`;\n  return t;\n}}\n" if i % 2 else
                     f"class K{i} {{\n  m(x) {{\n    return '{{';\n  }}\n}}\n")
    text = "\n".join(parts)
    target = f"f{choice % count}" if choice % count % 2 else f"K{choice % count}.m"
    name = target.rsplit(".", 1)[-1]
    code = "\n".join(indent + line for line in [f"{name}(x) {{", *["  " + b for b in body.split("\n")], "}"])
    done = splice_js(text, target, code, "m.js")
    assert scan(done.text).error == ""
    assert done.text.count("function f") + done.text.count("class K") == count
