"""The JS/TS walk of the root-level patterns against their query, on every JS/TS file of real corpora.

    .venv/bin/python benchmarks/top_level_walk_same.py              # zod 4.1.12, ts-loader 9.4.2, rollup 3.29.5
    .venv/bin/python benchmarks/top_level_walk_same.py DIR [DIR ...]

Each JavaScript, TypeScript and TSX file of the folders is parsed, and its
root-level patterns (``Syntax.top_level_pass``) are matched twice: by their
compiled query, as ``budget.matches`` ran it (``max_start_depth=0``), and by
``Syntax.top_level_walk``; the matches (pattern, captures as byte ranges)
must be the same, in the same order, both before the text predicates and
after them (the walk's checked with the predicates read from the query's
source, as ``extract._matches`` does). Printed: files, files that differ
(the first few named), and the CPU of each side, predicates included
(``time.process_time``). Exit status 1 when one differs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import tree_sitter as ts

REPO = Path(__file__).resolve().parent.parent
from cartog_ci import languages  # noqa: E402
from cartog_ci.parse import budget  # noqa: E402
from cartog_ci.parse import predicates as text_predicates  # noqa: E402

CORPORA = REPO / "benchmarks" / ".corpora"
DEFAULT = ("npm-zod-4.1.12", "deb-node-ts-loader-9.4.2", "deb-node-rollup-3.29.5")
SUFFIXES = frozenset({".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"})
Ranges = list[tuple[int, list[tuple[str, list[tuple[int, int]]]]]]


def _ranges(found: Sequence[tuple[int, dict[str, list[ts.Node]]]]) -> Ranges:
    return [(p, sorted((k, [n.byte_range for n in v]) for k, v in c.items())) for p, c in found]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[CORPORA / name for name in DEFAULT])
    args = parser.parse_args(argv)
    queries: dict[str, tuple[ts.Query, text_predicates.Predicates]] = {}
    files = differ = 0
    query_cpu = walk_cpu = 0.0
    for folder in args.folders:
        for directory, subdirectories, names in os.walk(folder):
            subdirectories[:] = sorted(d for d in subdirectories if d != ".git")
            for name in sorted(names):
                path = os.path.join(directory, name)
                language = languages.for_path(path)
                if Path(name).suffix not in SUFFIXES or os.path.islink(path) or language is None:
                    continue
                syntax = language.syntax
                walk = syntax.walked
                if walk is None:
                    continue
                if syntax.name not in queries:
                    text, located = syntax._top_level_source
                    query = ts.Query(syntax.grammar, text)
                    queries[syntax.name] = query, text_predicates.assign(query, located)
                query, checks = queries[syntax.name]
                source = Path(path).read_bytes()
                root = budget.parse(syntax.grammar, source).root_node
                files += 1
                raw_same = _ranges(walk(root, source)) == _ranges(budget.matches(query, root, max_start_depth=0))
                started = time.process_time()
                expected = budget.matches(query, root, max_start_depth=0, source=source, checks=checks)
                query_cpu += time.process_time() - started
                started = time.process_time()
                read = syntax.top_level_predicates
                walked = [m for m in walk(root, source) if (w := read.get(m[0])) is None or text_predicates.keep(w, m[1], source)]
                walk_cpu += time.process_time() - started
                if not raw_same or _ranges(walked) != _ranges(expected):
                    differ += 1
                    if differ <= 5:
                        print(f"differs: {path}")
    print(f"{files:,} files, {differ} differ; CPU: query {query_cpu * 1000:.0f} ms, walk {walk_cpu * 1000:.0f} ms")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
