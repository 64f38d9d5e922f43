"""Python values and attributes on real code: recall and precision per pattern.

The patterns of issue 29 that a call-site oracle (``oracle_python.py``)
does not see: a function assigned to a name and called through it, passed
as a keyword argument or an argument, stored in a dict or list, registered
as a callback; an attribute typed by a parameter (``self.stats = stats``,
``stats: StatsCollector``) and called through; a ``@property`` read; a
``self.m()`` / ``cls.m()`` in a base class that reaches a subclass's
override; and calls on a parameter or an ``except … as e`` variable, where
no project function is meant (the ``unique`` tier's wrong answers).

    .venv/bin/python benchmarks/values_python.py                        # all corpora, this checkout
    .venv/bin/python benchmarks/values_python.py --cartog-src /work/main/src
    .venv/bin/python benchmarks/values_python.py --list callback --corpus scrapy  # the sites, to read

**Sites and truth.** Each corpus (``benchmarks/corpora.py``: Scrapy 2.11.0,
celery 5.4.0, fastapi 0.115.0, prefect 3.0.0, Django 5.1 — sdists, none of
them installed) is read with ``ast``; a site is kept only when its target
follows from Python's own scoping without inference: a name bound in the
module by ``def`` (no other binding of it in the file), a method of the
class around the site found in that class or its bases by name, or a class
named by a parameter's annotation that exactly one class of the project
defines. Everything else is left out (no guessing on either side). The sites
of each pattern are sampled (``--per-pattern``, seeded) and were read by
hand (``--list``) when the benchmark was made. ``dispatch`` sites are pairs
(base method calling ``self.m()``/``cls.m()``, an override of ``m`` in a
subclass): the truth is that the override's callers (``graph.impact``,
depth 1) hold the base method. ``library`` sites are calls on a parameter or
an ``except`` variable: there the truth is *no project target*, and the
figure is the number of edges that name one anyway (wrong).

**Ours**: ``index --force --no-embed`` of the corpus with ``--cartog-src`` on
``PYTHONPATH``; the edges read from the index file (their alias tells a value
from a call). A site is found when an edge of that file, line and name goes
to the truth; precision is over the sites where our edge names a project
target.

Measured (default corpora and sample, 12 sites a pattern and corpus; before:
main at 45b0762, after: this branch at 3879108; 2 shared cores, load ~20):

=========  =====  =============  ==============
pattern    sites  recall before  recall after
=========  =====  =============  ==============
assigned   18     0.39 (7/18)    1.00 (18/18)
keyword    58     0.00 (0/58)    0.97 (56/58)
argument   60     0.00 (0/60)    0.97 (58/60)
stored     48     0.00 (0/48)    0.79 (38/48)
callback   49     0.00 (0/49)    1.00 (49/49)
attribute  23     0.13 (3/23)    1.00 (23/23)
property   48     0.04 (2/48)    0.85 (41/48)
dispatch   51     0.00 (0/51)    0.96 (49/51)
library    60     8 wrong edges  0 wrong edges
=========  =====  =============  ==============

Precision 1.00 on every pattern, before and after. Seven of the ten
``stored`` misses there were prefect's ``@pytest.mark.parametrize([(create_hook,
...)])`` on test methods: a decorator runs in the class body (or the module)
that defines the method, which names the value once (one edge, at its first
line), and this benchmark looked for it in the method. A site in a
decorator is now looked for in the body it runs in (``Site.runs_in``):
stored 0.96 (46/48) with main at f41d5c8 and with branch py29c alike (the
same graph; the benchmark's scoping was the miss), every other pattern as
in the table but argument 0.98 (59/60), precision 1.00, 0 wrong library
edges::

    .venv/bin/python benchmarks/values_python.py --cartog-src /work/main/src

Both ``dispatch`` misses there (and again at d787da5) were the
benchmark's: a subclass was paired with a base by name where two project
classes share it (prefect's two ``EventDataFilter``, Django's forms and
models ``Field``), or where the base is a module's class outside the
project (``unittest.TestCase`` taken for Django's ``TestCase``). A base
name must now be one class of the project, and a dotted base whose module
is bound by ``import x`` of no project module is no project class. At
d787da5: dispatch 0.98 (50/51), every other pattern as above; the miss is
ours: celery's ``DrainerTests`` calls ``self.sleep()`` from a function
nested in the base method, which the subclasses' ``sleep`` do not reach.
"""

from __future__ import annotations

import argparse
import ast
import random
import sqlite3
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpora  # noqa: E402

DEFAULT_SRC = Path(__file__).resolve().parents[1] / "src"
PATTERNS = ("assigned", "keyword", "argument", "stored", "callback", "attribute", "property", "dispatch", "library")
CALLBACK_CALLS = frozenset(
    "connect addCallback addErrback addCallbacks addBoth add_done_callback register add_signal_handler "
    "call_later callLater callFromThread deferToThread maybeDeferred add_task_done_callback on_after_configure "
    "send_catch_log_deferred".split()
)
CALLBACK_KEYWORDS = frozenset("callback errback on_error on_success handler func target".split())
DEFAULT_CORPORA = ("scrapy", "medium", "fastapi", "prefect", "large")
MISSES = False


@dataclass(frozen=True)
class Site:
    pattern: str
    file: str
    line: int
    name: str
    truth: str | None  # "file:qualified_name" of the target, None: no project target
    caller: str = ""  # dispatch: "file:qualified_name" of the base method that calls
    scope: tuple[int, int] = (0, 0)  # the lines of the function around a value site
    # a site in a method's decorator: the decorator runs in the class body (or
    # the module), which names the value once: "class:<qualified name>" or "module"
    runs_in: str = ""


# --- the project's definitions, read with ast ------------------------------


@dataclass
class ClassInfo:
    file: str
    qualname: str
    bases: list[str]
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]


class Project:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.trees: dict[str, ast.Module] = {}
        for path in sorted(root.rglob("*.py")):
            rel = str(path.relative_to(root))
            if "/." in f"/{rel}":
                continue
            try:
                self.trees[rel] = ast.parse(path.read_bytes())
            except (SyntaxError, ValueError):
                continue
        # every module and package name of the project, at any depth
        modules = {part for rel in self.trees for part in Path(rel).with_suffix("").parts}
        self.classes: dict[str, list[ClassInfo]] = defaultdict(list)
        for file, tree in self.trees.items():
            outside = _outside_modules(tree, modules)
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    self.classes[node.name].append(_class_info(file, node, outside))

    def unique_class(self, name: str) -> ClassInfo | None:
        found = self.classes.get(name, [])
        return found[0] if len(found) == 1 else None

    def method_in_hierarchy(self, cls: ClassInfo, name: str, depth: int = 0) -> str | None:
        if name in cls.methods:
            return f"{cls.file}:{cls.qualname}.{name}"
        if depth > 8:
            return None
        for base in cls.bases:
            found = self.unique_class(base)
            if found is None:
                return None  # a base outside the project, or ambiguous: no truth
            hit = self.method_in_hierarchy(found, name, depth + 1)
            if hit:
                return hit
        return None

    def subclasses(self, cls: ClassInfo) -> Iterator[ClassInfo]:
        """Classes naming ``cls`` as a base, when its name is one class of the
        project (as ``method_in_hierarchy``): a base name two classes share
        (forms' and models' ``Field``) says nothing surely."""
        if self.unique_class(cls.qualname.rpartition(".")[2]) is not cls:
            return
        for infos in self.classes.values():
            for info in infos:
                if cls.qualname.rpartition(".")[2] in info.bases and info is not cls:
                    yield info


def _outside_modules(tree: ast.Module, modules: set[str]) -> set[str]:
    """Names the module binds with ``import x`` (``as y``) to a module no
    file of the project is named after (``unittest``)."""
    out = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.partition(".")[0] not in modules:
                    out.add(alias.asname or alias.name.partition(".")[0])
    return out


def _class_info(file: str, node: ast.ClassDef, outside: set[str]) -> ClassInfo:
    methods = {
        b.name: b for b in node.body if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    bases = []
    for b in node.bases:
        if isinstance(b, ast.Name):
            bases.append(b.id)
        elif isinstance(b, ast.Attribute):
            root = b.value
            while isinstance(root, ast.Attribute):
                root = root.value
            # ``unittest.TestCase`` is no project ``TestCase``
            if not (isinstance(root, ast.Name) and root.id in outside):
                bases.append(b.attr)
    return ClassInfo(file, node.name, bases, methods)


def _module_functions(tree: ast.Module) -> dict[str, str]:
    """Names bound once in the module, by a top-level ``def``."""
    count: dict[str, int] = defaultdict(int)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            count[node.name] += 1
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            count[node.id] += 1
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                count[(alias.asname or alias.name).split(".")[0]] += 1
    return {
        n.name: n.name
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and count[n.name] == 1
    }


def _is_property(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(
        isinstance(d, ast.Name) and d.id in ("property", "cached_property")
        or isinstance(d, ast.Attribute) and d.attr == "cached_property"
        for d in node.decorator_list
    )


class _Finder(ast.NodeVisitor):
    """Every candidate site of one file."""

    def __init__(self, project: Project, file: str) -> None:
        self.p = project
        self.file = file
        self.functions = _module_functions(project.trees[file])
        self.cls: ClassInfo | None = None
        self.method: ast.FunctionDef | ast.AsyncFunctionDef | None = None
        self.params: dict[str, str | None] = {}  # parameter -> annotated class name
        self.attr_types: dict[str, str] = {}  # self.x -> class name (from a typed parameter)
        self.sites: list[Site] = []

    # scopes
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        outer, outer_types = self.cls, self.attr_types
        if self.method is None and self.cls is None:
            self.cls = next((c for c in self.p.classes.get(node.name, []) if c.file == self.file), None)
            self.attr_types = self._attribute_types(node)
            self.generic_visit(node)
        self.cls, self.attr_types = outer, outer_types

    def _attribute_types(self, node: ast.ClassDef) -> dict[str, str]:
        found: dict[str, set[str]] = defaultdict(set)
        for method in node.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            annotated = {a.arg: _annotation(a.annotation) for a in _all_args(method.args)}
            for sub in ast.walk(method):
                if isinstance(sub, ast.Assign) and len(sub.targets) == 1:
                    target = sub.targets[0]
                    if _self_attr(target) and isinstance(sub.value, ast.Name):
                        kind = annotated.get(sub.value.id)
                        found[target.attr].add(kind or "?")  # type: ignore[union-attr]
                    elif _self_attr(target):
                        found[target.attr].add("?")  # type: ignore[union-attr]
        return {k: next(iter(v)) for k, v in found.items() if len(v) == 1 and "?" not in v}

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if self.method is not None:
            return  # nested functions: their scoping is left out
        self.method = node
        self.params = {a.arg: _annotation(a.annotation) for a in _all_args(node.args)}
        self._assigned_calls(node)
        self.generic_visit(node)
        self.method = None
        self.params = {}

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    # the target a value names, if its scope says it surely
    def target_of(self, expr: ast.expr) -> str | None:
        if isinstance(expr, ast.Name) and expr.id in self.functions and expr.id not in self.params:
            return f"{self.file}:{expr.id}"
        if _self_attr(expr) and self.cls is not None and self.method is not None:
            hit = self.p.method_in_hierarchy(self.cls, expr.attr)  # type: ignore[union-attr]
            return hit
        return None

    def add(self, pattern: str, expr: ast.expr, truth: str | None) -> None:
        if truth is None:
            return
        name = expr.id if isinstance(expr, ast.Name) else expr.attr  # type: ignore[union-attr]
        self.sites.append(Site(pattern, self.file, expr.lineno, name, truth, scope=self._scope(), runs_in=self._runs_in(expr)))

    def _runs_in(self, expr: ast.expr) -> str:
        """Where a site in the decorators of the function around it runs:
        the class body or the module defining the function (before its
        ``def`` line: a decorator), else ""."""
        method = self.method
        if method is None or expr.lineno >= method.lineno:
            return ""
        return f"class:{self.cls.qualname}" if self.cls is not None else "module"

    def _scope(self) -> tuple[int, int]:
        method = self.method
        return (method.lineno, method.end_lineno or method.lineno) if method is not None else (0, 0)

    def _assigned_calls(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """``f = helper`` (once in the function) … ``f(...)``."""
        stores: dict[str, list[ast.expr]] = defaultdict(list)
        for sub in ast.walk(node):
            if isinstance(sub, ast.Assign) and len(sub.targets) == 1 and isinstance(sub.targets[0], ast.Name):
                stores[sub.targets[0].id].append(sub.value)
            elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                stores[sub.id].append(sub)
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
                values = stores.get(sub.func.id, [])
                # a store is listed twice: the Assign's value and its Name target
                assigned = [v for v in values if not isinstance(v, ast.Name) or not isinstance(v.ctx, ast.Store)]
                if len(values) == 2 and len(assigned) == 1 and isinstance(assigned[0], (ast.Name, ast.Attribute)):
                    truth = self.target_of(assigned[0])
                    if truth is not None and sub.func.id not in self.params:
                        self.sites.append(Site("assigned", self.file, sub.func.lineno, _last(assigned[0]), truth))

    def visit_Call(self, node: ast.Call) -> None:
        if self.method is not None:
            callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            registering = callee in CALLBACK_CALLS
            for arg in node.args:
                if isinstance(arg, (ast.Name, ast.Attribute)):
                    self.add("callback" if registering else "argument", arg, self.target_of(arg))
            for kw in node.keywords:
                if isinstance(kw.value, (ast.Name, ast.Attribute)):
                    pattern = "callback" if registering or kw.arg in CALLBACK_KEYWORDS else "keyword"
                    self.add(pattern, kw.value, self.target_of(kw.value))
            self._attribute_call(node)
            self._library_call(node)
        self.generic_visit(node)

    def _attribute_call(self, node: ast.Call) -> None:
        """``self.stats.inc_value()`` with ``self.stats = stats``, ``stats: StatsCollector``."""
        func = node.func
        if not isinstance(func, ast.Attribute) or not _self_attr(func.value):
            return
        kind = self.attr_types.get(func.value.attr)  # type: ignore[attr-defined]
        cls = self.p.unique_class(kind) if kind else None
        if cls is not None:
            truth = self.p.method_in_hierarchy(cls, func.attr)
            if truth is not None:
                self.sites.append(Site("attribute", self.file, func.lineno, func.attr, truth))

    def _library_call(self, node: ast.Call) -> None:
        """A bare call of a parameter, a method call on an ``except`` variable."""
        func = node.func
        if isinstance(func, ast.Name) and func.id in self.params and func.id not in ("self", "cls"):
            if self.p.classes.get(func.id) is None:
                self.sites.append(Site("library", self.file, func.lineno, func.id, None))

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if self.method is not None and node.name and isinstance(node.type, (ast.Name, ast.Attribute)):
            if self.p.unique_class(_last(node.type)) is None and not self.p.classes.get(_last(node.type)):
                for sub in ast.walk(node):
                    if (
                        isinstance(sub, ast.Call)
                        and isinstance(sub.func, ast.Attribute)
                        and isinstance(sub.func.value, ast.Name)
                        and sub.func.value.id == node.name
                    ):
                        self.sites.append(Site("library", self.file, sub.func.lineno, sub.func.attr, None))
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        if self.method is not None:
            for value in node.values:
                if isinstance(value, (ast.Name, ast.Attribute)):
                    self.add("stored", value, self.target_of(value))
        self.generic_visit(node)

    def visit_List(self, node: ast.List | ast.Tuple) -> None:
        if self.method is not None and isinstance(node.ctx, ast.Load):
            for value in node.elts:
                if isinstance(value, (ast.Name, ast.Attribute)):
                    self.add("stored", value, self.target_of(value))
        self.generic_visit(node)

    visit_Tuple = visit_List  # type: ignore[assignment]

    def visit_Attribute(self, node: ast.Attribute) -> None:
        """``self.prop`` read, ``prop`` a ``@property`` of the class or a base."""
        if self.method is not None and self.cls is not None and _self_attr(node) and isinstance(node.ctx, ast.Load):
            truth = self.p.method_in_hierarchy(self.cls, node.attr)
            target = self._function(truth) if truth else None
            if target is not None and _is_property(target):
                self.sites.append(Site("property", self.file, node.lineno, node.attr, truth, scope=self._scope()))
        self.generic_visit(node)

    def _function(self, target: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        file, _, qualname = target.partition(":")
        owner, _, name = qualname.rpartition(".")
        for info in self.p.classes.get(owner, []):
            if info.file == file:
                return info.methods.get(name)
        return None


def _all_args(args: ast.arguments) -> list[ast.arg]:
    found = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    found += [a for a in (args.vararg, args.kwarg) if a is not None]
    return found


def _annotation(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
        return node.value
    return None


def _self_attr(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")


def _last(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr  # type: ignore[attr-defined]


def dispatch_sites(project: Project) -> list[Site]:
    """(a base method calling ``self.m()``/``cls.m()``, an override of ``m``
    in a subclass): the override's callers must hold the base method."""
    out: list[Site] = []
    for infos in project.classes.values():
        for base in infos:
            for caller_name, method in base.methods.items():
                for sub in ast.walk(method):
                    if not (isinstance(sub, ast.Call) and _self_attr(sub.func)):
                        continue
                    name = sub.func.attr  # type: ignore[union-attr]
                    if name not in base.methods or name == caller_name:
                        continue
                    for child in project.subclasses(base):
                        if name in child.methods:
                            out.append(
                                Site(
                                    "dispatch", child.file, sub.func.lineno, name,
                                    f"{child.file}:{child.qualname}.{name}",
                                    caller=f"{base.file}:{base.qualname}.{caller_name}",
                                )
                            )  # fmt: skip
    return out


def find_sites(root: Path) -> list[Site]:
    project = Project(root)
    sites: list[Site] = []
    for file in project.trees:
        finder = _Finder(project, file)
        finder.visit(project.trees[file])
        sites += finder.sites
    sites += dispatch_sites(project)
    return sorted(set(sites), key=lambda s: (s.pattern, s.file, s.line, s.name))


def sample(sites: list[Site], per_pattern: int, seed: int) -> list[Site]:
    out: list[Site] = []
    for pattern in PATTERNS:
        found = [s for s in sites if s.pattern == pattern]
        random.Random(seed).shuffle(found)
        out += found[:per_pattern]
    return out


# --- ours ------------------------------------------------------------------


def index(root: Path, src: Path, db: Path) -> None:
    env = {"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin", "HOME": str(Path.home())}
    subprocess.run(
        [sys.executable, "-m", "cartog_ci.cli", "index", str(root), "--no-embed", "--force", "--index", str(db)],
        check=True, env=env, capture_output=True,
    )  # fmt: skip


def _qualified(target_id: str | None) -> str | None:
    """``file:kind:qualified#2`` -> ``file:qualified``."""
    if target_id is None:
        return None
    file, _, rest = target_id.partition(":")
    return f"{file}:{rest.partition(':')[2].split('#')[0]}"


def judge(sites: list[Site], db: Path, src: Path) -> dict[str, dict[str, int]]:
    con = sqlite3.connect(db)
    edges: dict[tuple[str, int, str], set[str | None]] = defaultdict(set)
    # a value named again in one scope is one edge, at its first line: found
    # anywhere in the function around the site
    values: dict[tuple[str, str], list[tuple[int, str | None]]] = defaultdict(list)
    # of a class body or a module: what it names as a value, by (file, "class:Q" | "module", name)
    bodies: dict[tuple[str, str, str], set[str | None]] = defaultdict(set)
    query = "SELECT file, line, target_name, target_id, alias, source_id FROM edges WHERE kind = 'calls'"
    for file, line, name, target, alias, source in con.execute(query):
        edges[(file, line, name)].add(_qualified(target))
        if alias == "value":
            values[(file, name)].append((line, _qualified(target)))
            kind, _, qualified = source.partition(":")[2].partition(":")
            if kind in ("class", "module"):
                bodies[(file, f"class:{qualified}" if kind == "class" else "module", name)].add(_qualified(target))
    counts: dict[str, dict[str, int]] = {p: defaultdict(int) for p in PATTERNS}  # type: ignore[misc]
    dispatch = [s for s in sites if s.pattern == "dispatch"]
    reached = _impacted(db, src, dispatch) if dispatch else {}
    for site in sites:
        c = counts[site.pattern]
        c["sites"] += 1
        if site.pattern == "dispatch":
            found = reached.get(site, False)
            c["found"] += found
            if MISSES and not found:
                print(f"  miss dispatch {site.caller} -> {site.truth}")
            c["answered"] += found
            c["right"] += found
            continue
        answers = {t for t in edges.get((site.file, site.line, site.name), set()) if t is not None}
        if site.runs_in and not answers:  # named once by the class body or module its decorator runs in
            answers = {t for t in bodies.get((site.file, site.runs_in, site.name), set()) if t is not None}
        elif site.scope != (0, 0) and not answers:
            low, high = site.scope
            answers = {t for line, t in values.get((site.file, site.name), []) if t is not None and low <= line <= high}
        if site.truth is None:  # a library call: any project target is wrong
            c["answered"] += bool(answers)
            c["right"] += 0
            c["wrong"] += bool(answers)
            continue
        c["found"] += site.truth in answers
        if MISSES and site.truth not in answers:
            print(f"  miss {site.pattern} {site.file}:{site.line} {site.name} -> {site.truth}; ours {sorted(answers)}")
        c["answered"] += bool(answers)
        c["right"] += bool(answers) and answers <= {site.truth}
    return counts


def _impacted(db: Path, src: Path, sites: list[Site]) -> dict[Site, bool]:
    """Whether each override's direct callers (``graph.impact``, depth 1) hold the base caller."""
    code = (
        "import json, sys\n"
        "from cartog_ci import graph\n"
        "from cartog_ci.store.sqlite import SqliteStore\n"
        "from pathlib import Path\n"
        "pairs = json.load(sys.stdin)\n"
        "out = []\n"
        "with SqliteStore(Path(sys.argv[1]), readonly=True) as store:\n"
        "    for target, caller in pairs:\n"
        "        file, _, qualified = target.partition(':')\n"
        "        ids = [s.id for s in store.symbols_in_file(file) if s.qualified_name == qualified]\n"
        "        got = {n.symbol.file + ':' + n.symbol.qualified_name for n in graph.impact(store, ids, depth=1, kinds=graph.CALLER_KINDS)}\n"
        "        out.append(caller in got)\n"
        "print(json.dumps(out))\n"
    )
    import json

    pairs = [(s.truth, s.caller) for s in sites]
    done = subprocess.run(
        [sys.executable, "-c", code, str(db)], input=json.dumps(pairs), capture_output=True, text=True,
        env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"}, check=True,
    )  # fmt: skip
    return dict(zip(sites, json.loads(done.stdout)))


def _ratio(part: int, whole: int) -> str:
    return f"{part / whole:.2f} ({part}/{whole})" if whole else "-"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="append", help=f"corpora (default: {', '.join(DEFAULT_CORPORA)})")
    parser.add_argument("--cartog-src", type=Path, default=DEFAULT_SRC, help="the src/ of the checkout to measure")
    parser.add_argument("--per-pattern", type=int, default=12, help="sites sampled per pattern and corpus (default 12)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--list", metavar="PATTERN", help="print the sampled sites of a pattern, to read them")
    parser.add_argument("--misses", action="store_true", help="print each site not found")
    args = parser.parse_args(argv)
    global MISSES
    MISSES = args.misses
    total: dict[str, dict[str, int]] = {p: defaultdict(int) for p in PATTERNS}  # type: ignore[misc]
    for corpus in corpora.select(args.corpus, DEFAULT_CORPORA):
        root = corpora.ensure(corpus)
        sites = sample(find_sites(root), args.per_pattern, args.seed)
        if args.list:
            for s in sites:
                if s.pattern == args.list:
                    print(f"{corpus.name} {s.file}:{s.line} {s.name} -> {s.truth} {s.caller}")
            continue
        with tempfile.TemporaryDirectory(prefix="cartog-values-") as tmp:
            db = Path(tmp) / "index.db"
            index(root, args.cartog_src.resolve(), db)
            counts = judge(sites, db, args.cartog_src.resolve())
        for pattern, c in counts.items():
            for k, v in c.items():
                total[pattern][k] += v
        print(f"{corpus.name}: " + ", ".join(f"{p} {c['found']}/{c['sites']}" for p, c in counts.items() if c["sites"]))
    if args.list:
        return 0
    print()
    print("| pattern | sites | recall | precision | wrong project edges |")
    print("|---|---|---|---|---|")
    for pattern in PATTERNS:
        c = total[pattern]
        if pattern == "library":
            print(f"| {pattern} (no project target) | {c['sites']} | - | - | {c['wrong']} |")
        else:
            print(f"| {pattern} | {c['sites']} | {_ratio(c['found'], c['sites'])} | {_ratio(c['right'], c['answered'])} | {c['answered'] - c['right']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
