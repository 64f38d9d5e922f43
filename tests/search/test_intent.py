"""The intent classifier (docs/search.md): each rule, its confidence, first match
wins, and what it reads out of the query."""

from __future__ import annotations

import pytest

from cartog_ci.search import intent as intent_module
from cartog_ci.search.intent import INTENTS, classify, identifiers, literals, overridden


@pytest.mark.parametrize(
    ("query", "intent", "confidence", "subjects"),
    [
        # 1. a definition keyword followed by a name
        ("def send_task", "find_definition", 0.95, ("send_task",)),
        ("class Celery:", "find_definition", 0.95, ("Celery",)),
        ("func NewRouter(", "find_definition", 0.95, ("NewRouter",)),
        ("fn parse_config", "find_definition", 0.95, ("parse_config",)),
        ("import kombu.utils", "find_definition", 0.95, ("kombu.utils",)),
        ("class Order(Model):", "find_definition", 0.95, ("Order",)),
        # 2. references
        ("who calls persist", "find_references", 0.90, ("persist",)),
        ("usages of Signature.freeze", "find_references", 0.90, ("Signature.freeze",)),
        ("references to LineItem", "find_references", 0.90, ("LineItem",)),
        ("callers of apply_async", "find_references", 0.90, ("apply_async",)),
        ("where is get_backend used", "find_references", 0.90, ("get_backend",)),
        # 3. impact
        ("impact of changing Task.retry", "impact_analysis", 0.90, ("Task.retry",)),
        ("blast radius of normalize", "impact_analysis", 0.90, ("normalize",)),
        ("what depends on AsyncResult", "impact_analysis", 0.90, ("AsyncResult",)),
        ("what breaks if I change backend_cls", "impact_analysis", 0.90, ("backend_cls",)),
        # 4. exact match: quoted string 0.90, error token 0.85
        ('"negative price"', "exact_match", 0.90, ()),
        ("'Received unregistered task'", "exact_match", 0.90, ()),
        ("ECONNREFUSED when connecting to the broker", "exact_match", 0.85, ()),
        ("Traceback in the worker", "exact_match", 0.85, ()),
        ("where is ValueError raised", "exact_match", 0.85, ("ValueError",)),
        ("which function logs \"Soft time limit\"", "exact_match", 0.90, ()),  # a few words around the quote
        ("KeyError: 'unknown bootstep'", "exact_match", 0.90, ("KeyError",)),
        ("InvalidTaskError Message does not have args/kwargs", "exact_match", 0.85, ("InvalidTaskError", "Message")),
        # 5. identifier: the whole query / with a definition phrase 0.80, with one or two other words 0.70
        ("send_task", "find_definition", 0.80, ("send_task",)),
        ("AsyncResult.get", "find_definition", 0.80, ("AsyncResult.get",)),
        ("Celery", "find_definition", 0.80, ("Celery",)),  # one capitalised word: a class name
        ("where is parseLinkLabel defined", "find_definition", 0.80, ("parseLinkLabel",)),
        ("where is tokenize defined", "find_definition", 0.80, ("tokenize",)),
        ("StateBlock line offsets", "find_definition", 0.70, ("StateBlock",)),
        ("where is the Heart class defined", "find_definition", 0.80, ("Heart",)),
        ("find the definition of worker_direct", "find_definition", 0.80, ("worker_direct",)),
        # 6. understand: a sentence that names something is still a question about behaviour
        ("how does apply_async pick the queue to send to", "understand_code", 0.75, ("apply_async",)),
        ("how does the worker prefetch tasks", "understand_code", 0.75, ()),
        ("why are results stored twice", "understand_code", 0.75, ()),
        ("explain the scheduler architecture", "understand_code", 0.75, ()),
        # 7. similar
        ("code similar to the redis result backend", "find_similar", 0.70, ()),
        ("functions like this one", "find_similar", 0.70, ()),
        ("a timer like the gevent one", "find_similar", 0.70, ()),
        # 8. fallback
        ("retry countdown jitter", "understand_code", 0.40, ()),
        ("Celery app startup", "understand_code", 0.40, ()),  # a capital that starts a sentence
        ("class that retries failed tasks", "understand_code", 0.40, ()),  # "class" + a sentence is not code
    ],
)
def test_each_rule_and_its_confidence(query, intent, confidence, subjects):
    found = classify(query)
    assert (found.name, found.confidence) == (intent, confidence)
    assert found.subjects == subjects


@pytest.mark.parametrize(
    ("query", "intent"),
    [
        ("def who_calls_it", "find_definition"),  # 1 before 2
        ("who calls ValueError", "find_references"),  # 2 before 4
        ('what breaks if "timeout" changes', "impact_analysis"),  # 3 before 4
        ('"send_task"', "exact_match"),  # 4 before 5
        ("send_task how", "find_definition"),  # 5 before 6
        ("explain code similar to this", "understand_code"),  # 6 before 7
    ],
)
def test_first_matching_rule_wins(query, intent):
    assert classify(query).name == intent


def test_a_query_with_two_questions_is_not_ordinary():
    assert classify("who calls persist").direct
    compound = classify("who calls persist and why")
    assert (compound.name, compound.confidence, compound.ordinary, compound.direct) == (
        "find_references",
        0.90,
        False,
        False,
    )


@pytest.mark.parametrize(
    ("query", "anchor"),
    [
        ("code similar to the redis result backend", "redis result backend"),
        ("result backends similar to the s3 backend", "s3 backend"),
        ("a timer like the gevent one", "gevent timer"),  # "one" stands for the timer
        ("functions like this one", ""),
    ],
)
def test_a_similar_question_names_what_to_resemble(query, anchor):
    assert classify(query).anchor == anchor


@pytest.mark.parametrize(
    ("query", "intent"),
    [
        ("Context: Similar to `invoke` but fills in default keyword arguments from the current context.", "understand_code"),
        ("code similar to parse_date but for times", "find_similar"),
    ],
)
def test_similar_but_doing_something_else_describes_the_code(query, intent):
    assert classify(query).name == intent


def test_i_would_like_is_not_a_similarity():
    assert classify("I would like the list of tasks").name == "understand_code"


def test_only_confident_intents_take_the_direct_route():
    assert classify('"negative price"').direct
    assert classify("ECONNREFUSED").direct  # 0.85 is enough
    assert not classify("send_task").direct  # 0.80
    assert not classify("how does the worker prefetch").direct


def test_who_calls_is_about_calls_and_usages_about_every_reference():
    assert classify("who calls persist").calls_only
    assert not classify("usages of persist").calls_only


def test_literals_and_identifiers_are_read_out():
    assert literals('why "negative price" with ValueError and ECONNREFUSED') == [
        "negative price",
        "ValueError",
        "ECONNREFUSED",
    ]
    assert identifiers("does `make` call parseLinkLabel, Order.add or _private() on main.py?") == [
        "make",
        "parseLinkLabel",
        "Order.add",
        "_private",
    ]
    assert literals("it's fine, don't worry") == []  # apostrophes are not quotes


def test_override_is_certain_and_always_fused():
    found = overridden("who calls persist", "understand_code")
    assert (found.name, found.confidence, found.direct, found.subjects) == (
        "understand_code",
        1.0,
        False,
        ("persist",),
    )
    with pytest.raises(ValueError):
        overridden("x", "find_everything")
    assert set(INTENTS) == {
        "find_definition",
        "find_references",
        "understand_code",
        "find_similar",
        "impact_analysis",
        "exact_match",
    }


@pytest.mark.parametrize(
    ("query", "subjects", "literals_"),
    [
        # questions of the dev set's kind (benchmarks/search_dev.py): sentences about behaviour
        ("This function returns the routes of a RoutesMapper instance.", ("RoutesMapper",), ()),
        ("This function is a method of the BatchPayloadSchema class.", ("BatchPayloadSchema",), ()),
        ("This function is a wrapper for the urlparse.urlparse function.", ("urlparse.urlparse",), ()),
        ("Returns an HTTPError instance built from the response.", ("HTTPError",), ("HTTPError",)),
        ('This function sets the "name" key of the headers to the given value.', (), ("name",)),
        (
            "This function is called when an account is created. It iterates through each impacted object.",
            (),
            (),
        ),
        (
            "This function returns all classes that inherit from the given class. It adds the subclasses of "
            "each of them.",
            (),
            (),
        ),
    ],
)
def test_a_sentence_that_mentions_a_name_a_quote_or_an_error_is_a_question_about_behaviour(
    query, subjects, literals_
):
    found = classify(query)
    assert (found.name, found.confidence, found.rule) == ("understand_code", 0.40, "fallback")
    assert (found.subjects, found.literals) == (subjects, literals_)


def test_a_description_of_several_sentences_is_not_a_references_or_impact_question():
    one = "who calls send_task"
    assert classify(one).name == "find_references"
    assert classify("This function is called by the worker. It sends the task.").name == "understand_code"
    assert classify("what breaks if I change send_task").name == "impact_analysis"
    assert classify("The task is sent. The impacted objects are updated.").name == "understand_code"


def test_a_sentence_that_says_what_subclasses_must_do_is_about_behaviour(monkeypatch: pytest.MonkeyPatch):
    # intent.STATED_REFERENCES: the phrase is the sentence's subject, and a duty follows it
    stated = "Subclasses of `RuleFactory` have to override this method and return an iterable of rules in the EndpointPrefix instance."
    found = classify(stated)
    assert (found.name, found.rule) == ("understand_code", "fallback")
    assert found.subjects == ("RuleFactory", "EndpointPrefix")
    assert classify("Callers of lock_file must release the lock they get.").name == "understand_code"
    # still asked for: no verb after the phrase, or the phrase is not the subject
    for asked in ("subclasses of RuleFactory", "callers of apply_async in the worker", "who subclasses RuleFactory"):
        assert classify(asked).name == "find_references", asked
    monkeypatch.setattr(intent_module, "STATED_REFERENCES", False)
    assert classify(stated).name == "find_references"


def test_a_description_of_several_sentences_is_not_a_similarity_question():
    query = (
        "Check if the task has been cancelled in the TrioBackend instance. "
        "This is effectively the same as running `checkpoint_if_cancelled` and then `cancel_shielded_checkpoint`."
    )
    found = classify(query)
    assert (found.name, found.rule) == ("understand_code", "fallback")
    assert found.subjects == ("TrioBackend", "checkpoint_if_cancelled", "cancel_shielded_checkpoint")
    assert classify("code similar to the redis result backend").name == "find_similar"


@pytest.mark.parametrize(
    ("query", "names"),
    [
        # a class that ends the sentence, before its full stop
        ("Increment the semaphore value in Semaphore.", ["Semaphore"]),
        ("Return embedded event loop in Runner.", ["Runner"]),
        # a value is not a name
        ("Return True if the lock is currently held in Lock.", ["Lock"]),
        # a class that opens the question with a colon, as an issue title names it
        ("Condition: Release the underlying lock.", ["Condition"]),
        # … which a label reads as too: only a class of that exact name in the index makes it context
        ("Note: the lock is released twice", ["Note"]),
        # still not: a dotted name's first part, a call
        ("where is Celery.send defined", ["Celery.send"]),
        ("Use Foo(bar) here now.", []),
    ],
)
def test_the_names_a_sentence_about_a_class_writes(query, names):
    assert identifiers(query) == names
