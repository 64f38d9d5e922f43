"""What a name holds in a React application's TypeScript (issue 29, the
shapes @medusajs/dashboard misses against the TypeScript language service):
a function memoized by `useCallback`. Each: the exact set of call edges,
negatives included, then an edit of the file the answer depends on, indexed
incrementally, equal to a cold build."""

from __future__ import annotations

from pathlib import Path

from tests.testing.exact_sets import call_rows, edited_calls, indexed_files
from tests.testing.fixtures import exported

# -- a function memoized by useCallback -------------------------------------

CELL = (
    'import { useCallback, useMemo } from "react"\n'  # 1
    "\n"
    "export const Cell = ({ value }: { value: string }) => {\n"  # 3
    "  const formatter = useCallback((v?: string) => {\n"  # 4
    "    return v\n"
    "  }, [])\n"
    "  const adjust = useCallback(function () {\n"  # 7
    "    return 1\n"
    "  }, [])\n"
    "  const memo = useMemo(() => value, [value])\n"  # 10: the value, not a function
    "  const handler = useCallback(formatter, [])\n"  # 11: no function written here
    "  formatter(value)\n"  # 12
    "  adjust()\n"  # 13
    "  memo()\n"  # 14
    "  handler()\n"  # 15
    "  return null\n"
    "}\n"
)


def test_a_function_memoized_by_use_callback_is_called_by_its_name(tmp_path: Path) -> None:
    repo = indexed_files(tmp_path, {"src/cell.tsx": CELL})
    cell = "src/cell.tsx"
    external = {
        (cell, 4, "useCallback", None, "external"),
        (cell, 7, "useCallback", None, "external"),
        (cell, 10, "useMemo", None, "external"),
        (cell, 11, "useCallback", None, "external"),
    }
    assert call_rows(exported(repo)) == external | {
        (cell, 12, "formatter", f"{cell}:function:Cell.formatter", "same_file"),
        (cell, 13, "adjust", f"{cell}:function:Cell.adjust", "same_file"),
        (cell, 14, "memo", None, None),
        (cell, 15, "handler", None, None),
    }
    edited = CELL.replace("const adjust = useCallback(function () {", "const adjust = useMemo(function () {")
    assert edited_calls(repo, tmp_path, {cell: edited}) == (external - {(cell, 7, "useCallback", None, "external")}) | {
        (cell, 7, "useMemo", None, "external"),
        (cell, 12, "formatter", f"{cell}:function:Cell.formatter", "same_file"),
        (cell, 13, "adjust", None, None),
        (cell, 14, "memo", None, None),
        (cell, 15, "handler", None, None),
    }
