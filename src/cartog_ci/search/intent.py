"""What kind of question a search query is (docs/search.md).

Ordered rules, first match wins, each with a confidence; plain regular
expressions, so classifying costs well under a millisecond:

===  =======================================================  ===============  ==========
#    rule                                                     intent           confidence
===  =======================================================  ===============  ==========
1    starts with ``def``/``class``/``func``/``fn``/``import``  find_definition  0.95
     … followed by a name (``class Celery:``)
2    "who calls", "usages of", "references to", "callers of"  find_references  0.90
     (not in a description of several sentences)
3    "impact", "blast radius", "what depends on", "what       impact_analysis  0.90
     breaks" (not in a description of several sentences)
4    a quoted "string" with at most three words around it /  exact_match      0.90 / 0.85
     an error token (``Traceback``, ``ValueError``,
     ``ECONNREFUSED``) that starts the query or has at most
     three words around it
5    a CamelCase, snake_case or dotted identifier (also       find_definition  0.80 / 0.70
     `ticked`, ``name()``, a capitalised word after the
     first, NAME in "where is NAME defined") with only a
     definition phrase around it / with one or two other
     words (at most five words besides the name)
6    "how", "why", "explain", "architecture"                  understand_code  0.75
7    "similar to", "like this", "like the X"                  find_similar     0.70
     (not in a description of several sentences)
8    nothing matches                                          understand_code  0.40
===  =======================================================  ===============  ==========

Rules 4 and 5 read sentences: a sentence that mentions a class name, a
quoted word or an error token ("This function returns the HTTPError of a
RoutesMapper instance") describes behaviour, and falls through to rules 6-8
with the names and literals kept as its subjects, so the text and
structural modalities still look for them. Read as definition or
exact-string questions, such sentences lost most of their answers
(benchmarks/search_dev.py; docs/search.md).

Rule 7's 0.70 (no published figure to follow): the phrase names the
operation as plainly as "how"/"why" (0.75) do, but "like" is also filler
("something like"), so a little lower; and it must stay below the 0.85
direct-route threshold, because no single modality answers "similar" —
meaning comes from vectors, shared identifiers from the text and name
indexes.

A query is *ordinary* (eligible for the direct route) when no rule other than
the winner fires on it: "who calls X and why" is two questions, and goes
through fusion.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

INTENTS = (
    "find_definition",
    "find_references",
    "understand_code",
    "find_similar",
    "impact_analysis",
    "exact_match",
)

_DEFINITION_PREFIX = re.compile(
    r"^\s*(?:def|class|func|fn|function|import|from\s+[\w.]+\s+import|struct|interface|trait|enum|impl|"
    r"type|module|mod|const|pub\s+fn|async\s+def|async\s+fn)\s+"
    r"(?P<name>[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*)\s*(?:$|[(:<{\[;,]|->|extends\b|implements\b)"
)
_REFERENCES = re.compile(
    r"\b(?:who|what|which\s+\w+)\s+(?:calls|uses|invokes|references|imports|instantiates|subclasses|overrides|raises"
    r"|inherits\s+from|extends)\b"
    # "references to X" asks; "a cached reference of the view" describes a value
    r"|\b(?:usages?|uses|references|callers|call\s*sites|invocations|importers|subclasses)\s+(?:of|to|for)\b"
    r"|\bwhere\s+(?:is|are)\s+.+?\s+(?:used|called|referenced|invoked|imported|instantiated)\b"
    r"|\bfind\s+(?:all\s+)?(?:references|usages|callers)\b"
    r"|\b(?:called|used|invoked)\s+(?:from|by)\b",
    re.IGNORECASE,
)
_CALL_WORDS = re.compile(r"\b(?:calls?|callers?|called|call\s*sites?|invokes?|invoked|invocations?)\b", re.IGNORECASE)
_IMPACT = re.compile(
    r"\bimpact(?:ed|s)?\b|\bblast\s+radius\b"
    r"|\b(?:what|who|which\s+\w+)\s+(?:depends|depend|relies|rely)\s+on\b"
    r"|\bwhat\s+(?:breaks|would\s+break|could\s+break|will\s+break|might\s+break|is\s+affected)\b"
    r"|\bbreaks?\s+if\b|\bif\s+(?:i|we)\s+(?:change|modify|remove|rename|delete)\b|\baffected\s+by\b"
    r"|\bdownstream\s+of\b|\bripple\s+effects?\b",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"\"([^\"]{2,})\"|“([^”]{2,})”|(?:^|(?<=[\s(\[:=]))'([^']{2,})'(?=$|[\s,.?!:;)\]])")
_ERROR_TOKEN = re.compile(
    r"\bTraceback\b|\b[A-Z]\w*(?:Error|Exception|Warning|Interrupt)\b|\bException\b"
    r"|\bE(?:CONN[A-Z]+|NO[A-Z]+|ACCES|AGAIN|PIPE|TIMEDOUT|EXIST|INTR|BADF|INVAL|PERM|ADDRINUSE|HOSTUNREACH"
    r"|NETUNREACH|WOULDBLOCK|ISDIR|NOTDIR|MFILE|BUSY)\b"
    r"|\bpanic:|\bsegmentation\s+fault\b|\bcore\s+dumped\b|\bErrno\b|\bstack\s*trace\b"
)
_IDENTIFIER = re.compile(
    r"`(?P<tick>[^`\s]+)`"
    r"|(?P<dotted>\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b)"
    r"|(?P<snake>\b_*[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+_*\b|\b_+[A-Za-z][A-Za-z0-9]*\b|\b__\w+__\b)"
    r"|(?P<camel>\b[a-z]+[0-9]*[A-Z]\w*\b|\b[A-Z][a-z0-9]+[A-Z]\w*\b|\b[A-Z]{2,}[a-z]{2,}\w*\b)"
    r"|(?P<call>\b[A-Za-z_]\w*(?=\(\)))"
    # A capitalised word inside a sentence reads as a class name ("where is
    # Celery defined"); at the start, or after ":" or ".", it is only a capital.
    # Not before "(" or a dotted part (a call, a module path); a full stop
    # that ends the sentence ("… in Semaphore.") is not one.
    r"|(?<=[\w,])\s+(?P<pascal>[A-Z][a-z0-9]+)\b(?!\.\w|\()"
    # … and so does a query that is one capitalised word ("Celery"), or
    # one that opens a sentence with it and a colon, as an issue title or
    # a commit subject names its class ("Condition: release the lock").
    r"|^\s*(?P<alone>[A-Z][a-z0-9]+)\s*$"
    r"|^\s*(?P<lead>[A-Z][a-z0-9]+):(?=\s+\w)"
)
# Capitalised words that are values, not names ("Return True if …").
_CONSTANTS = frozenset({"True", "False", "None"})
# A plain lower-case word in definition position is a name too.
_DEFINED_NAME = re.compile(
    r"\bwhere\s+(?:is|are)\s+(?:the\s+)?(?:(?:function|method|class|constant|variable)\s+)?(?P<name>[A-Za-z_]\w*)"
    r"\s+(?:defined|declared|implemented)\b"
    r"|\b(?:definition|declaration)\s+of\s+(?:the\s+)?(?:(?:function|method|class)\s+)?(?P<name2>[A-Za-z_]\w*)",
    re.IGNORECASE,
)
_FILE_SUFFIX = re.compile(r"\.(?:py|pyi|js|jsx|ts|tsx|go|rs|java|rb|md|txt|json|toml|ya?ml|cfg|ini|html|css)$")
# Words of a definition question around the name ("where is the Heart class
# defined", "find the definition of worker_direct"): they do not make the
# query a sentence.
_DEFINITION_WORDS = frozenset(
    """where is are the a an of for find locate show me source signature definition declaration
    defined declared implemented implementation def class function method type struct interface
    trait enum module constant variable where's s""".split()  # noqa: SIM905 - a block of words
)
MAX_WORDS_AROUND_NAME = 2  # "StateBlock line offsets"; three other words make a sentence
MAX_DEFINITION_PHRASE = 5  # "where is the Heart class defined"
MAX_WORDS_AROUND = 3  # "where is ValueError raised", "which function logs "…""
_UNDERSTAND = re.compile(
    r"\b(?:how|why|explain|explains|explanation|architecture|overview|walk\s+me\s+through|what\s+happens)\b",
    re.IGNORECASE,
)
_SIMILAR = re.compile(
    r"\bsimilar\b|\blike\s+this\b|\bsame\s+as\b|\bresembl\w*|\banalogous\b|\bduplicates?\s+of\b"
    r"|\bother\s+(?:implementations|versions|variants)\s+of\b|\bcode\s+like\b"
    # "a timer like the gevent one", "backends like that": a thing like another
    # thing; not "I would like the …"
    r"|(?<!would\s)(?<!\bd\s)(?<!\bi\s)(?<!\bwe\s)(?<!\byou\s)\blike\s+(?:the|that|those|these)\s+\w+",
    re.IGNORECASE,
)
_WORD = re.compile(r"[\w$]+")
_SENTENCE_BREAK = re.compile(r"[.!?]\s+[A-Z(\"'`]")
STOPWORDS = frozenset(
    """a an the of to in on at for and or but not no is are was were be been being do does did done
    how why what which who whom whose where when that this these those it its there here i we you
    me my our your they them their he she his her with by from into onto about as than then so if
    can could should would will shall may might must has have had get gets got any all some each
    every such via also just only very too up down out over under again once code function functions
    method methods class classes defined definition define declared find show locate where's whats
    what's does work works working happen happens happening used use uses using called call calls
    caller callers usages usage references reference referenced which thing things one ones
    implemented implementation implement between inside within give list tell explain
    """.split()  # noqa: SIM905 - a block of words reads better than 150 quoted ones
)

THRESHOLD_DIRECT = 0.85


@dataclass(frozen=True)
class Intent:
    """The classifier's verdict, and what it read in the query."""

    name: str
    confidence: float
    rule: str  # the rule that matched, for the explanation
    subjects: tuple[str, ...] = ()  # names the question is about (``who calls X`` → X)
    literals: tuple[str, ...] = ()  # quoted strings and error tokens, to match as written
    ordinary: bool = True  # only the winning rule fired: the direct route may be taken
    calls_only: bool = False  # a references question about calls ("who calls"), not every use
    anchor: str = ""  # what the code should be similar to ("similar to the redis backend" → "the redis backend")

    @property
    def direct(self) -> bool:
        return self.ordinary and self.confidence >= THRESHOLD_DIRECT


def identifiers(query: str) -> list[str]:
    """Code-like names in the query, in order: `backticked`, dotted.names,
    snake_case, camelCase / PascalCase, ``name()``, a capitalised word after
    the first, and the name in "where is NAME defined"."""
    out: list[str] = []
    for match in _IDENTIFIER.finditer(query):
        name = match.group(match.lastgroup or 0).strip("`").rstrip("()")
        if match.lastgroup in ("pascal", "lead") and (name.lower() in STOPWORDS or name in _CONSTANTS):
            continue
        if match.lastgroup == "dotted" and _FILE_SUFFIX.search(name):
            continue
        if name and name not in out:
            out.append(name)
    defined = _DEFINED_NAME.search(query)
    if defined:
        name = defined.group("name") or defined.group("name2")
        if name.lower() not in STOPWORDS and name not in out:
            out.append(name)
    return out


def literals(query: str) -> list[str]:
    """Quoted strings first, then error tokens (``ValueError``, ``ECONNREFUSED``)."""
    out = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(query)]
    out += [m.group(0).rstrip(":") for m in _ERROR_TOKEN.finditer(query)]
    return list(dict.fromkeys(x.strip() for x in out if x.strip()))


def content_words(text: str) -> list[str]:
    """The words of ``text`` that say something (no stopwords), in order."""
    return list(dict.fromkeys(w for w in _WORD.findall(text) if w.lower() not in STOPWORDS))


def _subjects_after(query: str, match: re.Match[str]) -> tuple[str, ...]:
    """The names a references/impact question is about: identifiers anywhere,
    else the content words that follow the cue."""
    named = identifiers(query)
    if named:
        return tuple(named)
    tail = query[match.end() :] if match.end() < len(query) else query
    return tuple(content_words(tail) or content_words(query))


Rule = Callable[[str], "Intent | None"]


def _definition_prefix(query: str) -> Intent | None:
    m = _DEFINITION_PREFIX.match(query)
    if m is None:
        return None
    return Intent("find_definition", 0.95, "definition keyword", (m.group("name"),))


def is_description(query: str) -> bool:
    """Two sentences or more: a description of behaviour ("This function is
    called when an account is created. It checks …"), not a question about
    callers or impact, whatever words it uses."""
    return _SENTENCE_BREAK.search(query.strip()) is not None


# A sentence whose subject is such a phrase and that goes on with what they
# must or can do states a duty, it does not ask for them: "Subclasses of
# `RuleFactory` have to override this method and return an iterable of
# rules" describes ``get_rules`` (``STATED_REFERENCES``).
STATED_REFERENCES = True
_STATED = re.compile(
    r"^\W*(?:usages?|uses|references|callers|call\s*sites|invocations|importers|subclasses)\s+(?:of|to|for)\s+"
    r"(?:the\s+)?\S+\s+(?:(?:have|has|need|needs|ought)\s+to|must|should|shall|can|may|will|might)\b",
    re.IGNORECASE,
)


def _references(query: str) -> Intent | None:
    m = _REFERENCES.search(query)
    if m is None or is_description(query):
        return None
    if STATED_REFERENCES and _STATED.match(query):
        return None
    calls_only = bool(_CALL_WORDS.search(m.group(0)))
    return Intent("find_references", 0.90, "references phrase", _subjects_after(query, m), calls_only=calls_only)


def _impact(query: str) -> Intent | None:
    m = _IMPACT.search(query)
    if m is None or is_description(query):
        return None
    return Intent("impact_analysis", 0.90, "impact phrase", _subjects_after(query, m))


def _exact(query: str) -> Intent | None:
    """A quoted string or an error token *as the question*: the quote (or
    the quotes) with at most a few words around it ("which function logs
    "Soft time limit""), or a log line that starts with the error token
    (``KeyError: 'unknown bootstep'``, ``ECONNREFUSED when …``), or the
    token with a few words (``where is ValueError raised``). A sentence
    that mentions one ("returns an HTTPError instance", "the "name" key")
    describes behaviour: it is fused, and the text modality still looks for
    the literal."""
    found = literals(query)
    if not found:
        return None
    if _QUOTED.search(query):
        if len(_words_outside(query, _QUOTED)) <= MAX_WORDS_AROUND:
            return Intent("exact_match", 0.90, "quoted string", tuple(identifiers(query)), tuple(found))
        return None
    if _ERROR_TOKEN.match(query.strip()) or len(_words_outside(query, _ERROR_TOKEN)) <= MAX_WORDS_AROUND:
        return Intent("exact_match", 0.85, "error token", tuple(identifiers(query)), tuple(found))
    return None


def _words_outside(query: str, pattern: re.Pattern[str]) -> list[str]:
    return _WORD.findall(pattern.sub(" ", query))


def _identifier(query: str) -> Intent | None:
    """A name as the question: the query is the name, or the name with a
    definition phrase around it ("where is the Heart class defined") → 0.80;
    with one or two other words ("StateBlock line offsets") → 0.70. A
    sentence that names something ("This function returns the RoutesMapper
    of the app") is not: it describes behaviour, and is fused as
    understand_code with the names as its subjects."""
    named = identifiers(query)
    if not named:
        return None
    parts = {p.lower() for n in named for p in _WORD.findall(n)} | {n.lower() for n in named}
    around = [w for w in _WORD.findall(query) if w.lower() not in parts]
    if len(around) > MAX_DEFINITION_PHRASE:
        return None  # "This function is a method of the BatchPayloadSchema class."
    rest = [w for w in around if w.lower() not in _DEFINITION_WORDS]
    if not rest:
        return Intent("find_definition", 0.80, "identifier", tuple(named))
    if len(rest) <= MAX_WORDS_AROUND_NAME:
        return Intent("find_definition", 0.70, "identifier", tuple(named))
    return None


def _understand(query: str) -> Intent | None:
    if _UNDERSTAND.search(query) is None:
        return None
    return Intent("understand_code", 0.75, "how/why/explain")


# "but" and what the code does otherwise, not a restriction ("… but for times", "… but in the API")
_BUT = re.compile(r"\bbut\s+(?!(?:for|in|with|without|using|from|on|of|at|to|the|a|an|not)\b)\w", re.IGNORECASE)


def _similar(query: str) -> Intent | None:
    """Not in a description of several sentences: "This is effectively the
    same as running `checkpoint`" compares what the code does with other
    code; it does not ask for code like it. Nor when a "but" and a verb
    follow the cue: "Similar to `invoke` but fills in default keyword
    arguments …" says how the code differs from the other, which
    describes it ("code similar to parse_date but for times" still asks
    for code like it)."""
    m = _SIMILAR.search(query)
    if m is None or is_description(query) or _BUT.search(query, m.end()):
        return None
    return Intent("find_similar", 0.70, "similar phrase", anchor=_anchor_text(query, m))


def _anchor_text(query: str, match: re.Match[str]) -> str:
    """What the code should resemble: the words after the similarity cue,
    without articles; "one(s)" stands for the thing compared ("a timer like
    the gevent one" → "gevent timer"). Empty when the cue ends the query."""
    if re.search(r"\s(?:the|that|those|these)\s+\w+$", match.group(0)):
        tail = query[match.start() :].split(None, 2)[-1]  # the cue swallowed the first word
    else:
        tail = query[match.end() :]
    words = content_words(tail)
    if re.search(r"\bones?\W*$", tail):
        words += content_words(query[: match.start()])
    return " ".join(dict.fromkeys(words))


RULES: tuple[Rule, ...] = (
    _definition_prefix,
    _references,
    _impact,
    _exact,
    _identifier,
    _understand,
    _similar,
)
# Rules whose firing alongside the winner makes a query compound (two
# questions in one). The identifier rule is not one: most questions name
# something.
_CUE_RULES = frozenset({_references, _impact, _exact, _understand, _similar})


def classify(query: str) -> Intent:
    """The first rule that matches, with its confidence; understand_code at
    0.40 when none does."""
    for position, rule in enumerate(RULES):
        intent = rule(query)
        if intent is None:
            continue
        others = [r for r in RULES[position + 1 :] if r in _CUE_RULES and r(query) is not None]
        return _with_subjects(intent, query, ordinary=not others)
    return _with_subjects(Intent("understand_code", 0.40, "fallback"), query, ordinary=True)


def overridden(query: str, name: str) -> Intent:
    """``--intent NAME``: the user's intent, taken as certain; always fused
    (the user asked for that intent's blend, not for one engine)."""
    if name not in INTENTS:
        raise ValueError(f"unknown intent {name!r}; choose from {', '.join(INTENTS)}")
    found = classify(query)
    similar = _similar(query)
    return replace(
        found,
        name=name,
        confidence=1.0,
        rule="--intent",
        ordinary=False,
        anchor=similar.anchor if similar is not None else "",
    )


def _with_subjects(intent: Intent, query: str, *, ordinary: bool) -> Intent:
    return replace(
        intent,
        subjects=intent.subjects or tuple(identifiers(query)),
        literals=intent.literals or tuple(literals(query)),
        ordinary=ordinary,
    )
