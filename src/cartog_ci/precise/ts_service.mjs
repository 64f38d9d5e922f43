// The compiler tier's TypeScript side (docs/report.md, "The compiler tier"):
// one long-lived process per report, fed JSON lines on stdin, answering
// JSON lines on stdout. Run by src/cartog_ci/precise/typescript.py as
//
//   node ts_service.mjs TYPESCRIPT_PACKAGE_DIR REPO
//
// with the repository's own `typescript` (never a downloaded one). Input:
// first {"files": [...]} (repository-relative files whose call sites will be
// asked: roots of the program besides the root tsconfig.json's), then one
// {"id", "file", "line", "name"} per call site, `line` being where the
// callee expression starts (where cartog-ci anchors a call edge). Output:
// first {"ready": true, "typescript": version} once the program is built,
// then per site {"id", "targets": [{file, line, name, kind}], "external",
// "calls"}: the in-repository definitions the language service gives for
// the callee names of that line (`calls`: how many it found), an overload
// set as its implementation; `external` when a definition lies outside the
// repository (lib.d.ts, node_modules).

import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { createRequire } from 'node:module';

const [tsDir, repoArg] = process.argv.slice(2);
const ts = createRequire(path.join(path.resolve(tsDir), 'package.json'))('typescript');
const repo = fs.realpathSync(path.resolve(repoArg));
const rel = (file) => path.relative(repo, file).split(path.sep).join('/');
const inRepo = (file) => file.startsWith(repo + '/') && !file.includes('/node_modules/');
const DEFAULTS = {
  allowJs: true, checkJs: false, noEmit: true, maxNodeModuleJsDepth: 0, skipLibCheck: true,
  target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler,
  jsx: ts.JsxEmit.Preserve, esModuleInterop: true,
};

function program(files) {
  const configPath = path.join(repo, 'tsconfig.json');
  let options = { ...DEFAULTS };
  let roots = [];
  if (fs.existsSync(configPath)) {
    const { config, error } = ts.readConfigFile(configPath, ts.sys.readFile);
    if (!error) {
      const overrides = { allowJs: true, checkJs: false, noEmit: true, maxNodeModuleJsDepth: 0 };
      const parsed = ts.parseJsonConfigFileContent(config, ts.sys, repo, overrides, configPath);
      options = { ...DEFAULTS, ...parsed.options };
      roots = parsed.fileNames.filter(inRepo);
    }
  }
  roots = [...new Set([...roots, ...files.map((f) => path.join(repo, f))])];
  const snapshots = new Map();
  const host = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => roots,
    getScriptVersion: () => '0',
    getScriptSnapshot(file) {
      if (!snapshots.has(file)) {
        snapshots.set(file, ts.sys.fileExists(file) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(file)) : undefined);
      }
      return snapshots.get(file);
    },
    getCurrentDirectory: () => repo,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
    realpath: ts.sys.realpath,
    useCaseSensitiveFileNames: () => true,
  };
  return ts.createLanguageService(host, ts.createDocumentRegistry());
}

// the callee's name node of a call, `new` or JSX component tag, as the
// indexer anchors it: `f!(x)` and `(0, m.f)(x)` call `f`
function unwrap(expr) {
  while (ts.isParenthesizedExpression(expr) || ts.isNonNullExpression(expr)) {
    expr = ts.isParenthesizedExpression(expr) && ts.isBinaryExpression(expr.expression)
      && expr.expression.operatorToken.kind === ts.SyntaxKind.CommaToken ? expr.expression.right : expr.expression;
  }
  return expr;
}

function calleeName(node) {
  let callee;
  if (ts.isCallExpression(node) || ts.isNewExpression(node)) callee = unwrap(node.expression);
  else if (ts.isJsxOpeningElement(node) || ts.isJsxSelfClosingElement(node)) callee = node.tagName;
  if (!callee) return undefined;
  if (ts.isIdentifier(callee)) return { callee, name: callee };
  if (ts.isPropertyAccessExpression(callee)) return { callee, name: callee.name };
  return undefined;
}

const callsByFile = new Map(); // file -> Map(`${line}\0${name}` -> [name nodes])
function callsOn(service, file) {
  if (!callsByFile.has(file)) {
    const calls = new Map();
    const sourceFile = service.getProgram().getSourceFile(file);
    const visit = (node) => {
      const found = calleeName(node);
      if (found) {
        const line = sourceFile.getLineAndCharacterOfPosition(found.callee.getStart(sourceFile)).line + 1;
        const key = `${line}\0${found.name.text}`;
        if (!calls.has(key)) calls.set(key, []);
        calls.get(key).push(found.name);
      }
      ts.forEachChild(node, visit);
    };
    if (sourceFile) visit(sourceFile);
    callsByFile.set(file, calls);
  }
  return callsByFile.get(file);
}

// an overloaded function or method is one target: its implementation
function implementation(checker, decl) {
  if (!(ts.isFunctionDeclaration(decl) || ts.isMethodDeclaration(decl)) || decl.body || !decl.name) return decl;
  const declarations = checker.getSymbolAtLocation(decl.name)?.declarations ?? [];
  const same = declarations.filter((d) => d.kind === decl.kind);
  return same.find((d) => d.body) ?? decl;
}

function declarationAt(program, def) {
  const sourceFile = program.getSourceFile(def.fileName);
  let node = sourceFile && ts.getTokenAtPosition(sourceFile, def.textSpan.start);
  while (node && !ts.isSourceFile(node)) {
    if (ts.isDeclaration(node) && node.name) return node;
    node = node.parent;
  }
  return undefined;
}

function target(program, def) {
  const decl = declarationAt(program, def);
  const chosen = decl ? implementation(program.getTypeChecker(), decl) : undefined;
  const sourceFile = chosen ? chosen.getSourceFile() : program.getSourceFile(def.fileName);
  const at = chosen?.name ? chosen.name.getStart(sourceFile) : def.textSpan.start;
  const line = sourceFile.getLineAndCharacterOfPosition(at).line + 1;
  return { file: rel(sourceFile.fileName), line, name: def.name, kind: def.kind };
}

function answer(service, site) {
  const file = path.join(repo, site.file);
  const names = callsOn(service, file).get(`${site.line}\0${site.name}`) ?? [];
  const targets = new Map();
  let external = false;
  for (const name of names) {
    for (const def of service.getDefinitionAtPosition(file, name.getStart()) ?? []) {
      if (!inRepo(def.fileName)) { external = true; continue; }
      const found = target(service.getProgram(), def);
      targets.set(JSON.stringify(found), found);
    }
  }
  return { id: site.id, targets: [...targets.values()], external, calls: names.length };
}

const write = (object) => process.stdout.write(JSON.stringify(object) + '\n');
let service;
const input = readline.createInterface({ input: process.stdin });
for await (const line of input) {
  const message = JSON.parse(line);
  if (message.files) {
    service = program(message.files);
    service.getProgram();
    write({ ready: true, typescript: ts.version });
  } else {
    let out;
    try {
      out = answer(service, message);
    } catch (error) {
      out = { id: message.id, error: String(error?.message ?? error).split('\n')[0] };
    }
    write(out);
  }
}
