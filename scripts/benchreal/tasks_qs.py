"""qs 6.13.0: a JavaScript query-string library (lib/ of CommonJS modules, an index), tape tests; node_modules/
from npm (the test dependencies, exact versions from the lock file in qs-env/), git-ignored."""

from __future__ import annotations

from benchreal.checks import catches_mutant, number_re, runs
from benchreal.kinds import clean_data, code_change, fix_bug, question, suite_counts
from benchreal.spec import Append, Env, Plant, Project, Reference, Replace, Source, Suite, Task, Write

UTILS = "lib/utils.js"
MESSY_CSV = "name,value\n page , 2\nsort,name \n \nfilter , active\npage,2\n\nlimit, 50\n sort ,name\n"
CLEAN_CSV = "name,value\nfilter,active\nlimit,50\npage,2\nsort,name\n"

PROJECT = Project(
    name="qs",
    shape="JavaScript (CommonJS): lib/ modules behind lib/index.js; tape tests (npm test runs lint, nyc tape, audit); "
          "node_modules/ installed from npm",
    why="a real, much-used JavaScript library with a non-Python runner (tape through npm scripts)",
    source=Source("npm", "qs", "6.13.0", "abffeabbdedc8e466c1bd75227e14ceb76e77f61be475dfcee0d3bbe6dd608fd", "package"),
    env=Env("node"),
    suite=Suite(("{repo}/node_modules/.bin/tape", "test/**/*.js"), "tape", ("test",)),
    plants={
        "combine_bug": Plant("combine_bug", "utils: combine in one step", (
            Replace(UTILS, "    return [].concat(a, b);", "    return [].concat(b, a);"),)),
        "rfc1738_bug": Plant("rfc1738_bug", "formats: RFC1738 keeps the value as encoded", (
            Replace("lib/formats.js", "            return replace.call(value, percentTwenties, '+');",
                    "            return value;"),)),
        "messy_csv": Plant("messy_csv", "examples: query parameters from the access log", (
            Write("examples/params.csv", MESSY_CSV),)),
    },
)

PARSE_URL = """'use strict';

var parse = require('./parse');

module.exports = function parseUrl(url, opts) {
    var start = url.indexOf('?');
    if (start === -1) {
        return {};
    }
    var end = url.indexOf('#', start);
    return parse(url.slice(start + 1, end === -1 ? undefined : end), opts);
};
"""

PARSE_URL_TEST = """'use strict';

var test = require('tape');
var qs = require('../');

test('parseUrl()', function (t) {
    t.deepEqual(qs.parseUrl('https://x.test/p?a=1&b[c]=2#frag'), { a: '1', b: { c: '2' } });
    t.deepEqual(qs.parseUrl('https://x.test/p'), {});
    t.end();
});
"""

PARSE_URL_CHECK = """var qs = require('./'); var assert = require('assert');
function plain(x) { return JSON.parse(JSON.stringify(x)); }
assert.deepStrictEqual(plain(qs.parseUrl('https://x.test/p?a=1&b[c]=2#frag')), { a: '1', b: { c: '2' } });
assert.deepStrictEqual(plain(qs.parseUrl('https://x.test/p')), {});
assert.deepStrictEqual(plain(qs.parseUrl('/p?x=1&x=2')), { x: ['1', '2'] });
"""

PARAM_LIMIT_CHECK = """var qs = require('./'); var parts = [];
for (var i = 0; i < 2500; i++) { parts.push('k' + i + '=1'); }
var n = Object.keys(qs.parse(parts.slice(0, 1500).join('&'))).length;
if (n !== 1500) { console.error('1500 parameters parsed as ' + n); process.exit(1); }
var m = Object.keys(qs.parse(parts.join('&'))).length;
if (m !== 2000) { console.error('2500 parameters parsed as ' + m); process.exit(1); }
"""

TASKS = [
    question("qs_behaviour_depth", "heldout", "behaviour",
             "How many levels of nested brackets (like a[b][c][d]=e) does qs.parse turn into nested objects by "
             "default?", number_re(5), answer="5 levels: the depth option defaults to 5.",
             wrong="20 levels (arrayLimit)."),
    question("qs_behaviour_dots", "tune", "behaviour", "Which qs.parse option makes a.b=c parse as a nested object?",
             r"allowDots", answer="allowDots: qs.parse('a.b=c', { allowDots: true }).", wrong="Set depth to 0."),
    question("qs_where_compact", "tune", "where", "Which file defines the compact function?", r"utils\.js",
             answer="lib/utils.js", wrong="lib/parse.js"),
    question("qs_count_utils_exports", "heldout", "count", "How many functions does lib/utils.js export?",
             number_re(10), answer="10", wrong="It exports 9 functions."),
    Task("qs_one_line_param_limit", "tune", "one_line",
         "Raise the default parameterLimit of qs.parse from 1000 to 2000.",
         runs(PARAM_LIMIT_CHECK, "qs.parse keeps 2000 parameters by default"),
         Reference(edits=(Replace("lib/parse.js", "    parameterLimit: 1000,", "    parameterLimit: 2000,"),))),
    fix_bug("qs_fix_combine", "heldout",
            "A lot of tests fail since my last commit. Please find the bug and fix it, without touching the tests.",
            "combine_bug", Replace(UTILS, "    return [].concat(b, a);", "    return [].concat(a, b);")),
    Task("qs_add_test_prefix", "tune", "add_test",
         "Add a test to test/parse.js checking that ignoreQueryPrefix removes only one leading question mark "
         "(for example '??a=b').",
         catches_mutant((Replace("lib/parse.js", r"str.replace(/^\?/, '')", r"str.replace(/^\?+/, '')"),)),
         Reference(edits=(Append("test/parse.js",
                                 "\ntest('ignoreQueryPrefix removes only one question mark', function (t) {\n"
                                 "    t.deepEqual(qs.parse('??a=b', { ignoreQueryPrefix: true }), { '?a': 'b' });\n"
                                 "    t.end();\n});\n"),))),
    clean_data("qs_clean_csv", "heldout",
               "Clean examples/params.csv in place: trim the spaces around each value, drop empty lines and "
               "duplicate rows, and sort the rows by name (header stays first).", "messy_csv", "examples/params.csv",
               CLEAN_CSV),
    suite_counts("qs_run_suite", "tune", "Run the tests and tell me how many assertions pass and how many fail.",
                 "rfc1738_bug", answer="736 pass, 3 fail.", wrong="739 pass, 0 fail."),
    code_change("qs_multi_parse_url", "heldout", "multi_step",
                "Add a parseUrl(url, options) function that takes a full URL like 'https://x.test/p?a=1&b=2#top' "
                "and returns qs.parse of just its query part ({} when there is none). Put it in lib/parse-url.js, "
                "export it from lib/index.js as parseUrl, and add a tape test for it in test/parse-url.js.",
                PARSE_URL_CHECK, "qs.parseUrl works",
                Write("lib/parse-url.js", PARSE_URL),
                Replace("lib/index.js", "var formats = require('./formats');\n",
                        "var formats = require('./formats');\nvar parseUrl = require('./parse-url');\n"),
                Replace("lib/index.js", "    parse: parse,\n", "    parse: parse,\n    parseUrl: parseUrl,\n"),
                Write("test/parse-url.js", PARSE_URL_TEST), test_file="test/parse-url.js", test_mentions=r"parseUrl"),
]
PROJECT.tasks = TASKS
