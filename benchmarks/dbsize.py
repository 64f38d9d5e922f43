"""Where the bytes of an ``index.db`` go: size per table and index (SQLite's ``dbstat``).

Each b-tree is listed with its pages, bytes, payload (the bytes of the rows
themselves, without page overhead and free space) and share of the file; the
shadow tables of a full-text table (``fts_symbols_data``, ``_idx``, ...) and
the indexes of a table are summed under it as well, so that both the detail
and the owner's total read in one table.

    .venv/bin/python benchmarks/dbsize.py path/to/index.db
    .venv/bin/python benchmarks/dbsize.py before.db after.db      # side by side
    .venv/bin/python benchmarks/dbsize.py --corpus prefect --index /tmp/prefect.db   # a cold --no-embed build first

``PYTHONPATH=<checkout>/src`` builds with another checkout (before/after).
The file is opened read-only; a ``-wal`` file is reported beside it (a cold
run checkpoints it, a running index does not).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import apsw

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpora  # noqa: E402
from compare import PYTHON  # noqa: E402
from measure import cli_env  # noqa: E402

SRC = Path(__file__).resolve().parent.parent / "src"
FTS_SHADOWS = ("_data", "_idx", "_docsize", "_content", "_config")


def btrees(path: Path) -> dict[str, tuple[str, int, int, int]]:
    """name -> (owner table, pages, bytes, payload bytes) of every b-tree."""
    db = apsw.Connection(f"file:{path}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    try:
        owner = {str(n): str(t) for n, t in db.execute("SELECT name, tbl_name FROM sqlite_schema")}
        owner["sqlite_schema"] = "sqlite_schema"
        rows = db.execute(
            "SELECT name, count(*), sum(pgsize), sum(payload) FROM dbstat GROUP BY name"
        ).fetchall()
    finally:
        db.close()
    out: dict[str, tuple[str, int, int, int]] = {}
    for name, pages, size, payload in rows:
        table = owner.get(str(name), str(name))
        for suffix in FTS_SHADOWS:
            if table.endswith(suffix) and table[: -len(suffix)] in owner:
                table = table[: -len(suffix)]
        out[str(name)] = (table, int(pages), int(size), int(payload or 0))
    return out


def report(paths: Sequence[Path]) -> str:
    sizes = [btrees(p) for p in paths]
    totals: list[dict[str, tuple[int, int]]] = []
    for s in sizes:
        t: dict[str, tuple[int, int]] = {}
        for table, _, size, payload in s.values():
            a, b = t.get(table, (0, 0))
            t[table] = (a + size, b + payload)
        totals.append(t)
    files = [p.stat().st_size for p in paths]
    lines = []
    header = "b-tree".ljust(36) + "".join(f"{'MB':>9} {'payload':>8} {'share':>6}" for _ in paths)
    lines.append("  ".join(str(p) for p in paths))
    lines.append(header)

    def row(label: str, values: Sequence[tuple[int, int] | None]) -> str:
        cells = []
        for (value, total) in zip(values, files, strict=True):
            if value is None:
                cells.append(f"{'-':>9} {'-':>8} {'-':>6}")
            else:
                cells.append(f"{value[0] / 1e6:>9.1f} {value[1] / 1e6:>8.1f} {100 * value[0] / total:>5.1f}%")
        return label.ljust(36) + "".join(cells)

    tables = sorted({t for tot in totals for t in tot}, key=lambda t: -max(tot.get(t, (0, 0))[0] for tot in totals))
    for table in tables:
        lines.append(row(table, [tot.get(table) for tot in totals]))
        names = sorted({n for s in sizes for n, v in s.items() if v[0] == table and n != table})
        if names:
            own = [(s[table][2], s[table][3]) if table in s else None for s in sizes]
            lines.append(row(f"  {table} (rows)", own))
            for name in names:
                lines.append(row(f"  {name}", [(s[name][2], s[name][3]) if name in s else None for s in sizes]))
    lines.append(row("file", [(f, sum(v[1] for v in t.values())) for f, t in zip(files, totals, strict=True)]))
    for p in paths:
        wal = p.with_name(p.name + "-wal")
        if wal.exists() and wal.stat().st_size:
            lines.append(f"{wal}: {wal.stat().st_size / 1e6:.1f} MB")
    return "\n".join(lines)


def build(corpus: str, index: Path) -> None:
    root = corpora.ensure(corpora.get(corpus))
    cmd = [PYTHON, "-m", "cartog_ci.cli", "index", str(root), "--no-embed", "--force", "--index", str(index)]
    env = {**cli_env(), "PYTHONPATH": os.environ.get("PYTHONPATH") or str(SRC)}
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("index", nargs="*", type=Path)
    parser.add_argument("--corpus", help="build a cold --no-embed index of this corpus first (benchmarks/corpora.py)")
    parser.add_argument("--index", dest="build_at", type=Path, help="where --corpus builds it")
    args = parser.parse_args(argv)
    paths = list(args.index)
    if args.corpus:
        target = args.build_at or Path(f"/tmp/cartog-dbsize-{args.corpus}.db")
        build(args.corpus, target)
        paths.append(target)
    if not paths:
        parser.error("give an index.db or --corpus")
    print(report(paths))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
