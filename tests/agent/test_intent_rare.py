"""The rules added for set F's misses: the handbook's own words used even once, product
news, onboarding phrases, covered/returned and problem cues, another seller's price, a
ticket's reference line. A small hand-made vocabulary (not the demo's), and messages that
are in no bench set."""

from __future__ import annotations

import pytest

from unifind.agent import _terms
from unifind.agent.intent import Vocabulary, classify

VOCAB = Vocabulary(
    db=frozenset({"laptop", "laptops", "phone", "phones", "orders", "order", "Apple", "pixel"}),
    db_models=frozenset({"orders", "order", "laptops"}),
    db_attrs=frozenset({"price"}),
    kb=frozenset({"refund", "returns", "warranty", "shipping", "发货", "退货"}),
    kb_rare=frozenset({"sms", "vpn", "kayak", "产假"}),
    kb_everyday=(frozenset({"pole", "wind", "tent"}), frozenset({"dispatch", "cutoff"})),
)


def test_rare_words_split_specific_everyday_and_names() -> None:
    docs = [
        _terms.counts("Use SMS codes. Poles break in wind above 60 km/h in Utrecht.", str.split),
        _terms.counts("The delamination of membranes. Travel to Utrecht and back.", str.split),
    ]
    specific, everyday = _terms.rare(docs, common=frozenset({"membrane"}), noise=frozenset())
    # An acronym and an uncommon long word are specific; "wind" and "pole" (singular) are
    # the first document's everyday words; "Utrecht" is a name in both, and in two documents.
    assert {"sms", "delamination"} <= specific
    assert {"pole", "wind"} <= everyday[0] and "utrecht" not in specific | everyday[0]
    assert "membrane" not in specific  # a common word (singular, as counted)


@pytest.mark.parametrize(
    ("message", "legs"),
    [
        ("is sms ok as a login factor?", ("kb",)),  # one specific word, asked as a rule
        ("产假有几天", ("kb",)),
        ("best kayak for a lake trip", ("web",)),  # one specific word, not a rule: the world's
        ("how to set up a vpn on my router at home", ("web",)),
        ("will the tent pole survive strong wind", ("kb",)),  # two everyday words of one doc
        ("when is the pixel 10 coming out", ("web",)),  # product news is public
        ("what happens when a new hire starts", ("kb",)),
        ("does a laptop arrive before my start date", ("kb",)),  # onboarding, not rows
        ("my phone screen cracked after a week, is it covered?", ("kb",)),
        ("the price of the pixel phone on amazon", ("web",)),  # another seller's price
        ("our pixel phone price vs amazon today", ("web", "db")),
        ("Subject: zip broke. Is this covered? Order AB-1234.", ("kb",)),  # a reference line
        ("my order arrived damaged, what now", ("kb",)),
        ("are opened items refundable?", ("kb",)),
        ("i'm not asking about refunds, just cheer me up", ()),
    ],
)
def test_round_f_rules(message: str, legs: tuple[str, ...]) -> None:
    assert classify(message, VOCAB).legs == legs
