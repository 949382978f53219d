"""Running a TypeScript snippet with node: the project's own compiler (``node_modules/typescript``) transpiles the
snippet and every ``.ts`` file it loads to CommonJS as node requires them (types are dropped, not checked: the
project's tests and ``tsc`` check types). An import written the ES-module way with a ``.js`` extension
(``./util.js`` for ``util.ts``) resolves to the TypeScript file.

This is how a check written for a request, a new module's check and a question's snippet run against a TypeScript
project's sources, which a git checkout has without their built output. The program runs where every check runs: in
the sandbox, in the throwaway copy, with ``node_modules`` bound read-only from the work tree.
"""

from __future__ import annotations

import json

EXTENSIONS = (".ts", ".tsx", ".mts", ".cts")
NO_COMPILER = 97  # the exit status when the project has no typescript package to transpile with

_PROGRAM = r"""
const __path = require('path'), __fs = require('fs'), __Module = require('module');
let __ts;
try { __ts = require(__path.resolve('node_modules/typescript')); } catch (err) {
  console.error('devagent: this project has no TypeScript compiler in node_modules (typescript): ' + err.message);
  process.exit(%(status)d);
}
const __options = { module: __ts.ModuleKind.CommonJS, target: __ts.ScriptTarget.ES2020, esModuleInterop: true,
  jsx: __ts.JsxEmit.React, experimentalDecorators: true, sourceMap: false, inlineSourceMap: false };
const __compile = (src, file) => __ts.transpileModule(src, { fileName: file, compilerOptions: __options }).outputText;
for (const ext of %(extensions)s) {
  __Module._extensions[ext] = (m, file) => m._compile(__compile(__fs.readFileSync(file, 'utf8'), file), file);
}
const __resolve = __Module._resolveFilename;
__Module._resolveFilename = function (request, ...rest) {
  try { return __resolve.call(this, request, ...rest); } catch (err) {
    const bare = /^(\.{1,2}\/.*)\.[cm]?js$/.exec(request);
    if (bare) return __resolve.call(this, bare[1], ...rest);
    throw err;
  }
};
const __file = __path.resolve('[check].ts');
const __check = new __Module(__file, module);
__check.filename = __file;
__check.paths = __Module._nodeModulePaths(process.cwd());
__check._compile(__compile(%(code)s, __file), __file);
"""


def program(code: str) -> str:
    """The ``node -e`` program that runs the TypeScript (or ES-module JavaScript) ``code`` from the repo's root."""
    return _PROGRAM % {"status": NO_COMPILER, "extensions": json.dumps(list(EXTENSIONS)), "code": json.dumps(code)}


def is_typescript(rel: str) -> bool:
    return rel.endswith(EXTENSIONS)
