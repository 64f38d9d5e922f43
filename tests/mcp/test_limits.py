"""Bounded answers and bad requests, through the real server: a truncated
answer stays within its token budget and its pages add up to the whole
answer; every bad call is a one-sentence tool error and the server goes on."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from cartog_ci.embed.onnx import counting_tokenizer
from tests.testing.fixtures import cli_json, commit, index, init_repo, make_repo, write
from tests.testing.mcp_client import Client, talk, text_of

FILES, CALLERS = 30, 10
WAIT = 300  # seconds: a cap against a hang, never a guess of how long a step takes
TARGET = "core/target.py:function:target"


def many_callers(tmp_path: Path) -> Path:
    """300 functions in 30 modules, each calling ``target`` once."""
    repo = init_repo(tmp_path / "big")
    write(repo, {"core/__init__.py": "", "app/__init__.py": "", "core/target.py": "def target(value):\n    return value\n"})
    for i in range(FILES):
        body = "".join(f"\n\ndef caller_{i}_{j}(x):\n    return target(x + {j})\n" for j in range(CALLERS))
        write(repo, {f"app/mod_{i:02d}.py": f"from core.target import target{body}"})
    params = ", ".join(f"parameter_{i}" for i in range(300))
    write(repo, {"core/wide.py": f"def wide({params}):\n    return parameter_0\n"})
    commit(repo, "many callers")
    return repo


@functools.cache
def _tokenizer() -> Any:
    return counting_tokenizer()


def tokens(text: str) -> int:
    return len(_tokenizer().encode(text, add_special_tokens=False).ids)


@pytest.mark.slow  # about 30 calls on a 300-caller corpus
def test_pages_stay_within_the_budget_and_add_up_to_the_whole_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = many_callers(tmp_path)
    pages: dict[int, list[tuple[int, dict[str, Any]]]] = {4000: [], 2000: []}
    got: dict[str, Any] = {}

    async def scenario(client: Client) -> None:
        for budget, answers in pages.items():
            cursor = None
            while len(answers) < 100:  # bounded: 300 refs
                args: dict[str, Any] = {"name": "target", "kind": "calls", "limit": 200}
                args |= {"max_tokens": budget} if budget != 4000 else {}  # 4,000: the default
                result = await client.call("refs", **args, **({"cursor": cursor} if cursor else {}))
                assert not result.is_error, text_of(result)
                answers.append((tokens(text_of(result)), result.structured_content))
                cursor = result.structured_content["page"]["next_cursor"]
                if cursor is None:
                    break
        wide = [await client.call("outline", file="core/wide.py", max_tokens=500)]
        wide.append(await client.call("outline", file="core/wide.py", max_tokens=500, cursor=wide[0].structured_content["page"]["next_cursor"]))
        got["wide"] = [(tokens(text_of(r)), r.structured_content) for r in wide]
        got["limited"] = await client.ok("check_signature_change", name="target", new_signature="def target(value, extra)", limit=5)

    talk(repo, scenario)
    whole = cli_json(capsys, "refs", "target", "--kind", "calls", "--repo", str(repo), "--no-refresh")
    expected = whole[0]["refs"]  # type: ignore[index]
    assert len(expected) == FILES * CALLERS
    for budget, answers in pages.items():
        assert all(count <= budget for count, _ in answers), [count for count, _ in answers]
        assert len(answers) > 1
        assert [e for _, a in answers for e in a["refs"]] == expected  # in order, none twice, none missing
        offsets = [a["page"]["offset"] for _, a in answers]
        returned = [a["page"]["returned"] for _, a in answers]
        assert offsets == [sum(returned[:i]) for i in range(len(answers))]
        assert all(a["page"]["truncated"] for _, a in answers[:-1]) and not answers[-1][1]["page"]["truncated"]
    first = pages[4000][0][1]["page"]
    shown = first["returned"]
    assert 20 < shown < 200  # cut by the budget, not by the limit
    assert first["left_out"] == (
        f"items 1-{shown} of 300 (refs) shown, {300 - shown} left out by the token budget (4,000 tokens): "
        "call again with the same arguments and cursor=next_cursor for the next ones"
    )
    assert len(pages[2000]) > len(pages[4000])
    (first_tokens, module), (wide_tokens, wide) = got["wide"]
    assert first_tokens <= 500 and wide_tokens <= 500
    assert [s["kind"] for s in module["symbols"]] == ["module"]  # the function does not fit beside it
    assert module["page"]["left_out"].startswith("items 1-1 of 2 (symbols) shown, 1 left out by the token budget (500 tokens)")
    [function] = wide["symbols"]
    assert function["signature"] == "def wide(" + ", ".join(f"parameter_{i}" for i in range(300))[:191] + "…"
    assert wide["page"]["left_out"] == (
        "item 2 alone exceeds the budget: shown with its inner lists and long strings cut "
        "(ask with a larger max_tokens for it whole)"
    )
    limited = got["limited"]
    assert limited["call_sites_checked"] == {"will_break": 300, "not_checked": 0, "fine": 0}
    assert limited["page"]["returned"] == 5 and limited["page"]["left_out"].startswith(
        "items 1-5 of 300 (call_sites) shown, 295 left out by the limit (5): "
    )


def test_bad_calls_are_tool_errors_and_the_server_keeps_serving(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    errors: list[str] = []
    got: dict[str, Any] = {}

    async def scenario(client: Client) -> None:
        first = await client.ok("outline", file="shop/util/text.py", limit=1)
        cursor = first["page"]["next_cursor"]
        for tool, arguments in [
            ("refs", {"name": 5}),
            ("refs", {}),
            ("refs", {"name": "checkout", "bogus": 1}),
            ("impact", {"name": "checkout", "depth": 0}),
            ("outline", {"file": "shop/util/text.py", "limit": "many"}),
            ("refs", {"name": "chekout"}),
            ("outline", {"file": "shop/util/txt.py"}),
            ("hierarchy", {"name": "slugify"}),
            ("check_signature_change", {"name": "Order", "new_signature": "def Order(x)"}),
            ("check_signature_change", {"name": "normalize", "new_signature": "def normalize(value, x)"}),
            ("check_signature_change", {"name": "slugify", "new_signature": "slugify"}),
            ("search", {"query": "   "}),
            ("report", {"base": "no-such-branch"}),
            ("report", {"head": "HEAD"}),
            ("outline", {"file": "shop/util/text.py", "cursor": "not-a-cursor"}),
            ("outline", {"file": "shop/models/order.py", "cursor": cursor}),
        ]:
            errors.append(await client.error(tool, **arguments))
        got["after"] = await client.ok("outline", file="shop/util/text.py", limit=1, cursor=cursor)

    talk(repo, scenario)
    assert errors[:12] == [
        "invalid arguments for refs: name: 5 is not of type 'string'",
        "invalid arguments for refs: 'name' is a required property",
        "invalid arguments for refs: Additional properties are not allowed ('bogus' was unexpected)",
        "invalid arguments for impact: depth: 0 is less than the minimum of 1",
        "invalid arguments for outline: limit: 'many' is not of type 'integer'",
        "no symbol named 'chekout' in the index; closest names: checkout, test_checkout, Order.checkout "
        "(the search tool finds code by what it does)",
        "shop/util/txt.py is not in the index; closest paths: shop/util/text.py, shop/util/other.py, shop/util/__init__.py "
        "(paths are relative to the repository root)",
        "'slugify' is a function, not a class: hierarchy shows the bases and subclasses of types (classes, "
        "interfaces, traits, structs, enums); try `cartog-ci refs slugify`",
        "'Order' names a class, not a function or method: pass the function (a class's constructor: Class.__init__)",
        "'normalize' names 2 functions (shop/util/other.py:function:normalize, shop/util/text.py:function:normalize): "
        "pass one symbol ID",
        "new_signature needs its parameter list, written as in the code (def save(self, force=False))",
        "search: the query is empty: ask for a name, an error string or a question",
    ]
    assert errors[12] == "unknown revision 'no-such-branch': check the name, or run `git fetch` first"
    assert errors[13] == "head names a commit: pass change='head' with it (not 'working_tree')"
    assert errors[14] == "the cursor is not one this server gave: repeat the question without a cursor"
    assert errors[15] == (
        "the cursor belongs to another question (another tool or other arguments): pass it with the same "
        "arguments as the call that returned it, or call without a cursor"
    )
    after = got["after"]
    assert [s["name"] for s in after["symbols"]] == ["slugify"] and after["page"]["offset"] == 1


def test_no_index_says_how_to_build_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "pyproj")
    errors: list[str] = []

    async def scenario(client: Client) -> None:
        errors.append(await client.error("refs", name="checkout"))
        errors.append(await client.error("stats"))

    talk(repo, scenario, "--no-refresh")
    expected = f"no index at {repo.resolve() / '.cartog-ci' / 'index.db'}: run `cartog-ci index` first (or pass --index)"
    assert errors == [expected, expected]


def test_watch_keeps_the_index_fresh_in_the_background(tmp_path: Path) -> None:
    """--no-refresh: only the watcher can bring the new function in. The
    test waits for conditions (the watcher's "watching" line, the new
    function in an answer), each with a cap only a hang reaches."""
    repo = make_repo(tmp_path, "pyproj")
    index(repo)
    log = tmp_path / "watch-server.log"
    seen: list[list[str]] = []

    async def scenario(client: Client) -> None:
        import anyio

        seen.append([s["name"] for s in (await client.ok("outline", file="shop/util/text.py"))["symbols"]])
        with anyio.fail_after(WAIT):
            while "watching" not in log.read_text():
                await anyio.sleep(0.05)
        (repo / "shop/util/text.py").write_text("def shout(value):\n    return value.upper()\n")
        with anyio.fail_after(WAIT):
            while seen[-1] != ["text", "shout"]:
                await anyio.sleep(0.1)
                seen.append([s["name"] for s in (await client.ok("outline", file="shop/util/text.py"))["symbols"]])

    talk(repo, scenario, "--watch", "--debounce", "0.2", "--no-refresh", log=log)
    assert seen[0] == ["text", "slugify", "normalize"]
    assert seen[-1] == ["text", "shout"]
