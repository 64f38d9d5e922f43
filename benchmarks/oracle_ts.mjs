// The TypeScript language service as an oracle for call resolution
// (benchmarks/oracle_ts.py runs it and compares cartog-ci's `calls` edges).
//
//   node oracle_ts.mjs TS_PREFIX REPO [TSCONFIG]
//
// TS_PREFIX is an `npm install --prefix` directory holding `typescript`;
// TSCONFIG is relative to REPO (default tsconfig.json), or absolute (one
// written outside the repository for a tarball that ships none). Output, one JSON
// object a line on stdout: first {"files": [...]} (the program's files this
// walked, relative to REPO), then one object per call site:
//
//   {file, line, name, status, reason, target?, candidates?, shape}
//
// A call site is a CallExpression, NewExpression or JSX opening /
// self-closing element with a component tag. `line` is the line where the
// callee expression starts (`a.b.c()` -> the line of `a`): cartog-ci anchors
// an edge at its whole callee capture (src/cartog_ci/parse/extract.py), so
// chained calls spread over several lines match by that line. `status` is
// "confident" (one in-repo function, method, class, or variable/property
// holding one: `target` = {file, line, name, kind, local}), "ambiguous"
// (several: `candidates`), "external" (defined outside the repo: lib.d.ts,
// node_modules, an import the service cannot resolve) or "unknown" (no
// definition, or an in-repo one that is no function: a parameter, an
// interface member, a destructured name). `shape` says how the callee is
// written and what binds its leftmost name, for the miss patterns.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const [prefix, repoArg, configArg = 'tsconfig.json'] = process.argv.slice(2);
const ts = createRequire(path.join(path.resolve(prefix), 'package.json'))('typescript');
const repo = fs.realpathSync(path.resolve(repoArg));
const rel = (file) => path.relative(repo, file).split(path.sep).join('/');
const inRepo = (file) => file.startsWith(repo + '/') && !file.includes('/node_modules/');

// --- the program: the corpus' own tsconfig, with JavaScript allowed --------
const configPath = path.resolve(repo, configArg);
const { config, error } = ts.readConfigFile(configPath, ts.sys.readFile);
if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
const overrides = { allowJs: true, checkJs: false, noEmit: true, maxNodeModuleJsDepth: 0 };
const parsed = ts.parseJsonConfigFileContent(config, ts.sys, path.dirname(configPath), overrides, configPath);
const roots = parsed.fileNames.filter(inRepo);

const snapshots = new Map();
const host = {
  getCompilationSettings: () => parsed.options,
  getProjectReferences: () => parsed.projectReferences,
  getScriptFileNames: () => roots,
  getScriptVersion: () => '0',
  getScriptSnapshot(file) {
    if (!snapshots.has(file)) {
      snapshots.set(file, ts.sys.fileExists(file) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(file)) : undefined);
    }
    return snapshots.get(file);
  },
  getCurrentDirectory: () => repo,
  getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
  fileExists: ts.sys.fileExists,
  readFile: ts.sys.readFile,
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
  realpath: ts.sys.realpath,
  useCaseSensitiveFileNames: () => true,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
const program = service.getProgram();
const checker = program.getTypeChecker();

// --- the callee's name node ------------------------------------------------
// `f!(x)` and `(0, m.f)(x)` (how tsc emits an imported call) call `f`.
function unwrap(expr) {
  while (ts.isParenthesizedExpression(expr) || ts.isNonNullExpression(expr)) {
    expr = ts.isParenthesizedExpression(expr) && ts.isBinaryExpression(expr.expression)
      && expr.expression.operatorToken.kind === ts.SyntaxKind.CommaToken ? expr.expression.right : expr.expression;
  }
  return expr;
}

function calleeOf(node) {
  if (isRequire(node)) return undefined; // an import for cartog-ci, not a call
  if (ts.isCallExpression(node) || ts.isNewExpression(node)) return unwrap(node.expression);
  if (ts.isJsxOpeningElement(node) || ts.isJsxSelfClosingElement(node)) {
    const tag = node.tagName;
    // Lower-case tags (`<div>`) are HTML elements, not calls.
    return ts.isIdentifier(tag) && !/^[A-Z]/.test(tag.text) ? undefined : tag;
  }
  return undefined;
}

function nameNode(callee) {
  if (ts.isIdentifier(callee)) return callee;
  if (ts.isPropertyAccessExpression(callee)) return callee.name;
  return undefined; // super(), import(), f()(), a[b]() ...
}

// --- what the callee's receiver or binding is (for the miss patterns) ------
function declarationKind(decl) {
  if (!decl) return 'none';
  if (ts.isNamespaceImport(decl)) return 'namespace-import';
  if (ts.isImportClause(decl)) return 'default-import';
  if (ts.isImportSpecifier(decl)) return 'named-import';
  if (ts.isImportEqualsDeclaration(decl)) return 'require';
  if (ts.isVariableDeclaration(decl) && decl.initializer && isRequire(decl.initializer)) return 'require';
  if (ts.isBindingElement(decl) && isRequire(decl.parent.parent.initializer)) return 'named-import';
  if (ts.isParameter(decl)) return 'parameter';
  if (ts.isVariableDeclaration(decl) || ts.isBindingElement(decl)) return 'variable';
  if (ts.isClassDeclaration(decl) || ts.isClassExpression(decl)) return 'class';
  if (ts.isPropertyDeclaration(decl) || ts.isPropertySignature(decl)) return 'property';
  return 'local';
}

function isRequire(expr) {
  return !!expr && ts.isCallExpression(expr) && ts.isIdentifier(expr.expression) && expr.expression.text === 'require';
}

function moduleSpecifier(decl) {
  for (let node = decl; node; node = node.parent) {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) return node.moduleSpecifier.text;
    if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      return node.moduleReference.expression.text;
    }
    if (ts.isVariableDeclaration(node) && isRequire(node.initializer)) return node.initializer.arguments[0]?.text;
  }
  return undefined;
}

function bindingOf(identifier, file) {
  const symbol = checker.getSymbolAtLocation(identifier);
  const decl = symbol?.declarations?.[0];
  const binding = { kind: declarationKind(decl) };
  const spec = decl && binding.kind !== 'parameter' ? moduleSpecifier(decl) : undefined;
  if (spec) Object.assign(binding, { spec, module: moduleFile(spec, file) });
  return binding;
}

const modules = new Map(); // `${file}\0${spec}` -> the repo file it resolves to, or null
function moduleFile(spec, file) {
  const key = `${file}\0${spec}`;
  if (!modules.has(key)) {
    const resolved = ts.resolveModuleName(spec, file, parsed.options, ts.sys).resolvedModule?.resolvedFileName;
    modules.set(key, resolved && inRepo(resolved) ? rel(resolved) : null);
  }
  return modules.get(key);
}

function shapeOf(node, callee, file) {
  const form = ts.isCallExpression(node) ? 'call' : ts.isNewExpression(node) ? 'new' : 'jsx';
  const shape = { form, wrapped: form !== 'jsx' && node.expression !== callee };
  if (ts.isIdentifier(callee)) return { ...shape, receiver: null, binding: bindingOf(callee, file) };
  const object = unwrap(callee.expression);
  const isThis = (e) => e.kind === ts.SyntaxKind.ThisKeyword;
  let receiver = 'other';
  if (isThis(object)) receiver = 'this';
  else if (ts.isPropertyAccessExpression(object) && isThis(object.expression)) receiver = 'this.member';
  else if (ts.isCallExpression(object)) receiver = 'call';
  else if (ts.isPropertyAccessExpression(object)) receiver = 'member';
  else if (ts.isIdentifier(object)) return { ...shape, receiver: 'identifier', binding: bindingOf(object, file) };
  return { ...shape, receiver, binding: null };
}

// --- a definition: the declaration it names, and whether it is callable ----
function nodeAt(sourceFile, pos) {
  let node = sourceFile;
  for (;;) {
    const child = ts.forEachChild(node, (c) => (c.getStart(sourceFile) <= pos && pos < c.end ? c : undefined));
    if (!child) return node;
    node = child;
  }
}

const FUNCTION_VALUE = (e) => ts.isFunctionExpression(e) || ts.isArrowFunction(e) || ts.isClassExpression(e);

function unwrapValue(expr) {
  while (expr && (ts.isParenthesizedExpression(expr) || ts.isAsExpression(expr) || ts.isSatisfiesExpression(expr)
    || ts.isNonNullExpression(expr) || ts.isTypeAssertionExpression(expr))) expr = expr.expression;
  return expr;
}

// A variable holds a function when it is initialised with one, or with a
// call: a higher-order component (`memo(() => ...)`) or a factory
// (`customAlphabet(...)`, `create()(...)`), which the call site shows
// returned a function. An alias (`const f = g`) or a destructured name is
// not a definition of its own.
function holdsFunction(init) {
  const value = unwrapValue(init);
  return !!value && (FUNCTION_VALUE(value) || ts.isCallExpression(value));
}

// The declaration a definition span points into, walking up through
// anonymous functions to the name they are bound to.
function declarationAt(def) {
  const sourceFile = program.getSourceFile(def.fileName);
  if (!sourceFile) return undefined;
  let node = nodeAt(sourceFile, def.textSpan.start);
  while (node && !ts.isSourceFile(node)) {
    if (ts.isDeclaration(node) && !ts.isArrowFunction(node) && !ts.isFunctionExpression(node)
      && !(ts.isClassExpression(node) && !node.name)) return node;
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) return node;
    if (ts.isExportAssignment(node)) return node;
    node = node.parent;
  }
  return undefined;
}

// {decl, name, kind, nameNode} when the declaration is a callable target,
// else {why}. An anonymous default export (`export default () => {}`) is
// named "default" with kind "DefaultExport": cartog-ci takes the module
// itself for it (src/cartog_ci/languages/esimports.py, _js_default).
function callable(decl) {
  if (!decl) return { why: 'no declaration node' };
  if (ts.isConstructorDeclaration(decl)) return callable(decl.parent); // a class and its constructor are one target
  if (ts.isImportSpecifier(decl) || ts.isImportClause(decl) || ts.isNamespaceImport(decl)
    || ts.isImportEqualsDeclaration(decl)) return { why: 'unresolved import', external: true };
  // `var test = require('tape')` with tape not installed: the service stops at
  // the variable, an import it cannot resolve (a call, yet no factory's)
  if (ts.isVariableDeclaration(decl) && isRequire(unwrapValue(decl.initializer))) {
    return { why: 'unresolved import', external: true };
  }
  const declared = ts.isFunctionDeclaration(decl) || ts.isMethodDeclaration(decl) || ts.isClassDeclaration(decl)
    || ts.isClassExpression(decl);
  const bound = (ts.isVariableDeclaration(decl) || ts.isPropertyDeclaration(decl) || ts.isPropertyAssignment(decl))
    && holdsFunction(decl.initializer);
  if ((declared || bound) && decl.name) return { decl, name: decl.name.getText(), kind: ts.SyntaxKind[decl.kind] };
  if (declared || (ts.isExportAssignment(decl) && FUNCTION_VALUE(unwrapValue(decl.expression)))) {
    return { decl, name: 'default', kind: 'DefaultExport' };
  }
  if (ts.isBinaryExpression(decl) && FUNCTION_VALUE(unwrapValue(decl.right))) { // exports.f = function () {}
    const nameNode = ts.isPropertyAccessExpression(decl.left) ? decl.left.name : decl.left;
    return { decl, name: nameNode.getText(), kind: 'BinaryExpression', nameNode };
  }
  return { why: ts.SyntaxKind[decl.kind] };
}

// An overloaded function is one target: its implementation (the
// declaration with a body), else its first signature (a .d.ts).
function implementationOf(decl) {
  if (!(ts.isFunctionDeclaration(decl) || ts.isMethodDeclaration(decl)) || decl.body || !decl.name) return decl;
  const declarations = checker.getSymbolAtLocation(decl.name)?.declarations ?? [];
  const same = declarations.filter((d) => d.kind === decl.kind);
  return same.find((d) => d.body) ?? same[0] ?? decl;
}

// {target, span} or {why, external}. `kind` and `local` (declared inside a
// function) describe a target cartog-ci may have no symbol for.
function targetOf(def) {
  const found = callable(declarationAt(def));
  if (!found.decl) return found;
  const decl = implementationOf(found.decl);
  const sourceFile = decl.getSourceFile();
  const at = (found.nameNode ?? decl.name ?? decl).getStart(sourceFile);
  const line = sourceFile.getLineAndCharacterOfPosition(at).line + 1;
  const local = !!ts.findAncestor(decl.parent, (n) => ts.isFunctionLike(n));
  const target = { file: rel(sourceFile.fileName), line, name: found.name, kind: found.kind, local };
  return { target, span: [decl.getStart(sourceFile), decl.end] };
}

// Of several targets, keep the one the call names (`new Sub()` of a class
// without a constructor also lists the base class's constructor), then the
// innermost (`var Subject = (function () { function Subject() {} ... })()`,
// ES5 output: the variable holds the inner function).
function narrow(found, calledName) {
  const named = found.filter((f) => f.target.name === calledName);
  if (named.length >= 1) found = named;
  const contains = (a, b) => a !== b && a.target.file === b.target.file
    && a.span[0] <= b.span[0] && b.span[1] <= a.span[1];
  return found.filter((a) => !found.some((b) => contains(a, b)));
}

function resolve(file, name) {
  const defs = service.getDefinitionAtPosition(file, name.getStart()) ?? [];
  const targets = new Map();
  const reasons = [];
  let external = '';
  for (const def of defs) {
    if (!inRepo(def.fileName)) { external ||= 'defined outside the repository'; continue; }
    const found = targetOf(def);
    if (found.target) targets.set(JSON.stringify(found.target), found);
    else if (found.external) external = found.why;
    else reasons.push(found.why);
  }
  const list = narrow([...targets.values()], name.text).map((f) => f.target);
  if (list.length === 1) return { status: 'confident', target: list[0] };
  if (list.length > 1) return { status: 'ambiguous', candidates: list };
  if (external) return { status: 'external', reason: external };
  const kinds = [...new Set(reasons)].join(', ');
  return { status: 'unknown', reason: kinds ? `not a function: ${kinds}` : 'no definition' };
}

// --- walk every file of the program ----------------------------------------
const out = process.stdout;
out.write(JSON.stringify({ files: roots.map(rel), typescript: ts.version }) + '\n');
let done = 0;
for (const file of roots) {
  const sourceFile = program.getSourceFile(file);
  const visit = (node) => {
    const callee = calleeOf(node);
    const name = callee && nameNode(callee);
    if (name) {
      const line = sourceFile.getLineAndCharacterOfPosition(callee.getStart(sourceFile)).line + 1;
      const shape = shapeOf(node, callee, file);
      const site = { file: rel(file), line, name: name.text, ...resolve(file, name), shape };
      // `React.useMemo()` with react not installed: the receiver is an
      // import the service cannot resolve, so the call is external too.
      if (site.reason === 'no definition' && site.shape.binding?.spec && site.shape.binding.module === null) {
        Object.assign(site, { status: 'external', reason: 'member of an unresolved import' });
      }
      out.write(JSON.stringify(site) + '\n');
    }
    ts.forEachChild(node, visit);
  };
  if (sourceFile) visit(sourceFile);
  if (++done % 500 === 0) process.stderr.write(`oracle: ${done}/${roots.length} files\n`);
}
