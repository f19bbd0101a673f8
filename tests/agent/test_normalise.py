"""The intent's normaliser: chat-speak, missing apostrophes, stretched words, one-edit typos."""

from __future__ import annotations

import pytest

from unifind.agent._normalise import correct, normalise


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("thnx u r gr8", "thanks you are great"),
        ("whats up, im fine", "what's up, i'm fine"),
        ("heyyy", "hey"),
        ("hii", "hi"),
        ("under 50 bucks", "under 50 dollars"),
        ("100刀以内的耳机", "100美元以内的耳机"),
        ("R language", "R language"),  # a capital letter is a name, not "are"
        ("the u.s. and r&d, it's ok", "the u.s. and r&d, it's ok"),
        ("its id", "its id"),  # words of their own keep their spelling
    ],
)
def test_normalise(text: str, plain: str) -> None:
    assert normalise(text) == plain


WORDS = frozenset({"headphones", "laptops", "order", "orders", "refund"})


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("cheap headphnes", "cheap headphones"),  # a deletion
        ("laptpos", "laptops"),  # a transposition
        ("older ordres", "older orders"),  # "older" is an English word: kept
        ("refnd", "refund"),  # an insertion
        ("xaptops", "xaptops"),  # the first letter differs: not corrected
        ("ordesr", "ordesr"),  # one edit from both "order" and "orders": ambiguous, kept
        ("odrers", "orders"),
        ("xrdxrs", "xrdxrs"),  # two edits away
    ],
)
def test_correct(text: str, fixed: str) -> None:
    assert correct(text, WORDS) == fixed


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("請問運費怎麼算", "请问运费怎么算"),  # traditional characters, one by one
        ("謝謝！", "谢谢！"),
        ("退款流程", "退款流程"),  # simplified text is left as it is
        ("MacBook 價格", "MacBook 价格"),
    ],
)
def test_traditional_chinese_is_simplified_for_the_rules(text: str, plain: str) -> None:
    assert normalise(text) == plain


def test_keywords_keep_the_writers_script() -> None:
    # A traditional-Chinese source is searched in its own characters.
    assert normalise("請問運費 thx", simplify=False) == "請問運費 thanks"
