"""Sentences for the citation check and the extractive answer (no LLM)."""

from __future__ import annotations

from unifind.agent.support import best_sentences, sentences
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
