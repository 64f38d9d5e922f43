"""The MCP server (`cartog-ci mcp`, docs/mcp.md): latency per tool on a
scrapy-size repository, warm, and the size of its answers in tokens.

1. Latency: Scrapy 2.11.0 (the sdist as a git repository, corpora.py) is
   cloned into a temporary directory and indexed (untimed, no embeddings);
   the server is started with the SDK's stdio client, as an agent would, and
   each tool is called once untimed, then ``--runs`` times. A call's time is
   the client's: request, the incremental refresh (nothing changed, so the
   no-change path), the query and the bounded JSON; the server's CPU time
   (``/proc``: its process and the git processes it ran) is steadier on a
   shared machine. ``report`` reports an
   uncommitted edit: ``Request.__init__`` gains a required parameter.
2. Output size: Scrapy 2.11.0 -> 2.11.2 replayed as 10 commits
   (report.py's history), the server asked for ``report`` of
   ``main..upgrade`` and ``impact`` of the changed symbol with the most
   callers; tokens of the first answer (the default 4,000 budget), pages
   and tokens of all pages, against the CLI's whole JSON (``report --json``,
   ``impact --json``). Tokens are counted with the packaged tokenizer
   (``embed/onnx.py`` ``counting_tokenizer``), as the server counts them.

    .venv/bin/python benchmarks/mcp.py [--runs 5]
    .venv/bin/python benchmarks/mcp.py --pages 3   # 3. only
    .venv/bin/python benchmarks/mcp.py --big-question   # 4. only

3. Paging: the report of the first N commits of that history (checked
   out), read page by page; how long each page takes and how many reports
   the server computed for them (``stats``' ``server`` counts).
4. A 10 MB ``search`` question: how long its answer takes, the server's
   peak memory, the next call's time.

No thresholds: the tables are for reading, not for failing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# This file is named mcp.py: its own directory must not hide the SDK's `mcp`.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import anyio  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

sys.path.insert(0, str(HERE))
import corpora  # noqa: E402
from compare import PYTHON  # noqa: E402
from measure import cli_env, load_average, median, table, tool_note  # noqa: E402
from report import PAIRS, build_history  # noqa: E402

from cartog_ci.embed.onnx import counting_tokenizer  # noqa: E402

REQUEST = "scrapy/http/request/__init__.py"
OLD_INIT = "        url: str,\n        callback: Optional[Callable] = None,"
NEW_INIT = "        url: str,\n        priority_hint: int,\n        callback: Optional[Callable] = None,"
# (tool, arguments): what an agent editing Scrapy's Request would ask
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search", {"query": "how are requests scheduled and deduplicated"}),
    ("search", {"query": "Request"}),
    ("refs", {"name": "Request"}),
    ("callees", {"name": "Scraper.call_spider"}),
    ("impact", {"name": "Request.__init__", "depth": 3}),
    ("outline", {"file": REQUEST}),
    ("hierarchy", {"name": "Spider"}),
    ("deps", {"file": REQUEST}),
    ("stats", {}),
    # on top of the edit: a second required parameter (every call site is read)
    ("check_signature_change", {"name": "Request.__init__", "new_signature": "def __init__(self, url: str, priority_hint: int, urgency: int, callback=None, method='GET', headers=None, body=None, cookies=None, meta=None, encoding='utf-8', priority=0, dont_filter=False, errback=None, flags=None, cb_kwargs=None)"}),  # noqa: E501
    ("report", {}),
]

Scenario = Callable[[ClientSession], Awaitable[None]]


def tokens(text: str) -> int:
    return len(_TOKENIZER.encode(text, add_special_tokens=False).ids)


_TOKENIZER = counting_tokenizer()


def serve(repo: Path, scenario: Scenario) -> None:
    params = StdioServerParameters(
        command=PYTHON, args=["-m", "cartog_ci.cli", "mcp", "--repo", str(repo)], env=cli_env(), cwd=str(repo)
    )

    async def main() -> None:
        with open(os.devnull, "w") as quiet:
            async with stdio_client(params, errlog=quiet) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await scenario(session)

    anyio.run(main)


def cli(repo: Path, *args: str) -> str:
    done = subprocess.run(
        [PYTHON, "-m", "cartog_ci.cli", *args, "--repo", str(repo)], env=cli_env(), capture_output=True, text=True
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"cartog-ci {' '.join(args)} failed ({done.returncode}): {done.stderr}")
    return done.stdout


def text_of(result: Any) -> str:
    return str(result.content[0].text)


def server_cpu() -> float:
    """CPU seconds (user + system) of the server this process started and
    of the git processes it ran: a figure the other work on a shared machine
    inflates less than wall time."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and b"cartog_ci.cli\0mcp" in cmdline:
            total += sum(int(f) for f in fields[11:15]) / ticks  # its own and its git children's
    return total


# -- 1. latency --------------------------------------------------------------------------


def latency(runs: int) -> list[list[str]]:
    corpus = corpora.ensure(corpora.get("scrapy"))
    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="cartog-mcp-bench-") as tmp:
        repo = Path(tmp) / "scrapy"
        corpora.git(Path(tmp), "clone", "-q", str(corpus), str(repo))
        cli(repo, "index", "--no-embed")  # untimed
        source = (repo / REQUEST).read_text()
        if OLD_INIT not in source:
            raise SystemExit(f"{REQUEST} no longer has the parameters this benchmark edits")
        (repo / REQUEST).write_text(source.replace(OLD_INIT, NEW_INIT))
        cli(repo, "index", "--no-embed")  # the edit indexed: every timed call takes the no-change path

        async def scenario(session: ClientSession) -> None:
            for name, arguments in CALLS:
                first = await session.call_tool(name, arguments)  # untimed: imports, caches
                if first.is_error:
                    raise SystemExit(f"{name} {arguments}: {text_of(first)}")
                times, cpu = [], []
                for _ in range(runs):
                    start, start_cpu = time.perf_counter(), server_cpu()
                    result = await session.call_tool(name, arguments)
                    times.append(time.perf_counter() - start)
                    cpu.append(server_cpu() - start_cpu)
                page = (result.structured_content or {})["page"]
                rows.append(
                    [
                        name,
                        _short(arguments),
                        f"{median(times) * 1000:.0f}",
                        f"{max(times) * 1000:.0f}",
                        f"{median(cpu) * 1000:.0f}",
                        f"{tokens(text_of(result)):,}",
                        f"{page['returned']}/{page['total']}",
                    ]
                )

        serve(repo, scenario)
    return rows


def _short(arguments: dict[str, Any]) -> str:
    text = ", ".join(f"{k}={v}" for k, v in arguments.items())
    return text if len(text) <= 44 else text[:43] + "…"


# -- 2. output size on a real 10-commit range ------------------------------------------------


def sizes() -> tuple[list[list[str]], str]:
    repo = build_history(PAIRS["scrapy"])
    whole_report = cli(repo, "report", "--base", "main", "--json", "--no-related")
    changed = json.loads(whole_report)["changed"]
    top = max(changed, key=lambda c: (c["callers_total"], c["symbol"]["id"] if c["symbol"] else ""))
    symbol = top["symbol"]["id"]
    whole_impact = cli(repo, "impact", symbol, "--json")
    whole_markdown = cli(repo, "report", "--base", "main", "--format", "markdown", "--no-related")
    found: dict[str, tuple[int, int, int]] = {}

    async def scenario(session: ClientSession) -> None:
        for label, name, arguments in (
            ("report", "report", {"change": "head", "base": "main"}),
            ("impact", "impact", {"name": symbol}),
        ):
            first_tokens, pages, total, cursor = 0, 0, 0, None
            while pages < 500:  # bounded
                result = await session.call_tool(name, arguments | ({"cursor": cursor} if cursor else {}))
                if result.is_error:
                    raise SystemExit(f"{name}: {text_of(result)}")
                count = tokens(text_of(result))
                first_tokens = first_tokens or count
                pages += 1
                total += count
                cursor = (result.structured_content or {})["page"]["next_cursor"]
                if cursor is None:
                    break
            found[label] = (first_tokens, pages, total)

    serve(repo, scenario)
    rows = [
        ["report main..upgrade", *_sized(found["report"]), f"{tokens(whole_report):,}", f"{tokens(whole_markdown):,}"],
        [f"impact {top['symbol']['qualified_name']}", *_sized(found["impact"]), f"{tokens(whole_impact):,}", "-"],
    ]
    return rows, symbol


# -- 3. reading a whole report page by page ---------------------------------------------------


def report_pages(commits: int) -> list[list[str]]:
    """The report of the first ``commits`` commits of the 10-commit history
    (checked out, as a report of commits needs), read page by page at the
    default budget: the time of the first page, of the others, and how many
    reports the server computed (its ``stats``; a server without the
    count computes one a page)."""
    history = build_history(PAIRS["scrapy"])
    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="cartog-mcp-pages-") as tmp:
        repo = Path(tmp) / "scrapy"
        corpora.git(Path(tmp), "clone", "-q", "--branch", "main", str(history), str(repo))
        corpora.git(repo, "checkout", "-q", "-b", "pages", f"origin/upgrade~{10 - commits}")
        cli(repo, "index", "--no-embed")  # untimed
        times: list[float] = []
        cpu: list[float] = []
        server: dict[str, Any] = {}

        async def scenario(session: ClientSession) -> None:
            cursor = None
            while len(times) < 500:  # bounded
                start, start_cpu = time.perf_counter(), server_cpu()
                arguments = {"change": "head", "base": "main"} | ({"cursor": cursor} if cursor else {})
                result = await session.call_tool("report", arguments)
                times.append(time.perf_counter() - start)
                cpu.append(server_cpu() - start_cpu)
                if result.is_error:
                    raise SystemExit(f"report: {text_of(result)}")
                cursor = (result.structured_content or {})["page"]["next_cursor"]
                if cursor is None:
                    break
            stats = await session.call_tool("stats", {})
            server.update((stats.structured_content or {}).get("server") or {})

        serve(repo, scenario)
    rest = times[1:]
    rows.append(
        [
            f"{commits} commits",
            str(len(times)),
            f"{times[0]:.1f}",
            f"{median(rest) * 1000:.0f}" if rest else "-",
            f"{sum(times):.1f}",
            f"{sum(cpu):.1f}",
            str(server.get("reports_computed", f"- (one a page: {len(times)})")),
        ]
    )
    return rows


# -- 4. a 10 MB question ---------------------------------------------------------------------


def big_question() -> list[list[str]]:
    """A ``search`` question of 10,000,017 characters (one line of 10 MB),
    sent below the SDK's client (its own checks are not the server's): the
    time to its answer, the server's peak memory (VmHWM) before and after,
    and the time of the next call."""
    corpus = corpora.ensure(corpora.get("scrapy"))
    with tempfile.TemporaryDirectory(prefix="cartog-mcp-big-") as tmp:
        repo = Path(tmp) / "scrapy"
        corpora.git(Path(tmp), "clone", "-q", str(corpus), str(repo))
        cli(repo, "index", "--no-embed")  # untimed
        server = subprocess.Popen(
            [PYTHON, "-m", "cartog_ci.cli", "mcp", "--repo", str(repo)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=cli_env(),
        )  # fmt: skip
        assert server.stdin is not None and server.stdout is not None

        def ask(message: dict[str, Any]) -> dict[str, Any]:
            server.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
            server.stdin.flush()  # type: ignore[union-attr]
            return json.loads(server.stdout.readline())  # type: ignore[union-attr,no-any-return]

        def peak_mb() -> int:
            status = Path(f"/proc/{server.pid}/status").read_text()
            return int(next(line for line in status.splitlines() if line.startswith("VmHWM")).split()[1]) // 1024

        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}
        ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
        server.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        ask({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "stats", "arguments": {}}})
        before = peak_mb()
        query = "how are requests scheduled " * 370_371
        start = time.perf_counter()
        answer = ask({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search", "arguments": {"query": query}}})
        took = time.perf_counter() - start
        start = time.perf_counter()
        ask({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "refs", "arguments": {"name": "Request", "limit": 1}}})
        after = time.perf_counter() - start
        peak = peak_mb()
        server.stdin.close()
        server.wait()
    text = answer["result"]["content"][0]["text"] if "result" in answer else json.dumps(answer["error"])
    return [[f"{len(query):,}", f"{took:.2f}", f"{before} -> {peak}", f"{after:.2f}", text[:90]]]


def _sized(found: tuple[int, int, int]) -> list[str]:
    first, pages, total = found
    return [f"{first:,}", str(pages), f"{total:,}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed calls per tool (default 5)")
    parser.add_argument("--skip-sizes", action="store_true", help="only the latency table")
    parser.add_argument(
        "--pages", type=int, metavar="COMMITS", help="only: read the report of COMMITS commits (1-10) page by page"
    )
    parser.add_argument("--big-question", action="store_true", help="only: a 10 MB search question")
    args = parser.parse_args(argv)
    print(f"{tool_note()}; load {load_average()} (1 min) at start")
    if args.big_question:
        print("\nA 10 MB search question\n")
        headers = ["query chars", "answer s", "server peak MB", "next call s", "answer"]
        print(table(headers, big_question()))
        print(f"\nload {load_average()} (1 min) at the end")
        return 0
    if args.pages:
        print(f"\nReading a report page by page: Scrapy 2.11.0 -> 2.11.2, the first {args.pages} of 10 commits\n")
        headers = ["report", "pages", "first page s", "median other page ms", "all pages s", "server CPU s", "reports computed"]
        print(table(headers, report_pages(args.pages)))
        print(f"\nload {load_average()} (1 min) at the end")
        return 0
    rows = latency(args.runs)
    files, lines = corpora.python_size(corpora.ensure(corpora.get("scrapy")))
    print(f"\nLatency per tool, warm: Scrapy 2.11.0 ({files} Python files, {lines:,} lines), {args.runs} runs each\n")
    headers = ["tool", "arguments", "median ms", "max ms", "server CPU ms", "answer tokens", "items shown/total"]
    print(table(headers, rows, [False, False, True, True, True, True, True]))
    if not args.skip_sizes:
        size_rows, _ = sizes()
        print("\nOutput size on Scrapy 2.11.0 -> 2.11.2 as 10 commits (tokens, packaged tokenizer)\n")
        headers = ["answer", "first page", "pages", "all pages", "CLI --json", "CLI Markdown"]
        print(table(headers, size_rows))
    print(f"\nload {load_average()} (1 min) at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
