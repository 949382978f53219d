// devagent's TypeScript/JavaScript refactoring driver: the TypeScript compiler's language service over a scratch copy.
//
// Run only inside devagent's sandbox (bubblewrap, network off): `node tsdriver.js REQUEST.json`. The request names the
// typescript module to load (the project's own or devagent's pinned copy), the scratch work tree, the files of the
// program, the operation and its arguments. The answer is written as JSON to the request's `result` path:
// {ok, error, hint, places, changes: {path: text|null}, created: [...], optional: {path: text}, unhandled: [...],
//  parse: [{path, line, message}], engine}. Paths are relative to the work tree, forward slashes.
// Nothing here runs project code: it only reads files and asks the compiler.
"use strict";
const fs = require("fs");
const path = require("path");

const request = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const ts = require(request.typescript);
const root = request.root;
const out = { ok: false, engine: `typescript ${ts.version}`, changes: {}, created: [], optional: {}, unhandled: [],
  parse: [], places: 0 };

class Refused extends Error {
  constructor(message, hint) { super(message); this.hint = hint || ""; }
}

// -- the language service over the scratch copy -------------------------------------------------------------------
const texts = new Map(); // absolute path -> current text (edited in memory)
const versions = new Map();
const original = new Map();
const deleted = new Set();
const abs = (rel) => path.join(root, rel);
const rel = (file) => path.relative(root, file).split(path.sep).join("/");

function readText(file) {
  if (texts.has(file)) return texts.get(file);
  try { return fs.readFileSync(file, "utf8"); } catch (e) { return undefined; }
}

function compilerOptions() {
  const base = { allowJs: true, checkJs: false, noEmit: true, skipLibCheck: true, resolveJsonModule: true,
    esModuleInterop: true, jsx: ts.JsxEmit.Preserve, target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10 || ts.ModuleResolutionKind.NodeJs };
  const configPath = request.tsconfig ? abs(request.tsconfig) : "";
  if (!configPath) return base;
  const read = ts.readConfigFile(configPath, (p) => readText(p));
  if (read.error) return base;
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configPath), undefined, configPath);
  const opts = Object.assign({}, parsed.options, { allowJs: true, noEmit: true, skipLibCheck: true });
  delete opts.outDir; delete opts.declarationDir; delete opts.composite; delete opts.incremental;
  delete opts.tsBuildInfoFile; delete opts.declaration; delete opts.emitDeclarationOnly;
  return opts;
}

const options = compilerOptions();
const rootNames = request.files.map(abs);
for (const f of rootNames) versions.set(f, 0);

const host = {
  getScriptFileNames: () => Array.from(versions.keys()),
  getScriptVersion: (f) => String(versions.get(f) || 0),
  getScriptSnapshot: (f) => { const t = readText(f); return t === undefined ? undefined : ts.ScriptSnapshot.fromString(t); },
  getCurrentDirectory: () => root,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: (f) => texts.has(f) || ts.sys.fileExists(f),
  readFile: (f, enc) => readText(f),
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
  realpath: ts.sys.realpath,
  useCaseSensitiveFileNames: () => true,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
const format = ts.getDefaultFormatCodeSettings("\n");
// The file's own indentation and semicolons, so that new code looks like the code around it.
function formatFor(file) {
  const text = readText(file) || "";
  const indents = (text.match(/^[ \t]+(?=\S)/gm) || []).map((w) => w.includes("\t") ? "\t" : w);
  const tabs = indents.filter((w) => w === "\t").length > indents.length / 2;
  const widths = indents.filter((w) => w !== "\t").map((w) => w.length).filter((n) => n > 0);
  const unit = widths.length ? Math.min(...widths.filter((n) => n >= 2).concat([4])) : 4;
  const lines = text.split("\n").filter((l) => /\S/.test(l) && !/^\s*(\/\/|\*|\/\*)/.test(l));
  const semi = lines.filter((l) => /;\s*$/.test(l)).length;
  const endsBare = lines.filter((l) => /[\w)\]'"`]\s*$/.test(l)).length;
  return Object.assign({}, format, { indentSize: unit, tabSize: unit, convertTabsToSpaces: !tabs,
    newLineCharacter: text.includes("\r\n") ? "\r\n" : "\n",
    semicolons: semi > endsBare ? ts.SemicolonPreference.Insert : (semi === 0 && endsBare > 0 ? ts.SemicolonPreference.Remove : ts.SemicolonPreference.Ignore) });
}
const prefs = { quotePreference: "auto", importModuleSpecifierPreference: "relative", allowTextChangesInNewFiles: true,
  providePrefixAndSuffixTextForRename: false, includeCompletionsForModuleExports: false };

// The quotes the project writes module specifiers with ("auto" lets the compiler pick per file, and a new import it
// adds to a file may then get the other kind).
function projectQuote() {
  let single = 0, double = 0;
  for (const sf of ownFiles()) {
    single += (sf.text.match(/\bfrom\s+'|\brequire\(\s*'/g) || []).length;
    double += (sf.text.match(/\bfrom\s+"|\brequire\(\s*"/g) || []).length;
  }
  return single > double ? "single" : double > single ? "double" : "auto";
}
function semicolons(text) {
  const lines = (text || "").split("\n").filter((l) => /\S/.test(l) && !/^\s*(\/\/|\*|\/\*)/.test(l));
  return lines.filter((l) => /;\s*$/.test(l)).length > lines.filter((l) => /[\w)\]'"`]\s*$/.test(l)).length;
}

function program() { return service.getProgram(); }
function isOwn(sf) {
  const f = sf.fileName;
  return f.startsWith(root + "/") && !f.includes("/node_modules/") && versions.has(f);
}
function ownFiles() { return program().getSourceFiles().filter(isOwn); }
function lineOf(sf, pos) { return sf.getLineAndCharacterOfPosition(pos).line + 1; }
function where(sf, pos) { return `${rel(sf.fileName)}:${lineOf(sf, pos)}`; }

function setText(file, text) {
  if (!original.has(file)) original.set(file, readText(file));
  texts.set(file, text);
  versions.set(file, (versions.get(file) || 0) + 1);
}

// Apply one batch of edits (FileTextChanges) to the in-memory texts; new files are created.
function applyEdits(fileChanges) {
  for (const fc of fileChanges) {
    const file = path.isAbsolute(fc.fileName) ? fc.fileName : abs(fc.fileName);
    if (!file.startsWith(root + "/")) throw new Refused(`the compiler proposed an edit outside the project: ${fc.fileName}`);
    if (file.includes("/node_modules/")) throw new Refused(`the compiler proposed an edit inside node_modules: ${rel(file)}`);
    let text = fc.isNewFile ? "" : readText(file);
    if (text === undefined) { text = ""; }
    if (fc.isNewFile || !versions.has(file)) { if (!original.has(file)) original.set(file, undefined); if (!out.created.includes(rel(file))) out.created.push(rel(file)); }
    const edits = fc.textChanges.slice().sort((a, b) => b.span.start - a.span.start);
    for (const e of edits) text = text.slice(0, e.span.start) + e.newText + text.slice(e.span.start + e.span.length);
    setText(file, text);
  }
}

function applyLocations(locs, newName) {
  const byFile = new Map();
  for (const l of locs) {
    if (!byFile.has(l.fileName)) byFile.set(l.fileName, []);
    byFile.get(l.fileName).push({ span: l.textSpan, newText: (l.prefixText || "") + newName + (l.suffixText || "") });
  }
  applyEdits(Array.from(byFile, ([fileName, textChanges]) => ({ fileName, textChanges })));
}

// -- finding what the developer named -----------------------------------------------------------------------------
const DECL_KINDS = new Set([ts.SyntaxKind.FunctionDeclaration, ts.SyntaxKind.ClassDeclaration,
  ts.SyntaxKind.InterfaceDeclaration, ts.SyntaxKind.TypeAliasDeclaration, ts.SyntaxKind.EnumDeclaration,
  ts.SyntaxKind.VariableDeclaration, ts.SyntaxKind.ModuleDeclaration, ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.PropertyDeclaration, ts.SyntaxKind.GetAccessor, ts.SyntaxKind.SetAccessor,
  ts.SyntaxKind.MethodSignature, ts.SyntaxKind.PropertySignature, ts.SyntaxKind.EnumMember,
  ts.SyntaxKind.PropertyAssignment, ts.SyntaxKind.ShorthandPropertyAssignment, ts.SyntaxKind.Parameter]);

function containerName(node) {
  for (let p = node.parent; p; p = p.parent) {
    if ((ts.isClassLike(p) || ts.isInterfaceDeclaration(p) || ts.isEnumDeclaration(p)) && p.name) return p.name.text;
    if (ts.isObjectLiteralExpression(p) && ts.isVariableDeclaration(p.parent) && ts.isIdentifier(p.parent.name)) return p.parent.name.text;
    if (ts.isSourceFile(p)) return "";
  }
  return "";
}
function atModuleLevel(node) {
  let p = node.parent;
  if (ts.isVariableDeclaration(node)) p = node.parent && node.parent.parent && node.parent.parent.parent;
  return !!p && (ts.isSourceFile(p) || ts.isModuleBlock(p));
}

// Every declaration named `name` ("f", "Cls", "Cls.method") in the project's own files (restricted to `inPath`).
function declarations(name, inPath, line) {
  const [owner, member] = name.includes(".") ? name.split(".", 2) : ["", name];
  const found = [];
  for (const sf of ownFiles()) {
    if (inPath && !(rel(sf.fileName) === inPath || rel(sf.fileName).startsWith(inPath.replace(/\/$/, "") + "/"))) continue;
    const visit = (node) => {
      if (DECL_KINDS.has(node.kind) && node.name && (ts.isIdentifier(node.name) || ts.isPrivateIdentifier(node.name))
          && node.name.text === member) {
        const parentOk = owner ? containerName(node) === owner : true;
        if (parentOk && !(node.kind === ts.SyntaxKind.Parameter && !inPath)) {
          if (!line || lineOf(sf, node.name.getStart(sf)) === line) found.push({ sf, node });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return found;
}

function symbolKey(sf, node) {
  const checker = program().getTypeChecker();
  let sym = checker.getSymbolAtLocation(node.name);
  if (!sym) return `${sf.fileName}:${node.pos}`;
  const decl = (sym.declarations || [])[0];
  return decl ? `${decl.getSourceFile().fileName}:${decl.pos}` : `${sf.fileName}:${node.pos}`;
}

// The one symbol the developer named: distinct symbols are grouped (overloads and merged declarations are one);
// when several remain, module-level ones win; if still more than one, the places are listed and nothing is done.
function target(args) {
  const found = declarations(args.name, args.path || "", args.line || 0);
  if (!found.length) {
    const where = args.path ? ` in ${args.path}` : "";
    throw new Refused(`no definition named ${args.name}${where}`, "Give the name as it is defined (a method as Class.method), and --in PATH when it is in one file.");
  }
  const groups = new Map();
  for (const d of found) {
    const k = symbolKey(d.sf, d.node);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(d);
  }
  let picks = Array.from(groups.values());
  if (picks.length > 1) {
    const top = picks.filter((g) => g.some((d) => atModuleLevel(d.node) || containerName(d.node)));
    if (top.length >= 1) picks = top;
  }
  if (picks.length > 1) {
    const places = picks.map((g) => where(g[0].sf, g[0].node.name.getStart(g[0].sf))).join(", ");
    throw new Refused(`${args.name} is ambiguous: ${picks.length} different definitions (${places})`,
      "Say which one with --in PATH (and the line).");
  }
  return picks[0][0];
}

function checkIdentifier(name) {
  if (!ts.isIdentifierText(name, ts.ScriptTarget.ESNext) || ts.stringToToken(name) !== undefined && ts.stringToToken(name) <= ts.SyntaxKind.LastKeyword && ts.stringToToken(name) >= ts.SyntaxKind.FirstKeyword && isReserved(name))
    throw new Refused(`${JSON.stringify(name)} is not a valid identifier`, "Use letters, digits, _ and $ (not starting with a digit), and not a reserved word.");
}
function isReserved(name) {
  return ["break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else", "enum",
    "export", "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof", "new", "null", "return",
    "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while", "with", "let", "static", "yield",
    "await", "implements", "interface", "package", "private", "protected", "public"].includes(name);
}

// A name already visible where the renamed symbol is used or declared would capture it (or be captured).
function conflicts(locs, newName, sym) {
  const checker = program().getTypeChecker();
  const flags = ts.SymbolFlags.Value | ts.SymbolFlags.Type | ts.SymbolFlags.Namespace | ts.SymbolFlags.Alias;
  const clashes = [];
  for (const l of locs) {
    const sf = program().getSourceFile(l.fileName);
    const token = sf && ts.getTokenAtPosition ? ts.getTokenAtPosition(sf, l.textSpan.start) : undefined;
    if (!token || !ts.isIdentifier(token)) continue;
    const parent = token.parent;
    if (parent && (ts.isPropertyAccessExpression(parent) && parent.name === token || ts.isQualifiedName(parent) && parent.right === token)) {
      const objType = checker.getTypeAtLocation(ts.isPropertyAccessExpression(parent) ? parent.expression : parent.left);
      if (objType && objType.getProperty && objType.getProperty(newName)) clashes.push(`${where(sf, l.textSpan.start)}: ${newName} is already a member there`);
      continue;
    }
    if (parent && (ts.isPropertyDeclaration(parent) || ts.isMethodDeclaration(parent) || ts.isPropertySignature(parent) || ts.isMethodSignature(parent)) && parent.name === token) {
      const owner = parent.parent;
      if (owner && owner.members && owner.members.some((m) => m.name && m.name.text === newName)) clashes.push(`${where(sf, l.textSpan.start)}: ${newName} is already a member of ${owner.name ? owner.name.text : "that type"}`);
      continue;
    }
    const seen = checker.getSymbolsInScope(token, flags).filter((s) => s.name === newName && s !== sym);
    if (seen.length) clashes.push(`${where(sf, l.textSpan.start)}: ${newName} already names something there`);
  }
  return Array.from(new Set(clashes));
}

// -- rename -----------------------------------------------------------------------------------------------------------
function key(l) { return `${l.fileName}:${l.textSpan.start}`; }

function rename(args) {
  checkIdentifier(args.new_name);
  const { sf, node } = target(args);
  const pos = node.name.getStart(sf);
  const info = service.getRenameInfo(sf.fileName, pos, prefs);
  if (!info.canRename) throw new Refused(`${args.name} cannot be renamed: ${info.localizedErrorMessage}`);
  const exact = service.findRenameLocations(sf.fileName, pos, false, false, prefs) || [];
  const wide = service.findRenameLocations(sf.fileName, pos, true, true, prefs) || [];
  for (const l of exact) {
    if (!versions.has(l.fileName) || l.fileName.includes("/node_modules/"))
      throw new Refused(`${args.name} is also declared outside the project (${l.fileName.includes("/node_modules/") ? "in node_modules" : l.fileName}); renaming it would break that contract`);
  }
  const sym = program().getTypeChecker().getSymbolAtLocation(node.name);
  const clashes = conflicts(exact, args.new_name, sym);
  if (clashes.length) throw new Refused(`renaming ${args.name} to ${args.new_name} would clash: ${clashes.slice(0, 5).join("; ")}`, "Choose another name.");
  exact.push(...commonjsExports(exact, args.name.split(".").pop()));
  dynamicUses(args.name.split(".").pop(), exact);
  const exactKeys = new Set(exact.map(key));
  const extra = wide.filter((l) => !exactKeys.has(key(l)) && versions.has(l.fileName));
  out.places = exact.length;
  const before = new Map();
  for (const l of extra) if (!before.has(l.fileName)) before.set(l.fileName, readText(l.fileName));
  applyLocations(exact, args.new_name);
  // strings and comments: the original text with the exact and the optional places renamed, so it applies on top
  for (const [file, text0] of before) {
    const all = exact.concat(extra).filter((l) => l.fileName === file).sort((a, b) => b.textSpan.start - a.textSpan.start);
    let text = text0;
    for (const l of all) text = text.slice(0, l.textSpan.start) + (l.prefixText || "") + args.new_name + (l.suffixText || "") + text.slice(l.textSpan.start + l.textSpan.length);
    out.optional[rel(file)] = text;
  }
}

// A CommonJS module exports a binding under its own name (module.exports = { isRegExp: isRegExp }, exports.isRegExp =
// isRegExp): renaming the binding alone would leave the exported name, and every utils.isRegExp in other files, as
// they were. The export's property is renamed with it (its accesses found by the language service, which reads
// module.exports in JavaScript), and so is the name of a function expression the binding holds
// (var isRegExp = function isRegExp() {...}).
function commonjsExports(exact, name) {
  const more = [];
  const seen = new Set(exact.map(key));
  const add = (locs) => { for (const l of locs || []) if (!seen.has(key(l)) && versions.has(l.fileName)) { seen.add(key(l)); more.push(l); } };
  for (const l of exact) {
    const sf = program().getSourceFile(l.fileName);
    if (!sf || !/\.[cm]?js$/.test(l.fileName)) continue;
    const token = ts.getTokenAtPosition(sf, l.textSpan.start);
    const parent = token && token.parent;
    if (!parent) continue;
    if (ts.isPropertyAssignment(parent) && parent.initializer === token && ts.isIdentifier(parent.name) && parent.name.text === name)
      add(service.findRenameLocations(sf.fileName, parent.name.getStart(sf), false, false, prefs));
    else if (ts.isBinaryExpression(parent) && parent.right === token && ts.isPropertyAccessExpression(parent.left) && parent.left.name.text === name)
      add(service.findRenameLocations(sf.fileName, parent.left.name.getStart(sf), false, false, prefs));
    else if (ts.isVariableDeclaration(parent) && parent.name === token && parent.initializer && ts.isFunctionExpression(parent.initializer)
             && parent.initializer.name && parent.initializer.name.text === name)
      add(service.findRenameLocations(sf.fileName, parent.initializer.name.getStart(sf), false, false, prefs));
  }
  return more;
}

// Element accesses with a computed key (obj[name]) and strings equal to the name can reach the symbol at run time.
function dynamicUses(name, exact) {
  const seen = new Set(exact.map(key));
  for (const sf of ownFiles()) {
    const visit = (node) => {
      if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression) && node.argumentExpression.text === name
          && !seen.has(`${sf.fileName}:${node.argumentExpression.getStart(sf) + 1}`))
        out.unhandled.push(`${where(sf, node.getStart(sf))}: ${node.getText(sf).slice(0, 60)} names ${name} in a string; left as it is`);
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
}

function renameModule(args) {
  const from = abs(args.name), to = abs(args.new_name);
  if (!versions.has(from)) throw new Refused(`${args.name} is not a source file of the project`);
  if (fs.existsSync(to) || versions.has(to)) throw new Refused(`${args.new_name} already exists`, "Choose a new path.");
  const edits = service.getEditsForFileRename(from, to, formatFor(from), prefs);
  applyEdits(edits);
  out.places = edits.reduce((n, fc) => n + fc.textChanges.length, 0);
  setText(to, readText(from));
  original.set(to, undefined);
  out.created.push(rel(to));
  deleted.add(from);
}

// -- move ---------------------------------------------------------------------------------------------------------------
function statementOf(node) {
  if (ts.isVariableDeclaration(node)) {
    const list = node.parent;
    if (list.declarations.length !== 1) throw new Refused(`${node.name.text} is declared together with other variables; move it on its own line first`);
    return list.parent;
  }
  return node;
}

function move(args) {
  const [major, minor] = ts.versionMajorMinor.split(".").map(Number);
  if (major < 5 || major === 5 && minor < 2)
    throw new Refused(`moving needs TypeScript 5.2 or later; this project's is ${ts.version}`, "Use devagent's pinned TypeScript (--typescript pinned).");
  const { sf, node } = target(args);
  if (!atModuleLevel(node)) throw new Refused(`${args.name} is not defined at module level; only top-level functions, classes, variables and types move`);
  const stmt = statementOf(node);
  const to = abs(args.to);
  if (to === sf.fileName) throw new Refused(`${args.name} is already in ${args.to}`);
  const exported = !!(ts.getCombinedModifierFlags(ts.isVariableStatement(stmt) ? stmt.declarationList.declarations[0] : stmt) & ts.ModifierFlags.Export);
  const range = { pos: stmt.getStart(sf), end: stmt.end };
  const edits = service.getEditsForRefactor(sf.fileName, formatFor(sf.fileName), range, "Move to file", "Move to file", prefs, { targetFile: to });
  if (!edits || !edits.edits.length) throw new Refused(`the compiler could not move ${args.name} to ${args.to}`);
  out.places = edits.edits.reduce((n, fc) => n + fc.textChanges.length, 0);
  const existed = versions.has(to) || fs.existsSync(to);
  applyEdits(edits.edits);
  if (!existed && !out.created.includes(rel(to))) out.created.push(rel(to));
  if (!versions.has(to)) versions.set(to, 1);
  const why = exported ? publicReason(sf, args.entries || []) : "";
  if (why) { reexport(sf.fileName, to, node.name.text, stmt); out.public = why; }
}

// Why the old module is part of the package's API: a package.json entry point, or re-exported whole (export *).
function publicReason(sf, entries) {
  const name = rel(sf.fileName);
  if (entries.includes(name)) return `${name} is an entry point in package.json`;
  for (const other of ownFiles()) {
    for (const st of other.statements) {
      if (!ts.isExportDeclaration(st) || !st.moduleSpecifier || st.exportClause && !ts.isNamespaceExport(st.exportClause)) continue;
      const res = ts.resolveModuleName(st.moduleSpecifier.text, other.fileName, options, ts.sys).resolvedModule;
      if (res && res.resolvedFileName === sf.fileName) return `${rel(other.fileName)} re-exports all of ${name}`;
    }
  }
  return "";
}

// The old module keeps its public name: `export { name } from "./new"` (a type with `export type`).
function reexport(fromFile, toFile, name, stmt) {
  let spec = path.relative(path.dirname(fromFile), toFile).split(path.sep).join("/");
  if (!spec.startsWith(".")) spec = "./" + spec;
  const text = readText(fromFile);
  const usesJs = /from\s+['"]\.{1,2}\/[^'"]+\.js['"]/.test(original.get(fromFile) || text);
  spec = spec.replace(/\.(d\.)?[mc]?tsx?$/, usesJs ? ".js" : "").replace(/\.[mc]?jsx?$/, usesJs ? ".js" : "");
  const typeOnly = ts.isInterfaceDeclaration(stmt) || ts.isTypeAliasDeclaration(stmt);
  const before = original.get(fromFile) || text;
  const quote = /\bfrom\s+'/.test(before) ? "'" : /\bfrom\s+"/.test(before) ? '"' : prefs.quotePreference === "single" ? "'" : '"';
  const semi = semicolons(before) ? ";" : "";
  const isCjs = /\.c?js$/.test(fromFile) && !/^\s*(import|export)\s/m.test(text);
  const line = isCjs ? `module.exports.${name} = require(${quote}${spec}${quote}).${name}${semi}\n`
    : `export ${typeOnly ? "type " : ""}{ ${name} } from ${quote}${spec}${quote}${semi}\n`;
  setText(fromFile, text.endsWith("\n") || !text ? text + line : text + "\n" + line);
  out.reexported = rel(fromFile);
}

// -- signature ------------------------------------------------------------------------------------------------------------
function functionLike(node) {
  if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node)) return node;
  if (ts.isVariableDeclaration(node) || ts.isPropertyDeclaration(node) || ts.isPropertyAssignment(node)) {
    const init = node.initializer;
    if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) return init;
  }
  if (ts.isClassDeclaration(node)) {
    const ctor = node.members.find((m) => ts.isConstructorDeclaration(m) && m.body);
    if (ctor) return ctor;
  }
  throw new Refused(`${node.name ? node.name.text : "that"} is not a function or method`);
}

function parseParameter(textParam, isJs) {
  const probe = ts.createSourceFile("probe.ts", `function f(${textParam}) {}`, ts.ScriptTarget.ESNext, true, ts.ScriptKind.TS);
  const fn = probe.statements[0];
  if (probe.parseDiagnostics && probe.parseDiagnostics.length || !fn || !ts.isFunctionDeclaration(fn) || fn.parameters.length !== 1)
    throw new Refused(`${JSON.stringify(textParam)} is not one parameter`, "Write it as `name = default` or `name: type = default`.");
  const p = fn.parameters[0];
  if (!ts.isIdentifier(p.name)) throw new Refused("the new parameter needs a plain name");
  if (!p.initializer) throw new Refused(`the new parameter ${p.name.text} needs a default (name = value), so that existing calls keep working`);
  if (p.dotDotDotToken) throw new Refused("a rest parameter cannot be added with a default");
  if (isJs && p.type) throw new Refused(`${p.name.text}: a type annotation cannot go into a JavaScript file`, "Leave the type out.");
  return { name: p.name.text, type: p.type ? p.type.getText(probe) : "", init: p.initializer.getText(probe) };
}

function bodyUses(fn, name, sf) {
  const checker = program().getTypeChecker();
  const hits = [];
  const visit = (n) => {
    if (ts.isIdentifier(n) && n.text === name && n !== fn.name) {
      const s = checker.getSymbolAtLocation(n);
      const d = s && s.declarations && s.declarations[0];
      if (!d || d.pos < fn.pos || d.end > fn.end) hits.push(where(sf, n.getStart(sf)));
    }
    ts.forEachChild(n, visit);
  };
  if (fn.body) visit(fn.body);
  return hits;
}

// An overloaded function or method is named by its first signature; its parameters' defaults are in the body's.
function implementationOf(node) {
  if (!(ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) || node.body) return node;
  const sym = program().getTypeChecker().getSymbolAtLocation(node.name);
  const impl = ((sym && sym.declarations) || []).find((d) => d.kind === node.kind && d.body);
  if (!impl) throw new Refused(`${node.name.getText()} has no body here (a declaration only); its parameters are not defined here`);
  return impl;
}

// The edit that adds `decl` as the last parameter of `fn`, laid out like the others (one a line when they are).
function appended(fn, decl, sf, text) {
  const last = fn.parameters[fn.parameters.length - 1];
  if (!last) {
    const open = text.indexOf("(", fn.name ? fn.name.end : fn.getStart(sf));
    return { start: open + 1, end: open + 1, text: decl };
  }
  const lineStart = text.lastIndexOf("\n", last.getStart(sf)) + 1;
  const own = /^\s*$/.test(text.slice(lineStart, last.getStart(sf)));
  const indent = text.slice(lineStart, last.getStart(sf));
  const first = fn.parameters[0].getStart(sf);
  const oneALine = own && /\(\s*\n\s*$/.test(text.slice(Math.max(0, first - 200), first));
  return { start: last.end, end: last.end, text: oneALine ? `,\n${indent}${decl}` : `, ${decl}` };
}

function signature(args) {
  const found = target(args);
  const sf = found.sf, node = implementationOf(found.node);
  const fn = functionLike(node);
  const isJs = /\.[mc]?jsx?$/.test(sf.fileName);
  let text = readText(sf.fileName);
  const edits = [];
  if (args.add) {
    const p = parseParameter(args.add, isJs);
    if (fn.parameters.some((q) => ts.isIdentifier(q.name) && q.name.text === p.name)) throw new Refused(`${args.name} already has a parameter ${p.name}`);
    const last = fn.parameters[fn.parameters.length - 1];
    if (last && last.dotDotDotToken) throw new Refused(`${args.name} ends with a rest parameter (${last.getText(sf)}); a parameter after it is not allowed, and one before it would shift positional calls`);
    const shadow = bodyUses(fn, p.name, sf);
    if (shadow.length) throw new Refused(`${args.name}'s body already uses ${p.name} from outside (${shadow.slice(0, 3).join(", ")}); a parameter of that name would hide it`, "Choose another name.");
    const decl = `${p.name}${p.type ? ": " + p.type : ""} = ${p.init}`;
    if (ts.isArrowFunction(fn) && fn.parameters.length === 1 && !text.slice(fn.getStart(sf), fn.parameters[0].getStart(sf)).includes("(")) {
      const only = fn.parameters[0];
      edits.push({ start: only.getStart(sf), end: only.end, text: `(${only.getText(sf)}, ${decl})` });
    } else {
      edits.push(appended(fn, decl, sf, text));
    }
    // overload signatures of the same function get the parameter as optional
    const checker = program().getTypeChecker();
    const sym = checker.getSymbolAtLocation(node.name);
    for (const d of (sym && sym.declarations) || []) {
      if (d === fn || !(ts.isFunctionDeclaration(d) || ts.isMethodDeclaration(d) || ts.isMethodSignature(d)) || d.body) continue;
      if (d.getSourceFile() !== sf) { out.unhandled.push(`${where(d.getSourceFile(), d.getStart())}: a declaration of ${args.name} in another file; not changed`); continue; }
      if (!p.type) throw new Refused(`${args.name} has overload signatures; give the new parameter a type (name: type = default)`);
      edits.push(appended(d, `${p.name}?: ${p.type}`, sf, text));
    }
    out.added = p.name;
  }
  if (args.default) {
    const [pname, value] = args.default;
    const expr = ts.createSourceFile("probe.ts", `(${value});`, ts.ScriptTarget.ESNext, true, ts.ScriptKind.TS);
    if (expr.parseDiagnostics && expr.parseDiagnostics.length || expr.statements.length !== 1)
      throw new Refused(`${JSON.stringify(value)} is not one expression`);
    let found = null;
    const visit = (n) => {
      if ((ts.isParameter(n) || ts.isBindingElement(n)) && ts.isIdentifier(n.name) && n.name.text === pname) found = found || n;
      ts.forEachChild(n, visit);
    };
    for (const p of fn.parameters) visit(p);
    if (!found) throw new Refused(`${args.name} has no parameter ${pname}`);
    if (!found.initializer) throw new Refused(`${pname} has no default to change`, "Add a parameter with a default instead, or give it one by hand.");
    edits.push({ start: found.initializer.getStart(sf), end: found.initializer.end, text: value });
  }
  if (!edits.length) throw new Refused("nothing to change: say which parameter to add (--add) or which default to change (--default)");
  edits.sort((a, b) => b.start - a.start);
  for (const e of edits) text = text.slice(0, e.start) + e.text + text.slice(e.end);
  setText(sf.fileName, text);
  out.places = edits.length;
  overrides(args, node, sf);
}

function overrides(args, node, sf) {
  if (!ts.isMethodDeclaration(node) && !ts.isMethodSignature(node)) return;
  const impls = service.getImplementationAtPosition(sf.fileName, node.name.getStart(sf)) || [];
  for (const i of impls) {
    if (i.fileName === sf.fileName && i.textSpan.start <= node.name.getStart(sf) && node.end <= i.textSpan.start + i.textSpan.length + 1000 && i.textSpan.start >= node.pos && i.textSpan.start <= node.end) continue;
    const other = program().getSourceFile(i.fileName);
    if (other && isOwn(other)) out.unhandled.push(`${where(other, i.textSpan.start)}: another implementation of ${args.name}; its parameters were not changed`);
  }
}

// -- extract ---------------------------------------------------------------------------------------------------------------
function extract(args) {
  checkIdentifier(args.new_name);
  const file = abs(args.path);
  const sf = program().getSourceFile(file);
  if (!sf || !isOwn(sf)) throw new Refused(`${args.path} is not a source file of the project`);
  const lines = sf.getLineStarts();
  const first = args.start, last = args.end;
  if (!(first >= 1 && last >= first && last <= lines.length)) throw new Refused(`lines ${first}-${last} are not in ${args.path} (${lines.length} lines)`);
  const text = sf.text;
  let pos = lines[first - 1], end = last < lines.length ? lines[last] : text.length;
  while (pos < end && /\s/.test(text[pos])) pos++;
  while (end > pos && /\s/.test(text[end - 1])) end--;
  const range = { pos, end };
  const refactors = service.getApplicableRefactors(file, range, prefs, "invoked", undefined, false) || [];
  const ex = refactors.find((r) => r.name === "Extract Symbol");
  const actions = ex ? ex.actions.filter((a) => a.name.startsWith("function_scope_")) : [];
  const usable = actions.filter((a) => !a.notApplicableReason);
  if (!usable.length) {
    const why = actions.map((a) => a.notApplicableReason).filter(Boolean)[0] || "the lines are not whole statements or one expression";
    throw new Refused(`lines ${first}-${last} of ${args.path} cannot be extracted into a function: ${why}`, "Give whole statements (or one expression), without a return or break that leaves the range.");
  }
  const moduleScope = usable.filter((a) => /module|global/i.test(a.description));
  const action = args.scope === "inner" ? usable[0] : (moduleScope[0] || usable[usable.length - 1]);
  for (const s of sf.statements) {
    if ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) && s.name && s.name.text === args.new_name || ts.isVariableStatement(s) && s.declarationList.declarations.some((d) => ts.isIdentifier(d.name) && d.name.text === args.new_name))
      throw new Refused(`${args.path} already defines ${args.new_name}`, "Choose another name.");
  }
  const edits = service.getEditsForRefactor(file, formatFor(file), range, "Extract Symbol", action.name, prefs);
  if (!edits || !edits.edits.length) throw new Refused(`the compiler could not extract lines ${first}-${last}`);
  applyEdits(edits.edits);
  out.scope = action.description;
  if (edits.renameLocation !== undefined) {
    const target = edits.renameFilename ? (path.isAbsolute(edits.renameFilename) ? edits.renameFilename : abs(edits.renameFilename)) : file;
    const locs = service.findRenameLocations(target, edits.renameLocation, false, false, prefs) || [];
    applyLocations(locs, args.new_name);
  }
  out.places = 1;
}

// -- the result ---------------------------------------------------------------------------------------------------------------
function finish() {
  for (const [file, before] of original) {
    const now = texts.get(file);
    if (now !== before && !deleted.has(file)) out.changes[rel(file)] = now;
  }
  for (const file of deleted) out.changes[rel(file)] = null;
  for (const [r, text] of Object.entries(out.changes)) {
    if (text === null) continue;
    const kind = /\.[mc]?jsx?$/.test(r) ? ts.ScriptKind.JSX : ts.ScriptKind.TSX;
    const sf = ts.createSourceFile(r, text, ts.ScriptTarget.ESNext, true, /\.tsx?$/.test(r) && !r.endsWith(".tsx") ? ts.ScriptKind.TS : kind);
    for (const d of sf.parseDiagnostics || []) {
      out.parse.push({ path: r, line: lineOf(sf, d.start || 0), message: ts.flattenDiagnosticMessageText(d.messageText, " ") });
    }
  }
  out.ok = true;
}

try {
  const ops = { rename: (a) => (a.module ? renameModule(a) : rename(a)), move, signature, extract };
  const op = ops[request.op];
  if (!op) throw new Refused(`unknown operation ${request.op}`);
  prefs.quotePreference = projectQuote();
  op(request.args);
  finish();
} catch (e) {
  out.ok = false;
  if (e instanceof Refused) {
    out.error = e.message;
    out.hint = e.hint;
  } else {
    // the compiler's own assertion or bug on this code: said as such, with where it failed for a report
    const first = String(e && e.message || e).split("\n")[0].slice(0, 300);
    out.error = `the TypeScript ${ts.version} compiler failed while computing the ${request.op}: ${first}`;
    out.hint = "Nothing was changed. This is a limit of the compiler's own refactoring on this code; make this change "
      + "by hand, or try it with devagent's pinned TypeScript (--typescript pinned) if the project's is older.";
    out.trace = e && e.stack ? e.stack.split("\n").slice(0, 6).join(" | ") : "";
  }
}
fs.writeFileSync(request.result, JSON.stringify(out));
