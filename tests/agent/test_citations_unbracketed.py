"""Ids cited in parentheses or bare are checked like bracketed ones (issue #18)."""

from __future__ import annotations

from unifind.agent.citestream import CitationStream
from unifind.agent.support import sentences, support
from unifind.cite import build_references
from unifind.engine._answering import check
from unifind.types import Item

REFUNDS = Item(type="kb", title="Refunds", content="Refunds are paid within 30 days.",
               citation_id="ref_001", chunk_id="1")  # fmt: skip


def test_an_id_in_parentheses_after_the_full_stop_stays_with_its_sentence() -> None:
    got = sentences("Refunds are paid within 30 days. (ref_001) Shipping is free ref_002.")
    assert got == ["Refunds are paid within 30 days. (ref_001)", "Shipping is free ref_002."]


def test_a_known_id_in_parentheses_or_bare_is_supported_like_a_bracketed_one() -> None:
    refs = build_references([REFUNDS])
    bracketed = support("Refunds are paid within 30 days [ref_001].", refs)
    for text in ("Refunds are paid within 30 days (ref_001).",
                 "Refunds are paid within 30 days ref_001."):  # fmt: skip
        [row] = support(text, refs)
        assert row.cites == ("ref_001",) and row.supported
        assert row.score == bracketed[0].score  # the id itself is no claim word


def test_made_up_ids_in_parentheses_or_bare_are_flagged() -> None:
    report = check("Refunds are paid within 30 days (ref_995). Shipping is ref_994.",
                   build_references([REFUNDS]))  # fmt: skip
    assert report.unknown == ["ref_995", "ref_994"] and not report.ok


def test_a_bare_id_split_across_deltas_is_held_until_whole() -> None:
    stream = CitationStream()
    out = [stream.feed(d) for d in ("Paid in 30 days (re", "f_00", "1) or for", "ever")]
    assert out == [("Paid in 30 days (", []), ("", []), ("ref_001) or for", ["ref_001"]),
                   ("ever", [])]  # fmt: skip
    assert stream.flush() == ("", [])
