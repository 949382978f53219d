"""The "new" half on jsonpath 1.3.0: a JavaScript (CommonJS) JSONPath engine, lib/ of modules (index, handlers,
parser over a generated grammar, slice), mocha tests in tdd style with a JSON fixture (test/data/store.json);
node_modules/ from npm (its pinned runtime dependencies and mocha, from the lock file in jsonpath-env/)."""

from __future__ import annotations

from benchreal.checks import all_of, file_contains, runs, says, suite_passes
from benchreal.checks_text import data_kept, names_commit
from benchreal.kinds import suite_counts
from benchreal.spec import Append, Env, Plant, Project, Reference, Replace, Source, Suite, Task

INDEX = "lib/index.js"
SLICE = "lib/slice.js"
STORE = "test/data/store.json"

MOBY = '        "title": "Moby Dick",\n'
LAST_BOOK = '        "price": 22.99\n      }\n    ],'

PROJECT = Project(
    name="jsonpath",
    shape="JavaScript (CommonJS): lib/ modules behind lib/index.js (a JSONPath instance), a generated parser; "
          "mocha tests (tdd ui) in test/ with a JSON fixture; node_modules/ from npm",
    why="a second JavaScript project with another runner (mocha) and a data file the tests load, so a broken "
        "JSON file stops the whole suite",
    source=Source("npm", "jsonpath", "1.3.0", "a66ae90f9fdb272dd7333a604a024b3482b2f3a01e63760ede31333512652c08",
                  "package", released="2025-01-20T12:00:00"),
    env=Env("node"),
    suite=Suite(("{repo}/node_modules/.bin/mocha", "-u", "tdd", "--no-colors", "test"), "mocha", ("test",)),
    plants={
        "slice_comment": Plant("slice_comment", "slice: say what the arguments mean", (
            Replace(SLICE, "module.exports = function(arr, start, end, step) {\n",
                    "// Python-style slicing: slice(arr, start, end, step); negative start/end count from the end.\n"
                    "module.exports = function(arr, start, end, step) {\n"),),
            author="Dana Whitfield <dana@whitfield.me>", date="2025-02-03T10:05:00"),
        "negative_count": Plant("negative_count", "query: treat a negative count like no count", (
            Replace(INDEX, "  if (count === 0) return [];\n",
                    "  if (count === 0) return [];\n  if (count < 0) count = undefined;\n"),),
            author="Marcus Oyelaran <marcus.oyelaran@gmail.com>", date="2025-02-11T15:30:00"),
        "readme_apply": Plant("readme_apply", "README: jp.apply returns the changed nodes", (
            Replace("README.md", "\n## License\n",
                    "\nNote that `jp.apply` returns the nodes it changed, with their new values.\n\n## License\n"),),
            author="Dana Whitfield <dana@whitfield.me>", date="2025-02-14T09:12:00"),
        "slice_bug": Plant("slice_bug", "slice: clamp the end at zero", (
            Replace(SLICE, "  end = step > 0 ? Math.min(end, len) : Math.max(-1, end);",
                    "  end = step > 0 ? Math.min(end, len) : Math.max(0, end);"),),
            author="Dana Whitfield <dana@whitfield.me>", date="2025-03-01T11:00:00"),
        "paths_bug": Plant("paths_bug", "paths: leave out the root", (
            Replace(INDEX, "    .map(function(r) { return r.path });",
                    "    .map(function(r) { return r.path.slice(1) });"),),
            author="Marcus Oyelaran <marcus.oyelaran@gmail.com>", date="2025-03-04T17:20:00"),
        "broken_store": Plant("broken_store", "test data: reformat store.json by hand", (
            Replace(STORE, MOBY, MOBY.replace(",\n", "\n")),
            Replace(STORE, LAST_BOOK, LAST_BOOK.replace("}\n    ],", "},\n    ],"))),
            author="Marcus Oyelaran <marcus.oyelaran@gmail.com>", date="2025-03-06T08:45:00"),
    },
)

COUNT_ZERO_CHECK = """var jp = require('./'); var assert = require('assert');
var data = require('./test/data/store.json');
assert.strictEqual(jp.query(data, '$..author', 0).length, 4, 'count 0 should mean no limit');
assert.strictEqual(jp.paths(data, '$..author', 0).length, 4, 'count 0 should mean no limit for paths too');
assert.strictEqual(jp.query(data, '$..author', 2).length, 2, 'a positive count still limits');
assert.strictEqual(jp.query(data, '$..author').length, 4);
"""

COUNT_CHECK = """var jp = require('./'); var assert = require('assert');
var data = require('./test/data/store.json');
assert.strictEqual(typeof jp.count, 'function', 'no jp.count');
assert.strictEqual(jp.count(data, '$..author'), 4);
assert.strictEqual(jp.count(data, '$.store.book[?(@.price < 10)]'), 2);
assert.strictEqual(jp.count(data, '$..nothing'), 0);
assert.throws(function() { jp.count('not an object', '$..author'); }, 'a non-object is refused like elsewhere');
assert.throws(function() { jp.count(data); }, 'a missing path is refused like elsewhere');
"""

COUNT_CHECKS = """  assert.ok(obj instanceof Object, "obj needs to be an object");
  assert.ok(string, "we need a path");

"""

COUNT_METHOD = """JSONPath.prototype.count = function(obj, string) {

""" + COUNT_CHECKS + """  return this.nodes(obj, string).length;
};

JSONPath.prototype.stringify = function(path) {"""

COUNT_TEST = """
suite('count', function() {

  test('count gives the number of matches', function() {
    var data = { a: 1, z: { a: 100, b: 200 } };
    assert.equal(jp.count(data, '$..a'), 2);
    assert.equal(jp.count(data, '$..x'), 0);
  });

});
"""

TASKS = [
    Task("nw_jp_question", "new", "question",
         "Where does the `..` recursive descent actually get evaluated in this codebase? Just point me at the file "
         "and the function.",
         says(r"handlers\.js", r"travers"),
         Reference(answer="In lib/handlers.js: the 'member-descendant-*' handlers call _traverse, which uses "
                          "Handlers.prototype.traverse (traverser(true)) to walk every level.",
                   wrong="In lib/parser.js — the generated parser expands '..' while parsing.")),
    Task("nw_jp_data_file", "new", "data_file",
         "mocha dies before running anything:\n\n    SyntaxError: test/data/store.json: Expected ',' or '}' after "
         "property value in JSON at position 405\n\nI reformatted that file by hand this morning. Please fix it "
         "without changing any of the data.",
         data_kept(STORE, "json"),
         Reference(edits=(Replace(STORE, MOBY.replace(",\n", "\n"), MOBY),
                          Replace(STORE, LAST_BOOK.replace("}\n    ],", "},\n    ],"), LAST_BOOK)),
                   wrong_edits=(Replace(STORE, MOBY.replace(",\n", "\n"), ""),
                                Replace(STORE, LAST_BOOK.replace("}\n    ],", "},\n    ],"), LAST_BOOK))),
         ("broken_store",)),
    Task("nw_jp_history", "new", "history",
         "Somebody changed what jp.query does when you pass a negative count. Which commit was that, and who made "
         "it?",
         names_commit("negative count", r"Marcus|Oyelaran"),
         Reference(answer="\"query: treat a negative count like no count\", by Marcus Oyelaran.",
                   wrong="\"README: jp.apply returns the changed nodes\", by Dana Whitfield."),
         ("slice_comment", "negative_count", "readme_apply")),
    Task("nw_jp_change", "new", "change",
         "Right now jp.query(obj, path, 0) gives back an empty array. I'd like a count of 0 to mean \"no limit\", "
         "the same as leaving the count out (for paths and nodes too). Everything else should keep working.",
         all_of(runs(COUNT_ZERO_CHECK, "count 0 means no limit"), suite_passes()),
         Reference(edits=(Replace(INDEX, "  if (count === 0) return [];\n",
                                  "  if (count === 0) count = undefined;\n"),),
                   wrong_edits=(Replace(INDEX, "  if (count === 0) return [];\n", ""),))),
    Task("nw_jp_fix", "new", "fix",
         "test/slice.js has been failing since yesterday's commit (`npx mocha -u tdd test/slice.js` shows it). "
         "Fix the code, not the tests.",
         suite_passes(tests_untouched=True),
         Reference(edits=(Replace(SLICE, "  end = step > 0 ? Math.min(end, len) : Math.max(0, end);",
                                  "  end = step > 0 ? Math.min(end, len) : Math.max(-1, end);"),),
                   wrong_edits=(Append("test/slice.js", "\n// FIXME: negative steps are broken\n"),
                                Replace(SLICE, "  end = step > 0 ? Math.min(end, len) : Math.max(0, end);",
                                        "  end = step > 0 ? Math.min(end, len) : Math.max(-1, end);"))),
         ("slice_bug",)),
    Task("nw_jp_scaffold", "new", "scaffold",
         "Could you add a jp.count(obj, pathExpression) method that returns how many nodes match? Build it like the "
         "other methods in lib/index.js (same argument checks), and give it a test next to the sugar tests.",
         all_of(runs(COUNT_CHECK, "jp.count counts matches and checks its arguments"),
                file_contains("test/sugar.js", r"\.count\("), suite_passes(more_tests=True)),
         Reference(edits=(Replace(INDEX, "JSONPath.prototype.stringify = function(path) {", COUNT_METHOD),
                          Append("test/sugar.js", COUNT_TEST)),
                   wrong_edits=(Replace(INDEX, "JSONPath.prototype.stringify = function(path) {",
                                        COUNT_METHOD.replace("this.nodes(obj, string)", "this.nodes(obj, string, 1)")),
                                Append("test/sugar.js", COUNT_TEST)))),
    suite_counts("nw_jp_run_suite", "new", "Run the tests for me and tell me how many pass and how many fail.",
                 "paths_bug", answer="138 pass and 1 fails.", wrong="All 139 tests pass, 0 fail."),
]
PROJECT.tasks = TASKS
