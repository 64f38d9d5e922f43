"""The resolution of a cold run alone, for instruction counts: every edge of a
stored index resolved once, recorded (what ``_resolve_everything`` of
index/cascade.py does, in one process, no fork), then the nodes hashed and
printed. The answers' digest is printed, so that two checkouts can be seen
to agree (with ``PYTHONHASHSEED`` fixed: the keys another file's change may
change come in a set's order).

    PYTHONPATH=src .venv/bin/python benchmarks/resolve_only.py --corpus scrapy --index /tmp/ro-scrapy.db
    PYTHONHASHSEED=0 PYTHONPATH=src valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        .venv/bin/python benchmarks/resolve_only.py --corpus scrapy --index /tmp/ro-scrapy.db [--load-only]

The index is built (cold, by the checkout on ``PYTHONPATH``) when the file
does not exist, outside what is measured only if it already does: build it
once, then measure. What resolution costs is a run's count less the same
run's with ``--load-only`` (the store read, the interpreter, the imports).
``--corpus`` takes the corpora of benchmarks/peers.py (their history at its head).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import CORPORA  # noqa: E402
from report import build_history  # noqa: E402

from cartog_ci.index import resolve as R  # noqa: E402
from cartog_ci.store.sqlite import SqliteStore  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, choices=sorted(CORPORA))
    parser.add_argument("--index", required=True, type=Path, help="index file (built cold when missing)")
    parser.add_argument("--load-only", action="store_true", help="read the store and stop")
    args = parser.parse_args()
    root = build_history(CORPORA[args.corpus])
    if not args.index.exists():
        subprocess.run(
            [sys.executable, "-m", "cartog_ci.cli", "index", str(root), "--no-embed", "--force", "--index", str(args.index)],
            check=True, capture_output=True,
        )  # fmt: skip
    with SqliteStore(args.index) as store:
        work = store.numbered_edges()
        symbols, imports = store.all_symbols(), store.import_edges()
        bases, unknown = store.bases(), store.classes_with_unknown_bases()
    gc.disable()  # as an index run (index/cascade.py index_repository)
    if args.load_only:
        return 0
    resolver = R.resolver_for(symbols, imports, root=str(root), record=True)
    answers = R.resolve_edges(resolver, [(i, e) for i, e in work if e.kind == "inherits"])
    resolver.set_hierarchy(bases, unknown)
    answers += R.resolve_edges(resolver, [(i, e) for i, e in work if e.kind != "inherits"])
    R.hashed_nodes(resolver)
    R.printed_nodes(resolver)
    # the outside keys in a set's order: sorted for the digest
    canonical = sorted((i, t, r, deps, tuple(sorted(outside))) for i, t, r, deps, outside in answers)
    print(f"{args.corpus}: {len(answers)} answers, digest {hashlib.sha1(repr(canonical).encode()).hexdigest()[:12]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
