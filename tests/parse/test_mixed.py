"""One repository, three languages (Python, TypeScript, Go) and files no
language claims (pyproject.toml, a shell script, go.mod), indexed in one
run: `stats --json` breaks everything down by language, exactly, and counts
the unsupported files by extension without an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.testing.fixtures import cli_json, exported, make_repo, run_cli

# files, lines, symbols (a module per file included), edges, resolved, and
# resolved % of the edges that do not point outside the project
LANGUAGES = {
    "python": {"files": 3, "lines": 30, "symbols": 12, "edges": 9, "resolved": 6, "resolved_pct": 85.7},
    "typescript": {"files": 2, "lines": 23, "symbols": 7, "edges": 11, "resolved": 6, "resolved_pct": 75.0},
    "go": {"files": 2, "lines": 38, "symbols": 6, "edges": 16, "resolved": 5, "resolved_pct": 100.0},
}
# each language's edges by tier: its share of the project edges (external: of all)
TIERS = {
    "python": {"import": (5, 71.4), "same_file": (1, 14.3), "unresolved": (1, 14.3), "external": (2, 22.2)},
    "typescript": {
        "import": (4, 50.0),
        "unresolved": (2, 25.0),
        "parent_scope": (1, 12.5),
        "same_file": (1, 12.5),
        "external": (3, 27.3),
    },
    "go": {"import": (3, 60.0), "same_file": (2, 40.0), "external": (11, 68.8)},
}
# Edges that cross a file inside each language, with the tier that found them.
CROSS_FILE = {
    ("shop/cart.py:method:Cart.total", "shop/pricing.py:class:Discount", "import"),
    ("shop/cart.py:method:Cart.total", "shop/pricing.py:function:with_tax", "import"),
    ("shop/cart.py:method:Cart.total", "shop/pricing.py:method:Discount.apply", "import"),
    ("shop/cart.py:module:shop.cart", "shop/pricing.py:class:Discount", "import"),
    ("shop/cart.py:module:shop.cart", "shop/pricing.py:function:with_tax", "import"),
    ("web/src/cart.ts:class:CartView", "web/src/api.ts:interface:Item", "import"),
    ("web/src/cart.ts:method:CartView.load", "web/src/api.ts:function:fetchItems", "import"),
    ("web/src/cart.ts:module:web.src.cart", "web/src/api.ts:function:fetchItems", "import"),
    ("web/src/cart.ts:module:web.src.cart", "web/src/api.ts:interface:Item", "import"),
    ("backend/cmd/server/main.go:function:main", "backend/store/store.go:function:New", "import"),
    ("backend/cmd/server/main.go:function:main", "backend/store/store.go:method:Store.Price", "import"),
    ("backend/cmd/server/main.go:module:backend.cmd.server.main", "backend/store/store.go:module:backend.store.store", "import"),
}


@pytest.fixture
def mixed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    repo = make_repo(tmp_path, "mixedproj")
    code, _, err = run_cli(capsys, "index", "--repo", str(repo), "--no-embed")
    assert code == 0, err
    return repo


def test_stats_by_language_exact(mixed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stats = cli_json(capsys, "stats", "--repo", str(mixed))
    assert isinstance(stats, dict)
    languages = stats["languages"]
    assert isinstance(languages, dict)
    tiers = {lang: entry.pop("tiers") for lang, entry in languages.items()}
    assert languages == LANGUAGES
    assert tiers == {
        lang: {tier: {"edges": n, "pct": pct} for tier, (n, pct) in by_tier.items()} for lang, by_tier in TIERS.items()
    }
    assert (stats["files"], stats["symbols"], stats["edges"]) == (7, 25, 36)
    assert (stats["resolved_edges"], stats["external_edges"], stats["resolved_pct"]) == (17, 16, 85.0)
    assert stats["unsupported"] == {".toml": 1, ".sh": 1, ".mod": 1}
    assert stats["skipped"] == []


def test_unsupported_files_are_listed_not_errors(mixed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "stats", "--repo", str(mixed))
    assert code == 0, err
    assert "unsupported files: .mod 1, .sh 1, .toml 1" in out.splitlines()
    for lang in LANGUAGES:
        assert any(line.split()[0] == lang for line in out.splitlines() if line.startswith("  "))
    assert "  by tier: import 3 (60.0%), same_file 2 (40.0%), external 11 (68.8% of all)" in out


def test_languages_resolve_within_themselves(mixed: Path) -> None:
    graph = exported(mixed)
    cross = {
        (e["source_id"], e["target_id"], e["resolution"])
        for e in graph["edges"]
        if e["target_id"] and e["source_id"].split(":")[0] != e["target_id"].split(":")[0]
    }
    assert cross == CROSS_FILE
    # names shared across languages (`Cart`/`CartView`, `total`, `New`) never
    # resolve into another language
    language_of = {s["file"]: s["file"].rsplit(".", 1)[-1] for s in graph["symbols"]}
    for e in graph["edges"]:
        if e["target_id"]:
            assert language_of[e["file"]] == language_of[e["target_id"].split(":")[0]]
