"""The registry of languages imports a language's module when the language
is first asked for (languages/__init__.py): what it knows before that (the
names, their order, the extensions) is each language's own, and a language
not loaded shares no test runner with a loaded one (``test_plan``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cartog_ci import languages
from cartog_ci.domain import Symbol
from cartog_ci.languages import _SHIPPED, LANGUAGES, SHIPPED, Registry

LANGUAGE_MODULES = {
    "python": "cartog_ci.languages.python",
    "go": "cartog_ci.languages.go",
    "javascript": "cartog_ci.languages.ecmascript",
    "typescript": "cartog_ci.languages.ecmascript",
    "tsx": "cartog_ci.languages.ecmascript",
    "rust": "cartog_ci.languages.rust",
    "java": "cartog_ci.languages.java",
    "ruby": "cartog_ci.languages.ruby",
    "markdown": "cartog_ci.languages.markdown",
}


def _fresh(code: str) -> list[str]:
    """The language modules a fresh interpreter holds after ``code``."""
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(m for m in sys.modules if m in {sorted(set(LANGUAGE_MODULES.values()))!r})))"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return list(json.loads(proc.stdout))


def test_the_table_holds_each_language_own_name_order_and_extensions() -> None:
    assert SHIPPED == ("python", "go", "javascript", "typescript", "tsx", "rust", "java", "ruby", "markdown")
    for name, extensions, load in _SHIPPED:
        loaded = {language.name: language for language in load()}
        assert name in loaded
        assert loaded[name].extensions == extensions
        assert LANGUAGES[name] is loaded[name] or LANGUAGES[name].name == name
    assert list(LANGUAGES)[: len(SHIPPED)] == list(SHIPPED)


def test_a_test_runner_belongs_to_the_languages_of_one_module() -> None:
    modules_of_runner: dict[str, set[str]] = {}
    for name in SHIPPED:
        runner = LANGUAGES[name].test_runner
        if runner:
            modules_of_runner.setdefault(runner, set()).add(LANGUAGE_MODULES[name])
    assert {r: len(m) for r, m in modules_of_runner.items()} == dict.fromkeys(modules_of_runner, 1)
    assert modules_of_runner["jest"] == {"cartog_ci.languages.ecmascript"}


def test_a_module_is_imported_when_a_language_of_it_is_first_asked_for() -> None:
    assert _fresh("import cartog_ci.languages") == []
    assert _fresh("from cartog_ci import languages\nassert languages.for_path('a/b.py').name == 'python'") == [
        "cartog_ci.languages.python"
    ]
    assert _fresh("from cartog_ci import languages\nassert languages.get('tsx').name == 'tsx'") == [
        "cartog_ci.languages.ecmascript"
    ]
    assert _fresh("from cartog_ci import languages\nassert languages.for_path('README.md').name == 'markdown'") == [
        "cartog_ci.languages.markdown"
    ]
    assert _fresh("from cartog_ci import languages\nassert languages.for_path('a.txt') is None\nassert languages.get('cobol') is None") == []


def test_a_registry_loads_a_module_languages_together_and_keeps_its_order() -> None:
    registry = Registry()
    assert list(registry) == list(SHIPPED)
    assert "typescript" in registry and registry.loaded("typescript") is None
    assert registry["javascript"].name == "javascript"
    assert [registry.loaded(n) is not None for n in ("javascript", "typescript", "tsx", "python")] == [True, True, True, False]
    with pytest.raises(KeyError):
        registry["cobol"]  # noqa: B018
    assert registry.get("cobol") is None and "cobol" not in registry


def test_a_language_met_later_joins_at_the_end_and_leaves_again() -> None:
    registry = Registry()
    extra = LANGUAGES["python"]
    registry["somepack"] = extra
    assert list(registry) == [*SHIPPED, "somepack"] and registry["somepack"] is extra and len(registry) == len(SHIPPED) + 1
    assert registry.setdefault("python", extra) is registry["python"]
    del registry["somepack"]
    assert list(registry) == list(SHIPPED)
    with pytest.raises(KeyError):
        del registry["python"]


def _test(name: str, language: str, file: str, parent: str | None = None) -> Symbol:
    return Symbol(
        id=f"{file}:{name}", name=name, qualified_name=name, kind="function", file=file, start_line=1,
        end_line=2, start_byte=0, end_byte=10, parent_id=parent, signature=f"def {name}()", language=language,
        content_hash="h", subtree_hash="h",
    )  # fmt: skip


def test_the_test_plan_keeps_the_registry_order_of_runners() -> None:
    tests = [
        _test("TestX", "typescript", "ui/a.test.ts"),
        _test("test_a", "python", "tests/test_a.py"),
        _test("TestGo", "go", "pkg/a_test.go"),
    ]
    plan = languages.test_plan(tests)
    # python (pytest), go, then the JavaScript family's runner: the registry's order
    assert [c.tests for c in plan] == [("tests/test_a.py:test_a",), ("pkg/a_test.go:TestGo",), ("ui/a.test.ts:TestX",)]
