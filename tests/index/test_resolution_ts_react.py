"""What a name holds in a React application's TypeScript (issue 29, the
shapes @medusajs/dashboard misses against the TypeScript language service):
a function memoized by `useCallback`. Each: the exact set of call edges,
negatives included, then an edit of the file the answer depends on, indexed
incrementally, equal to a cold build."""

from __future__ import annotations

from collections.abc import Set
from pathlib import Path

from tests.testing.exact_sets import Call, call_rows, edited_calls, indexed_files
from tests.testing.fixtures import exported


def _before_and_after(
    repo: Path, tmp_path: Path, fixed: Set[Call], before: Set[Call], edit: dict[str, str], after: Set[Call]
) -> None:
    """The calls are ``fixed | before``; once ``edit`` is written and indexed
    incrementally (equal to a cold build), ``fixed | after``."""
    assert call_rows(exported(repo)) == fixed | before
    assert edited_calls(repo, tmp_path, edit) == fixed | after

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


# -- the functions of a hook, destructured from its call --------------------

USE_DATE = (
    'import { format } from "date-fns"\n'  # 1
    "\n"
    "export const useDate = () => {\n"  # 3
    "  const getFullDate = ({ date }: { date: string }) => {\n"  # 4
    "    return format(date)\n"  # 5
    "  }\n"
    "  function getRelative(d: string) {\n"  # 7
    "    return d\n"
    "  }\n"
    '  const locale = "en"\n'
    "  return { getFullDate, getRelative, locale }\n"
    "}\n"
)
SHOW = (
    'import { useTranslation } from "react-i18next"\n'  # 1
    'import { useDate } from "./hooks/use-date"\n'  # 2
    "\n"
    "export const Show = () => {\n"  # 4
    "  const { getFullDate, getRelative, locale, missing } = useDate()\n"  # 5
    "  const { t } = useTranslation()\n"  # 6
    '  getFullDate({ date: "x" })\n'  # 7
    '  getRelative("y")\n'  # 8
    "  locale()\n"  # 9: a value, no function
    "  missing()\n"  # 10: the hook defines none
    '  t("a")\n'  # 11: a library hook's
    "  return null\n"
    "}\n"
)


def test_the_functions_of_a_hook_destructured_from_its_call(tmp_path: Path) -> None:
    hook, show = "src/hooks/use-date.tsx", "src/show.tsx"
    repo = indexed_files(tmp_path, {hook: USE_DATE, show: SHOW})
    fixed = {
        (hook, 5, "format", None, "external"),
        (show, 5, "useDate", f"{hook}:function:useDate", "import"),
        (show, 6, "useTranslation", None, "external"),
        (show, 9, "locale", None, None),
        (show, 10, "missing", None, None),
        (show, 11, "t", None, "external"),
    }
    fixed.add((show, 7, "getFullDate", f"{hook}:function:useDate.getFullDate", "import"))
    edited = USE_DATE.replace("function getRelative(d: string) {", "function relative(d: string) {")
    before = {(show, 8, "getRelative", f"{hook}:function:useDate.getRelative", "import")}
    _before_and_after(repo, tmp_path, fixed, before, {hook: edited}, {(show, 8, "getRelative", None, None)})



def test_names_destructured_from_require_are_imports_not_a_hooks_functions(tmp_path: Path) -> None:
    """CommonJS `const { sum } = require("../lib/sum")` is an import of
    `sum`: its call goes to the module's function, as `lib.sum()` does (the
    hook rule above left it unresolved; found by tests/report's node --test
    case)."""
    lib, test = "lib/sum.js", "test/sum.js"
    repo = indexed_files(tmp_path, {
        lib: "function sum(a, b) {\n  return a + b;\n}\n\nmodule.exports = { sum };\n",
        test: (
            "const { sum } = require('../lib/sum');\nconst lib = require('../lib/sum');\n\n"  # 1, 2
            "sum(1, 2);\nlib.sum(1, 2);\n"  # 4, 5
        ),
    })  # fmt: skip
    assert call_rows(exported(repo)) == {
        (test, 4, "sum", f"{lib}:function:sum", "import"),
        (test, 5, "sum", f"{lib}:function:sum", "import"),
    }


# -- a parameter destructured from a type of the file -----------------------

MATRIX = (
    "export class Matrix<T> {\n  getIsCellSelected(a: T): boolean {\n    return !!a\n  }\n}\n"
    "export class Other {\n  getIsCellSelected(a: number): boolean {\n    return !a\n  }\n}\n"
)
HANDLERS = (
    'import { Matrix, Other } from "./matrix"\n'  # 1
    "\n"
    "type Options<T> = {\n"  # 3
    "  matrix: Matrix<T>\n"
    "  execute: (n: number) => void\n"
    "}\n"
    "\n"
    "interface Props {\n"  # 8
    "  grid: Matrix<number>\n"
    "}\n"
    "\n"
    "export const useHandlers = <T,>({ matrix, execute, other }: Options<T>) => {\n"  # 12
    "  matrix.getIsCellSelected(1 as T)\n"  # 13
    "  execute(1)\n"  # 14: a function type, no project function
    "  other.getIsCellSelected(3)\n"  # 15: Options declares none; two methods of the name
    "}\n"
    "\n"
    "export function Grid({ grid }: Props) {\n"  # 18
    "  grid.getIsCellSelected(1)\n"  # 19
    "  grid.getIsCellSelected.call(null, 2)\n"  # 20: a property of the method
    "}\n"
)


def test_a_parameter_destructured_from_a_type_of_the_file(tmp_path: Path) -> None:
    matrix, handlers = "src/matrix.ts", "src/handlers.tsx"
    repo = indexed_files(tmp_path, {matrix: MATRIX, handlers: HANDLERS})
    selected, other = f"{matrix}:method:Matrix.getIsCellSelected", f"{matrix}:method:Other.getIsCellSelected"
    fixed = {
        (handlers, 13, "getIsCellSelected", selected, "import"),
        (handlers, 14, "execute", None, None),
        (handlers, 15, "getIsCellSelected", None, None),
        (handlers, 20, "call", None, None),
    }
    edited = HANDLERS.replace("  grid: Matrix<number>\n", "  grid: Other\n")
    before = {(handlers, 19, "getIsCellSelected", selected, "import")}
    after = {(handlers, 19, "getIsCellSelected", other, "import")}
    _before_and_after(repo, tmp_path, fixed, before, {handlers: edited}, after)


# -- the functions of an object a factory returns ---------------------------

HELPER = (
    "export function makeHelper() {\n"  # 1
    "  const column = (n: number) => n\n"  # 2: a local, not what is returned
    "  return {\n"
    "    column: ({ id }: { id: string }) => {\n"  # 4
    "      return id\n"
    "    },\n"
    "    row(n: number) {\n"  # 7
    "      return n\n"
    "    },\n"
    "    value: 1,\n"
    "  }\n"
    "}\n"
    "\n"
    "export function other() {\n"  # 14
    "  row(2)\n"  # 15: a member of a returned object is no name in scope
    "  return { row() {\n"  # 16
    "    return 3\n"
    "  } }\n"
    "}\n"
)
USE_HELPER = (
    'import { makeHelper } from "./helper"\n'  # 1
    "\n"
    "export function build() {\n"  # 3
    "  const helper = makeHelper()\n"  # 4
    '  helper.column({ id: "a" })\n'  # 5
    "  helper.row(1)\n"  # 6
    "  helper.value()\n"  # 7: data
    "  makeHelper().row(2)\n"  # 8
    "}\n"
)


def test_the_functions_of_an_object_a_factory_returns(tmp_path: Path) -> None:
    helper, use = "src/helper.ts", "src/use.ts"
    repo = indexed_files(tmp_path, {helper: HELPER, use: USE_HELPER})
    made = f"{helper}:function:makeHelper"
    fixed = {
        (helper, 15, "row", None, None),
        (use, 4, "makeHelper", made, "import"),
        (use, 7, "value", None, None),
        (use, 8, "makeHelper", made, "import"),
    }
    fixed.add((use, 5, "column", f"{helper}:method:makeHelper.column", "import"))
    row = f"{helper}:method:makeHelper.row"
    edited = HELPER.replace("    row(n: number) {\n", "    cell(n: number) {\n")
    before = {(use, 6, "row", row, "import"), (use, 8, "row", row, "import")}
    after = {(use, 6, "row", None, None), (use, 8, "row", None, None)}
    _before_and_after(repo, tmp_path, fixed, before, {helper: edited}, after)


# -- a factory that returns a local object (medusa's queryKeysFactory) -------

KEYS = 'export const adminKey = {\n  detail: (id: string) => ["admin", id],\n}\n'
FACTORY = (
    "export const keysFactory = (k: string) => {\n"
    "  const o = { detail: (id: string) => [k, id] }\n"  # 2
    "  return o\n"
    "}\n"
)
USE_KEYS = (
    'import { keysFactory } from "./factory"\n'
    'import { Service } from "./service"\n'
    'import { makeService } from "./service"\n'
    "\n"
    'export const productKeys = keysFactory("product")\n'  # 5
    "\n"
    "export function invalidate(id: string) {\n"
    "  productKeys.list(id)\n"  # 8: no member of the factory's object
    "  makeService().compute()\n"  # 9: a class's method stays the guess
    "  return productKeys.detail(id)\n"  # 10
    "}\n"
    "\n"
    'export const moreKeys = { ...keysFactory("more"), me: () => ["me"] }\n'  # 13
    "export const more = (id: string) => moreKeys.list(id)\n"  # 14: a spread is not read: no guess either
)
SERVICE = "export class Service {\n  compute() {\n    return 1\n  }\n}\nexport const makeService = () => new Service()\n"
OTHER = 'import { productKeys } from "./use"\n\nexport function refresh(id: string) {\n  return productKeys.detail(id)\n}\n'
LISTS = 'export const adminList = {\n  list: (id: string) => ["list", id],\n}\n'


def test_a_factory_that_returns_a_local_object(tmp_path: Path) -> None:
    """`const o = { detail }; return o`: `productKeys.detail()` is the
    factory's `o.detail`, never the project's only other `detail` of an
    unrelated object (`adminKey.detail`: 184 wrong edges in medusa); a member
    the object lacks (`list`) is no guess to another object's either."""
    files = {"src/keys.ts": KEYS, "src/factory.ts": FACTORY, "src/use.ts": USE_KEYS, "src/service.ts": SERVICE, "src/lists.ts": LISTS, "src/other.ts": OTHER}
    repo = indexed_files(tmp_path, files)
    use, made = "src/use.ts", "src/factory.ts:function:keysFactory"
    fixed = {
        ("src/service.ts", 6, "Service", "src/service.ts:class:Service", "same_file"),
        (use, 5, "keysFactory", made, "import"),
        (use, 8, "list", None, None),
        (use, 13, "keysFactory", made, "import"),
        (use, 14, "list", None, None),
        (use, 9, "makeService", "src/service.ts:function:makeService", "import"),
        (use, 9, "compute", "src/service.ts:method:Service.compute", "unique"),
    }
    detail = "src/factory.ts:function:keysFactory.o.detail"
    # in another file, through the imported constant's value
    assert call_rows(exported(repo)) == fixed | {(use, 10, "detail", detail, "import"), ("src/other.ts", 4, "detail", detail, "import")}
    # a second local object with a `detail`: which one is returned is not read
    edited = FACTORY.replace("  return o\n", "  const p = { detail: (id: string) => [id] }\n  return o\n")
    assert edited_calls(repo, tmp_path, {"src/factory.ts": edited}) == fixed | {
        (use, 10, "detail", None, None), ("src/other.ts", 4, "detail", None, None)
    }
