"""The builtin generator's shortcuts (issue #19 latency) never change what a rule reads.

A phrase's pattern is skipped when the text lacks the word every match holds
(``phrase_need``), and structures built from a model are kept per model object
(``per_object``): both are exact only if those two promises hold, which is tested here.
"""

from __future__ import annotations

import pytest

from unifind.db._memo import per_object
from unifind.db.generate._scan import Needing, Scan, phrase_need, phrase_pattern

PHRASES = [
    "party", "city", "country", "day", "key", "customer country", "total points",
    "e-mail", "first name", "box", "address", "销售额", "东区 分馆", "sony", "x", "a b",
    "Product Type", "ies", "fly",
]  # fmt: skip
TEXTS = [
    "parties and cities of every country", "the day keys", "customer countries, total points",
    "e-mails of first names", "boxes at addresses", "本月销售额", "东区分馆的书", "sony xps",
    "x-ray", "ab and a b", "product types", "flies", "fly", "customercountry", "partys",
]  # fmt: skip


@pytest.mark.parametrize("phrase", PHRASES)
def test_every_match_holds_the_phrase_need(phrase: str) -> None:
    need = phrase_need(phrase)
    found = 0
    for text in TEXTS:
        for m in phrase_pattern(phrase).finditer(text):
            found += 1
            assert need in m[0], (phrase, text, m[0], need)
    if phrase in ("party", "city", "customer country", "sony", "fly"):
        assert found  # the plural or the phrase itself is in the texts: matches were checked


def test_the_need_of_a_y_plural_is_the_stem() -> None:
    assert phrase_need("party") == "part"  # "parties" holds "part", not "party"
    assert phrase_need("day") == "day"  # "days": a vowel before the y
    assert phrase_need("customer country") == "customer"
    assert phrase_need("Total  Points") == "total"


@pytest.mark.parametrize("text", TEXTS)
def test_scan_find_gives_the_matches_of_the_pattern(text: str) -> None:
    scan = Scan(text)
    for phrase in PHRASES:
        pattern = phrase_pattern(phrase)
        got = [m.span() for m in scan.find(pattern)]
        assert got == [m.span() for m in pattern.finditer(scan.rest)]


def test_scan_find_reads_the_unconsumed_text() -> None:
    scan = Scan("parties of a city")
    scan.consume(0, 7)
    assert [m[0] for m in scan.find(phrase_pattern("party"))] == []
    assert [m[0] for m in scan.find(phrase_pattern("city"))] == ["city"]


def test_needing_keeps_the_order_of_the_items_the_text_can_match() -> None:
    phrases = ["customer name", "order date", "customer country", "party", "date"]
    index = Needing((phrase_need(p), p) for p in phrases)
    assert index.present("the customers' countries and parties") == [
        "customer name", "customer country", "party"]  # fmt: skip
    assert index.present("nothing here") == []
    for text in TEXTS:  # never one left out that matches
        kept = index.present(text)
        assert [p for p in phrases if phrase_pattern(p).search(text)] == [
            p for p in kept if phrase_pattern(p).search(text)]  # fmt: skip


def test_needing_refuses_a_need_with_a_space() -> None:
    # Consuming writes spaces: a need with one could appear where it was not.
    with pytest.raises(ValueError, match="one word"):
        Needing([("customer name", 1)])


class _Thing:
    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Thing) and other.name == self.name

    __hash__ = None  # type: ignore[assignment]


def test_per_object_keys_by_identity_not_equality() -> None:
    calls: list[str] = []

    @per_object
    def built(thing: _Thing) -> str:
        calls.append(thing.name)
        return thing.name.upper()

    one, same, other = _Thing("a"), _Thing("a"), _Thing("b")
    assert built(one) == "A" and built(one) == "A"
    assert calls == ["a"]  # kept for the same object
    assert built(same) == "A" and calls == ["a", "a"]  # an equal object is built again
    assert built(other) == "B" and calls == ["a", "a", "b"]


def test_per_object_is_bounded() -> None:
    calls: list[str] = []

    @per_object
    def built(thing: _Thing) -> str:
        calls.append(thing.name)
        return thing.name

    things = [_Thing(str(i)) for i in range(600)]
    assert [built(t) for t in things] == [str(i) for i in range(600)]
    assert built(things[0]) == "0" and len(calls) == 601  # let go: at most 256 are held
    assert built(things[-1]) == "599" and len(calls) == 601  # a recent one is still held
