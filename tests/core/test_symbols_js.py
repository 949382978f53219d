"""JS/TS: the scanner (strings, comments, templates, regex literals) and the definitions found on it."""

from __future__ import annotations

import textwrap

import pytest

from tui.symbols import outline_of, walk
from tui.symbols.jsscan import scan
from tui.symbols.render import render

STORE_TS = textwrap.dedent('''\
    import { EventEmitter } from "events";
    // a comment with a brace {
    /* and a block comment } with another */
    export const API_URL = "https://example.invalid/{id}";
    const PATTERN = /[{}]+\\/x/g;

    export interface Options {
      ttl: number;
      nested: { deep: boolean };
    }

    export type Listener<T> = (value: T) => void;

    export enum Mode { Read, Write }

    @Injectable({ providedIn: "root" })
    export class Store<T extends {}> extends EventEmitter {
      static instances = 0;
      #items: Map<string, T> = new Map();
      private readonly options: Options;

      constructor(options: Options) {
        super();
        this.options = options;
      }

      get size(): number {
        return this.#items.size;
      }

      async load(url: string): Promise<{ ok: boolean }> {
        const body = `${url}/items?after=${"}"}&q=${`nested ${"{"}`}`;
        return { ok: body.length > 0 };
      }

      find(key: string): T;
      find(key: string, fallback: T): T;
      find(key: string, fallback?: T): T | undefined {
        return this.#items.get(key) ?? fallback;
      }

      onChange = (listener: Listener<T>) => {
        this.on("change", listener);
      };

      static *ids(): Generator<number> {
        yield Store.instances;
      }
    }

    export function createStore<T>(options: Options): Store<T> {
      return new Store<T>(options);
    }

    export default async function main(): Promise<void> {
      const store = createStore({ ttl: 1, nested: { deep: true } });
      await store.load(API_URL.replace(/\\{id\\}/, "1"));
    }

    export const double = (x: number): number => x * 2;
    const triple = async (x) =>
      x * 3;

    const handlers = {
      click(event) { return event; },
      submit: function (event) { return !event; },
      reset: (event) => null,
      label: "not a method",
    };

    exports.legacy = function legacy() {};
''')


def names(text: str, path: str = "store.ts") -> dict[str, object]:
    return {s.qualname: s for s in walk(outline_of(path, text).symbols)}


def test_the_scanner_ignores_brackets_in_strings_comments_templates_and_regexes() -> None:
    result = scan(STORE_TS)
    assert result.error == ""
    kinds = {t.kind for t in result.tokens}
    assert {"id", "str", "tmpl", "regex", "p", "num"} <= kinds
    assert any(t.kind == "tmpl" and "nested" in t.text for t in result.tokens)
    assert any(t.kind == "regex" and t.text.startswith("/[{}]") for t in result.tokens)
    for bad, message in (("function f() {\n  return 1;\n", "'{' is never closed"),
                         ("const a = `x ${b}\n", "unterminated template literal"),
                         ("/* open\n", "unterminated /* comment"),
                         ("f(a));\n", "')' closes nothing")):
        assert message in scan(bad).error, bad
    assert scan("const a = b / c / d;\nconst e = (f) / 2;").error == ""  # division, not regexes


def test_jsx_text_with_apostrophes_does_not_break_the_scan() -> None:
    jsx = "export function Hint() {\n  return <p>Don't click {label} twice</p>;\n}\n\nfunction other() {}\n"
    found = names(jsx, "hint.jsx")
    assert scan(jsx).error == ""
    assert found["Hint"].end == 3 and found["other"].start == 5


def test_declarations_members_and_their_line_ranges() -> None:
    found = names(STORE_TS)
    lines = STORE_TS.splitlines()

    def line_of(fragment: str) -> int:
        return next(n for n, line in enumerate(lines, 1) if fragment in line)

    store = found["Store"]
    assert store.kind == "class" and store.start == line_of("@Injectable") and store.end == line_of("yield Store") + 2
    assert "exported" in store.marks and store.body_indent == "  "
    methods = [c.name for c in store.children if c.kind == "method"]
    assert methods == ["constructor", "size", "load", "find", "find", "find", "onChange", "ids"]
    assert [c.name for c in store.children if c.kind == "field"] == ["instances", "#items", "options"]
    assert found["Store.load"].start == line_of("async load") and found["Store.load"].end == line_of("ok: body") + 1
    assert "async" in found["Store.load"].marks and "get" in found["Store.size"].marks
    assert "arrow" in found["Store.onChange"].marks and found["Store.onChange"].end == line_of('this.on("change"') + 1
    assert {"static", "generator"} <= set(found["Store.ids"].marks)
    assert found["Options"].kind == "interface" and found["Options"].end == line_of("nested: { deep") + 1
    assert found["Listener"].kind == "type" and found["Mode"].kind == "enum"
    assert found["createStore"].kind == "function" and found["main"].end == line_of("await store.load") + 1
    assert {"exported", "default", "async"} <= set(found["main"].marks)
    assert found["double"].kind == "function" and "arrow" in found["double"].marks
    assert found["triple"].end == line_of("x * 3;")  # an arrow body on the next line
    assert found["API_URL"].kind == "const" and found["PATTERN"].kind == "const"
    assert [k for k in found if k.startswith("handlers.")] == ["handlers.click", "handlers.submit", "handlers.reset"]
    assert found["legacy"].kind == "function"


def test_the_outline_counts_overload_signatures_once() -> None:
    text = render(outline_of("src/store.ts", STORE_TS))
    head = text.splitlines()[0]
    assert head.startswith("src/store.ts: ") and "1 class, 1 interface, 1 type, 1 enum, 5 functions (4 exported), 3 consts (1 exported)" in head
    store_line = next(line for line in text.splitlines() if line.startswith("class Store "))
    assert "6 methods, 3 fields" in store_line and "find " in store_line and "(2 overloads)" in store_line
    assert "size " in store_line and "(get)" in store_line


@pytest.mark.parametrize("text", [
    "}}}}{{{{", "`${`${`${", "/" * 500, "'unterminated\n\"also", "class {", "export default class extends X {}",
    "function", "const = => ;", "@@@@", "a ? b : c ? d : e", "\\u{61}", "#!/usr/bin/env node\nfunction f() {}\n",
])
def test_hostile_text_never_raises(text: str) -> None:
    outline = outline_of("x.ts", text)
    assert isinstance(render(outline), str)


def test_other_languages_by_pattern() -> None:
    go = "package main\n\ntype Server struct {}\n\nfunc (s *Server) Run() error {\n\treturn nil\n}\n\nfunc main() {}\n"
    outline = outline_of("cmd/main.go", go)
    assert [(s.name, s.start) for s in outline.symbols] == [("Server", 3), ("Run", 5), ("main", 9)]
    assert "found by pattern" in render(outline)
    assert outline_of("notes.txt", "def f(): pass").symbols == []


def test_a_module_that_exports_one_anonymous_function_shows_it() -> None:
    """minimist's index.js (outside the benchmark) is three helpers and `module.exports = function (args, opts)`
    of 240 lines; the outline said "3 functions" and the 1.5B model never found the parser."""
    from tui.symbols.jssplice import splice_js

    src = ("'use strict';\n\nfunction isNumber(x) {\n\treturn typeof x === 'number';\n}\n\n"
           "module.exports = function (args, opts) {\n\tvar argv = { _: [] };\n\tfunction setKey(k) {\n"
           "\t\targv[k] = true;\n\t}\n\treturn argv;\n};\n")
    found = [(s.qualname, s.start, s.end) for s in walk(outline_of("index.js", src).symbols)]
    assert found == [("isNumber", 3, 5), ("module.exports", 7, 13)]
    done = splice_js(src, "module.exports",
                     "module.exports = function (args, opts) {\n  return { _: args };\n};", "index.js")
    assert done.text.endswith("module.exports = function (args, opts) {\n\treturn { _: args };\n};\n")
    assert "function isNumber(x)" in done.text
    objects = "module.exports = { isNumber: isNumber };\n"  # an object of exports is not a function
    assert [s.qualname for s in outline_of("index.js", objects).symbols] == []


def test_a_definition_exported_by_module_exports_is_replaced_without_an_export_keyword() -> None:
    """In a CommonJS file an ``export`` keyword turns the file into an ES module (its require() calls then fail
    to resolve); one exported by the keyword keeps it."""
    import subprocess

    from tui.symbols.jssplice import splice_js

    cjs = ("var formats = require('./formats');\n\nvar combine = function combine(a, b) {\n    return [].concat(a, b);\n};"
           "\n\nmodule.exports = { combine: combine, formats: formats };\n")
    new = splice_js(cjs, "combine", "function combine(a, b) {\n    return [a, b];\n}\n", "lib/utils.js").text
    assert "export" not in new.replace("module.exports", "") and "return [a, b];" in new
    ran = subprocess.run(["node", "--check", "-"], input=new, capture_output=True, text=True, timeout=30)
    assert ran.returncode == 0, ran.stderr
    esm = "export function combine(a, b) {\n  return [].concat(a, b);\n}\n"
    assert splice_js(esm, "combine", "function combine(a, b) {\n  return [a, b];\n}\n", "a.js").text.startswith(
        "export function combine")
