"""The class a question names, read as context for its members
(docs/search.md, "What is the answer"): "… in the SplayList instance",
"… of the Celery class" asks for a method of that class, not for the class.

- ``read_context``: which classes the question names (and does not ask for);
- ``members_by_meaning`` and ``members_by_name``: their methods as two more
  ranked lists (by cosine similarity to the question, by the words of their
  names), since a class has tens of methods and the index's nearest 50
  often miss the one described;
- ``namesake_alias``: a method of another class that the named class also
  defines counts as the named class's own;
- ``read_compared``: the names the question compares its answer with;
- ``conversion_target``: what a "Convert … into …" question converts into
  (``to_X`` / ``as_X`` members are named by it).

``multimodal.search`` fuses the lists; the factors (``CONTEXT_FACTOR``,
``MEMBER_FACTOR``) are its own.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from cartog_ci.domain import Symbol
from cartog_ci.domain.vectors import as_floats, dot, norm
from cartog_ci.search import modalities
from cartog_ci.search.declarations import parameter_names
from cartog_ci.search.intent import STOPWORDS, Intent
from cartog_ci.search.names import (
    RETURN_VERBS,
    first_sentence,
    hands_back,
    is_special,
    name_words,
    question_lead,
    says_protocol,
    same_word,
    says_special,
    verb_and_after,
)
from cartog_ci.store.search import words_of

if TYPE_CHECKING:  # the search's state, for type checkers only
    from array import array

    from cartog_ci.domain.vectors import Vector
    from cartog_ci.search.multimodal import Run

CONTEXT_INTENTS = frozenset({"understand_code"})
# A name the question compares its answer with ("Like `find_object` but
# sets …", "Similar to `invoke` but …", "unlike with `checkpoint`", "As with
# `addBeforeCommitHook`") is not the answer either: it counts
# CONTEXT_FACTOR (``read_compared``).
COMPARED_INTENTS = frozenset({"understand_code"})
_COMPARED = re.compile(
    r"\b(?:like|unlike(?:\s+with)?|similar\s+to|same\s+as(?:\s+\w+ing)?|as\s+with|as\s+for|instead\s+of|rather\s+than)"
    r"\s+`?([A-Za-z_][\w.]*)`?",
    re.IGNORECASE,
)
# … and so is a function or method a statement about behaviour writes as
# code in its first sentence ("Return iterable producing the registered
# `addAfterAbortHook` hooks" asks for ``getAfterAbortHooks``): what the
# answer uses, calls or returns the product of, not the answer, which a
# question would not name as code and then describe. Only the first
# sentence: a description's later sentences often show the method itself
# at work (``sl.__iter__()`` <==> ``iter(sl)``). Not a capitalised name (a class: ``read_context``), nor in a "how" or
# "why" question ("How does `parse_date` read time zones?" asks about it).
CODE_NAMES_USED = True
_CODE_NAME = re.compile(r"`([a-z_][A-Za-z0-9_]*)(?:\(\))?`")
# … and so is one a description refers its reader to, in any sentence, by
# a docstring's cross-reference idioms: "See `set_data`", "Calls
# `format_usage` internally", "a low-level method called by `get_usage`",
# "Use `keys` instead", "or use `make_middleware`", "should be registered
# with `with_resource` instead": another method than the one described
# (``referenced_names``). Not "calling `begin`" or "the call to `run`",
# which describe the method itself at work.
REFERENCES_NOT_ANSWER = True
_REF_NAME = r"`([a-z_][A-Za-z0-9_]*)(?:\(\))?`"
_REFERENCE = re.compile(  # the cue's words in any case, the name not capitalised (a class is context)
    rf"(?i:\bsee(?:\s+also)?:?\s+(?:the\s+)?){_REF_NAME}"
    rf"|(?i:\bcall(?:s|ed\s+by)\s+(?:the\s+)?){_REF_NAME}"
    rf"|(?i:\bor\s+use\s+){_REF_NAME}"
    rf"|{_REF_NAME}(?i:\s+instead\b)"
)
# … and so is one a description's later sentences name in prose as "the
# NAME function" or "the NAME method", NAME an identifier (snake_case or
# camelCase): "It then iterates over each URI in the list and calls the
# check_uri function to validate each URI" describes ``check_uris``,
# "… passing the request object … as arguments to the send_activation
# method" ``on_account_created``. Once the first sentence has said what
# is described ("This function …"), a later sentence names by its
# identifier the code the answer uses, as a docstring writes it as code
# (``REFERENCES_NOT_ANSWER``, which does not spare a namesake of the
# answer either: "It calls the to_info_dict method of each parameter" in
# a composite's ``to_info_dict`` would count it too; none of the class and
# dev sets' 1,830 questions does). Not a special method (``__init__``:
# "calls the __init__ method of its parent" describes an ``__init__``),
# nor in the first sentence (the question may name what it asks about
# there).
CALLEES_IN_PROSE = True
_PROSE_CALLEE = re.compile(
    r"\bthe\s+`?([a-z_][A-Za-z0-9]*(?:_[A-Za-z0-9_]*[A-Za-z0-9]|[a-z][A-Z][A-Za-z0-9_]*))(?:\(\))?`?\s+(?:function|method)s?\b"
)
# … and its methods, by meaning alone, vote as one more list ("members"),
# and by the words of their names ("member names").
MEMBERS_WEIGHT = 0.5
MEMBER_NAMES_WEIGHT = 0.5
# The member names list votes with a k of its own, its members that say
# the question equally well sharing a place: a name that says all of the
# question's verb ("Notify all …": ``notify_all``) is more evidence than
# one that says part of it (``notify``), which at the fusion's k (40) its
# next place barely told (``weighted_rrf``, ``own_k``). None: the fusion's k.
MEMBER_NAMES_K: int | None = 10
# A method of another class (not a sibling) that a named class also defines
# is read as the named class's own: its votes are the named class's
# (``namesake_alias``).
NAMESAKE_TRANSFER = True
# … and in the lists that judge meaning too, the members list's cosine and
# the re-ranker's (cosine and BM25): there the method is read by its own
# text, which an override without a docstring makes code alone, while
# its namesake (an interface's or a base's documented method) says what
# it does, as ``inspect.getdoc`` reads an override's documentation from
# the method it overrides. A member counts the better of its own reading
# and its namesake's (``with_namesakes``, ``members_by_meaning``).
NAMESAKE_MEANING = True
# A special method is named by the question's verb (and the word after
# it) only, as the data model calls it (search/names.py): "Finds the
# outermost context" is no ``__enter__``, "Return number of occurrences"
# no ``__len__``, "Create an iterator of values …" no ``__init__``; when
# off, by any word of its data-model phrases in the lead, as a method by
# the words of its name (``members_by_name``).
SPECIAL_BY_VERB = True
# Only the question's lead says what is done: its words up to the third that
# is not a stop word ("Set an access control …" is not ``list_folders``,
# however the sentence ends: "… list (ACL) for a user on a folder").
MEMBER_NAME_LEAD = 3
# … and when the lead is a verb that does something ("Increment the
# semaphore value", "Pause the current task", "Finds the outermost
# context"), a method is named by that verb, not by its object: the words
# after it name the answer only after a verb that hands a value back
# ("Return a shallow copy": ``copy``) or in a lead without a verb ("The
# total number of tokens": ``total_tokens``). Off: any word of the lead.
NAMED_BY_ACTION_VERB = True
# A method's name that runs words together (``popitem``, ``setdefault``)
# is read as those words when they are the question's ("Pop an item …" is
# ``popitem``, not ``pop``).
NAMES_RUN_TOGETHER = True
# A word of a method's name, three letters or more, that starts a word of
# the question's lead three letters longer at least (an inflection,
# "closes" for ``close``, is none), neither a function word ("for" does
# not abbreviate "Formats"), is that word abbreviated ("Returns the
# application iterator …" is ``get_app_iter``, "The mimetype parameters
# as dict" ``mimetype_params``): names abbreviate what descriptions write
# in full.
ABBREVIATED_NAMES = True
# A word of the lead written as words run together, seven letters or more,
# is a kind of its last part, its head ("subcommand" is a command,
# "filename" a name): a name's word that is that head (four letters or
# more, after three at least) is that word ("Returns a list of subcommand
# names" names ``list_commands``). A negating prefix makes no kind of its
# head ("disconnect" is no ``connect``).
COMPOUND_HEADS = True
# A verb's third person and a noun's plural are the word ("Writes a usage
# line" names ``write_usage``, "Closes the file" ``close``, "Adds a new
# value" ``add``, "all values" ``value``): the crude stem (``modalities.stem``)
# cut "writes" to "writ" but left "write", and left short words ("adds")
# whole, so the member names list missed them. The -s, -es, -ies of English
# spelling come off first (-es only after s, x, z, ch, sh and o, else -s:
# "closes" is "close"), on both sides; a participle ("acquired") is not
# the verb, as before.
INFLECTED_NAMES = True
# A name's words the question does not say are counted against its first
# sentence, not its lead only ("Gets short help … the long help string":
# ``get_short_help_str`` says nothing unsaid, as ``get_help``, and more of
# the lead).
UNUSED_BY_SENTENCE = True
# … and of two twins whose names differ in the number of one word (``key``
# / ``keys``), the one the lead says in the other number is not named by it
# ("Function used to extract comparison key from keys": ``key``).
NUMBER_OF_THE_LEAD = True
_NEGATING = frozenset({"dis", "non", "anti", "mis", "counter"})
# A method of Python's container and I/O protocols is named by the standard
# library documentation's wording of it (search/names.py, ``says_protocol``):
# "Remove all values from …" is ``clear``, "Remove … if it is a member"
# ``discard``, "Remove and return …" a ``pop``; before the methods the
# question's verb names by their own name (``remove``).
PROTOCOL_WORDING = True
# … and when it names one, a member named by the question's verb alone is
# not what the question asks ("Remove all values from sorted list" is
# ``clear``, not ``remove``, "Remove `value` … if it is a member"
# ``discard``): it counts VERB_ONLY_FACTOR (search/multimodal.py).
PROTOCOL_OVER_VERB = True
# … and, when the lead's verb hands a value back ("Return an iterator over
# the keys …" is ``__iter__``, not ``keys``; "Return the index … or -1" is
# ``find``, not ``index``), so do the members named by the lead's other words.
PROTOCOL_OVER_WORDS = True
# "Convert the `ETags` object into a python set" asks for ``as_set``,
# "Converts a DropTableOp instance into a Table instance" for ``to_table``:
# Python's naming of a conversion (``to_dict``, ``as_set``) is the word of
# what it converts into, after ``to_`` or ``as_``: such a member is named
# by the head of the noun phrase after the conversion verb's "into" / "to"
# (``conversion_target``), before the methods its other words name. A
# relative clause ends the noun phrase: "… into a tuple that represents the
# differences between the existing column and the modified column" converts
# into a "tuple" (``AlterColumnOp.to_diff_tuple``), not a "column".
CONVERSION_NAMES = True
_CONVERSION = re.compile(
    r"^(?:this\s+function\s+|the\s+method\s+)?(?:convert|turn|transform|cast|coerce)(?:s|ed|ing)?\b[^.]*?\b(?:into|to)\s+"
    r"(?:an?\s+|the\s+)?([\w` -]+?)(?:\s+(?:instances?|objects?))?(?=\s+(?:in|of|for|with|from|on|by|and|using|that|which)\b|[.,;:(]|$)",
    re.IGNORECASE,
)
_CONVERSION_PREFIXES = ("to", "as")
# … and an alternate constructor is named by what it makes its instance
# from (Python's ``from_X`` classmethods: ``datetime.fromtimestamp``,
# ``dict.fromkeys``): "This function creates a DropTableOp instance based
# on the given table" asks for ``from_table``, "Build a config from the
# given file" for ``from_file`` (``creation_source``).
ALTERNATE_CONSTRUCTORS = True
_CREATION = re.compile(
    r"^(?:this\s+function\s+|the\s+method\s+|it\s+)?(?:create|make|build|construct|instantiate)(?:s|d|ed|ing)?\b[^.]*?"
    r"\b(?:from|based\s+on|out\s+of)\s+(?:an?\s+|the\s+)?(?:given\s+|specified\s+|provided\s+)?"
    r"([\w` -]+?)(?:\s+(?:instances?|objects?))?(?:\s+(?:given|provided|specified|supplied))?"
    r"(?=\s+(?:in|of|for|with|from|on|by|and|using|that|which)\b|[.,;:(]|$)",
    re.IGNORECASE,
)
# A class the question names in words, not as code ("Create a directory in
# the Hadoop filesystem" for ``HadoopFilesystem``, "… in the local
# filesystem" for ``LocalFilesystem``) is context too, when the question's
# lead is a verb (it asks what is done, not what a thing is): a candidate
# class of the modalities' lists whose name has two words or more, all of
# them written one after the other in the question (``named_in_words``).
CLASS_NAMED_IN_WORDS = True
# A class the question names as what its answer makes or returns ("… parsed
# into an `Authorization` object", "as a `ContentRange` object", "Return a
# new `MapAdapter` …") is not the class whose member it asks for, when the
# question names another class ("Request: …", "… in the Map instance"):
# only the other is context (``read_context``).
PRODUCTS_NOT_CONTEXT = True
# In a description of several sentences, only a class its first sentence
# names is the class whose member it asks for: the later sentences say how
# the code works, with what ("It uses a MigrationContext object …", "…
# there is a full featured client object (`Client`) …", "adds
# HadoopFilesystem and LocalFilesystem to it"), as for the text and
# structural modalities (search/multimodal.py, ``_names_are_context``).
FIRST_SENTENCE_CONTEXT = True
_NOUN_PHRASE_OPENERS = frozenset({"the", "a", "an"})
_KIND_WORDS = frozenset({"function", "method", "property"})
CLASS_KINDS = frozenset({"class", "struct", "interface", "trait", "enum"})
# The intent classifier's stop words (search/intent.py) include the words
# of a question about the code base ("find", "show", "list", "get",
# "called", "usage" …: "find the functions that …", "who calls …"); in a
# statement about what a method does they are what it does, and the words
# of its name ("Get the current transaction": ``get``, "Find the …":
# ``find``). The member names list reads them as words
# (``members_by_name``). Not "list": "Return a list of …" is what most
# methods that return a list say, and it put ``list_folders`` over the
# unanimous ``getacl`` (dev set); nor "used", "using": "Function used to
# extract comparison key" is ``key``.
CODE_VERBS_NAME_MEMBERS = True
_CODE_VERBS = frozenset(
    """get gets got find show call calls called use usage give define implement
    work works locate reference references""".split()
)
_NAME_STOPWORDS = STOPWORDS - _CODE_VERBS
# … and a kind word in the plural is what the code handles, a word like any
# other ("Returns the valid methods that match for a given path" is
# ``allowed_methods``, not ``match``): a question names the kind it asks
# for in the singular ("This method …", "the function that …")
# (``PLURAL_KINDS_NAME_MEMBERS``). It names a member, and it is one of the
# lead's words (``MEMBER_NAME_LEAD``), which then ends before "match".
PLURAL_KINDS_NAME_MEMBERS = True
_PLURAL_KINDS = frozenset({"methods", "functions", "classes"})



def without_named_kinds(query: str, intent: Intent) -> str:
    """The question without the kind words that go with a name ("of the
    Celery class", "the SplayList instance", "method get_loop"): those
    say what the name is, not what is asked for."""
    for name in intent.subjects:
        word = re.escape(name)
        query = re.sub(
            rf"\b{word}\s+(?:class|instance|object|method|function|type)s?\b|\b(?:class|method|function)\s+{word}\b",
            " ",
            query,
        )
    return query


# A base that a later sentence names owns the members the first sentence's
# class inherits from it (``read_context``), but a method the first
# sentence's class defines again is its own override: the base's is read as
# a namesake of it like any other. "CombinedMultiDict: Return the list of
# items for a given key. If that key is not in the `MultiDict`, …" had
# ``MultiDict.getlist`` first, whose docstring the question is.
OVERRIDES_OF_BASES = True


def namesake_alias(run: Run) -> dict[str, str]:
    """A method of another class that a class the question names also
    defines -> the named class's own: "… in the File instance" asks for
    ``File.to_info_dict``, not ``Parameter.to_info_dict``, whose docstring
    reads like the question (the override often has none: "See
    ITransaction"). Not a special method (every class has ``__init__``),
    nor one of another subclass of the named class's bases:
    ``CreateIndexOp.reverse`` is the opposite of ``DropIndexOp.reverse``."""
    own: dict[str, str] = {}
    lead_own: dict[str, str] = {}  # … of the classes the first sentence names
    for m in context_members(run):
        own.setdefault(m.name, m.id)
        if m.parent_id in run.lead_owners:
            lead_own.setdefault(m.name, m.id)
    ids = list(dict.fromkeys(i for items in run.lists.values() for i in items))
    context = run.owners
    namesakes = {
        i: s
        for i, s in run.store.symbols(ids).items()
        if s.kind == "method"
        and s.name in own
        and (s.parent_id not in context or (OVERRIDES_OF_BASES and s.parent_id not in run.lead_owners and s.name in lead_own))
        and not is_special(s.name)
    }
    if not namesakes:
        return {}
    bases = {b for cls in sorted(context) for b in run.store.bases_of(cls)}
    out = {}
    for i, s in namesakes.items():
        parent = s.parent_id or ""
        if parent not in bases and bases & set(run.store.bases_of(parent)):
            continue  # a sibling class
        out[i] = lead_own.get(s.name, own[s.name]) if OVERRIDES_OF_BASES else own[s.name]
    return out


def context_members(run: Run) -> list[Symbol]:
    """The methods of the classes the question names as context (read once
    per search: three lists use them)."""
    if not run.owners:
        return []
    if run.members is None:
        classes = run.store.symbols(list(run.owners))
        run.members = [
            s
            for cls in classes.values()
            for s in run.store.symbols_in_file(cls.file)
            if s.parent_id == cls.id and s.kind in ("method", "function")
        ]
    return run.members


def members_by_name(run: Run) -> list[str]:
    """The methods of the classes the question names as context whose name
    says what the question asks ("Receive the next item in the
    MemoryObjectReceiveStream instance" → ``receive``, not
    ``receive_nowait``): those with a word of their name in the question's
    lead (``MEMBER_NAME_LEAD``; stems compared; one word at least that is
    not a stop word), the one
    whose word comes first in the question first ("Acquire a token …":
    ``acquire`` before ``available_tokens``), then fewest words of their
    name that the question does not use (stop words aside: ``from_index``
    uses all of "… based on the given index"), then most words used, then
    name.
    A method is named for what it does; a class has tens of
    them, and the one described often has no docstring, so that its text
    reads less like the question than a sibling's."""
    members = context_members(run)
    if not members or MEMBER_NAMES_WEIGHT <= 0:
        return []
    # the class as the question names it ("in the SortedDict instance") is not a word of the question
    text = without_named_kinds(run.query, run.intent)
    for name in run.intent.subjects:
        text = re.sub(rf"(?<![\w.]){re.escape(name)}(?![\w])", " ", text)
    words = re.findall(r"[A-Za-z0-9]+", text)
    stopwords = _NAME_STOPWORDS if CODE_VERBS_NAME_MEMBERS else STOPWORDS
    if PLURAL_KINDS_NAME_MEMBERS:
        plural = {w for w in re.findall(r"[a-z]+", run.query.lower()) if w in _PLURAL_KINDS}
        # the plural and its stem, which a name's word is compared with ("methods" / ``allowed_methods``)
        stopwords = stopwords - plural - {_stem(w) for w in plural}
    asked: dict[str, int] = {}  # stem -> its first position in the question's lead
    forms: dict[str, str] = {}  # a lead word as written or as its stem -> its stem
    content = 0
    for n, word in enumerate(words):
        if content == MEMBER_NAME_LEAD:
            break
        content += word.lower() not in stopwords
        stem = _stem(word)
        asked.setdefault(stem, n)
        forms.update({word.lower(): stem, stem: stem})
        if COMPOUND_HEADS and len(stem) >= 7:
            # "subcommand" is a command: its head, the last part, names it too
            for size in range(4, len(stem) - 2):
                if stem[:-size] not in _NEGATING:
                    forms.setdefault(stem[-size:], stem)
    # the lead's words as the crude stem reads them: a name's word that is one is said in the lead's number
    exact = {modalities.stem(w).lower() for w in words[: len(asked) and max(asked.values()) + 1]} if INFLECTED_NAMES else set()
    said = None
    if UNUSED_BY_SENTENCE:
        # the words of the first sentence: a name's word the lead does not say may be said after it
        said = {}
        for word in re.findall(r"[A-Za-z0-9]+", first_sentence(text)):
            said.update({word.lower(): _stem(word), _stem(word): _stem(word)})
        said.update(forms)
    at, verb, after = verb_and_after(words, stopwords)
    # the word a method must be named by, when the lead's verb does something
    acting = (
        _stem(words[at])
        if NAMED_BY_ACTION_VERB and verb is not None and verb not in RETURN_VERBS and not _opens_noun_phrase(words)
        else None
    )
    back = hands_back(run.query)
    lead = question_lead(run.query) if PROTOCOL_WORDING else ""
    target = conversion_target(run.query) if CONVERSION_NAMES else None
    source = creation_source(run.query) if ALTERNATE_CONSTRUCTORS else None
    ranked = []
    worded: set[str] = set()  # the members the standard library's wording names
    for s in members:
        parts = s.name.lower().split("_")
        if target and len(parts) >= 2 and parts[0] in _CONVERSION_PREFIXES and same_word(parts[-1], target):
            # what it converts into is its last word; fewest other words the question does not say first
            unsaid = len({_stem(w) for w in parts[1:-1]} - asked.keys())
            ranked.append((at, -1, unsaid, -1, 0, s.name, s.id))
            continue
        if source and len(parts) >= 2 and parts[0] == "from" and same_word(parts[-1], source):
            # what it makes its instance from is its last word, as a conversion's target
            unsaid = len({_stem(w) for w in parts[1:-1]} - asked.keys())
            ranked.append((at, -1, unsaid, -1, 0, s.name, s.id))
            continue
        phrase = says_protocol(s.name, lead) if lead else None
        if phrase is not None:
            # its wording says more of the question than a name that is its verb alone
            ranked.append((at, -1, 0, phrase, 0, s.name, s.id))
            worded.add(s.id)
            continue
        if SPECIAL_BY_VERB and is_special(s.name) and verb is not None:
            own = words_of(s.qualified_name.rsplit(".", 2)[-2] if "." in s.qualified_name else "").split()
            phrase = says_special(s.name, verb, after, own, hands_back=back)
            if phrase is not None:
                # after a method the verb names by its own name ("Remove …": ``remove``, then ``__delitem__``)
                ranked.append((at, 0, 1, phrase, 0, s.name, s.id))
            continue
        named = _name_stems(s.name, forms)
        hit = named & asked.keys()
        if acting is not None and acting not in hit:
            continue
        if hit - stopwords:
            first = min(asked[w] for w in hit - stopwords)
            # a special method's words are alternatives ("string representation repr"): none is missing
            if is_special(s.name):
                unused = 0
            elif said is not None:
                unused = len(_name_stems(s.name, said) - set(said.values()) - stopwords)
            else:
                unused = len(named - hit - stopwords)
            # said in the lead's number ("comparison key": ``key``, then ``keys``)
            inflected = len(hit - {_stem(w) for w in name_words(s.name) if modalities.stem(w).lower() in exact})
            ranked.append(
                (first, unused, int(SPECIAL_BY_VERB and is_special(s.name)), -len(hit), inflected, s.name, s.id)
            )
    if PROTOCOL_OVER_VERB and worded and acting is not None:
        # "Remove all values from …" is ``clear``: ``remove`` is named by the verb alone
        run.verb_only = frozenset(
            s.id for s in members if s.id not in worded and acting in _name_stems(s.name, forms)
        )
    elif PROTOCOL_OVER_WORDS and worded and acting is None:
        # the members named by the lead's words, the wording's aside
        run.verb_only = frozenset(i for *_, i in ranked if i not in worded)
    if INFLECTED_NAMES and NUMBER_OF_THE_LEAD:
        # a twin named in the other number than the lead says, beside one in its number, is not named by it
        in_its_number = {_in_singular(entry[-2]) for entry in ranked if entry[4] == 0}
        ranked = [entry for entry in ranked if entry[4] == 0 or _in_singular(entry[-2]) not in in_its_number]
    ranked = sorted(ranked)[: run.candidates]
    # members that say the question equally well share a place (their names' order is no evidence)
    tiers: dict[tuple[int, ...], int] = {}
    run.member_tiers = {i: tiers.setdefault(tuple(key), n) for n, (*key, _name, i) in enumerate(ranked)}
    return [i for *_, i in ranked]


def creation_source(question: str) -> str | None:
    """The head word of what a question that creates something makes it
    from ("This function creates a DropTableOp instance based on the given
    table": "table"), or None."""
    match = _CREATION.search(question_lead(question))
    if match is None:
        return None
    words = re.findall(r"[A-Za-z0-9]+", match.group(1))
    return words[-1].lower() if words else None


def conversion_target(question: str) -> str | None:
    """The head word of what a conversion question converts into ("Convert
    the stored values into a cache control header": "header"), or None."""
    match = _CONVERSION.search(question_lead(question))
    if match is None:
        return None
    words = re.findall(r"[A-Za-z0-9]+", match.group(1))
    return words[-1].lower() if words else None


def _name_stems(name: str, forms: Mapping[str, str]) -> set[str]:
    """The stems of the words of a method's name; a word written as one
    that is words of the question's lead run together (``popitem`` for
    "Pop an item …", ``setlist`` for "Set the list …") counts as those; an
    abbreviation (``ABBREVIATED_NAMES``) and a compound's head
    (``COMPOUND_HEADS``) count as the lead's word."""
    out = set()
    for word in name_words(name):
        stem = _stem(word)
        parts = None if stem in forms else (NAMES_RUN_TOGETHER and _split_into(word.lower(), forms))
        if not parts and ABBREVIATED_NAMES and stem not in forms:
            parts = _abbreviated(stem, forms)
        out.update(parts or [forms.get(stem, stem) if COMPOUND_HEADS else stem])
    return out


def _stem(word: str) -> str:
    """The lower-case stem a member's name and the question's lead are
    compared by (``INFLECTED_NAMES``)."""
    return modalities.stem(singular(word) if INFLECTED_NAMES else word).lower()


def _in_singular(name: str) -> tuple[str, ...]:
    """The words of a member's name, each in the singular (``NUMBER_OF_THE_LEAD``)."""
    return tuple(singular(w).lower() for w in name_words(name))


def singular(word: str) -> str:
    """``word`` without the -s of a third person or a plural, as English
    spells it ("writes" → "write", "matches" → "match", "queries" →
    "query", "adds" → "add"); a word that is not one ("class", "status",
    "is", "has") as it is."""
    lowered = word.lower()
    if len(lowered) < 4 or not lowered.endswith("s") or lowered.endswith(("ss", "us", "is")):
        return word
    if lowered.endswith("ies") and len(lowered) > 4:
        return lowered[:-3] + "y"
    if lowered.endswith(("sses", "xes", "zes", "ches", "shes", "oes")):
        return lowered[:-2]
    return lowered[:-1]


def _abbreviated(stem: str, forms: Mapping[str, str]) -> list[str] | None:
    """The stem of the lead word ``stem`` abbreviates (``ABBREVIATED_NAMES``), or None."""
    if len(stem) < 3 or stem in _FUNCTION_WORDS:
        return None
    for word, full in forms.items():
        # three letters more at least: an inflection ("closes", "adds") is no abbreviation
        if len(word) >= len(stem) + 3 and word.startswith(stem) and word not in _FUNCTION_WORDS:
            return [full]
    return None


def _split_into(word: str, forms: Mapping[str, str]) -> list[str] | None:
    """``word`` as two or more of ``forms`` written one after the other
    (their stems), or None."""
    for end in range(len(word) - 1, 1, -1):
        head = forms.get(word[:end])
        if head is None:
            continue
        rest = word[end:]
        if rest in forms:
            return [head, forms[rest]]
        tail = _split_into(rest, forms)
        if tail:
            return [head, *tail]
    return None


def verb_led(question: str) -> bool:
    """Whether the question's first sentence (a leading "Name: " left out)
    opens with a verb ("Serialize a pair of values …", "This function
    creates …"), not a noun phrase ("The total number of …", "A splay list
    that …")."""
    words = _lead_words(question)
    _at, verb, _after = verb_and_after(words, STOPWORDS)
    return verb is not None and not _opens_noun_phrase(words)


@functools.lru_cache(maxsize=64)  # asked for each candidate (``unasked_constructor``)
def _lead_words(question: str) -> tuple[str, ...]:
    """The words of the question's first sentence, a leading "Name: " left out."""
    return tuple(re.findall(r"[A-Za-z0-9]+", re.sub(r"^[\w.]+:\s+", "", first_sentence(question))))


_NOWAIT = "_nowait"
_SAYS_NOWAIT = re.compile(
    r"\b(?:without\s+(?:blocking|waiting|wait)|immediately|non-?blocking|nowait|never\s+blocks?)\b", re.IGNORECASE
)


def nowait_mismatch(run: Run, symbol: Symbol) -> bool:
    """``symbol`` is a ``…_nowait`` method and the question does not say
    that what it asks for does not wait ("without blocking", "immediately",
    ``_SAYS_NOWAIT``); or the question says so and ``symbol`` is the method
    a ``…_nowait`` sibling of its class is the variant of."""
    if symbol.kind not in ("method", "function"):
        return False
    says = _SAYS_NOWAIT.search(run.query) is not None
    if symbol.name.endswith(_NOWAIT):
        return not says
    if not says or symbol.kind != "method" or symbol.parent_id is None:
        return False
    if run.nowait_variants is None:
        run.nowait_variants = {}
    parent = symbol.parent_id
    if parent not in run.nowait_variants:
        cls = run.store.symbols([parent]).get(parent)
        run.nowait_variants[parent] = frozenset(
            s.name[: -len(_NOWAIT)]
            for s in (run.store.symbols_in_file(cls.file) if cls else ())
            if s.parent_id == parent and s.name.endswith(_NOWAIT)
        )
    return symbol.name in run.nowait_variants[parent]


# A private method named after a public method of its class, with or
# without words before it (``_islice`` for ``islice``, ``_partial_build``
# for ``build``, ``_fail_pin_auth`` for ``pin_auth``: its name from one of
# its words on), is that method's
# helper: a description says what the public one does, which the helper
# does a part of (often in the same words, from the same docstring). It
# counts HELPER_FACTOR (search/multimodal.py) unless the question writes
# its name; read among the members of the classes the question names
# (``private_helper``).
# A description that says its code hands a value back ("Return …", "Get
# …", "This function returns …", "… and returns it", a later sentence's
# "It then returns the …") is not answered by a method or function that
# returns none: its signature says ``-> None``, or its body has no
# ``return`` with a value and no ``yield`` (``declarations.hands_back_nothing``,
# read from the stored texts the declarations are read from). Such a
# candidate counts NO_VALUE_FACTOR (search/multimodal.py). "Returns a list
# of subcommand names …" had ``MultiCommand.format_commands`` (``-> None``)
# over ``list_commands``; "It takes the stderr as input and returns a
# dictionary …" ``MRJob.set_status`` over ``parse_mr_job_stderr``. The
# server that "will return unsolicited responses" is not the code: only
# the lead's verb, "and (then) returns", and a sentence or clause whose
# subject is the code ("It returns", "This method then returns") say it.
RETURNS_BY_BODY = True
_RETURN_LEADS = frozenset({"return", "get", "give", "yield"})
_SAYS_RETURNS = re.compile(
    r"(?:^|[.;!?]\s+|\band\s+(?:then\s+)?|\b(?:it|function|method)\s+(?:then\s+|finally\s+|also\s+)?)"
    r"(?:returns?|yields?)\s+(?!immediately\b|nothing\b|none\b)(?=[\w`\"'(])",
    re.IGNORECASE,
)


def says_returns(question: str) -> bool:
    """Whether the question says its code hands a value back (above)."""
    _at, verb, _after = verb_and_after(_lead_words(question), STOPWORDS)
    return verb in _RETURN_LEADS or _SAYS_RETURNS.search(question) is not None


# A name a description writes as code that is a parameter of a candidate
# ("Return a new sorted dict initialized from `iterable` and `value`",
# "… from `start` to `stop`": the docstring convention of writing an
# argument as code) says which of a class's methods is described: among
# the candidates that are methods of one class (or functions of one
# module), those that take fewer of the written parameters than another
# one count PARAMETER_FACTOR (search/multimodal.py). "Return an iterator
# that slices sorted list from `start` to `stop`" had ``SortedList.__iter__``
# before ``islice(start, stop, reverse)``, "Remove all values of
# `iterables` …" ``SortedSet.__delitem__`` before
# ``difference_update(*iterables)``. Not a name written as a call
# (`` `update()` ``), which is code the answer uses, nor a constructor's
# parameters: they name the instance's attributes, which a description of
# any of its methods writes as code ("Otherwise, the `type`
# `shell_complete` function is used" in ``Parameter.shell_complete``;
# ``Parameter.__init__`` takes ``type``).
PARAMETERS_WRITTEN = True
_WRITTEN_NAME = re.compile(r"`([a-z_][a-z0-9_]*)`")


def fewer_parameters(question: str, symbols: Mapping[str, Symbol]) -> set[str]:
    """The candidates that take fewer of the parameters the question writes
    as code than another method of their class (function of their module)
    among ``symbols`` (above)."""
    written = set(_WRITTEN_NAME.findall(question))
    if not written:
        return set()
    taken: dict[str, dict[str, int]] = {}
    for symbol in symbols.values():
        if symbol.parent_id is None or symbol.kind not in ("method", "function") or symbol.name in _CONSTRUCTORS:
            continue
        taken.setdefault(symbol.parent_id, {})[symbol.id] = len(parameter_names(symbol) & written)
    out: set[str] = set()
    for counts in taken.values():
        most = max(counts.values())
        if most:
            out.update(i for i, n in counts.items() if n < most)
    return out


# A property is described as the value it is, a method by what it does:
# PEP 257 has a function's docstring prescribe its effect as a command
# ("Return the pathname …"), and the Google Python style guide has a
# property's read as an attribute's, a noun phrase ("The Bigtable path.",
# not "Returns the Bigtable path."). So a first sentence that opens with a
# noun phrase that names no code that is called ("The topmost item on the
# stack", "The best match as value", "List of encodings …", "This is a
# dictionary which is shared …") or with a predicate ("`True` if the
# request method carries content", "Whether …") describes a value: among
# the candidates that are methods of one class, when one of them is a
# property, the others count PROPERTY_FACTOR (search/multimodal.py). Not a
# lead whose noun is code that is called ("A context manager that …", "A
# helper that returns …", "Function used to …"), nor a "how" or "why"
# question. "The topmost item on the stack" had ``LocalStack.pop`` before
# the property ``top``, "The best match as value" ``Accept.best_match``
# before ``best``. The converse (a property counted less for a lead that
# opens with a verb) is not done: the lead's first word is no reliable
# verb ("Cached reference of …", "Like `content_type`, but …", "If the
# response is streamed …"), and "Check if …" documents properties
# (``Request.is_json``).
PROPERTIES_BY_LEAD = True
_VALUE_PROPERTY = re.compile(r"^@(?:[\w.]*\.)?(?:property|cached_property|\w+\.getter)\b")
_PREDICATE_LEAD = re.compile(r"^(?:`?(?:true|false)`?\s+(?:if|when|iff)\b|whether\b)", re.IGNORECASE)
_THIS_IS = re.compile(r"^(?:this|it)\s+is\s+(?:an?|the)\s+", re.IGNORECASE)
_CALLED_NOUNS = frozenset(
    """function functions method methods helper helpers decorator callback wrapper generator handler factory
    shortcut alias classmethod coroutine hook context manager""".split()
)


def property_lead(question: str) -> bool:
    """Whether the question's first sentence (a leading "Name: " left out)
    describes a value (above)."""
    lead = re.sub(r"^[\w.]+:\s+", "", first_sentence(question)).strip()
    if _PREDICATE_LEAD.match(lead):
        return True
    after_this = _THIS_IS.match(lead)
    if after_this is not None:
        rest = re.findall(r"[A-Za-z0-9]+", lead[after_this.end() :])
        return bool(rest) and not _CALLED_NOUNS.intersection(w.lower() for w in rest[:3])
    lowered = [w.lower() for w in _lead_words(question)]
    if len(lowered) < 2:
        return False
    if lowered[0] in _NOUN_PHRASE_OPENERS and lowered[1] not in _KIND_WORDS:
        # "The best match …", "A splay list …"; not "A context manager that …", "The method adds …"
        head = lowered[1 : lowered.index("that")] if "that" in lowered[1:4] else lowered[1:3]
        return not _CALLED_NOUNS.intersection(head)
    return lowered[1] == "of" and lowered[0] not in _CALLED_NOUNS  # "List of encodings …", "Number of …"


def is_value_property(symbol: Symbol) -> bool:
    """A Python method read as an attribute (``@property``, ``@cached_property``)."""
    return symbol.kind == "method" and any(_VALUE_PROPERTY.match(d) for d in symbol.decorators)


def property_mismatch(symbols: Mapping[str, Symbol]) -> set[str]:
    """For a question that describes a value (``property_lead``): the
    methods among ``symbols`` of a class one of whose properties is among
    them too (constructors aside)."""
    props: set[str] = set()
    plain: dict[str, set[str]] = {}
    for symbol in symbols.values():
        if symbol.kind != "method" or symbol.parent_id is None or symbol.name in _CONSTRUCTORS:
            continue
        if is_value_property(symbol):
            props.add(symbol.parent_id)
        else:
            plain.setdefault(symbol.parent_id, set()).add(symbol.id)
    return {i for owner in props & plain.keys() for i in plain[owner]}


# … and the other way round: a statement whose lead's verb does something
# ("Increment the semaphore value", "Decrement …, blocking if necessary")
# asks for a method that does it, not for a value read as an attribute: a
# property counts PROPERTY_FACTOR when a plain method of its class is a
# candidate too (``action_properties``). A verb that hands a value back
# (RETURN_VERBS) or tells one ("Check if …", "Determine …") may describe
# a property, and keeps it.
# The verb is read only where it governs an object as a verb does, "Verb
# the …" ("Increment the semaphore value", "This function converts the …"):
# a lead that opens with a condition, a comparison or a participle ("If the
# response is streamed …", "Like `content_type` …", "Cached reference of …")
# or a class's name (`MultiDict` object containing …") describes a value.
ACTIONS_NOT_PROPERTIES = True
_TELLING_VERBS = frozenset("check determine test tell whether verify".split())
_DETERMINERS = frozenset("the a an all any each every its their this these those one some".split())


def action_lead(question: str) -> bool:
    """Whether the question's first sentence opens with a verb that does
    something to the object that follows it (above)."""
    words = _lead_words(question)
    at, verb, _after = verb_and_after(words, STOPWORDS)
    if verb is None or at + 1 >= len(words) or words[at + 1].lower() not in _DETERMINERS:
        return False
    written = words[at]
    return (
        written.lower() not in STOPWORDS
        and not any(c.isupper() for c in written[1:])
        and verb not in RETURN_VERBS
        and not any(same_word(verb, v) for v in _TELLING_VERBS)
        and not _opens_noun_phrase(words)
    )


def action_properties(symbols: Mapping[str, Symbol]) -> set[str]:
    """For a statement led by a verb that does something: the value
    properties among ``symbols`` of a class one of whose plain methods is
    among them too (constructors aside)."""
    props: dict[str, set[str]] = {}
    plain: set[str] = set()
    for symbol in symbols.values():
        if symbol.kind != "method" or symbol.parent_id is None or symbol.name in _CONSTRUCTORS:
            continue
        if is_value_property(symbol):
            props.setdefault(symbol.parent_id, set()).add(symbol.id)
        else:
            plain.add(symbol.parent_id)
    return {i for owner in props.keys() & plain for i in props[owner]}


# A lead that says the code is a context manager ("A context manager that
# increases the indentation", "This function is a context manager that
# saves …", "Helpful context manager that writes …") names a kind the
# index can read from the decorators: a function or method decorated
# ``@contextmanager`` (``contextlib``'s, or ``@asynccontextmanager``). When
# one is a candidate, the functions and methods that are not count
# KIND_FACTOR, as a kind the question did not ask for
# (``context_manager_mismatch``). "A context manager that increases the
# indentation" had ``HelpFormatter.indent`` before ``indentation``.
CONTEXT_MANAGER_LEAD = True
_CONTEXT_MANAGER_LEAD = re.compile(
    r"^(?:(?:this|the)\s+(?:function|method)\s+is\s+|it\s+is\s+)?(?:an?\s+|the\s+)?(?:\w+\s+)?"
    r"(?:async(?:hronous)?\s+)?context\s+manager\b",
    re.IGNORECASE,
)
_CONTEXT_MANAGER = re.compile(r"^@(?:[\w.]*\.)?(?:async)?contextmanager\b")


def context_manager_lead(question: str) -> bool:
    """Whether the question's first sentence (a leading "Name: " left out)
    says the code is a context manager (above)."""
    return _CONTEXT_MANAGER_LEAD.match(re.sub(r"^[\w.]+:\s+", "", first_sentence(question)).strip()) is not None


def context_manager_mismatch(symbols: Mapping[str, Symbol]) -> set[str]:
    """The functions and methods among ``symbols`` that are not context
    managers, when one of them is; else none."""
    code = [s for s in symbols.values() if s.kind in ("function", "method")]
    if not any(_CONTEXT_MANAGER.match(d) for s in code for d in s.decorators):
        return set()
    return {s.id for s in code if not any(_CONTEXT_MANAGER.match(d) for d in s.decorators)}


# Hooks come in pairs named for the moment they run: ``pre_save`` /
# ``post_save``, ``before_request`` / ``after_request``,
# ``addBeforeCommitHook`` / ``addAfterCommitHook``. The moment a
# description's first sentence says picks one of a pair ("… a callback
# method that is called before refreshing the token" is
# ``pre_refresh_callback``, not ``post_refresh_callback``; "Register a hook
# to call before the transaction is aborted" ``addBeforeAbortHook``, not
# ``addAfterAbortHook``): of two candidates of one class (one module) whose
# names differ only by one word, "before" or "pre" against "after" or
# "post", the one of the other moment counts MOMENT_FACTOR
# (search/multimodal.py), when the first sentence says "before" and not
# "after", or the converse. Only the first sentence: a later one often
# says what happens after the other moment too ("The specified hook
# function will be called after the transaction's abort method has been
# called").
MOMENTS_OF_HOOKS = True
_MOMENT_WORDS = {"pre": "before", "before": "before", "post": "after", "after": "after"}
_BEFORE = re.compile(r"\bbefore\b", re.IGNORECASE)
_AFTER = re.compile(r"\bafter\b", re.IGNORECASE)


def wrong_moment(question: str, symbols: Mapping[str, Symbol]) -> set[str]:
    """The candidates named for the other moment than the one the
    question's first sentence says, whose twin named for that moment is
    among ``symbols`` (above)."""
    sentence = first_sentence(question)
    before, after = _BEFORE.search(sentence) is not None, _AFTER.search(sentence) is not None
    if before == after:
        return set()
    wanted = "before" if before else "after"
    sides: dict[tuple[str | None, tuple[str, ...]], dict[str, list[str]]] = {}
    for symbol in symbols.values():
        if symbol.kind not in ("method", "function"):
            continue
        words = words_of(symbol.name).lower().split()
        at = next((n for n, w in enumerate(words) if w in _MOMENT_WORDS), None)
        if at is None:
            continue
        rest = (*words[:at], "", *words[at + 1 :])
        sides.setdefault((symbol.parent_id, rest), {}).setdefault(_MOMENT_WORDS[words[at]], []).append(symbol.id)
    out: set[str] = set()
    for pair in sides.values():
        if len(pair) == 2:
            out.update(pair["after" if wanted == "before" else "before"])
    return out


# Two methods of one class (two functions of one module) whose names are
# one word apart, past their first word, are named for what that word
# says: ``get_usage`` / ``get_help``, ``accept_xhtml`` / ``accept_html``,
# ``addAfterCommitHook`` / ``addAfterAbortHook``, ``accept_encodings`` /
# ``accept_charsets``. A description whose first sentence says one of the
# two words and not the other ("Formats the usage line into a string …",
# "True if this object accepts XHTML", "Register a hook to call after a
# transaction commit attempt") asks for the one named by it; the other
# counts TWIN_FACTOR (search/multimodal.py), as a ``_nowait`` variant does.
# A name's first word is left out: it is most often its verb, which a
# description puts in its own words or takes from what the code calls
# ("Formats the usage line …" is ``get_usage``, which calls
# ``format_usage``; "Unregister all registered `ISynchronizer` objects" is
# ``clearSynchs``, which calls ``unregisterSynch``). Only the first
# sentence, as for MOMENTS_OF_HOOKS (a later one compares with the twin:
# "For charsets have a look at `accept_charset`"); words written as code
# are names, not the description's words; words are compared by
# ``same_word`` (no abbreviations: "dictionaries" does not say ``dicts``).
TWINS_BY_WORD = True
_FUNCTION_WORDS = frozenset(
    "a an the of to in on at for and or by from into with as if is be it its this that not no".split()
)


def unsaid_twins(question: str, symbols: Mapping[str, Symbol]) -> set[str]:
    """The candidates whose name is one word (past the first) apart from a
    twin's of their class or module (above), when the question's first
    sentence says the twin's word and not theirs."""
    sentence = re.sub(r"`[^`]*`", " ", re.sub(r"^[\w.]+:\s+", "", first_sentence(question)))
    said = {w.lower() for w in re.findall(r"[A-Za-z0-9]+", sentence)}
    # twins have as many words, and one class (module)
    sizes: dict[tuple[object, ...], list[tuple[str, list[str]]]] = {}
    for symbol in symbols.values():
        if symbol.kind in ("method", "function"):
            words = words_of(symbol.name).split()
            if len(words) >= 2:
                sizes.setdefault((symbol.file, symbol.parent_id, len(words)), []).append((symbol.id, words))
    buckets: dict[tuple[object, ...], dict[str, list[str]]] = {}
    for place, named in sizes.items():
        for symbol_id, words in named if len(named) >= 2 else ():
            for at in range(1, len(words)):
                if words[at] not in _FUNCTION_WORDS:
                    twins = buckets.setdefault((*place, *words[:at], "", *words[at + 1 :]), {})
                    twins.setdefault(words[at], []).append(symbol_id)
    out: set[str] = set()
    for twins in buckets.values():
        if len(twins) < 2:
            continue
        says = {word: any(same_word(word, w) for w in said) for word in twins}
        if any(says.values()):
            out.update(i for word, ids in twins.items() if not says[word] for i in ids)
    return out


# … and of two methods of one class (functions of one module), one named
# by the other's words and more (``write`` / ``write_usage``, ``pop`` /
# ``popitem``, ``copy`` / ``deepcopy``, ``pop`` / ``poplist``), the
# longer one is asked for when the object of a statement's verb, the
# first word after it that is not a function word, is one of its more
# words: "Writes a usage line into the buffer" is ``write_usage``, "Pop
# an item from the dict" ``popitem``, "Return a deep copy of this object"
# ``deepcopy``. A method is named by its verb and its object; the shorter
# twin names the verb alone, and counts TWIN_FACTOR
# (search/multimodal.py). Only the object: a description says more of
# what a method does than its name, and a twin's word said elsewhere in
# it ("Check if the task has been cancelled, and allow rescheduling …" is
# ``checkpoint``, not ``checkpoint_if_cancelled``) is no evidence. Only a
# statement that opens with a verb (``verb_led``): "The best match as
# value" has no object, and is ``best``, not ``best_match``.
TWIN_BY_OBJECT = True


def verb_alone_twins(question: str, symbols: Mapping[str, Symbol]) -> set[str]:
    """The candidates whose name is a twin's but for the words that hold
    the object of the question's verb (above)."""
    if not verb_led(question):
        return set()
    sentence = re.sub(r"`[^`]*`", " ", re.sub(r"^[\w.]+:\s+", "", first_sentence(question)))
    _at, verb, after = verb_and_after(re.findall(r"[A-Za-z0-9]+", sentence), _FUNCTION_WORDS)
    if verb is None or not after:
        return set()
    obj = after[0].lower()
    named = [(s, words_of(s.name).split()) for s in symbols.values() if s.kind in ("method", "function")]
    # the longer twins: a word that is the object (``same_word`` only cuts endings: its first letter
    # is the object's), or one word that runs the object and another together
    longer = [
        (s, words)
        for s, words in named
        if any(w[:1] == obj[:1] and same_word(w, obj) for w in words)
        or (len(words) == 1 and len(obj) >= 3 and words[0] != obj and obj in words[0])
    ]
    if not longer:
        return set()
    by_words: dict[tuple[object, ...], list[str]] = {}
    joined: dict[tuple[object, ...], list[str]] = {}
    for symbol, words in named:
        by_words.setdefault((symbol.file, symbol.parent_id, *words), []).append(symbol.id)
        if symbol.name.islower():
            joined.setdefault((symbol.file, symbol.parent_id, "".join(words)), []).append(symbol.id)
    out: set[str] = set()
    for symbol, words in longer:
        place = (symbol.file, symbol.parent_id)
        for at in (n for n, w in enumerate(words) if w[:1] == obj[:1] and same_word(w, obj)):
            # the shorter twin: the words left when a run of words holding the object is taken out
            for start in range(at + 1):
                for end in range(at + 1, len(words) + 1):
                    rest = words[:start] + words[end:]
                    if rest:
                        out.update(by_words.get((*place, *rest), ()))
        whole = "".join(words)
        if symbol.name.islower() and len(words) == 1 and len(obj) >= 3 and whole != obj:
            # a name that runs the object into the twin's (``popitem``, ``deepcopy``)
            if whole.endswith(obj):
                out.update(joined.get((*place, whole[: -len(obj)]), ()))
            if whole.startswith(obj):
                out.update(joined.get((*place, whole[len(obj) :]), ()))
    return out


# A method or function named ``X_async`` (``async_X``) beside an ``X`` of
# its class (module) is the variant of ``X`` that runs as a coroutine
# (Jinja2's ``Template.render_async``, ``generate_async``): as a
# ``_nowait`` variant, it counts ASYNC_FACTOR (search/multimodal.py) for a
# question whose first sentence does not say so ("asynchronously",
# "async", "await", "coroutine"). Only the first sentence: a later one
# often tells the other variant apart ("This method renders a template
# with the given context. It can also render the template asynchronously
# if …" is ``render``).
ASYNC_BY_WORDS = True
_SAYS_ASYNC = re.compile(r"\b(?:async\w*|asynchronous\w*|await\w*|coroutines?)\b", re.IGNORECASE)


def unasked_async(question: str, symbols: Mapping[str, Symbol]) -> set[str]:
    """The ``X_async`` / ``async_X`` candidates whose ``X`` of their class or
    module is a candidate too, when the question's first sentence does not
    say async (above)."""
    if _SAYS_ASYNC.search(first_sentence(question)):
        return set()
    plain = {(s.file, s.parent_id, s.name) for s in symbols.values() if s.kind in ("method", "function")}
    out = set()
    for symbol in symbols.values():
        if symbol.kind not in ("method", "function"):
            continue
        name = symbol.name
        base = name.removesuffix("_async") if name.endswith("_async") else name.removeprefix("async_")
        if base != name and base and (symbol.file, symbol.parent_id, base) in plain:
            out.add(symbol.id)
    return out


# A word a description says only to rule it out ("… without logging out",
# "… ignoring weak tags", "… rather than attempting to parse the URI",
# "… without checking if the current task group has been cancelled")
# names what the code does not do: of two methods of one class (functions
# of one module), the one whose name holds that word (``logout``,
# ``contains_weak``, ``parse_uri``, ``checkpoint_if_cancelled``) is the
# other's foil, and counts TWIN_FACTOR (search/multimodal.py). A word is
# ruled out from "without", "ignoring", "unlike", "rather than" or
# "instead of" to the end of its clause (a comma, a semicolon, a colon, a
# stop); a word said elsewhere in the description ("Extend … replace
# existing keys instead of extending") is not ruled out. The whole
# description counts, not its first sentence: such a clause is most often
# in a later one. Words written as code are names, not the description's
# words (as for TWINS_BY_WORD); words are compared by ``same_word``.
NEGATED_WORDS = True
_NEGATION = re.compile(r"\b(?:without|ignoring|unlike|rather\s+than|instead\s+of)\b([^.,;:]*)", re.IGNORECASE)


def negated_twins(question: str, symbols: Mapping[str, Symbol]) -> set[str]:
    """The candidates whose name holds a word the question says only in a
    clause that rules it out, beside a candidate of their class (module)
    whose name does not (above)."""
    text = re.sub(r"`[^`]*`", " ", question)
    if _NEGATION.search(text) is None:
        return set()
    ruled = {w.lower() for m in _NEGATION.finditer(text) for w in re.findall(r"[A-Za-z0-9]+", m.group(1))}
    said = {w.lower() for w in re.findall(r"[A-Za-z0-9]+", _NEGATION.sub(" ", text))}
    ruled = {w for w in ruled - said if w not in _FUNCTION_WORDS and not any(same_word(w, s) for s in said)}
    if not ruled:
        return set()
    places: dict[tuple[object, ...], list[tuple[str, bool]]] = {}
    for symbol in symbols.values():
        if symbol.kind in ("method", "function"):
            words = [w for w in words_of(symbol.name).lower().split() if w not in _FUNCTION_WORDS]
            foil = any(same_word(w, r) for w in words for r in ruled)
            places.setdefault((symbol.file, symbol.parent_id), []).append((symbol.id, foil))
    return {
        i for named in places.values() if not all(f for _, f in named) for i, foil in named if foil
    }


# Two methods of one class (functions of one module) whose names differ
# only in the number of their last word (``suffix`` / ``suffixes``,
# ``get_revision`` / ``get_revisions``, ``check_uri`` / ``check_uris``)
# are told apart by it: one handles one thing, the other many. A first
# sentence that says that word in one number only ("returns a list of any
# suffixes", "retrieves a specific revision … with the given revision
# id") asks for the twin named in that number; the other counts
# TWIN_FACTOR (search/multimodal.py). ``same_word`` reads the two numbers
# as one word, so the rules above cannot tell them apart. Only the first
# sentence (a later one may name the other: "It checks if the name has a
# suffix"); a leading "Name:" and names written as code are left out, and
# so is a capitalised word past the sentence's first, a class's name
# ("a tuple of Revision instances" says no revision).
NUMBER_TWINS = True


def _plurals(word: str) -> tuple[str, ...]:
    return (word + "s", word + "es", *((word[:-1] + "ies",) if word.endswith("y") else ()))


def number_twins(question: str, symbols: Mapping[str, Symbol]) -> set[str]:
    """The candidates whose name's last word is in the other number than
    the one the question's first sentence says, beside a twin of their
    class (module) named in that number (above)."""
    sentence = re.sub(r"`[^`]*`", " ", re.sub(r"^[\w.]+:\s+", "", first_sentence(question)))
    tokens = re.findall(r"[A-Za-z0-9]+", sentence)
    said = {w.lower() for n, w in enumerate(tokens) if n == 0 or not w[:1].isupper()}
    named: dict[tuple[object, ...], list[str]] = {}
    for symbol in symbols.values():
        if symbol.kind in ("method", "function"):
            words = tuple(words_of(symbol.name).lower().split())
            if words:
                named.setdefault((symbol.file, symbol.parent_id, *words), []).append(symbol.id)
    out: set[str] = set()
    for key, ids in named.items():
        last = key[-1]
        if not isinstance(last, str):
            continue
        for plural in _plurals(last):
            many = named.get((*key[:-1], plural))
            if many is None:
                continue
            if last in said and plural not in said:
                out.update(many)
            elif plural in said and last not in said:
                out.update(ids)
    return out


# A lead whose verb acts on "all" of something ("Unregister all registered
# `ISynchronizer` objects") asks for the method that does it to all: of the
# methods of one class (module) whose names end in one word, in the
# singular and in the plural (``unregisterSynch`` / ``clearSynchs``), the
# one in the singular, named for one, counts TWIN_FACTOR
# (``ALL_BY_PLURAL``, ``all_twins``).
ALL_BY_PLURAL = True


def all_twins(question: str, symbols: Mapping[str, Symbol]) -> set[str]:
    """For a lead whose verb's object opens with "all" (above): the
    candidates whose name's last word is in the singular, beside a
    candidate of their class (module) whose name's last word is its plural."""
    words = _lead_words(question)
    at, verb, _after = verb_and_after(words, STOPWORDS)
    if verb is None or at + 1 >= len(words) or words[at + 1].lower() != "all":
        return set()
    last: dict[tuple[str, str | None], dict[str, list[str]]] = {}
    for symbol in symbols.values():
        if symbol.kind in ("method", "function"):
            name = words_of(symbol.name).lower().split()
            if name:
                last.setdefault((symbol.file, symbol.parent_id), {}).setdefault(name[-1], []).append(symbol.id)
    said = [w.lower() for w in words]
    out: set[str] = set()
    for ends in last.values():
        for word, ids in ends.items():
            # not when the lead says the word in the singular, or a word it abbreviates
            # ("… updates all the entries from a dictionary": ``recursive_update_dict``)
            if any(plural in ends for plural in _plurals(word)) and not any(w.startswith(word) for w in said):
                out.update(ids)
    return out


# A special method beside a public method of its class named by the same
# word (``__copy__`` / ``copy``, ``__contains__`` / ``contains``,
# ``__exit__`` / ``exit``) is the hook Python's data model calls
# (``copy.copy(d)``, ``x in d``); a class that has both most often has one
# call the other, and its description is the public method's, the name
# its documentation uses. The special one counts TWIN_FACTOR
# (search/multimodal.py) unless the question writes its name. Operators
# are no twins: ``__add__`` is ``+``, which ``add`` ("Add `value` to the
# sorted list") is not.
PROTOCOL_TWINS = True
_OPERATORS = frozenset(
    "add sub mul matmul truediv floordiv mod divmod pow lshift rshift and or xor neg pos abs invert lt le eq ne gt ge".split()
)


def protocol_twins(question: str, symbols: Mapping[str, Symbol]) -> set[str]:
    """The special methods among the candidates whose public namesake of
    their class (``__copy__``: ``copy``) is a candidate too, when the
    question does not write their name (above)."""
    public = {(s.file, s.parent_id, s.name) for s in symbols.values() if s.kind == "method"}
    out = set()
    for symbol in symbols.values():
        name = symbol.name
        if symbol.kind != "method" or not is_special(name) or name in question:
            continue
        word = name[2:-2]
        bare = word[1:] if word[:1] in ("i", "r") and word[1:] in _OPERATORS else word
        if bare not in _OPERATORS and (symbol.file, symbol.parent_id, word) in public:
            out.add(symbol.id)
    return out


HELPERS_BELOW_PUBLIC = True


def private_helper(run: Run, symbol: Symbol) -> bool:
    """``symbol`` is a private method (``_name``, not a special method) of
    a class the question asks a member of, whose name, from a word on, is
    the name of a public method of that class (``_partial_build``:
    ``build``), and the question does not write its name. The class's
    methods are those the members lists read (``context_members``): no
    query of its own."""
    if symbol.kind != "method" or symbol.parent_id not in run.owners:
        return False
    if not symbol.name.startswith("_") or is_special(symbol.name) or symbol.name in run.query:
        return False
    if run.public_names is None:
        run.public_names = {(m.parent_id, m.name) for m in context_members(run) if not m.name.startswith("_")}
    parts = symbol.name.lstrip("_").split("_")
    return any((symbol.parent_id, "_".join(parts[n:])) in run.public_names for n in range(len(parts)))


def unasked_constructor(question: str, symbol: Symbol) -> bool:
    """``symbol`` is a method ``__init__`` or ``__new__`` that the verb of
    the question's first sentence (a leading "Name: " left out) does not
    name as the data model words it (``says_special``: "Create new …",
    "Create a stream …" in ``Stream``, "Initialize …", "Construct …")."""
    if symbol.kind != "method" or symbol.name not in _CONSTRUCTORS:
        return False
    _at, verb, after = verb_and_after(_lead_words(question), STOPWORDS)
    if verb is None:
        return False
    parent = symbol.qualified_name.rsplit(".", 2)[-2] if "." in symbol.qualified_name else ""
    return says_special(symbol.name, verb, after, words_of(parent).split()) is None


_CONSTRUCTORS = frozenset({"__init__", "__new__"})


def _opens_noun_phrase(words: Sequence[str]) -> bool:
    """Whether a question's lead is a noun phrase ("The total number of
    tokens …", "Function used to extract …"), not a verb ("This function
    returns …", "The method adds …" are verbs after the kind)."""
    lowered = [w.lower() for w in words[:2]]
    if not lowered:
        return False
    if lowered[0] in _KIND_WORDS:
        return True
    return lowered[0] in _NOUN_PHRASE_OPENERS and (len(lowered) < 2 or lowered[1] not in _KIND_WORDS)


def members_by_meaning(run: Run) -> list[str]:
    """The methods of the classes the question names as context, by cosine
    similarity to the question: a list of their own, so that the one it
    describes is a candidate even when the whole index's nearest 50 miss it
    (a class has tens of methods; the index thousands of texts)."""
    read_context(run)
    if not run.context or run.vector is None or MEMBERS_WEIGHT <= 0:
        return []
    stored = run.store.vector_model()
    if stored is None:
        return []
    ids = [s.id for s in context_members(run)]
    vectors = run.store.vectors_for(ids, stored[0])
    if not vectors:
        return []
    question = as_floats(run.vector)
    size = norm(question) or 1.0
    query = [x / size for x in question]
    scores = {i: dot(v, query) / (norm(v) or 1.0) for i, v in vectors.items()}
    if NAMESAKE_MEANING and run.alias:
        # a member reads as well as the namesake elsewhere that stands for it
        for i, v in namesake_vectors(run, stored[0]).items():
            own = run.alias[i]
            if own in scores:
                scores[own] = max(scores[own], dot(v, query) / (norm(v) or 1.0))
    return sorted(scores, key=lambda i: (-scores[i], i))[: run.candidates]


def namesake_vectors(run: Run, model_id: str) -> dict[str, array[float]]:
    """The stored vectors of the namesakes elsewhere (``namesake_alias``),
    read once per search: the members list and the re-ranker use them."""
    if run.alias_vectors is None:
        run.alias_vectors = run.store.vectors_for(list(run.alias), model_id)
    return run.alias_vectors


def with_namesakes(
    run: Run, vectors: Mapping[str, Vector], bm25: Mapping[str, float], model_id: str | None
) -> tuple[dict[str, Vector], dict[str, float]]:
    """The re-ranker's vectors and BM25 scores of the candidates with, for a
    method of a named class, its namesake's elsewhere (``namesake_alias``)
    when it reads more like the question: the vector nearer to the
    question, the better BM25."""
    out_vectors, out_bm25 = dict(vectors), dict(bm25)
    query = run.vector
    theirs = namesake_vectors(run, model_id) if model_id and query is not None else {}
    for i, own in run.alias.items():
        v = theirs.get(i)
        if v is not None and query is not None:
            mine = out_vectors.get(own)
            if mine is None or _cosine(v, query) > _cosine(mine, query):
                out_vectors[own] = v
        score = bm25.get(i)
        if score is not None and (out_bm25.get(own) is None or score < out_bm25[own]):
            out_bm25[own] = score  # FTS5's bm25: lower is better
    return out_vectors, out_bm25


def _cosine(a: Vector, b: Vector) -> float:
    """In double precision (domain/vectors.py)."""
    a, b = as_floats(a), as_floats(b)
    return dot(a, b) / ((norm(a) * norm(b)) or 1.0)


def read_context(run: Run) -> None:
    """The classes the question names, when it does not ask for a class:
    the names it writes as code (its subjects) that are the exact name of a
    class of the index, and the candidate classes it names in words
    (``named_in_words``)."""
    if run.context is not None:
        return
    if run.intent.name not in CONTEXT_INTENTS or "class" in run.kinds:
        run.context = run.owners = run.lead_owners = frozenset()
        return
    found: set[str] = set(named_in_words(run) if CLASS_NAMED_IN_WORDS else ())
    made: set[str] = set()  # the classes of what the answer makes or returns (``_names_product``)
    lead = first_sentence(run.query)
    later: set[str] = set()
    for name in run.intent.subjects:
        if re.search(rf"(?<![\w.]){re.escape(name)}\s+(?:objects|instances)\b", run.query):
            continue  # "a collection of Revision objects": what the code handles, not whose member it is
        # a class name is capitalised (private ones after "_"); a lower-case subject names a function
        if name.lstrip("_")[:1].isupper():
            ids = {s.id for s in run.store.symbols_by("name", name) if s.kind in CLASS_KINDS}
            (made if PRODUCTS_NOT_CONTEXT and _names_product(run.query, name) else found).update(ids)
            if FIRST_SENTENCE_CONTEXT and not re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", lead):
                later.update(ids)  # named in a later sentence only: what the code uses
    # what is made is context only when the question names no other class
    run.context = frozenset((found - made) or made)
    # … and the classes whose members are asked for are those of the first
    # sentence, and their bases named later ("… of the Experiment. … added to
    # the Ingredient/Experiment": ``Experiment`` inherits ``Ingredient.config``)
    first = run.context - later
    bases = {b for cls in sorted(first) for b in run.store.bases_of(cls)} if later else set()
    run.owners = first | (run.context & later & bases)
    run.lead_owners = frozenset(first)


def _names_product(question: str, name: str) -> bool:
    """``name`` is written as what is made or returned: after "into", "as",
    "new" (an article between), or as "a `name` object" / "an … instance",
    or as the question's own subject ("`MultiDict` object containing …")."""
    word = re.escape(name)
    return bool(
        re.search(rf"\b(?:into|as|new)\s+(?:an?\s+|the\s+)?`?{word}`?(?![\w.])", question, re.IGNORECASE)
        or re.search(rf"\ban?\s+`?{word}`?\s+(?:object|instance)\b", question, re.IGNORECASE)
        or re.match(rf"^(?:[\w.]+:\s+)?(?:the\s+|an?\s+)?`?{word}`?\s+objects?\b", question, re.IGNORECASE)
    )


def named_in_words(run: Run) -> list[str]:
    """The candidate classes (of the lists run so far) that the question
    names by their words in order, after a verb ("Remove a file from the
    Hadoop filesystem": ``HadoopFilesystem``)."""
    words = [w.lower() for w in re.findall(r"[A-Za-z0-9]+", first_sentence(run.query))]
    at, verb, _after = verb_and_after(words, STOPWORDS)
    if verb is None or _opens_noun_phrase(words) or len(words) < 2:
        return []
    text = " " + " ".join(words[at + 1 :]) + " "
    ids = list(dict.fromkeys(i for items in run.lists.values() for i in items))
    out = []
    for i, s in run.store.symbols(ids).items():
        if s.kind not in CLASS_KINDS:
            continue
        parts = words_of(s.name).lower().split()
        if len(parts) >= 2 and f" {' '.join(parts)} " in text:
            out.append(i)
    return out


def read_compared(run: Run) -> None:
    """The symbols named by the names the question compares its answer
    with (``_COMPARED``): names it writes as code (its subjects), after
    "like", "unlike", "similar to", "same as", "as with" …; and, in a
    statement about behaviour, the functions and methods its first
    sentence writes as code (``CODE_NAMES_USED``, ``used_names``), and
    those the description refers its reader to (``REFERENCES_NOT_ANSWER``,
    ``referenced_names``)."""
    if run.compared is not None:
        return
    found: set[str] = set()
    if run.intent.name in COMPARED_INTENTS:
        subjects = set(run.intent.subjects)
        for match in _COMPARED.finditer(run.query):
            name = match.group(1).rstrip(".")
            if name in subjects:
                found.update(s.id for s in run.store.symbols_by("name", name.rsplit(".", 1)[-1]))
    if CODE_NAMES_USED and run.intent.name in COMPARED_INTENTS and run.intent.rule == "fallback":
        for name in used_names(run.query):
            found.update(s.id for s in run.store.symbols_by("name", name) if s.kind in ("method", "function"))
    if REFERENCES_NOT_ANSWER and run.intent.name in COMPARED_INTENTS:
        for name in referenced_names(run.query):
            found.update(s.id for s in run.store.symbols_by("name", name) if s.kind in ("method", "function"))
    if CALLEES_IN_PROSE and run.intent.name in COMPARED_INTENTS:
        for name in prose_callees(run.query):
            found.update(s.id for s in run.store.symbols_by("name", name) if s.kind in ("method", "function"))
    run.compared = frozenset(found - (run.context or frozenset()))


def used_names(question: str) -> list[str]:
    """The functions and methods the question's first sentence writes as
    code (`` `name` `` or `` `name()` ``, not capitalised, not dotted)."""
    return list(dict.fromkeys(_CODE_NAME.findall(first_sentence(question))))


def prose_callees(question: str) -> list[str]:
    """The functions and methods a description's later sentences name in
    prose as "the NAME function" / "the NAME method" (``CALLEES_IN_PROSE``):
    identifiers, not special methods."""
    rest = question.strip()[len(first_sentence(question)) :]
    names = (m.group(1) for m in _PROSE_CALLEE.finditer(rest))
    return list(dict.fromkeys(n for n in names if not (n.startswith("__") and n.endswith("__"))))


def referenced_names(question: str) -> list[str]:
    """The functions and methods a description refers its reader to as code
    ("See `set_data`", "Calls `get_json` with …", "called by `get_usage`",
    "or use `make_middleware`", "`with_resource` instead"), in any sentence."""
    return list(dict.fromkeys(g for m in _REFERENCE.finditer(question) for g in m.groups() if g))
