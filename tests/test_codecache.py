"""The functions ``dataclasses`` writes, and the patterns ``re`` compiles,
compiled once and kept between runs (cartog_ci/codecache.py): read back,
they make the same classes and patterns; a file tampered with shows it is
read; a file of another interpreter, or no file, is compiled again."""

from __future__ import annotations

import builtins
import dataclasses
import marshal
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cartog_ci import codecache


@pytest.fixture
def cached(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """``dataclasses.exec`` restored after the test (it has no such name of its own)."""
    monkeypatch.setattr(dataclasses, "exec", builtins.exec, raising=False)
    return tmp_path / "home"


def _point() -> type:
    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int = 2

    return Point


def test_the_classes_made_through_the_cache_are_the_same_and_their_code_is_kept(cached: Path) -> None:
    first = codecache.install(cached)
    Point = _point()
    assert (Point(1), repr(Point(1)), Point(1) == Point(1, 2), hash(Point(1)) == hash(Point(1, 2))) == (
        Point(1, 2), "_point.<locals>.Point(x=1, y=2)", True, True
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        Point(1).x = 3  # type: ignore[misc]
    assert first.compiled == len(first.codes) == 6  # __init__, __repr__, __eq__, __hash__, __setattr__, __delattr__
    first.save()
    assert first.compiled == 0
    second = codecache.install(cached)
    assert second.codes.keys() == first.codes.keys()
    assert repr(_point()(3)) == "_point.<locals>.Point(x=3, y=2)"
    assert second.compiled == 0  # every text read from the file
    second.save()  # nothing new: not written
    assert first.path.stat().st_size > 0


def test_a_tampered_cache_is_read_and_another_interpreters_is_not(cached: Path) -> None:
    cache = codecache.install(cached)
    _point()
    cache.save()
    data = cache.path.read_bytes()
    header, codes = data[: data.index(b"\n") + 1], marshal.loads(data[data.index(b"\n") + 1 :])
    (text,) = [t for t in codes if "__repr__" in t]
    codes[text] = compile("def __create_fn__(**kw):\n def __repr__(self):\n  return 'tampered'\n return __repr__\n", "<string>", "exec")
    cache.path.write_bytes(header + marshal.dumps(codes))
    codecache.install(cached)
    assert repr(_point()(1)) == "tampered"  # the file's code ran, not the text's

    cache.path.write_bytes(header.replace(b"cpython", b"other") + marshal.dumps(codes))
    again = codecache.install(cached)
    assert repr(_point()(1)) == "_point.<locals>.Point(x=1, y=2)"
    assert again.compiled == 6
    cache.path.write_bytes(b"garbage")
    assert codecache.install(cached).codes == {}


def test_a_cache_that_cannot_be_written_is_no_error(cached: Path) -> None:
    cached.write_text("a file where the folder goes")
    cache = codecache.install(cached)
    _point()
    cache.save()
    assert cache.compiled == 6 and not (cached / "code").exists()


def _kept_by_the_executable(tmp_path: Path, name: str) -> object:
    """What two runs of the executable leave in ``code/<name>.<interpreter>.marshal`` of its home."""
    home = tmp_path / "home"
    env = {"CARTOG_CI_HOME": str(home), "PATH": "/usr/bin:/bin"}
    probe = "import sys; from cartog_ci.launch import main; sys.exit(main())"
    for _ in range(2):
        subprocess.run([sys.executable, "-c", probe, "--version"], env=env, check=True, capture_output=True)
    kept = home / "code" / f"{name}.{sys.implementation.cache_tag}.marshal"
    return marshal.loads(kept.read_bytes().partition(b"\n")[2])


def test_the_executable_keeps_the_code_of_its_dataclasses(tmp_path: Path) -> None:
    codes = _kept_by_the_executable(tmp_path, "dataclasses")
    assert isinstance(codes, dict)
    assert len(codes) > 20 and all("def __create_fn__" in text for text in codes)


def test_a_file_past_its_size_keeps_the_texts_of_the_run_that_writes_it(cached: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(codecache, "MAX_CODES", 8)
    cache = codecache.install(cached)
    _point()
    cache.save()

    @dataclasses.dataclass
    class Other:
        name: str

    cache.save()  # 6 + 3 texts: past 8, only this run's (all of them) kept
    assert len(codecache.install(cached).codes) == 9
    later = codecache.install(cached)

    @dataclasses.dataclass
    class Third:
        size: int

    later.save()  # this run ran Third's 3 texts only
    assert len(codecache.install(cached).codes) == 3


@pytest.fixture
def patterns(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """``re``'s compiler and its cache of patterns restored after the test."""
    import re._compiler  # type: ignore[import-not-found]  # no stubs: re's own module

    monkeypatch.setattr(re._compiler, "compile", re._compiler.compile)
    re.purge()
    yield tmp_path / "home"
    re.purge()


def _matches() -> list[object]:
    """Patterns of several kinds, compiled by ``re.compile`` and used."""
    re.purge()  # re's own cache of 512 patterns asks no compiler
    named = re.compile(r"(?P<word>[a-z]+)-(?P<number>\d+)(?:x)?", re.IGNORECASE)
    found = named.fullmatch("Abc-42")
    assert found is not None
    return [
        found.groupdict(), named.groupindex["number"], named.groups, named.flags,
        re.compile(rb"^\s*(#|$)", re.M).findall(b"a\n  #\n\nb"),
        re.compile(r"(?x) a \ b  # spaced").search("xa b").span(),  # type: ignore[union-attr]
        re.compile("[é-ü]+").findall("café über"),
    ]  # fmt: skip


def test_patterns_made_from_the_cache_are_re_s_own(patterns: Path) -> None:
    expected = _matches()
    first = codecache.install_patterns(patterns)
    assert _matches() == expected
    assert first.compiled == len(first.patterns) == 4
    first.save()
    assert first.compiled == 0
    second = codecache.install_patterns(patterns)
    assert second.patterns == first.patterns
    assert _matches() == expected
    assert second.compiled == 0  # every pattern made from the file
    assert re.compile(r"(?P<word>[a-z]+)-(?P<number>\d+)(?:x)?", re.IGNORECASE) == re._compiler.compile(
        r"(?P<word>[a-z]+)-(?P<number>\d+)(?:x)?", re.IGNORECASE
    )


def test_a_tampered_pattern_file_is_read_and_another_interpreters_is_not(patterns: Path) -> None:
    cache = codecache.install_patterns(patterns)
    re.compile("tampered?")
    cache.save()
    data = cache.path.read_bytes()
    header, entries = data[: data.index(b"\n") + 1], marshal.loads(data[data.index(b"\n") + 1 :])
    other = codecache.PatternCache(patterns / "scratch")._compiled("other", 0)
    entries = [("tampered?", 0, *other) for _ in entries]
    cache.path.write_bytes(header + marshal.dumps(entries))
    codecache.install_patterns(patterns)
    re.purge()
    assert re.compile("tampered?").match("other") is not None  # the file's code ran, not the pattern's

    cache.path.write_bytes(header.replace(b"cpython", b"other") + marshal.dumps(entries))
    again = codecache.install_patterns(patterns)
    re.purge()
    assert re.compile("tampered?").match("other") is None
    assert again.compiled == 1
    cache.path.write_bytes(b"garbage")
    assert codecache.install_patterns(patterns).patterns == {}


def test_a_debugging_or_locale_pattern_is_left_to_re_and_an_unwritable_cache_is_no_error(patterns: Path) -> None:
    patterns.write_text("a file where the folder goes")
    cache = codecache.install_patterns(patterns)
    assert re.compile(rb"[a-z]+", re.LOCALE).match(b"abc") is not None
    assert cache.compiled == 0
    re.compile("kept")
    cache.save()
    assert cache.compiled == 1 and not (patterns / "code").exists()


def test_the_executable_keeps_the_patterns_its_modules_compile(tmp_path: Path) -> None:
    entries = _kept_by_the_executable(tmp_path, "patterns")
    assert isinstance(entries, list)
    assert len(entries) > 5 and all(type(e[0]) in (str, bytes) and type(e[3]) is list for e in entries)
