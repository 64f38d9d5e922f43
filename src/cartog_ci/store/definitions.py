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
the tiers before it left room under the limit.
"""

from __future__ import annotations

import apsw

from cartog_ci.domain.results import NAME_MATCH_TIERS, NameMatch

MIN_SIGNATURE_TERM = 4


def like_prefix(term: str) -> str:
    """A LIKE pattern for "starts with ``term``": wildcards in names are literal."""
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"


def match_names(db: apsw.Connection, term: str, *, limit: int = 50) -> list[NameMatch]:
    """Symbols whose ID, qualified name, name or signature match ``term``,
    best tier first; within a tier, the database's index order. Lower tiers
    are not searched once ``limit`` symbols were found; a tier itself may
    bring up to ``4 × limit``, for the caller to rank."""
    term = term.strip()
    if not term:
        return []
    found: dict[str, NameMatch] = {}
    for tier, member, sql, params in _queries(term, limit):
        if len(found) >= limit:
            break
        if tier == NAME_MATCH_TIERS.index("signature") and len(term) < MIN_SIGNATURE_TERM:
            continue
        for (symbol_id,) in db.execute(sql, params):
            found.setdefault(str(symbol_id), NameMatch(str(symbol_id), tier, member))
    return list(found.values())


def _queries(term: str, limit: int) -> list[tuple[int, bool, str, tuple[object, ...]]]:
    lowered = term.lower()
    # Substring scans are capped well above the limit: the caller re-ranks a
    # tier by centrality, so the first rows of an index scan are not "best".
    wide = limit * 4
    return [
        (0, False, "SELECT id FROM symbols WHERE id = ?", (term,)),
        (
            0,
            False,
            "SELECT id FROM symbols WHERE qualified_name = ? COLLATE NOCASE AND qualified_name = ?",
            (term, term),
        ),
        (0, False, "SELECT id FROM symbols WHERE name = ? COLLATE NOCASE AND name = ?", (term, term)),
        (1, False, "SELECT id FROM symbols WHERE qualified_name = ? COLLATE NOCASE", (term,)),
        (1, False, "SELECT id FROM symbols WHERE name = ? COLLATE NOCASE", (term,)),
        (2, False, "SELECT id FROM symbols WHERE name LIKE ? ESCAPE '\\' LIMIT ?", (like_prefix(term), wide)),
        (
            2,
            True,
            "SELECT id FROM symbols WHERE qualified_name LIKE ? ESCAPE '\\' LIMIT ?",
            (like_prefix(term + "."), wide),
        ),
        (3, False, "SELECT id FROM symbols WHERE instr(lower(name), ?) > 0 LIMIT ?", (lowered, wide)),
        (4, False, "SELECT id FROM symbols WHERE instr(lower(signature), ?) > 0 LIMIT ?", (lowered, wide)),
    ]
