"""``merkle.code_tokens`` against the plain walk it replaced, on every symbol of real corpora.

    .venv/bin/python benchmarks/code_tokens_same.py                 # Django 5.1.4, zod 4.1.12, ts-loader 9.4.2
    .venv/bin/python benchmarks/code_tokens_same.py DIR [DIR ...]

Each Python, TypeScript and JavaScript file of the folders is extracted with
every symbol's code hash (``extract(code_hashes=True)``); each call it makes to
``code_tokens`` is made again to the plain walk of every node's ``children``
(``_plain`` in tests/parse/test_code_tokens.py, the code before the cursor
walk), right after the file's extraction. Printed: files, calls, calls whose
bytes differ (the first few named), and the CPU of each walk over all calls
(``time.process_time``). Exit status 1 when one differs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from tests.parse.test_code_tokens import _plain  # noqa: E402

from cartog_ci import languages  # noqa: E402
from cartog_ci.errors import ParseTimeout  # noqa: E402
from cartog_ci.parse import extract, merkle  # noqa: E402

CORPORA = REPO / "benchmarks" / ".corpora"
DEFAULT = ("django-5.1.4", "npm-zod-4.1.12", "deb-node-ts-loader-9.4.2")
SUFFIXES = frozenset({".py", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[CORPORA / name for name in DEFAULT])
    args = parser.parse_args(argv)
    walk = merkle.code_tokens
    calls: list[tuple] = []

    def recorded(*call: object) -> bytes:
        calls.append(call)
        return walk(*call)  # type: ignore[arg-type]

    merkle.code_tokens = recorded  # type: ignore[assignment]
    files = total = differ = 0
    cursor_cpu = plain_cpu = 0.0
    for folder in args.folders:
        for directory, subdirectories, names in os.walk(folder):
            subdirectories.sort()
            for name in sorted(names):
                path = os.path.join(directory, name)
                language = languages.for_path(path)
                if Path(name).suffix not in SUFFIXES or os.path.islink(path) or language is None:
                    continue
                calls.clear()
                try:
                    extract.extract(path, Path(path).read_bytes(), language.syntax, code_hashes=True)
                except ParseTimeout:
                    continue
                files += 1
                total += len(calls)
                started = time.process_time()
                ours = [walk(*call) for call in calls]
                cursor_cpu += time.process_time() - started
                started = time.process_time()
                plain = [_plain(*call) for call in calls]
                plain_cpu += time.process_time() - started
                for call, a, b in zip(calls, ours, plain, strict=True):
                    if a != b:
                        differ += 1
                        if differ <= 5:
                            print(f"differs: {path} bytes {call[2]}-{call[3]}")
    print(f"{files} files, {total} symbols' walks, {differ} differ; ", end="")
    print(f"CPU: code_tokens {cursor_cpu:.2f} s, plain walk {plain_cpu:.2f} s")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
