"""The intent rules added for set C's misses, on a small hand-made vocabulary (not the
demo's), so each rule is seen to work from the words a source declares and its rows."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from unifind import load_settings
from unifind.agent.intent import Vocabulary, classify
from unifind.agent.vocab import db_weak_of, row_words, vocabulary
from unifind.db.demo import DEMO_MODELS_YAML
from unifind.engine import Searcher

#: The rows' words as the DB leg's introspection reads them (lower-cased tokens).
BAG = frozenset(
    {"galaxy", "tab", "s9", "iphone", "15", "thinkpad", "x1", "carbon", "pro", "lisbon",
     "alice.martin", "example.com", "玄龙骑士", "星"}
)  # fmt: skip
DISTINCT, TOKENS = row_words((BAG,), frozenset({"Lisbon"}))
VOCAB = Vocabulary(
    db=frozenset({"tablet", "tablets", "headphones", "customers", "orders", "Samsung", "Paris"})
    | DISTINCT,
    db_models=frozenset({"customers", "orders"}),
    db_weak=frozenset({"Paris"}),
    db_attrs=frozenset({"price", "cost", "rating"}),
    db_rows=TOKENS,
    kb=frozenset({"refund", "warranty", "expense", "保修"}),
)


def test_row_words_keep_names_not_common_words_places_or_emails() -> None:
    # A code with a digit, an uncommon word, a Chinese run of 2+ characters name a row;
    # "galaxy" and "carbon" are common English, "lisbon" a sampled place, emails aren't names.
    names = {"s9", "x1", "thinkpad", "玄龙骑士"}
    assert names == DISTINCT
    assert "galaxy" in TOKENS and "15" in TOKENS and "lisbon" not in TOKENS


def test_row_words_are_cached_per_sampled_set() -> None:
    assert row_words((BAG,), frozenset({"Lisbon"})) is row_words((BAG,), frozenset({"Lisbon"}))


@pytest.mark.parametrize(
    ("message", "legs"),
    [
        ("is the galaxy tab s9 on discount", ("db",)),  # a row's code, not a declared value
        ("iphone 15 price", ("db",)),  # two row words side by side, one with a digit
        ("is the iphone 16 out yet", ("web",)),  # a number no row has: the world's news
        ("thinkpad deals", ("db",)),
        ("write a haiku about headphones", ()),  # a writing task names a DB thing
        ("write a comparison of tablets under $500", ("db",)),  # …unless it asks for facts
        ("summarise our expense policy", ("kb",)),  # a task about the team's own things
        ("make it shorter: 'our customers love the new tablets we launched today'", ()),
        ("把下面这段话润色一下 公司年会定在下周五", ()),  # material pointed at, not quoted
        ("how do i say 'out of stock' in spanish", ()),
        ("i'm so tired today lol", ()),  # a time word in a statement about oneself
        ("what's the weather today", ("web",)),  # …and in a question about the world
        ("how's your day going", ()),
        ("谢啦", ()),
        ("多謝你的幫忙", ()),  # traditional characters
        ("what's the warranty on the galaxy tab s9 and how much does it cost", ("kb", "db")),
        ("our refund rules and the price of the iphone 15", ("kb", "db")),
        ("how many days of expense claims under the current company rules", ("kb",)),
        ("compare our warranty with what Samsung offers today", ("kb", "web")),
        ("what is the population of paris", ("web",)),  # a place alone is not the rows'
        ("who are our customers in paris", ("db",)),  # "our" + a model: the shop's rows
        ("who founded samsung", ("web",)),
        ("我上周买的平板坏了 能保修吗", ("kb",)),
    ],
)
def test_rules(message: str, legs: tuple[str, ...]) -> None:
    assert classify(message, VOCAB).legs == legs, classify(message, VOCAB).why


def test_weak_values_come_from_sampled_columns() -> None:
    from unifind.db.models import load_models

    models = load_models(DEMO_MODELS_YAML)
    assert "China" in db_weak_of(models.values())  # declared values of a sampled column


def test_a_database_that_cannot_be_read_leaves_the_declared_words_and_a_note(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "gone.sqlite"
    s = Searcher(load_settings(home=tmp_path, db={"url": f"sqlite:///{missing}",
                                                   "models": DEMO_MODELS_YAML}))  # fmt: skip
    try:
        vocab, notes = asyncio.run(vocabulary(s))
    finally:
        s.close()
    assert "headphones" in vocab.db and not vocab.db_rows
    assert any("db rows unreadable for intent" in n for n in notes), notes
