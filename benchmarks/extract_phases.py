"""Extraction alone, in phases, of the files of a git repository: CPU seconds
(best of N, ``time.process_time``) of tree-sitter parsing, parsing and the tags
queries, the whole ``extract_rows`` (queries read, symbols, edges), and
that with the search texts of its symbols (``embed/text.texts_for``), in
this process, no index.

    PYTHONPATH=src .venv/bin/python benchmarks/extract_phases.py <repo> [--rounds 5] [--language typescript]
    PYTHONPATH=src valgrind --tool=callgrind .venv/bin/python benchmarks/extract_phases.py <repo> --phase rows --rounds 1

With ``--phase`` one phase runs (``none`` only loads the files and compiles
the queries): the difference of two phases' instruction counts under
callgrind is what the later one adds, which a loaded machine does not
disturb (issue 32's per-phase profile).

``--patterns`` prints instead what each pattern of the tags query costs
tree-sitter's query cursor on the files of one language (its own query of
that pattern alone, less a walk of the trees with one pattern that never
matches), the dearest first, and what the whole query and that walk cost
(CPU, best of ``--rounds``; docs/languages.md "Extraction speed"):

    PYTHONPATH=src .venv/bin/python benchmarks/extract_phases.py <repo> --language typescript --patterns --rounds 3
"""

from __future__ import annotations

import argparse
import gc
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import tree_sitter as ts

from cartog_ci.embed.text import texts_for
from cartog_ci.languages import for_path
from cartog_ci.parse import budget
from cartog_ci.parse import extract as ex
from cartog_ci.parse.syntax import Syntax

Job = tuple[str, bytes, Syntax]


def jobs_of(root: Path, language: str | None) -> list[Job]:
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True).stdout
    out: list[Job] = []
    for path in listed.decode().split("\0"):
        found = for_path(path) if path else None
        if found is None or found.name == "markdown" or language and found.name != language:
            continue
        source = (root / path).read_bytes()
        try:
            source.decode("utf-8")
        except UnicodeDecodeError:
            continue  # the indexer skips it (index/files.py)
        out.append((path, source, found.syntax))
    for _, _, syntax in out:
        syntax.compile()
    return out


def _parse(path: str, source: bytes, syntax: Syntax) -> None:
    budget.parse(syntax.grammar, source)


def _matches(path: str, source: bytes, syntax: Syntax) -> None:
    ex._matches(syntax, budget.parse(syntax.grammar, source).root_node, source)


def _rows(path: str, source: bytes, syntax: Syntax) -> None:
    ex.extract_rows(path, source, syntax, code_hashes=False)  # as the indexer asks (index/cascade.py)


def _texts(path: str, source: bytes, syntax: Syntax) -> None:
    extracted = ex.extract_rows(path, source, syntax, code_hashes=False)[0]
    texts_for(extracted.symbols, source)  # the search texts, as index/files.py adds them


def _none(path: str, source: bytes, syntax: Syntax) -> None:
    return None


PHASES: dict[str, Callable[[str, bytes, Syntax], None]] = {
    "none": _none,
    "parse": _parse,
    "matches": _matches,
    "rows": _rows,
    "texts": _texts,
}


def best(jobs: list[Job], work: Callable[[str, bytes, Syntax], None], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.process_time()
        for job in jobs:
            work(*job)
        times.append(time.process_time() - start)
    return min(times)


def patterns(jobs: list[Job], rounds: int, top: int = 15) -> None:
    """Each pattern's cost to the query cursor (``--patterns``), on the files of the first job's language."""
    syntax = jobs[0][2]
    roots = [budget.parse(syntax.grammar, source).root_node for _, source, s in jobs if s is syntax]

    def cost(query: ts.Query) -> float:
        return best([("", b"", syntax)], lambda *_: [ts.QueryCursor(query).matches(root) for root in roots], rounds)

    walk = cost(ts.Query(syntax.grammar, "(ERROR (ERROR (ERROR))) @never"))
    first, text = syntax.query, syntax._tags[2].encode()
    print(f"{len(roots)} {syntax.name} files: the whole query {cost(first) * 1000:.0f} ms, the walk {walk * 1000:.0f} ms")
    found = []
    for i in range(first.pattern_count):
        piece = text[first.start_byte_for_pattern(i) : first.end_byte_for_pattern(i)].decode()
        found.append((cost(ts.Query(syntax.grammar, piece)) - walk, i, " ".join(piece.split())[:90]))
    for seconds, i, piece in sorted(found, reverse=True)[:top]:
        print(f"{seconds * 1000:6.1f} ms  pattern {i}: {piece}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--language", help="only this language's files (default: every language but Markdown)")
    parser.add_argument("--phase", choices=sorted(PHASES), help="run this phase alone (for callgrind)")
    parser.add_argument("--patterns", action="store_true", help="each tags pattern's cost to the query cursor")
    args = parser.parse_args(argv)
    # as the indexer runs (index/cascade.py ``index_repository``, and the
    # parse workers it forks): no cyclic collection, which the matches'
    # many objects would otherwise trigger inside the phases measured
    gc.disable()
    jobs = jobs_of(args.repo, args.language)
    print(f"{len(jobs)} files: {dict(Counter(s.name for _, _, s in jobs))}")
    if args.patterns:
        patterns(jobs, args.rounds)
        return 0
    for name in [args.phase] if args.phase else [p for p in PHASES if p != "none"]:
        print(f"{name:8s} {best(jobs, PHASES[name], args.rounds) * 1000:8.0f} ms CPU (best of {args.rounds})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
