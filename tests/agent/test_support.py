"""Sentences for the citation check and the extractive answer (no LLM)."""

from __future__ import annotations

from unifind.agent.support import best_sentences, sentences, support
from unifind.cite import build_references
from unifind.types import Item

DOC = """# Refunds and returns

Kestrel accepts returns within **30 days of delivery**. For other EU countries the
return label costs 6.50 euros, which is deducted from the refund.

- Refunds reach the card in 5 business days.
"""


def test_sentences_keep_decimals_and_join_wrapped_lines() -> None:
    got = sentences(DOC)
    assert (
        "For other EU countries the return label costs 6.50 euros, which is deducted "
        "from the refund." in got
    )
    assert "# Refunds and returns" in got  # a heading is its own line, not glued to the text
    assert sentences("退款在30天内完成。请保留收据！") == ["退款在30天内完成。", "请保留收据！"]


def test_an_extractive_answer_quotes_a_sentence_not_a_heading() -> None:
    item = Item(type="kb", title="Refunds", content=DOC, citation_id="ref_001", chunk_id="1")
    refs = build_references([item])
    [line] = best_sentences(refs, ["refund", "label", "cost"])
    assert line == (
        "For other EU countries the return label costs 6.50 euros, which is deducted from "
        "the refund. [ref_001]"
    )


def test_a_citation_after_the_full_stop_stays_with_its_sentence() -> None:
    # The extractive answer writes "sentence. [ref_001]" a line each; _unwrap joins the
    # lines, and the id must not slide onto the next sentence.
    text = (
        "Returns are free. [ref_001]\nGift cards become credit. [ref_002]\n退款需三天。【ref_003】"
    )

    assert sentences(text) == [
        "Returns are free. [ref_001]",
        "Gift cards become credit. [ref_002]",
        "退款需三天。 【ref_003】",
    ]
    assert sentences("One. [ref_001, ref_002] Two [3].") == ["One. [ref_001, ref_002]", "Two [3]."]


def test_every_sentence_of_an_extractive_answer_is_supported() -> None:
    items = [
        Item(type="kb", title="Refunds", content=DOC, citation_id="ref_001", chunk_id="1"),
        Item(
            type="kb",
            title="Cards",
            content="Gift cards are refunded as gift-card credit. Store credit never expires.",
            citation_id="ref_002",
            chunk_id="2",
        ),
    ]
    refs = build_references(items)
    answer = "\n".join(best_sentences(refs, ["refund", "gift", "card"]))
    checked = support(answer, refs)
    assert len(checked) == 2 and all(s.supported for s in checked), checked


def test_an_extractive_answer_skips_references_that_share_no_word_with_the_question() -> None:
    items = [
        Item(type="kb", title="Refunds", content=DOC, citation_id="ref_001", chunk_id="1"),
        Item(type="kb", title="Leave", content="A day off on birthdays.", citation_id="ref_002"),
    ]
    refs = build_references(items)
    lines = best_sentences(refs, ["refund", "label"])
    assert len(lines) == 1 and lines[0].endswith("[ref_001]")
    # nothing matches at all: the best-ranked reference still answers (never an empty answer)
    [only] = best_sentences(refs, ["unicorn"])
    assert only.endswith("[ref_001]")
