"""Pairing cartog-ci's call edges with the TypeScript oracle's call sites,
and naming the outcome of each, for ``oracle_ts.py``.

* An oracle target maps to the cartog-ci symbol of the same file whose
  qualified name is, or ends with, the target's name and whose line range
  holds its line (the innermost; never a module symbol). A constructor
  stands for its class; `module.exports = function` (the service's
  `exports`) is the symbol at that line, whatever its name.
* Sites and edges meet on (file, line, called name) as multisets; a line
  pairs when the oracle's answers on it agree, or when both sides have as
  many and ours agree; otherwise it is skipped (counted).
* A site the oracle is confident about and we do not confirm gets a miss
  pattern: how the callee is written and what binds its leftmost name.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Sym:
    id: str
    name: str
    qualified_name: str
    kind: str
    file: str
    start_line: int
    end_line: int
    parent_id: str | None


@dataclass(frozen=True)
class OurEdge:
    file: str
    line: int
    name: str
    target_id: str | None
    resolution: str | None


@dataclass(frozen=True)
class OracleSite:
    file: str
    line: int
    name: str
    status: str  # confident | ambiguous | external | unknown
    reason: str
    target: tuple[str, int, str] | None  # (file, line, name) of the definition
    target_kind: str  # its declaration's syntax kind, and "(local)" inside a function
    shape: dict[str, object]


@dataclass(frozen=True)
class Site:
    """One call site after pairing; either side may be missing."""

    file: str
    line: int
    name: str
    ours: OurEdge | None
    oracle: OracleSite | None
    oracle_target_id: str | None  # the oracle's definition as a cartog-ci symbol
    outcome: str
    pattern: str | None


# --- oracle definitions as cartog-ci symbols ------------------------------


def canonical(symbol_id: str | None, symbols: dict[str, Sym]) -> str | None:
    """A constructor stands for its class (``new Foo()`` calls both).

    The ``#N`` of a second definition in one file is kept: two local classes
    of one name are two targets (overloads are one: the oracle names the
    implementation, or a .d.ts function's first signature)."""
    sym = symbols.get(symbol_id or "")
    if sym and sym.name == "constructor" and sym.parent_id:
        return sym.parent_id
    return symbol_id


def by_file(symbols: dict[str, Sym]) -> dict[str, list[Sym]]:
    out: dict[str, list[Sym]] = defaultdict(list)
    for sym in symbols.values():
        out[sym.file].append(sym)
    return out


def symbol_for(oracle: OracleSite, in_file: dict[str, list[Sym]], symbols: dict[str, Sym]) -> str | None:
    """The cartog-ci symbol of the oracle's confident target, if any."""
    assert oracle.target is not None
    file, line, name = oracle.target
    if oracle.target_kind == "DefaultExport":  # an anonymous default export is the module itself
        return next((s.id for s in in_file.get(file, ()) if s.kind == "module"), None)
    # `module.exports = function [f] () {}`: the service names it `exports`,
    # cartog-ci by the function's own name, else the file's (its line is the statement's)
    any_name = oracle.target_kind == "BinaryExpression" and name == "exports"
    found = [
        s for s in in_file.get(file, ())
        if s.kind != "module" and s.start_line <= line <= s.end_line
        and (any_name or s.qualified_name == name or s.qualified_name.endswith("." + name))
    ]  # fmt: skip
    if not found:
        return None
    return canonical(min(found, key=lambda s: s.end_line - s.start_line).id, symbols)


# --- pairing call sites ---------------------------------------------------

Key = tuple[str, int, str]
Pair = tuple[OurEdge | None, OracleSite | None]


def pair(ours: Iterable[OurEdge], oracle: Iterable[OracleSite]) -> tuple[list[Pair], int]:
    """(pairs, skipped lines). A line pairs when the oracle agrees with itself
    on it, or when both sides count the same and ours agrees with itself."""
    left: dict[Key, list[OurEdge]] = defaultdict(list)
    right: dict[Key, list[OracleSite]] = defaultdict(list)
    for edge in ours:
        left[(edge.file, edge.line, edge.name)].append(edge)
    for site in oracle:
        right[(site.file, site.line, site.name)].append(site)
    pairs: list[Pair] = []
    skipped = 0
    for key in sorted(set(left) | set(right)):
        a, b = left.get(key, []), right.get(key, [])
        uniform_b = len({(s.status, s.target) for s in b}) <= 1
        uniform_a = len({(e.target_id, e.resolution) for e in a}) <= 1
        if not (uniform_b or (uniform_a and len(a) == len(b))):
            skipped += 1
            continue
        a, b = sorted(a, key=lambda e: (e.target_id or "", e.resolution or "")), sorted(b, key=_site_order)
        pairs += [(a[i] if i < len(a) else None, b[i] if i < len(b) else None) for i in range(max(len(a), len(b)))]
    return pairs, skipped


def _site_order(site: OracleSite) -> tuple[str, str]:
    return (site.status, json.dumps(site.target))


# --- outcomes and miss patterns -------------------------------------------


def in_project(edge: OurEdge | None) -> bool:
    return edge is not None and edge.target_id is not None


def outcome(ours: OurEdge | None, oracle: OracleSite | None, oracle_id: str | None, symbols: dict[str, Sym]) -> str:
    if oracle is None:
        return "not an oracle site" if in_project(ours) else "ours only, not in project"
    confident = oracle.status == "confident"
    if in_project(ours):
        assert ours is not None
        if confident:
            return "confirmed" if canonical(ours.target_id, symbols) == oracle_id else "wrong target"
        return "oracle ambiguous" if oracle.status == "ambiguous" else "possible false positive"
    return "miss" if confident else "agree: not in project"


def miss_pattern(site: Site) -> str:
    """A rough name for why an oracle-confident site was not confirmed."""
    oracle = site.oracle
    assert oracle is not None and oracle.target is not None
    shape = oracle.shape
    if site.ours is None:
        if shape.get("form") == "jsx" and site.file.endswith(".tsx"):
            return "no edge: JSX element in .tsx"
        return "no edge: wrapped callee f!(), (0, f)()" if shape.get("wrapped") else "no edge extracted"
    if site.outcome == "wrong target":
        return "wrong target"
    if site.oracle_target_id is None:
        return f"target not extracted: {oracle.target_kind}"
    return _shape_pattern(shape, oracle.target[0])


def _shape_pattern(shape: dict[str, object], target_file: str) -> str:
    binding = shape.get("binding") or {}
    assert isinstance(binding, dict)
    spec, module = binding.get("spec"), binding.get("module")
    if module and not str(spec).startswith("."):
        return "path-alias import (tsconfig paths)"
    if module and module != target_file:
        return "re-export chain"
    receiver, kind = shape.get("receiver"), binding.get("kind")
    if receiver is None:
        return {"default-import": "default import", "named-import": "named import", "require": "require() binding",
                "local": "same-file name", "variable": "bare name bound to a local (destructuring, await import())",
                "parameter": "bare name bound to a parameter"}.get(str(kind), f"bare name ({kind})")  # fmt: skip
    if receiver == "identifier":
        if kind in ("namespace-import", "require"):
            return "namespace import m.f()"
        if kind in ("parameter", "variable", "property"):
            return "method on a typed variable/parameter"
        if kind in ("named-import", "default-import"):
            return "X.m() on an imported object/class"
        return "X.m() on a same-file object/class"
    return {"this": "this.m()", "this.member": "this.x.m()", "call": "method on a call result f().m()",
            "member": "a.b.m()"}.get(str(receiver), "other")  # fmt: skip


def classify(pairs: Sequence[Pair], symbols: dict[str, Sym]) -> list[Site]:
    in_file = by_file(symbols)
    sites = []
    for ours, oracle in pairs:
        confident = oracle if oracle is not None and oracle.status == "confident" else None
        oracle_id = symbol_for(confident, in_file, symbols) if confident else None
        first = oracle or ours
        assert first is not None
        result = outcome(ours, oracle, oracle_id, symbols)
        site = Site(first.file, first.line, first.name, ours, oracle, oracle_id, result, None)
        if confident and result != "confirmed":
            site = replace(site, pattern=miss_pattern(site))
        sites.append(site)
    return sites
