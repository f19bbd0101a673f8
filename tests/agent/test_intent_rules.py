"""The intent rules added for set C's misses, on a small hand-made vocabulary (not the
demo's), so each rule is seen to work from the words a source declares and its rows."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from unifind import load_settings
from unifind.agent._sections import sections
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


# -- the rules added for set D's misses (#10), on invented messages and a hand-made KB ----
HANDBOOK = """# Travel rules

Book trains through the travel desk.

## Allowances

| Item | Allowance |
|---|---|
| Hotel in Berlin | 140 euros a night |

Two-factor login
Two-factor login (2FA) is required for the CRM and the wiki. Codes by SMS are refused.

## Questions
Ask the travel desk.
"""


def _jieba(run: str) -> list[str]:
    return [run]


def test_sections_keep_heading_words_and_acronyms_not_generic_headings() -> None:
    found = sections(HANDBOOK, _jieba)
    keys = [sorted(k) for k, _ in found]
    assert ["allowance"] in keys  # the heading, singular
    assert ["crm", "login", "sms", "two-factor"] in keys  # a plain-text heading + acronyms
    assert not any("question" in k for k in keys)  # a generic heading names no topic
    allowances = next(words for k, words in found if "allowance" in k)
    assert {"hotel", "berlin"} <= allowances


SECTIONED = Vocabulary(
    db=VOCAB.db, db_models=VOCAB.db_models, db_weak=VOCAB.db_weak, db_attrs=VOCAB.db_attrs,
    db_rows=VOCAB.db_rows, kb=VOCAB.kb, people_zh=frozenset({"陈"}),
    kb_sections=tuple(sections(HANDBOOK, _jieba)),
)  # fmt: skip


@pytest.mark.parametrize(
    ("message", "legs"),
    [
        ("what's the allowance for a hotel in berlin", ("kb",)),  # a heading + its section
        ("is sms ok for the crm", ("kb",)),  # two acronyms of one section
        ("what is an allowance in economics", ("web",)),  # a heading word alone: the world's
        ("thanks a lot, that was really useful", ()),  # thanks leading a statement
        ("hey! long time no see, how have you been", ()),
        ("thanks! and how do i get a refund?", ("kb",)),  # …but not leading a question
        ("hi, show me tablets under $300", ("db",)),  # …nor a request
        ("what is a 12% tip on 80.40", ()),  # arithmetic in words
        ("what's 15% off 260", ()),
        ("tablets 15% off", ("db",)),  # a filter, not a sum
        ("my manager was in a bad mood at the office today", ()),  # a workplace setting
        ("不想加班 好累", ()),
        ("our expense rules vs the official government rate", ("kb", "web")),  # outside side
        ("is the iphone 15 cheaper here than on ebay today", ("web", "db")),
        ("when is the next election in the US", ("web",)),  # the US is a country
        ("the history of samsung tablets", ("web",)),  # a maker's history, not the rows
        ("现在汽油价格多少一升", ("web",)),  # a column word alone is no filter
        ("打折的平板能退吗", ("kb",)),  # a permission to return: the policy
        ("帮我把这段自我介绍改得更自然一点：我叫小李，喜欢平板", ()),  # 把 … 改得
        ("陈静上个月下了几单", ("db",)),  # a customer's surname in Latin letters ("Chen")
        ("陈列架在哪里买", ("web",)),  # …not a word that starts with the surname
    ],
)
def test_rules_for_set_d(message: str, legs: tuple[str, ...]) -> None:
    got = classify(message, SECTIONED)
    assert got.legs == legs, got.why


def test_the_vocabulary_reads_the_sections_of_stored_documents(tmp_path: Path) -> None:
    s = Searcher(load_settings(home=tmp_path, kb={"embedder": "hash"}))
    try:
        s.kb.create("handbook", embedder=None)
        s.kb.ingest_text("handbook", HANDBOOK, document_id="travel.md", title="Travel rules")
        vocab, notes = asyncio.run(vocabulary(s))
    finally:
        s.close()
    assert not notes
    assert any("allowance" in keys for keys, _ in vocab.kb_sections)
    assert classify("hotel allowance in berlin?", vocab).legs == ("kb",)
