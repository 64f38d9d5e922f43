"""The extractor never raises, whatever the bytes: one hypothesis target per
language (the shipped ones, and the tree-sitter-language-pack ones when the
pack is installed), fed with token soup that looks enough like code to reach
the query and import paths, with arbitrary text, and with raw bytes; plus
10,000-deep nesting in each language. Bounded for CI (``max_examples``).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cartog_ci.errors import ParseTimeout
from cartog_ci.languages import LANGUAGES, extract, pack
from cartog_ci.languages import for_path as language_for_path

_PACK = sorted({name for name in pack.EXTENSIONS.values()})
_PACK_EXT = {name: ext for ext, name in reversed(pack.EXTENSIONS.items())}


SHIPPED = sorted(LANGUAGES)  # before the pack's languages register themselves


def _languages() -> list[str]:
    names = list(SHIPPED)
    for name in _PACK:
        spec = language_for_path(f"x{_PACK_EXT[name]}")
        if spec is not None and spec.name not in names:
            names.append(spec.name)
    return names


LANGUAGE_NAMES = _languages()
_EXT = {name: (LANGUAGES[name].extensions[0] if name in SHIPPED else _PACK_EXT[name]) for name in LANGUAGE_NAMES}

_KEYWORDS = (
    "def class fn func function struct impl interface trait enum module end import from package use "
    "return if else elif match case async await yield pub static const let var new self this super "
    "extends implements require require_relative include export default type namespace lambda raise throw"
).split()
_PUNCT = list("{}()[]<>:;,.=+-*/\\|&!?@#$%^~`'\"") + ["=>", "->", "::", "...", "//", "/*", "*/", "#[", "'''", '"""']
_SPACE = ["\n", "\n    ", "\n\t", " ", "\r\n", "\r"]
_IDENT = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
_TOKEN = st.one_of(st.sampled_from(_KEYWORDS), st.sampled_from(_PUNCT), st.sampled_from(_SPACE), _IDENT, st.text(max_size=3))
code_like = st.lists(_TOKEN, max_size=120).map(lambda tokens: " ".join(tokens).encode("utf-8", "surrogatepass"))
anything = st.one_of(code_like, st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")), st.binary(max_size=300))


@pytest.mark.parametrize("language", LANGUAGE_NAMES)
@given(source=anything)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
def test_extract_never_raises(language: str, source: bytes) -> None:
    result = extract(f"src/fuzz{_EXT[language]}", source, language)
    assert result.symbols and result.symbols[0].kind == "module"
    ids = [s.id for s in result.symbols]
    assert len(ids) == len(set(ids))  # duplicates get their #2 suffix
    assert {e.source_id for e in result.edges} <= set(ids)


DEEP = 10_000


SHAPES = ["f(", "(", "[", "{", "<", ".b()"]
# every shape for the shipped languages; nested calls for the pack's (CI time)
DEEP_CASES = [(lang, shape) for lang in LANGUAGE_NAMES for shape in (SHAPES if lang in SHIPPED else SHAPES[:1])]


@pytest.mark.parametrize(("language", "shape"), DEEP_CASES)
def test_ten_thousand_deep_nesting(language: str, shape: str) -> None:
    """Indexed, or skipped with a reason (too deep for the query, which would
    be quadratic; or over the time budget: some grammars' error recovery on
    such input takes seconds); never another error, never unbounded."""
    closing = {"f(": ")", "(": ")", "[": "]", "{": "}", "<": ">", ".b()": ""}[shape]
    source = ("x = a" + shape * DEEP + "1" + closing * DEEP + "\n").encode()
    try:
        result = extract(f"src/deep{_EXT[language]}", source, language, timeout_ms=1_000)
    except ParseTimeout as exc:
        assert str(exc) in (
            "nested too deeply (over 1,024 open query matches)",
            "parse timed out (over 1000 ms of CPU); raise parse_timeout_ms to index it",
        )
    else:
        assert result.symbols[0].kind == "module"
