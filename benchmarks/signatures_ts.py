"""TypeScript parameter lists, checked against the TypeScript compiler: for
every exported function and every method of an exported class of three npm
packages that ship their ``.ts`` sources, the parameter count and names that
cartog-ci reads from a symbol's signature equal those of the compiler's
``checker.getSignaturesOfType`` (issue 29; languages/esparams.py).

    .venv/bin/python benchmarks/signatures_ts.py
    .venv/bin/python benchmarks/signatures_ts.py --before-src /path/to/old/checkout/src   # old reader too
    .venv/bin/python benchmarks/signatures_ts.py --corpus zod --examples 30

=======================  ================================================
npm tarball              why this one
=======================  ================================================
zod 4.1.12               the issue's measure: callbacks (``refine``,
                         ``superRefine``, ``transform``), overloads
rxjs 7.8.2               operators: overload sets of generic callbacks
                         (``map<T, R>(project: (value: T, index: number)
                         => R)``), rest parameters, ``this`` parameters
@tanstack/query-core     classes: constructors, methods with callbacks
5.108.4                  and options objects, arrow-function exports
=======================  ================================================

How it works:

1. **Ours**: each ``.ts`` file (not ``.d.ts``) of the tarball's ``src/`` is
   extracted by cartog-ci (with ``PYTHONPATH`` at ``--cartog-src``); each
   function and method symbol's signature is read: the signatures callers
   bind (an overload set, else the implementation), each a list of the
   parameter names a call fills (``this:`` left out). A checkout without
   languages/esparams.py (``--before-src``) is read with its text reader
   (``_declared_parameters``) and knows no overload sets.
2. **Compiler**: a small node script written to a temporary directory
   builds one program of those files (TypeScript ``5.9.3``, installed with
   npm into ``--node-prefix``, a scratch directory outside the repository)
   and, for each module export declared in the file as a function
   (``function f`` or ``const f = (...) =>`` / ``function (...)``), and
   each method and constructor of an exported class, lists the names of
   the parameters of every call (construct) signature of its type.
3. **Pairing**: by file and qualified name (``Class.method``; the nearest
   line among same-named symbols). A destructuring pattern is named
   ``__N`` by the compiler and its text by cartog-ci: a pattern pairs with
   any ``__N``. A function agrees when it has as many signatures and each
   has the same names in the same order. Beside it, *arity* compares the
   minimum argument count and whether a rest parameter takes the remainder.
   A function the compiler lists and cartog-ci has no symbol or no readable
   signature for is a disagreement. An anonymous default export
   (``export default function () {}``) is counted apart and left out:
   cartog-ci makes no symbol of it (its body is module code,
   languages/ecmascript.py), so there is no signature to compare.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# typescript is installed here (benchmarks/oracle_ts.py's version), outside the repository
SCRATCH = Path.home() / ".cache" / "cartog-ci-bench" / "node"
EXAMPLES = 8


@dataclass(frozen=True)
class Package:
    name: str
    package: str
    version: str


PACKAGES = {
    p.name: p
    for p in (
        Package("zod", "zod", "4.1.12"),
        Package("rxjs", "rxjs", "7.8.2"),
        Package("query-core", "@tanstack/query-core", "5.108.4"),
    )
}

ORACLE_JS = r"""
// argv: typescript prefix, root, files...: the call signatures of exported
// functions and of exported classes' methods and constructors, as JSON.
const path = require("path");
const ts = require(path.join(process.argv[2], "node_modules", "typescript"));
const root = process.argv[3];
const files = process.argv.slice(4).map((f) => path.join(root, f));
const program = ts.createProgram(files, {
  target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler,
  strict: true, noEmit: true, skipLibCheck: true, types: [],
});
const checker = program.getTypeChecker();
function describe(sig) {
  const decl = sig.getDeclaration();
  const last = decl && decl.parameters && decl.parameters[decl.parameters.length - 1];
  return { params: sig.getParameters().map((p) => p.name), min: sig.minArgumentCount, rest: !!(last && last.dotDotDotToken) };
}
function callback(sig) {
  const decl = sig.getDeclaration();
  return !!(decl && decl.parameters && decl.parameters.some((p) => p.type && ts.isFunctionTypeNode(p.type)));
}
function entry(sf, rel, name, kind, node, sigs) {
  const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  return { file: rel, name, kind, line, sigs: sigs.map(describe), callback: sigs.some(callback),
           annotated: !!(ts.isVariableDeclaration(node) && node.type) };
}
const out = [];
for (const file of files) {
  const sf = program.getSourceFile(file);
  const mod = sf && checker.getSymbolAtLocation(sf);
  if (!mod) continue;
  const rel = path.relative(root, file).split(path.sep).join("/");
  for (const sym of checker.getExportsOfModule(mod)) {
    if (sym.flags & ts.SymbolFlags.Alias) continue;  // a re-export: counted where it is declared
    const decls = (sym.declarations || []).filter((d) => d.getSourceFile() === sf);
    const fn = decls.find((d) => ts.isFunctionDeclaration(d) || (ts.isVariableDeclaration(d) && d.initializer &&
      (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer))));
    if (fn) {
      const type = checker.getTypeOfSymbolAtLocation(sym, fn);
      const found = entry(sf, rel, fn.name ? fn.name.text : sym.name, "function", fn,
                          checker.getSignaturesOfType(type, ts.SignatureKind.Call));
      found.anonymous = !fn.name;  // `export default function () {}`
      out.push(found);
    }
    const cls = decls.find((d) => ts.isClassDeclaration(d));
    if (!cls || !cls.name) continue;
    const seen = new Set();
    for (const member of cls.members) {
      if (ts.isConstructorDeclaration(member) && !seen.has("constructor")) {
        seen.add("constructor");
        const type = checker.getTypeOfSymbolAtLocation(sym, cls);
        const sigs = checker.getSignaturesOfType(type, ts.SignatureKind.Construct);
        out.push(entry(sf, rel, `${cls.name.text}.constructor`, "constructor", member, sigs));
      } else if (ts.isMethodDeclaration(member) && (ts.isIdentifier(member.name) || ts.isPrivateIdentifier(member.name))) {
        const name = member.name.text;
        const msym = checker.getSymbolAtLocation(member.name);
        if (seen.has(name) || !msym) continue;
        seen.add(name);
        const type = checker.getTypeOfSymbolAtLocation(msym, member);
        const sigs = checker.getSignaturesOfType(type, ts.SignatureKind.Call);
        out.push(entry(sf, rel, `${cls.name.text}.${name}`, "method", member, sigs));
      }
    }
  }
}
process.stdout.write(JSON.stringify({ typescript: ts.version, functions: out }));
"""


# --- the two sides --------------------------------------------------------


def sources(repo: Path) -> list[str]:
    return sorted(
        p.relative_to(repo).as_posix()
        for p in (repo / "src").rglob("*.ts")
        if not p.name.endswith(".d.ts") and "node_modules" not in p.parts
    )


def compiler(prefix: Path, repo: Path, files: Sequence[str]) -> tuple[str, list[dict[str, Any]]]:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "signatures.cjs"
        script.write_text(ORACLE_JS, "utf-8")
        run = subprocess.run(
            ["node", "--max-old-space-size=4096", str(script), str(prefix), str(repo), *files],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
    data = json.loads(run.stdout)
    return data["typescript"], data["functions"]


def ours(cartog_src: Path, repo: Path, files: Sequence[str]) -> tuple[str, list[dict[str, Any]]]:
    """This script again, as a child importing cartog-ci from ``cartog_src``."""
    env = dict(os.environ, PYTHONPATH=str(cartog_src))
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as listing:
        listing.write("\n".join(files))
    try:
        run = subprocess.run(
            [sys.executable, __file__, "--read", str(repo), listing.name],
            check=True, capture_output=True, text=True, env=env,
        )  # fmt: skip
    finally:
        os.unlink(listing.name)
    data = json.loads(run.stdout)
    return data["reader"], data["functions"]


def read_ours(repo: Path, files: Sequence[str]) -> dict[str, Any]:
    """(In the child.) Each function and method symbol's callable signatures."""
    from cartog_ci.languages import for_path
    from cartog_ci.languages import ecmascript

    tree_reader = hasattr(ecmascript.ECMAScript, "parameters")
    out: list[dict[str, Any]] = []
    for file in files:
        language = for_path(file)
        if language is None:
            continue
        extraction = language.extract(file, (repo / file).read_bytes())
        for symbol in extraction.symbols:
            if symbol.kind not in ("function", "method"):
                continue
            sigs: list[dict[str, Any]] | None
            if tree_reader:
                read = language.parameters(symbol.signature)  # type: ignore[attr-defined]
                sigs = None if read is None else [_described(s.arity) for s in read.callable]
            else:  # a checkout before languages/esparams.py: its text reader
                params = ecmascript._declared_parameters(symbol)  # type: ignore[attr-defined]
                sigs = None if params is None else [_described(params)]
            out.append({"file": file, "name": symbol.qualified_name, "line": symbol.start_line, "sigs": sigs})
    return {"reader": "syntax tree" if tree_reader else "text", "functions": out}


def _described(params: Sequence[Any]) -> dict[str, Any]:
    positional = [p for p in params if p.kind != "variadic"]
    required = [i for i, p in enumerate(positional) if not p.default]
    return {
        "params": [p.name for p in params],
        "min": required[-1] + 1 if required else 0,
        "rest": any(p.kind == "variadic" for p in params),
    }


# --- comparing ------------------------------------------------------------


_PATTERN = re.compile(r"^[{\[]")
_BINDING = re.compile(r"^__\d+$")


def _same_names(mine: Sequence[str], theirs: Sequence[str]) -> bool:
    return len(mine) == len(theirs) and all(
        a == b or (_PATTERN.match(a) is not None and _BINDING.match(b) is not None) for a, b in zip(mine, theirs)
    )


@dataclass
class Outcome:
    function: dict[str, Any]
    mine: list[dict[str, Any]] | None  # None: no symbol, or its signature unread
    names: bool
    arity: bool
    why: str = ""


def compare(theirs: list[dict[str, Any]], mine: list[dict[str, Any]]) -> list[Outcome]:
    by_name: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for m in mine:
        by_name.setdefault((m["file"], m["name"]), []).append(m)
    out = []
    for t in theirs:
        found = by_name.get((t["file"], t["name"]), [])
        if not found:
            out.append(Outcome(t, None, False, False, "no symbol"))
            continue
        m = min(found, key=lambda s: abs(s["line"] - t["line"]))
        if m["sigs"] is None:
            out.append(Outcome(t, None, False, False, "signature not read"))
            continue
        names = len(m["sigs"]) == len(t["sigs"]) and all(
            _same_names(a["params"], b["params"]) for a, b in zip(m["sigs"], t["sigs"])
        )
        arity = len(m["sigs"]) == len(t["sigs"]) and all(
            (a["min"], a["rest"]) == (b["min"], b["rest"]) for a, b in zip(m["sigs"], t["sigs"])
        )
        out.append(Outcome(t, m["sigs"], names, arity))
    return out


def _show(sigs: Sequence[dict[str, Any]] | None) -> str:
    if sigs is None:
        return "-"
    return " | ".join(
        "(" + ", ".join(s["params"]) + f") min {s['min']}" + (" rest" if s["rest"] else "") for s in sigs
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", choices=sorted(PACKAGES), action="append", help="only these (default: all three)")
    parser.add_argument("--cartog-src", type=Path, default=HERE.parent / "src")
    parser.add_argument("--before-src", type=Path, help="a checkout's src/ to measure too (the old reader)")
    parser.add_argument("--node-prefix", type=Path, help=f"where typescript is installed (default: under {SCRATCH})")
    parser.add_argument("--examples", type=int, default=EXAMPLES, help="disagreements listed per package")
    parser.add_argument("--read", nargs=2, metavar=("REPO", "LISTING"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.read:
        repo, listing = Path(args.read[0]), Path(args.read[1]).read_text("utf-8").split("\n")
        print(json.dumps(read_ours(repo, [f for f in listing if f])))
        return 0

    sys.path.insert(0, str(HERE))
    import corpora
    import oracle_ts
    from measure import table

    prefix = oracle_ts.ensure_typescript(args.node_prefix or SCRATCH / f"typescript-{oracle_ts.TYPESCRIPT}")
    sides = [("after", args.cartog_src)] + ([("before", args.before_src)] if args.before_src else [])
    rows, examples, version = [], [], ""
    for name in args.corpus or list(PACKAGES):
        package = PACKAGES[name]
        repo = corpora.ensure_npm(corpora.NpmCorpus(package.name, package.package, package.version))
        files = sources(repo)
        version, listed = compiler(prefix, repo, files)
        theirs = [t for t in listed if not t.get("anonymous")]
        row = [f"{package.package} {package.version}", str(len(files)), str(len(theirs)), str(len(listed) - len(theirs))]
        callbacks = [t for t in theirs if t["callback"]]
        for side, src in sides:
            reader, mine = ours(src, repo, files)
            outcomes = compare(theirs, mine)
            agree = sum(o.names for o in outcomes)
            with_callback = sum(o.names for o in outcomes if o.function["callback"])
            row += [
                str(agree),
                str(len(outcomes) - agree),
                str(sum(o.arity for o in outcomes)),
                f"{with_callback}/{len(callbacks)}",
            ]
            wrong = [o for o in outcomes if not o.names]
            examples.append(f"== {package.package} {package.version}, {side} ({reader} reader): "
                            f"{len(wrong)} disagreement(s)")  # fmt: skip
            for o in wrong[: args.examples]:
                f = o.function
                examples.append(f"  {f['file']}:{f['line']} {f['name']}"
                                + (" (a const with a declared type)" if f.get("annotated") else ""))  # fmt: skip
                examples.append(f"      compiler: {_show(f['sigs'])}")
                examples.append(f"      cartog-ci: {o.why or _show(o.mine)}")
        rows.append(row)
    headers = ["package", "files", "functions", "anonymous"]
    for side, _ in sides:
        headers += [f"agree ({side})", f"disagree ({side})", f"arity ({side})", f"callbacks ({side})"]
    print(table(headers, rows))
    print()
    print("\n".join(examples))
    print()
    print(f"typescript {version}; functions: exported functions and exported classes' methods and constructors "
          "of the tarball's src/*.ts; anonymous: `export default function () {}`, left out (cartog-ci makes no "
          "symbol of it: its body is module code); agree: parameter count and names of every call signature; "
          "arity: minimum argument count and rest; callbacks: agreeing / functions with a parameter of function "
          "type")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
