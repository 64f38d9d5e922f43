"""`cartog-ci mcp`: the real server as a subprocess, the SDK's own stdio
client, a real git repository (tests/resources/pyproj) and its real index."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.testing.fixtures import commit, make_repo
from tests.testing.mcp_client import Client, talk

TOOLS = [
    "search",
    "refs",
    "callees",
    "impact",
    "outline",
    "hierarchy",
    "deps",
    "stats",
    "report",
    "check_signature_change",
]


def page(returned: int, totals: dict[str, int]) -> dict[str, object]:
    """The page of a whole answer: nothing left out."""
    return {
        "offset": 0,
        "returned": returned,
        "total": sum(totals.values()),
        "totals": totals,
        "truncated": False,
        "next_cursor": None,
        "left_out": None,
    }


def edge(source: str, target: str | None, name: str, kind: str, file: str, line: int, resolution: str) -> dict[str, object]:
    return {
        "source_id": source,
        "target_id": target,
        "target_name": name,
        "kind": kind,
        "file": file,
        "line": line,
        "resolution": resolution,
    }


CHECKOUT = "shop/models/order.py:method:Order.checkout"
SLUGIFY = "shop/util/text.py:function:slugify"


def assert_schemas(listed: dict[str, Any]) -> None:
    """Every tool, a one-line description, schemas that bound the answer."""
    assert list(listed) == TOOLS
    for tool in listed.values():
        assert tool.description and "\n" not in tool.description and len(tool.description) < 220
        schema = tool.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert schema["properties"]["limit"] == {
            "type": "integer",
            "minimum": 1,
            "maximum": 200,
            "description": "most items in one answer (default 50)",
        }
        assert {"cursor", "max_tokens"} <= set(schema["properties"])
        assert tool.output_schema["required"][-1] == "page"
        assert tool.annotations.read_only_hint is True
    required = {name: tool.input_schema["required"] for name, tool in listed.items()}
    assert required == {
        "search": ["query"],
        "refs": ["name"],
        "callees": ["name"],
        "impact": ["name"],
        "outline": ["file"],
        "hierarchy": ["name"],
        "deps": ["file"],
        "stats": [],
        "report": [],
        "check_signature_change": ["name", "new_signature"],
    }


def test_every_tool_answers_on_a_real_repository(tmp_path: Path) -> None:
    """The tools and their schemas; the first call builds the index; every answer is exact."""
    repo = make_repo(tmp_path, "pyproj")
    got: dict[str, dict[str, Any]] = {}
    listed: dict[str, Any] = {}

    async def scenario(client: Client) -> None:
        listed.update({t.name: t for t in (await client.session.list_tools()).tools})
        got["refs"] = await client.ok("refs", name="Order.checkout")
        got["callees"] = await client.ok("callees", name="checkout")
        got["impact"] = await client.ok("impact", name="slugify", depth=2)
        got["outline"] = await client.ok("outline", file="shop/util/text.py")
        got["hierarchy"] = await client.ok("hierarchy", name="Order")
        got["deps"] = await client.ok("deps", file="./shop/util/text.py")
        got["stats"] = await client.ok("stats")
        got["search"] = await client.ok("search", query="normalize", limit=2)
        got["breaking"] = await client.ok(
            "check_signature_change", name="slugify", new_signature="def slugify(value: str, sep: str) -> str"
        )
        got["compatible"] = await client.ok(
            "check_signature_change", name="slugify", new_signature="def slugify(value: str, sep: str = '-') -> str"
        )

    talk(repo, scenario)
    assert_schemas(listed)
    assert got["refs"] == {
        "symbols": [CHECKOUT],
        "refs": [
            edge("shop/cli.py:function:main", CHECKOUT, "checkout", "calls", "shop/cli.py", 10, "import"),
            edge("tests/test_order.py:function:test_checkout", CHECKOUT, "checkout", "calls", "tests/test_order.py", 7, "import"),
        ],
        "page": page(2, {"refs": 2}),
    }
    assert got["callees"] == {
        "symbols": [CHECKOUT],
        "callees": [
            edge(CHECKOUT, "shop/models/base.py:method:Model.save", "save", "calls", "shop/models/order.py", 25, "parent_scope"),
            edge(CHECKOUT, SLUGIFY, "slugify", "calls", "shop/models/order.py", 26, "import"),
            edge(CHECKOUT, "shop/models/order.py:method:Order.reference", "reference", "calls", "shop/models/order.py", 26, "parent_scope"),
        ],
        "page": page(3, {"callees": 3}),
    }
    impact = got["impact"]
    assert {k: v for k, v in impact.items() if k != "impacted"} == {
        "symbols": [SLUGIFY],
        "depth": 2,
        "page": page(4, {"impacted": 4}),
    }
    assert [(n["id"], n["depth"], n["path"], n["via"]) for n in impact["impacted"]] == [
        ("shop/cli.py:function:main", 1, [SLUGIFY, "shop/cli.py:function:main"], "calls"),
        (CHECKOUT, 1, [SLUGIFY, CHECKOUT], "calls"),
        ("shop/cli.py:module:shop.cli", 2, [SLUGIFY, "shop/cli.py:function:main", "shop/cli.py:module:shop.cli"], "calls"),
        ("tests/test_order.py:function:test_checkout", 2, [SLUGIFY, CHECKOUT, "tests/test_order.py:function:test_checkout"], "calls"),
    ]
    assert impact["impacted"][0] == {
        "id": "shop/cli.py:function:main",
        "name": "main",
        "qualified_name": "main",
        "kind": "function",
        "file": "shop/cli.py",
        "start_line": 6,
        "end_line": 10,
        "parent_id": "shop/cli.py:module:shop.cli",
        "signature": "def main(argv=None)",
        "depth": 1,
        "path": [SLUGIFY, "shop/cli.py:function:main"],
        "via": "calls",
    }
    outline = got["outline"]
    assert outline["file"] == "shop/util/text.py" and outline["page"] == page(3, {"symbols": 3})
    assert [(s["kind"], s["qualified_name"], s["start_line"], s["end_line"], s["signature"], s["parent_id"]) for s in outline["symbols"]] == [
        ("module", "shop.util.text", 1, 10, "", None),
        ("function", "slugify", 4, 5, "def slugify(value: str) -> str", "shop/util/text.py:module:shop.util.text"),
        ("function", "normalize", 8, 9, "def normalize(value)", "shop/util/text.py:module:shop.util.text"),
    ]
    assert got["hierarchy"] == {
        "symbols": ["shop/models/order.py:class:Order"],
        "bases": [{"of": "shop/models/order.py:class:Order", "id": "shop/models/base.py:class:Model", "depth": 1}],
        "unresolved_bases": [],
        "subclasses": [],
        "page": page(1, {"bases": 1, "unresolved_bases": 0, "subclasses": 0}),
    }
    assert got["deps"] == {
        "file": "shop/util/text.py",
        "imports": [edge("shop/util/text.py:module:shop.util.text", None, "re", "imports", "shop/util/text.py", 1, "external")],
        "imported_by": ["shop/__init__.py", "shop/cli.py", "shop/models/order.py"],
        "page": page(4, {"imports": 1, "imported_by": 3}),
    }
    stats = got["stats"]
    assert {k: stats[k] for k in ("files", "symbols", "edges", "resolved_edges", "external_edges", "resolved_pct")} == {
        "files": 9,
        "symbols": 26,
        "edges": 48,
        "resolved_edges": 31,
        "external_edges": 13,
        "resolved_pct": 88.6,
    }
    assert stats["symbol_kinds"] == {"module": 9, "method": 7, "function": 6, "class": 3, "constant": 1}
    assert list(stats["languages"]) == ["python"] and stats["skipped"] == []
    assert stats["page"] == page(0, {"skipped": 0})
    search = got["search"]
    assert {k: search[k] for k in ("query", "intent", "fusion_strategy", "modalities_run", "notes")} == {
        "query": "normalize",
        "intent": "understand_code",
        "fusion_strategy": "weighted_rrf",
        "modalities_run": ["semantic", "keyword", "text", "structural"],
        "notes": ["no vectors in the index: run `cartog-ci index` with embeddings"],
    }
    assert [(h["id"], h["score"], list(h["sources"])) for h in search["hits"]] == [
        ("shop/util/other.py:function:normalize", 0.017015, ["keyword", "text", "structural"]),
        ("shop/util/text.py:function:normalize", 0.016725, ["keyword", "text", "structural"]),
    ]
    assert search["page"] == page(2, {"hits": 2})
    site = {"source_id": "", "name": "", "target": SLUGIFY}
    assert got["breaking"] == {
        "symbol": SLUGIFY,
        "old_signature": "def slugify(value: str) -> str",
        "new_signature": "def slugify(value: str, sep: str) -> str",
        "verdict": "breaking",
        "call_sites_checked": {"will_break": 2, "not_checked": 0, "fine": 0},
        "call_sites": [
            {"file": "shop/cli.py", "line": 9} | site | {"source_id": "shop/cli.py:function:main", "name": "make_slug",
             "verdict": "will break", "reason": "missing required argument sep", "tier": "import"},
            {"file": "shop/models/order.py", "line": 26} | site | {"source_id": CHECKOUT, "name": "slugify",
             "verdict": "will break", "reason": "missing required argument sep", "tier": "import"},
        ],
        "page": page(2, {"call_sites": 2}),
    }  # fmt: skip
    compatible = got["compatible"]
    assert (compatible["verdict"], compatible["call_sites_checked"]) == (
        "compatible",
        {"will_break": 0, "not_checked": 0, "fine": 2},
    )
    assert [(s["file"], s["line"], s["verdict"], s["reason"]) for s in compatible["call_sites"]] == [
        ("shop/cli.py", 9, "fine", None),
        ("shop/models/order.py", 26, "fine", None),
    ]


def test_a_call_after_an_edit_sees_the_edit(tmp_path: Path) -> None:
    """No index rebuild, no restart: each call brings the index up to date."""
    repo = make_repo(tmp_path, "pyproj")
    text = repo / "shop/util/text.py"
    got: dict[str, Any] = {}

    async def scenario(client: Client) -> None:
        got["before"] = await client.ok("refs", name="normalize", kind="calls")
        text.write_text(text.read_text() + "\n\ndef shout(value):\n    return normalize(value).upper()\n")
        got["after"] = await client.ok("refs", name="shop/util/text.py:function:normalize", kind="calls")
        got["outline"] = await client.ok("outline", file="shop/util/text.py")
        got["report"] = await client.ok("report")  # the working tree against HEAD
        commit(repo, "shout")
        got["committed"] = await client.ok("report")

    talk(repo, scenario)
    sources = {(e["source_id"], e["line"]) for e in got["before"]["refs"]}
    assert sources == {("shop/util/text.py:function:slugify", 5), ("shop/cli.py:function:main", 10)}
    assert [(e["source_id"], e["line"]) for e in got["after"]["refs"]] == [
        ("shop/cli.py:function:main", 10),
        ("shop/util/text.py:function:slugify", 5),
        ("shop/util/text.py:function:shout", 13),
    ]
    assert [s["name"] for s in got["outline"]["symbols"]] == ["text", "slugify", "normalize", "shout"]
    report = got["report"]
    assert report["files"] == ["shop/util/text.py"]
    assert [(c["category"], c["symbol"]["id"]) for c in report["changed"]] == [
        ("added", "shop/util/text.py:function:shout"),
        ("children_changed", "shop/util/text.py:module:shop.util.text"),
    ]
    assert report["risk"]["level"] == "low" and report["will_break"] == []
    assert report["summary"].startswith("## cartog-ci impact report\n\n**Risk: LOW**")
    assert got["committed"]["files"] == [] and got["committed"]["changed"] == []


def test_report_of_a_breaking_edit_and_its_summary(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    order = repo / "shop/models/order.py"
    old, new = "def __init__(self, sku: str, price: float) -> None", "def __init__(self, sku: str, price: float, qty: int) -> None"
    order.write_text(order.read_text().replace(old, new))
    got: dict[str, Any] = {}

    async def scenario(client: Client) -> None:
        got["report"] = await client.ok("report", change="working_tree")
        got["staged"] = await client.ok("report", change="staged")
        first = await client.ok("report", limit=3)
        got["second"] = await client.ok("report", limit=3, cursor=first["page"]["next_cursor"])

    talk(repo, scenario)
    report = got["report"]
    init = "shop/models/order.py:method:LineItem.__init__"
    site = {"target": init, "verdict": "will break", "reason": "missing required argument qty", "tier": "import"}
    assert report["will_break"] == [
        {"file": "shop/cli.py", "line": 8, "source_id": "shop/cli.py:function:main", "name": "Item"} | site,
        {"file": "tests/test_order.py", "line": 6, "source_id": "tests/test_order.py:function:test_checkout", "name": "LineItem"} | site,
    ]
    assert report["risk"] == {
        "level": "high",
        "reasons": ["2 call site(s) of LineItem.__init__ no longer fit its new signature (shop/cli.py:8: missing required argument qty)"],
    }
    assert (report["schema"], report["base"]["ref"], report["head"]) == (
        2,
        "HEAD",
        {"kind": "worktree", "commit": None, "label": "working tree"},
    )
    assert [(c["category"], c["symbol"]["id"], c["signature_verdict"], c["callers_total"]) for c in report["changed"]] == [
        ("modified", init, "breaking", 3),
        ("children_changed", "shop/models/order.py:module:shop.models.order", None, 0),
        ("children_changed", "shop/models/order.py:class:LineItem", None, 0),
    ]
    assert [t["id"] for t in report["tests"]] == ["tests/test_order.py:function:test_checkout"]
    assert report["test_commands"] == ["pytest tests/test_order.py::test_checkout"]  # paged too
    assert report["page"] == page(8, {"will_break": 2, "broken_references": 0, "changed": 3, "tests": 1, "test_commands": 1, "files": 1})
    summary = report["summary"]
    assert "**Risk: HIGH**" in summary and "### Will break (2)" in summary
    assert "| `shop/cli.py:8` | `main` | `LineItem.__init__` | missing required argument `qty` |" in summary
    assert "pytest tests/test_order.py::test_checkout" in summary
    assert "### Callers" not in summary and "```mermaid" not in summary  # the short form
    assert got["staged"]["files"] == [] and got["staged"]["head"]["kind"] == "staged"
    second = got["second"]  # the summary is on the first page only
    assert "summary" not in second and second["risk"] == report["risk"]
    assert (second["will_break"], second["changed"], second["tests"]) == ([], report["changed"][1:], report["tests"])
    assert second["page"]["offset"] == 3 and second["page"]["returned"] == 3
