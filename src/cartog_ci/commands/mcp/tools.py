"""The MCP server's tools (docs/mcp.md): each one the answer of a command,
from the same query functions (graph.py, search/, report/), as an
``Answer`` that pages.py bounds."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cartog_ci import graph, workspace
from cartog_ci.commands.hierarchy import types_named
from cartog_ci.commands.mcp.pages import Answer, Page, question_key
from cartog_ci.commands.mcp.reports import ReportCache, report_state
from cartog_ci.commands.output import closest_names, edge_json, repo_path, resolve_names, symbols_of_file
from cartog_ci.commands.report import compute_report
from cartog_ci.commands.search import as_json as search_json
from cartog_ci.commands.search import check_query, reranker_for
from cartog_ci.commands.stats import collect
from cartog_ci.domain import CALLABLE_KINDS, EDGE_KINDS, Symbol, symbol_json
from cartog_ci.domain.results import Comparison, impact_node_json
from cartog_ci.errors import CartogError, SymbolNotFound
from cartog_ci.report import sides
from cartog_ci.search.intent import INTENTS
from cartog_ci.report.callsites import check_new_signature
from cartog_ci.report.render import render_summary, report_json, site_json

if TYPE_CHECKING:  # the interface, for type checkers only
    from cartog_ci.store.base import Store

# Per changed symbol of `report`: the nested lists are cut to these (the
# symbol's own tools give all of them).
REPORT_NESTED = {"callers": 5, "call_sites": 5, "tests": 5, "related": 3}


@dataclass(frozen=True)
class Context:
    """What a tool is asked with: the repository, the page, and the store
    opener (brought up to date first, unless the server says not to)."""

    ws: workspace.Workspace
    page: Page
    open_store: Callable[[], Any]  # a context manager yielding the Store
    reports: ReportCache  # the server's, for every call


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    properties: dict[str, dict[str, object]]
    required: tuple[str, ...]
    answer: Callable[[Context, dict[str, Any]], Answer]
    output: dict[str, dict[str, object]]  # the head's and the lists' schemas
    optional: dict[str, dict[str, object]] = field(default_factory=dict)  # fields not on every page

    def input_schema(self) -> dict[str, object]:
        return {
            "type": "object",
            "properties": self.properties | PAGING,
            "required": list(self.required),
            "additionalProperties": False,
        }

    def output_schema(self) -> dict[str, object]:
        return {
            "type": "object",
            "properties": self.output | self.optional | {"page": PAGE_SCHEMA},
            "required": [*self.output, "page"],
        }


# -- schemas -------------------------------------------------------------------------

Schema = dict[str, object]

# The longest string each argument takes (docs/mcp.md, "Limits"): a call
# costs what its arguments make it read, parse and rank, so none is
# unbounded; each limit is far above what a real name, path or question
# needs.
MAX_QUERY = 2_000  # a question, or an error message pasted whole
MAX_NAME = 1_000  # a symbol ID holds a path and a qualified name
MAX_PATH = 1_000
MAX_KIND = 40
MAX_SIGNATURE = 10_000  # a 300-parameter signature is about 4,000
MAX_REF = 256  # a branch name or a commit
MAX_CURSOR = 200  # this server's cursors are about 60
# search ranks every hit up to the page asked for: its pages stop here
MAX_SEARCH_HITS = 1_000

NAME: Schema = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_NAME,
    "description": "bare name (checkout), qualified name (Order.checkout) or symbol ID "
    "(shop/models/order.py:method:Order.checkout); an ambiguous name answers for every match",
}
FILE: Schema = {"type": "string", "minLength": 1, "maxLength": MAX_PATH, "description": "repository-relative path with / separators"}
DEPTH: Schema = {"type": "integer", "minimum": 1, "maximum": 10, "description": "how far to follow callers (default 3)"}
PAGING: dict[str, Schema] = {
    "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "most items in one answer (default 50)"},
    "cursor": {"type": "string", "maxLength": MAX_CURSOR, "description": "page.next_cursor of a truncated answer, to get the next items"},
    "max_tokens": {
        "type": "integer",
        "minimum": 200,
        "maximum": 16000,
        "description": "token budget of the answer (default: the server's, 4,000)",
    },
}
OBJECTS: Schema = {"type": "array", "items": {"type": "object"}}
STRINGS: Schema = {"type": "array", "items": {"type": "string"}}
STRING: Schema = {"type": "string"}
PAGE_SCHEMA: Schema = {
    "type": "object",
    "properties": {
        "offset": {"type": "integer"},
        "returned": {"type": "integer"},
        "total": {"type": "integer"},
        "totals": {"type": "object"},
        "truncated": {"type": "boolean"},
        "next_cursor": {"type": ["string", "null"]},
        "left_out": {"type": ["string", "null"]},
    },
    "required": ["offset", "returned", "total", "totals", "truncated", "next_cursor", "left_out"],
}


# -- shared steps ----------------------------------------------------------------------


def named(store: Store, name: str) -> list[Symbol]:
    """The symbols NAME names; an unknown name says the closest ones."""
    try:
        return resolve_names(store, name)
    except SymbolNotFound:
        near = closest_names(store, name)
        hint = f"; closest names: {', '.join(near)}" if near else ""
        raise SymbolNotFound(
            f"no symbol named {name!r} in the index{hint} (the search tool finds code by what it does)"
        ) from None


def indexed_file(store: Store, text: str) -> tuple[str, list[Symbol]]:
    path = repo_path(text)
    try:
        return path, symbols_of_file(store, path)
    except SymbolNotFound:
        near = difflib.get_close_matches(path, sorted(store.file_states()), n=3, cutoff=0.5)
        hint = f"; closest paths: {', '.join(near)}" if near else ""
        raise SymbolNotFound(f"{path} is not in the index{hint} (paths are relative to the repository root)") from None


def _ids(symbols: list[Symbol]) -> list[str]:
    return [s.id for s in symbols]


# -- the tools ---------------------------------------------------------------------------


def _search(ctx: Context, args: dict[str, Any]) -> Answer:
    from cartog_ci.embed.provider import model_from_config
    from cartog_ci.search.multimodal import MultimodalOptions, search

    ws = ctx.ws
    check_query(args["query"])
    if ctx.page.offset >= MAX_SEARCH_HITS:
        raise CartogError(f"search ranks {MAX_SEARCH_HITS:,} hits at most: ask a narrower question (a kind, a name)")
    with ctx.open_store() as store:
        result = search(
            store,
            args["query"],
            model_factory=lambda: model_from_config(ws.config, ws.root),
            reranker=reranker_for(ws.config, ws.root),
            # the pages before this one are ranked too, then left out
            options=MultimodalOptions(
                limit=min(ctx.page.end, MAX_SEARCH_HITS), kind=args.get("kind"), intent=args.get("intent"), rerank_top=ws.config.rerank_top
            ),
        )
    found = search_json(result)
    hits = found.pop("hits")
    assert isinstance(hits, list)
    return Answer(found | {"notes": list(result.notes)}, {"hits": hits})


def _refs(ctx: Context, args: dict[str, Any]) -> Answer:
    with ctx.open_store() as store:
        symbols = named(store, args["name"])
        edges = graph.refs(store, _ids(symbols), args.get("kind"))
    return Answer({"symbols": _ids(symbols)}, {"refs": [edge_json(e) for e in edges]})


def _callees(ctx: Context, args: dict[str, Any]) -> Answer:
    with ctx.open_store() as store:
        symbols = named(store, args["name"])
        edges = graph.callees(store, _ids(symbols))
    return Answer({"symbols": _ids(symbols)}, {"callees": [edge_json(e) for e in edges]})


def _impact(ctx: Context, args: dict[str, Any]) -> Answer:
    depth = args.get("depth") or ctx.ws.config.depth
    with ctx.open_store() as store:
        symbols = named(store, args["name"])
        nodes = graph.impact(store, _ids(symbols), depth=depth)
    return Answer({"symbols": _ids(symbols), "depth": depth}, {"impacted": [impact_node_json(n) for n in nodes]})


def _outline(ctx: Context, args: dict[str, Any]) -> Answer:
    with ctx.open_store() as store:
        path, symbols = indexed_file(store, args["file"])
    return Answer({"file": path}, {"symbols": [symbol_json(s) for s in symbols]})


def _hierarchy(ctx: Context, args: dict[str, Any]) -> Answer:
    with ctx.open_store() as store:
        try:
            types = types_named(store, args["name"])
        except SymbolNotFound:
            named(store, args["name"])  # the error with the closest names
            raise
        found = [graph.hierarchy(store, s) for s in types]
    return Answer(
        {"symbols": _ids(types)},
        {
            "bases": [{"of": h.symbol.id, "id": s.id, "depth": d} for h in found for d, s in h.bases],
            "unresolved_bases": [{"of": h.symbol.id, "name": n} for h in found for n in h.unresolved_bases],
            "subclasses": [{"of": h.symbol.id, "id": s.id, "depth": d} for h in found for d, s in h.subclasses],
        },
    )


def _deps(ctx: Context, args: dict[str, Any]) -> Answer:
    with ctx.open_store() as store:
        path, _ = indexed_file(store, args["file"])
        d = graph.deps(store, path)
    return Answer({"file": d.file}, {"imports": [edge_json(e) for e in d.imports], "imported_by": list(d.imported_by)})


def _stats(ctx: Context, args: dict[str, Any]) -> Answer:
    with ctx.open_store() as store:
        data = collect(store)
    skipped = data.pop("skipped")
    assert isinstance(skipped, list)
    # the server's own counts: what the answers cost so far
    return Answer(data | {"server": ctx.reports.stats()}, {"skipped": skipped})


def _report(ctx: Context, args: dict[str, Any]) -> Answer:
    ws = workspace.locate(str(ctx.ws.root), str(ctx.ws.index_path), require_git=True)
    change = args.get("change", "working_tree")
    if args.get("head") and change != "head":
        raise CartogError(f"head names a commit: pass change='head' with it (not {change!r})")
    comparison = sides.choose(
        ws.root,
        base=args.get("base"),
        head=args.get("head"),
        staged=change == "staged",
        working_tree=change == "working_tree",
    )
    return ctx.reports.answer(
        question_key("report", args),
        lambda: report_state(ws, comparison),
        lambda: _whole_report(ws, comparison, args),
    )


def _whole_report(ws: workspace.Workspace, comparison: Comparison, args: dict[str, Any]) -> Answer:
    # the report brings the index up to date itself, as `cartog-ci report` does
    report = compute_report(ws, comparison, depth=args.get("depth"), related=bool(args.get("related")))
    assert report is not None  # only a pre-push check refuses
    data = report_json(report)
    lists = {key: data.pop(key) for key in ("will_break", "broken_references", "changed", "tests", "test_commands", "files")}
    changed = lists["changed"]
    assert isinstance(changed, list)
    capped = [_capped(item) for item in changed]
    lists["changed"] = [item for item, _ in capped]
    note = (
        "each changed symbol lists at most 5 callers, call sites and tests (callers_total counts all): "
        "ask impact or check_signature_change about one symbol for all of them"
        if any(cut for _, cut in capped)
        else ""
    )
    return Answer({"summary": render_summary(report)} | data, lists, note, ("summary",))  # type: ignore[arg-type]


def _capped(item: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    cut = any(len(item[key]) > most for key, most in REPORT_NESTED.items())
    return item | {key: item[key][:most] for key, most in REPORT_NESTED.items()}, cut


def _check_signature_change(ctx: Context, args: dict[str, Any]) -> Answer:
    signature = args["new_signature"].strip()
    if "(" not in signature:
        raise CartogError(
            "new_signature needs its parameter list, written as in the code (def save(self, force=False))"
        )
    with ctx.open_store() as store:
        symbol = _one_callable(store, args["name"])
        change, sites = check_new_signature(store, symbol, signature, root=ctx.ws.root)
    order = {"will break": 0, "": 1, "fine": 2}
    sites.sort(key=lambda s: (order.get(s.verdict, 1), s.edge.file, s.edge.line))
    counts = {"will_break": 0, "not_checked": 0, "fine": 0}
    for site in sites:
        counts[{"will break": "will_break", "fine": "fine"}.get(site.verdict, "not_checked")] += 1
    head = {
        "symbol": symbol.id,
        "old_signature": symbol.signature,
        "new_signature": signature,
        "verdict": change.signature_verdict or "unchanged",
        "call_sites_checked": counts,
    }
    return Answer(head, {"call_sites": [site_json(s) for s in sites]})


def _one_callable(store: Store, name: str) -> Symbol:
    symbols = named(store, name)
    callables = [s for s in symbols if s.kind in CALLABLE_KINDS]
    if not callables:
        kinds = ", ".join(sorted({s.kind for s in symbols}))
        raise CartogError(
            f"{name!r} names a {kinds}, not a function or method: pass the function (a class's constructor: Class.__init__)"
        )
    if len(callables) > 1:
        shown = ", ".join(s.id for s in callables[:5])
        raise CartogError(f"{name!r} names {len(callables)} functions ({shown}): pass one symbol ID")
    return callables[0]


TOOLS: dict[str, Tool] = {
    t.name: t
    for t in (
        Tool(
            "search",
            "Find code when you do not know where it is: by name, error string or what it does "
            "(keyword + semantic + structural search fused by the question's intent, shown in the answer).",
            {
                "query": {"type": "string", "maxLength": MAX_QUERY, "description": "a name, an error string or a question"},
                "kind": {"type": "string", "maxLength": MAX_KIND, "description": "only symbols of this kind (function, class, method...)"},
                "intent": {
                    "type": "string",
                    "enum": list(INTENTS),
                    "description": "skip the intent classifier: answer as this kind of question",
                },
            },
            ("query",),
            _search,
            {"query": STRING, "intent": STRING, "fusion_strategy": STRING, "modalities_run": STRINGS, "hits": OBJECTS},
        ),
        Tool(
            "refs",
            "Who uses a symbol (calls, imports, inheritance, type uses, raises), with file and line: "
            "use before renaming, deleting or changing it.",
            {"name": NAME, "kind": {"type": "string", "enum": list(EDGE_KINDS), "description": "only this kind of reference"}},
            ("name",),
            _refs,
            {"symbols": STRINGS, "refs": OBJECTS},
        ),
        Tool(
            "callees",
            "What a function or method calls (the resolved symbol, or the name when it is outside the project): "
            "use to see what it depends on.",
            {"name": NAME},
            ("name",),
            _callees,
            {"symbols": STRINGS, "callees": OBJECTS},
        ),
        Tool(
            "impact",
            "What a change to a symbol can reach: its callers and theirs up to depth, each once, with the path "
            "that reaches it: use before changing what a function does.",
            {"name": NAME, "depth": DEPTH},
            ("name",),
            _impact,
            {"symbols": STRINGS, "depth": {"type": "integer"}, "impacted": OBJECTS},
        ),
        Tool(
            "outline",
            "The symbols of one file (kind, name, signature, lines, parent): use instead of reading the whole file.",
            {"file": FILE},
            ("file",),
            _outline,
            {"file": STRING, "symbols": OBJECTS},
        ),
        Tool(
            "hierarchy",
            "Bases and subclasses of a class, interface, trait or struct, transitively: use before changing a base class.",
            {"name": NAME},
            ("name",),
            _hierarchy,
            {"symbols": STRINGS, "bases": OBJECTS, "unresolved_bases": OBJECTS, "subclasses": OBJECTS},
        ),
        Tool(
            "deps",
            "What a file imports (and what each import resolves to) and which files import it.",
            {"file": FILE},
            ("file",),
            _deps,
            {"file": STRING, "imports": OBJECTS, "imported_by": STRINGS},
        ),
        Tool(
            "stats",
            "What the index holds (files, symbols, edges, how many resolved, per language): "
            "use to judge how complete the other answers are.",
            {},
            (),
            _stats,
            {
                "files": {"type": "integer"},
                "symbols": {"type": "integer"},
                "languages": {"type": "object"},
                "server": {"type": "object"},
                "skipped": OBJECTS,
            },
        ),
        Tool(
            "report",
            "The impact report of a change (the working tree, the staged change, or commits against a base): "
            "what will break, changed symbols, callers, tests to run, risk; the same answer as the PR comment.",
            {
                "change": {
                    "type": "string",
                    "enum": ["working_tree", "staged", "head"],
                    "description": "working_tree (default): everything uncommitted; staged: what a commit would record; "
                    "head: the commits of head (default HEAD) since its merge-base with base",
                },
                "base": {"type": "string", "minLength": 1, "maxLength": MAX_REF, "description": "base branch or commit (default: HEAD for "
                         "uncommitted changes, else the remote's default branch, else main/master)"},
                "head": {"type": "string", "minLength": 1, "maxLength": MAX_REF, "description": "head commit, with change=head (default HEAD)"},
                "depth": DEPTH,
                "related": {"type": "boolean", "description": "add semantically related code (needs embeddings; slower)"},
            },
            (),
            _report,
            {
                "schema": {"type": "integer"},
                "risk": {"type": "object"},
                "will_break": OBJECTS,
                "broken_references": OBJECTS,
                "changed": OBJECTS,
                "tests": OBJECTS,
                "test_commands": STRINGS,
                "files": STRINGS,
            },
            {"summary": STRING},  # on the first page
        ),
        Tool(
            "check_signature_change",
            "Before changing a function's parameters: which of its call sites would break with the proposed "
            "signature (each call's arguments bound against it), without editing anything.",
            {
                "name": NAME,
                "new_signature": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_SIGNATURE,
                    "description": "the whole new signature as written in the code: def save(self, force=False)",
                },
            },
            ("name", "new_signature"),
            _check_signature_change,
            {
                "symbol": STRING,
                "old_signature": STRING,
                "new_signature": STRING,
                "verdict": STRING,
                "call_sites_checked": {"type": "object"},
                "call_sites": OBJECTS,
            },
        ),
    )
}
