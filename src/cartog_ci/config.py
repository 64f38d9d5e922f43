"""Defaults, overridden by ``[tool.cartog-ci]`` in pyproject.toml or by
``.cartog-ci.toml`` at the repository root, then by the environment."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, fields, replace
from pathlib import Path

from cartog_ci.errors import CartogError

# The index lives in this directory of the repository (never indexed itself).
INDEX_DIR = ".cartog-ci"
INDEX_FILE = "index.db"
DEFAULT_MAX_FILE_BYTES = 2_000_000
DEFAULT_PARSE_TIMEOUT_MS = 20_000
# The module of the `all-languages` extra (languages/pack.py reads its grammars).
LANGUAGE_PACK_MODULE = "tree_sitter_language_pack"


def in_index_dir(path: str) -> bool:
    """A repository path inside the index directory: never indexed or reported."""
    return path == INDEX_DIR or path.startswith(INDEX_DIR + "/")


@dataclass(frozen=True)
class Config:
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES  # larger files are skipped (stats lists them)
    parse_timeout_ms: int = DEFAULT_PARSE_TIMEOUT_MS  # per tree-sitter parse; a slower file is skipped
    busy_timeout_ms: int = 30_000  # how long a writer waits for another one to finish
    # "" = the SQLite file; "postgresql://user@host/db" = a shared database
    # (the password only from PGPASSWORD or CARTOG_CI_DATABASE_URL)
    storage: str = ""
    repository: str = ""  # the repository's key in a shared database; "" = from origin's URL
    base_branch: str = ""  # whose graph a new branch starts from; "" = origin's default, else main
    depth: int = 3
    # recorded coverage kept per index or shared graph: the newest N
    # commits' recordings (docs/coverage.md, "What is stored")
    coverage_keep: int = 20
    # seconds a report may spend asking the compiler tier (docs/report.md,
    # "The compiler tier"); 0 turns it off
    compiler_budget: float = 30.0
    rerank_top: int = 50
    embed: bool = True
    embedding_provider: str = "onnx"  # onnx | http
    embedding_model: str = ""  # a model directory; empty = the packaged default
    embedding_url: str = ""
    embedding_api_model: str = ""
    embedding_dims: int = 384
    embedding_batch_size: int = 64  # texts per HTTP request
    embedding_timeout: float = 30.0  # seconds per HTTP request
    embedding_retries: int = 5  # retries on 429, 5xx, timeouts and connection errors
    reranker_model: str = ""  # a cross-encoder directory; empty = built-in
    debounce: float = 5.0
    # Directories (repository-relative) that Python absolute imports are
    # found from, besides the ones cartog-ci finds itself (docs/languages.md).
    python_roots: tuple[str, ...] = ()
    # Globs of repository paths (``glob_pattern``): only files an ``include``
    # matches are indexed (none: every file), never one an ``exclude``
    # matches (docs/incremental.md, "Which files").
    exclude: tuple[str, ...] = ()
    include: tuple[str, ...] = ()


def _from_toml(path: Path, section: tuple[str, ...]) -> dict[str, object]:
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CartogError(f"cannot read {path}: {exc}; fix or remove the file") from exc
    if section and section[-1] not in text:
        # a pyproject.toml without our table (most): not parsed, and the
        # TOML parser not even imported (~4 ms of regular expressions a run)
        return {}
    import tomllib

    try:
        data: object = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CartogError(f"cannot read {path}: {exc}; fix or remove the file") from exc
    for key in section:
        if not isinstance(data, dict):
            return {}
        data = data.get(key, {})
    return data if isinstance(data, dict) else {}


def load(root: Path) -> Config:
    values: dict[str, object] = {}
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        values.update(_from_toml(pyproject, ("tool", "cartog-ci")))
    own = root / ".cartog-ci.toml"
    if own.is_file():
        values.update(_from_toml(own, ()))
    known = {f.name: f for f in fields(Config)}
    clean: dict[str, object] = {}
    for key, value in values.items():
        name = key.replace("-", "_")
        if name not in known:
            raise CartogError(f"unknown setting {key!r} in cartog-ci configuration")
        clean[name] = _checked(key, value, getattr(Config(), name))
    config = replace(Config(), **clean)  # type: ignore[arg-type]
    return config


def _checked(key: str, value: object, default: object) -> object:
    """A value of the default's type (an int where a float is expected is
    fine, a list of strings where a tuple is)."""
    expected = type(default)
    if expected is tuple:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise CartogError(f"setting {key!r} in cartog-ci configuration must be a list of strings, not {value!r}")
        if key.replace("-", "_") in _GLOB_SETTINGS:
            for pattern in value:
                try:
                    glob_pattern(pattern)
                except ValueError as exc:
                    raise CartogError(f"setting {key!r} in cartog-ci configuration: glob {pattern!r} {exc}") from None
        return tuple(value)
    ok = isinstance(value, expected) and (expected is bool or not isinstance(value, bool))
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        ok, value = True, float(value)
    if not ok:
        wanted = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}[expected]
        raise CartogError(f"setting {key!r} in cartog-ci configuration must be {wanted}, not {value!r}")
    return value


_GLOB_SETTINGS = frozenset({"exclude", "include"})
# ``**`` as a whole segment, ``*``, ``?``, a ``[...]`` class, or one other character
_GLOB_TOKEN = re.compile(r"(?:^|(?<=/))\*\*(?:/|$)|\*|\?|\[!?\]?[^\]]*\]|\[|.", re.S)


def glob_pattern(pattern: str) -> re.Pattern[str]:
    """The paths a glob of the configuration matches, as ``.gitignore``
    reads it: ``*`` and ``?`` within one name, ``[...]`` a character class,
    ``**`` any number of directories; a glob without ``/`` (but at its end)
    matches a name at any depth, one with ``/`` from the repository root;
    a match of a directory holds everything below it, and a trailing ``/``
    matches directories only (``docs_src/``). ValueError says what is wrong."""
    if not pattern.strip():
        raise ValueError("is empty: remove it")
    if "\0" in pattern or "\\" in pattern:
        raise ValueError("has a backslash or a NUL: write paths with /")
    directory = pattern.endswith("/")
    body = pattern.strip("/")
    if not body:
        raise ValueError("matches the whole repository: remove it")
    anchored = pattern.startswith("/") or "/" in body
    out = []
    for token in _GLOB_TOKEN.findall(body):
        if token.startswith("**"):
            out.append("(?:.*/)?" if token.endswith("/") else ".*")
        elif token == "*":
            out.append("[^/]*")
        elif token == "?":
            out.append("[^/]")
        elif token == "[":
            raise ValueError("has a [ that no ] closes: close it, or write [[] for the character")
        elif len(token) > 1:  # a class: [!...] is [^...] as in .gitignore
            inner = token[1:-1]
            inner = "^" + inner[1:] if inner.startswith("!") else inner
            out.append("[" + inner.replace("\\", "\\\\") + "]")
        else:
            out.append(re.escape(token))
    start = "" if anchored else "(?:.*/)?"
    return re.compile(start + "".join(out) + ("/.+" if directory else "(?:/.+)?"), re.S)


def home() -> Path:
    """Per-user cache directory (models, logs)."""
    env = os.environ.get("CARTOG_CI_HOME")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cartog-ci"
