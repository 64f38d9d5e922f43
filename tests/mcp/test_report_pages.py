"""A report's pages come from one computation (docs/mcp.md, "Limits"):
kept per question and per state of the index and the work tree, computed
again when either changes, and bounded. The server's own count (the
``server`` field of ``stats``) says how many reports it computed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.testing.fixtures import commit, git, make_repo, write
from tests.testing.mcp_client import Client, talk

LISTS = ("will_break", "broken_references", "changed", "tests", "test_commands", "files")


def three_commits(tmp_path: Path) -> Path:
    """pyproj with a branch of three commits: signatures changed, functions added."""
    repo = make_repo(tmp_path, "pyproj")
    git(repo, "branch", "-M", "main")
    git(repo, "checkout", "-q", "-b", "topic")
    order = repo / "shop/models/order.py"
    order.write_text(order.read_text().replace("price: float) -> None", "price: float, qty: int) -> None"))
    commit(repo, "a quantity")
    text = repo / "shop/util/text.py"
    text.write_text(text.read_text().replace("def normalize(value)", "def normalize(value, strip=True)"))
    write(repo, {"shop/util/more.py": "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n" for i in range(12))})
    commit(repo, "helpers")
    write(repo, {"README.md": "shop\n", "shop/util/other.py": "def normalize(value):\n    return value\n\n\ndef twice(v):\n    return v * 2\n"})
    commit(repo, "docs")
    return repo


def items(page: dict[str, Any]) -> list[tuple[str, object]]:
    return [(name, item) for name in LISTS for item in page[name]]


def callers(report: dict[str, Any], name: str) -> int:
    [total] = [c["callers_total"] for c in report["changed"] if c["symbol"]["name"] == name]
    return total  # type: ignore[no-any-return]


def test_paging_a_whole_report_costs_one_computation(tmp_path: Path) -> None:
    repo = three_commits(tmp_path)
    head = {"change": "head", "base": "main"}
    got: dict[str, Any] = {"pages": []}

    async def scenario(client: Client) -> None:
        cursor = None
        while len(got["pages"]) < 200:  # bounded: the report has fewer items
            page = await client.ok("report", **head, limit=1, **({"cursor": cursor} if cursor else {}))
            got["pages"].append(page)
            cursor = page["page"]["next_cursor"]
            if cursor is None:
                break
        got["paged"] = (await client.ok("stats"))["server"]
        got["whole"] = await client.ok("report", **head, limit=200, max_tokens=16_000)
        got["whole_stats"] = (await client.ok("stats"))["server"]
        # nine other questions: at most eight reports are kept
        for depth in range(1, 10):
            await client.ok("report", **head, depth=depth, limit=1)
        got["many"] = (await client.ok("stats"))["server"]
        # the work tree changes what the report reads: a new caller (the
        # index changes: every kept report goes) ...
        write(repo, {"shop/extra.py": "from shop.util.text import normalize\n\n\ndef extra():\n    return normalize(' x ')\n"})
        got["edited"] = await client.ok("report", **head, limit=200, max_tokens=16_000)
        got["edited_stats"] = (await client.ok("stats"))["server"]
        # ... uncommitted edits, then staged ones (the index as it was)
        (repo / "shop/util/more.py").write_text("def helper_0(x):\n    return x\n")
        got["uncommitted"] = await client.ok("report", limit=200, max_tokens=16_000)
        got["staged"] = await client.ok("report", change="staged", limit=200, max_tokens=16_000)
        git(repo, "add", "shop/util/more.py")
        got["staged_after"] = await client.ok("report", change="staged", limit=200, max_tokens=16_000)
        got["staged_again"] = await client.ok("report", change="staged", limit=200, max_tokens=16_000)
        got["last"] = (await client.ok("stats"))["server"]

    talk(repo, scenario)
    pages = got["pages"]
    whole = got["whole"]
    assert len(pages) == whole["page"]["total"] > 20
    assert [item for page in pages for item in items(page)] == items(whole)  # in order, none twice, none missing
    assert pages[0]["summary"] == whole["summary"] and all("summary" not in page for page in pages[1:])
    assert got["paged"] == {
        "reports_computed": 1,
        "report_pages_from_cache": len(pages) - 1,
        "reports_kept": 1,
        "reports_kept_chars": got["paged"]["reports_kept_chars"],
    }
    assert got["paged"]["reports_kept_chars"] > 1_000
    assert got["whole_stats"]["reports_computed"] == 1  # another page size: the same report
    assert got["whole_stats"]["report_pages_from_cache"] == len(pages)
    assert got["many"]["reports_computed"] == 1 + 9 and got["many"]["reports_kept"] == 8
    # a new caller: computed again, and it shows
    assert got["edited_stats"]["reports_computed"] == 11 and got["edited_stats"]["reports_kept"] == 1
    assert callers(got["edited"], "normalize") == callers(whole, "normalize") + 1
    # the same index, other staged blobs: computed again
    assert got["uncommitted"]["files"] == ["shop/extra.py", "shop/util/more.py"] and got["staged"]["files"] == []
    assert got["staged_after"]["files"] == ["shop/util/more.py"] and got["staged_again"] == got["staged_after"]
    assert got["last"]["reports_computed"] == 14 and got["last"]["reports_kept"] == 2
    assert got["last"]["report_pages_from_cache"] == len(pages) + 1
