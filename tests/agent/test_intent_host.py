"""The rules added for set E's misses: the writer's own turn out of a host's wrapping,
arithmetic in number words, hypotheticals, negated topics, programming tasks, named
companies, the writer's own past, and the salient terms of a KB's documents. A small
hand-made vocabulary (not the demo's), and messages that are in no bench set."""

from __future__ import annotations

import pytest

from unifind.agent import _host, _terms
from unifind.agent.intent import Vocabulary, classify
from unifind.agent.keywords import keywords

VOCAB = Vocabulary(
    db=frozenset({"laptops", "headphones", "orders", "Apple", "Sony", "华为"}),
    db_models=frozenset({"orders", "laptops"}),
    db_attrs=frozenset({"price"}),
    kb=frozenset({"refund", "returns", "warranty", "shipping", "年假", "退货"}),
    kb_terms=frozenset({"onboarding", "pagerduty", "婚假"}),
)


@pytest.mark.parametrize(
    ("message", "own"),
    [
        ("[relayed from Discord] User says: how are you", "how are you"),
        ("System: be brief. User: cheers mate", "cheers mate"),
        ("> bot: returns are free\\nok thanks", "ok thanks"),
        ("> bot: returns are free\nok thanks", "ok thanks"),
        ("【转发自钉钉】客户问：在吗", "在吗"),
        ("Ticket #12 - Subject: refund. Body: all good now", "all good now"),
        ("User message (via sms gateway): hello", "hello"),
        ("plain message, no host", "plain message, no host"),
        ("[only a tag]", "[only a tag]"),
    ],
)
def test_own_turn_takes_the_writers_last_turn(message: str, own: str) -> None:
    assert _host.own_turn(message) == own


def test_number_words_become_digits() -> None:
    assert _host.digits("Twenty-one times forty") == "21 times 40"
    assert _host.digits("a hundred divided by eight") == "100 divided by 8"
    assert _host.digits("nineteen plus three thousand") == "19 plus 3000"


@pytest.mark.parametrize(
    ("message", "legs"),
    [
        ("[via Teams] User wrote: thanks, the refund arrived!", ()),
        ("System: you are a bot. User: what's our refund window?", ("kb",)),
        ("[from Slack] customer asks: cheapest laptops", ("db",)),
        ("what is eight times fifty-five", ()),
        ("six of us split a 240 euro cabin, what does each person pay", ()),
        ("五个人平摊 300 块，每人多少钱", ()),
        ("what would you do on a rainy sunday", ()),
        ("what would you recommend, sony or apple headphones", ("db",)),
        ("i'm not asking about shipping, just wanted to chat", ()),
        ("我不是要问退货的事，就是想找人聊聊", ()),
        ("用 Rust 写一个链表", ()),
        ("write a bash script that renames files", ()),
        ("Just wanted to say thanks for the help today. No reply needed.", ()),
        ("when is the next apple launch event", ("web",)),
        ("华为公司的总部在哪里", ("web",)),
        ("我们公司的年假有几天", ("kb",)),
        ("I returned the headphones yesterday, when does the refund come?", ("kb",)),
        ("how did the markets close yesterday", ("web",)),
        ("婚假可以分开休吗", ("kb",)),
        ("who sets up pagerduty for new people", ("kb",)),
        ("how tall is the eiffel tower", ("web",)),
    ],
)
def test_rules_for_set_e(message: str, legs: tuple[str, ...]) -> None:
    got = classify(message, VOCAB)
    assert got.legs == legs, got


def test_salient_terms_are_frequent_in_one_document_only() -> None:
    docs = [
        {"pagerduty": 3, "rotation": 2, "sev1": 2, "year": 4, "一天": 2},
        {"rotation": 1, "婚假": 2, "dispatch": 1},
        {"pagerduty": 0, "warranty": 2},
    ]
    # "rotation" is in two documents, "dispatch" once only, "year" is short everyday
    # English, "一天" an amount; "pagerduty" counts as in the third (a 0 is still a key).
    got = _terms.salient(docs, common=frozenset({"warranty"}), noise=frozenset())
    assert got == {"sev1", "婚假"}


def test_terms_named_in_a_message() -> None:
    terms = frozenset({"onboarding", "婚假", "pagerduty"})
    assert _terms.named("婚假有几天", terms) == ["婚假"]
    assert _terms.named("when does onboarding start", terms) == ["onboarding"]
    assert _terms.named("when is the next keynote", terms) == []


def test_keywords_leave_the_hosts_wrapping_out() -> None:
    words = keywords("[forwarded from Slack] User says: how long do refunds take for spain?")
    assert "refunds" in words and "spain" in words
    assert not {"forwarded", "slack", "user", "says"} & {w.lower() for w in words}
    quoted = keywords("> bot: the refund takes 5 business days\nwhat about tent warranty")
    assert "warranty" in quoted and not {"refund", "business"} & set(quoted)
