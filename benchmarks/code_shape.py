"""The shape of the package's code: function lengths and SQL outside store/.

    .venv/bin/python benchmarks/code_shape.py             # this tree
    .venv/bin/python benchmarks/code_shape.py --src DIR   # another checkout's src/cartog_ci

Function length counts the lines from ``def`` to the last line of the body
(decorators and the docstring included), for every function and method.
"SQL outside store/" counts lines of the package outside ``store/`` that hold
an SQL statement or hand a string to the store as SQL (``.query(``,
``.db.execute``, ``numbered_edges("...``, ``count("...``); docstrings are
prose and do not count.
"""

from __future__ import annotations

import argparse
import ast
import re
import statistics
from pathlib import Path

_SQL = re.compile(
    r"\b(SELECT|INSERT|UPDATE|DELETE)\s+[\w*(]|\.db\.execute\(|\.query\(|numbered_edges\(\s*f?[\"']|store\.count\("
)


def function_lengths(package: Path) -> list[int]:
    lengths: list[int] = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None:
                lengths.append(node.end_lineno - node.lineno + 1)
    return lengths


def docstring_lines(tree: ast.Module) -> set[int]:
    """Lines of the module's, classes' and functions' docstrings: prose that
    may name ``x.query()`` without running any SQL."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                if isinstance(first.value.value, str):
                    lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def sql_outside_store(package: Path) -> list[str]:
    found: list[str] = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package)
        if rel.parts[0] == "store":
            continue
        text = path.read_text("utf-8")
        prose = docstring_lines(ast.parse(text))
        for number, line in enumerate(text.splitlines(), 1):
            if number not in prose and _SQL.search(line):
                found.append(f"{rel}:{number}: {line.strip()}")
    return found


def percentile(values: list[int], fraction: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=Path(__file__).resolve().parent.parent / "src" / "cartog_ci")
    parser.add_argument("--list-sql", action="store_true", help="print each SQL line found outside store/")
    args = parser.parse_args()
    lengths = function_lengths(args.src)
    sql = sql_outside_store(args.src)
    lines = sum(len(p.read_text("utf-8").splitlines()) for p in args.src.rglob("*.py"))
    print("| package | modules | lines | functions | median length | p90 length | longest | SQL lines outside store/ |")
    print("|---|---|---|---|---|---|---|---|")
    modules = len(list(args.src.rglob("*.py")))
    print(
        f"| {args.src} | {modules} | {lines:,} | {len(lengths)} | {statistics.median(lengths):g} | "
        f"{percentile(lengths, 0.9)} | {max(lengths)} | {len(sql)} |"
    )
    if args.list_sql:
        for line in sql:
            print(line)


if __name__ == "__main__":
    main()
