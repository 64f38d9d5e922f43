"""Definitions by name: the SQL behind ``SqliteStore.match_names``, which the
structural search modality calls (docs/search.md).

One term is looked up in tiers, best first, each symbol kept at its best tier:

====  ==========  =====================================================
tier  name        condition (case-insensitive unless said)
====  ==========  =====================================================
0     exact       ID, qualified name or name equal, case included
1     exact_case  qualified name or name equal ignoring case
2     prefix      name starts with the term, or a member of it (``T.x``)
3     substring   name contains the term
4     signature   signature contains the term (>= 4 characters)
====  ==========  =====================================================

Tiers 0-2 are index searches (``symbols_name_nocase`` and
``symbols_qualified_name_nocase``, migration m003); tier 3 scans the
(name, id) index, not the table; tier 4 scans the table and runs only when
the tiers before it left room under the limit. Within a tier, rows come in
the order of those indexes (case-folded name, then ID; ID for signatures),
spelled out so that PostgreSQL (``POSTGRES``: ``lower()`` expression
indexes, ``ILIKE``, ``strpos``) answers in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass

from cartog_ci.domain.answers import NAME_MATCH_TIERS, NameMatch
from cartog_ci.store.tables import Connection

MIN_SIGNATURE_TERM = 4


@dataclass(frozen=True)
class Dialect:
    nocase: str  # "{col} equals the parameter, ignoring case"
    folded: str  # "{col} case-folded", to order by
    like: str  # the case-insensitive LIKE
    contains: str  # "the parameter occurs in lower({col})"


SQLITE = Dialect("{col} = ? COLLATE NOCASE", "{col} COLLATE NOCASE", "LIKE", "instr(lower({col}), ?) > 0")
POSTGRES = Dialect("lower({col}) = lower(?)", "lower({col})", "ILIKE", "strpos(lower({col}), ?) > 0")


def like_prefix(term: str) -> str:
    """A LIKE pattern for "starts with ``term``": wildcards in names are literal."""
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"


def match_names(db: Connection, term: str, *, limit: int = 50, dialect: Dialect = SQLITE) -> list[NameMatch]:
    """Symbols whose ID, qualified name, name or signature match ``term``,
    best tier first; within a tier, the database's index order. Lower tiers
    are not searched once ``limit`` symbols were found; a tier itself may
    bring up to ``4 × limit``, for the caller to rank."""
    term = term.strip()
    if not term:
        return []
    found: dict[str, NameMatch] = {}
    for tier, member, sql, params in _queries(term, limit, dialect):
        if len(found) >= limit:
            break
        if tier == NAME_MATCH_TIERS.index("signature") and len(term) < MIN_SIGNATURE_TERM:
            continue
        for (symbol_id,) in db.execute(sql, params):
            found.setdefault(str(symbol_id), NameMatch(str(symbol_id), tier, member))
    return list(found.values())


def _queries(term: str, limit: int, d: Dialect) -> list[tuple[int, bool, str, tuple[object, ...]]]:
    lowered = term.lower()
    # Substring scans are capped well above the limit: the caller re-ranks a
    # tier by centrality, so the first rows of an index scan are not "best".
    wide = limit * 4

    def nocase(col: str) -> str:
        return d.nocase.format(col=col)

    def by(col: str) -> str:
        return f" ORDER BY {d.folded.format(col=col)}, id"

    return [
        (0, False, "SELECT id FROM symbols WHERE id = ?", (term,)),
        (
            0,
            False,
            f"SELECT id FROM symbols WHERE {nocase('qualified_name')} AND qualified_name = ?" + by("qualified_name"),
            (term, term),
        ),
        (0, False, f"SELECT id FROM symbols WHERE {nocase('name')} AND name = ?" + by("name"), (term, term)),
        (1, False, f"SELECT id FROM symbols WHERE {nocase('qualified_name')}" + by("qualified_name"), (term,)),
        (1, False, f"SELECT id FROM symbols WHERE {nocase('name')}" + by("name"), (term,)),
        (
            2,
            False,
            f"SELECT id FROM symbols WHERE name {d.like} ? ESCAPE '\\'{by('name')} LIMIT ?",
            (like_prefix(term), wide),
        ),
        (
            2,
            True,
            f"SELECT id FROM symbols WHERE qualified_name {d.like} ? ESCAPE '\\'{by('qualified_name')} LIMIT ?",
            (like_prefix(term + "."), wide),
        ),
        (3, False, f"SELECT id FROM symbols WHERE {d.contains.format(col='name')}{by('name')} LIMIT ?", (lowered, wide)),
        (
            4,
            False,
            f"SELECT id FROM symbols WHERE {d.contains.format(col='signature')} ORDER BY id LIMIT ?",
            (lowered, wide),
        ),
    ]
