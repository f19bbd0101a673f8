"""Sentences as a reader splits them (issue #20): blocks, abbreviations, decimals, CJK."""

from __future__ import annotations

import time

import pytest

from unifind.agent.support import sentences as support_sentences
from unifind.cite.sentences import sentences


def test_a_blank_line_ends_a_sentence_without_a_full_stop() -> None:
    assert sentences("A [ref_001]\n\nB [ref_002]") == ["A [ref_001]", "B [ref_002]"]
    # The support check splits the same way (it pooled both ids on one sentence).
    assert support_sentences("A [ref_001]\n\nB [ref_002]") == ["A [ref_001]", "B [ref_002]"]


@pytest.mark.parametrize(
    "text",
    [
        "Returns are free [ref_001]\n- Refunds take 5 days [ref_002]",
        "Returns are free [ref_001]\n* Refunds take 5 days [ref_002]",
        "Returns are free [ref_001]\n1. Refunds take 5 days [ref_002]",
        "Returns are free [ref_001]\n2) Refunds take 5 days [ref_002]",
        "Returns are free [ref_001]\n## Refunds take 5 days [ref_002]",
    ],
)
def test_list_items_and_headings_end_the_sentence_before_them(text: str) -> None:
    first, second = sentences(text)
    assert first == "Returns are free [ref_001]"
    assert second.endswith("Refunds take 5 days [ref_002]")


def test_wrapped_lines_of_one_paragraph_or_item_stay_one_sentence() -> None:
    text = (
        "Returns are free for\nthe Netherlands. [ref_001]\n- Refunds are issued\n  within 5 days."
    )
    assert sentences(text) == [
        "Returns are free for the Netherlands. [ref_001]",
        "- Refunds are issued within 5 days.",
    ]


def test_each_table_row_is_a_unit_and_rules_are_dropped() -> None:
    table = (
        "| Category | Limit |\n|---|---|\n| Meals while travelling | 45 euros per day |\n"
        "| Taxi | only when no public transport is available |"
    )
    assert sentences(table) == [
        "Category; Limit",
        "Meals while travelling; 45 euros per day",
        "Taxi; only when no public transport is available",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "H. pylori causes most ulcers.",
        "Dr. Smith treats ulcers.",
        "It was approved in the U.S. in 2019.",
        "Some drugs, e.g. aspirin, thin the blood.",
        "That is, i.e. the dose is 3.5 mg.",
        "The fee is 6.50 euros.",
    ],
)
def test_abbreviations_and_decimals_do_not_end_a_sentence(text: str) -> None:
    assert sentences(text) == [text]


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("Returns are free. Refunds take 5 days.", 2),
        ("Is it free? Yes it is!", 2),
        ("It ships from the U.S. Shipping is free.", 1),  # read through, as a reader would
        ('He said "no." Then he left.', 2),
    ],
)
def test_full_stops_before_a_new_sentence_split(text: str, count: int) -> None:
    assert len(sentences(text)) == count


def test_cjk_punctuation_ends_sentences() -> None:
    text = "退货需在30天内完成。运费免费！真的吗？是的；好 [ref_001]。"
    assert sentences(text) == [
        "退货需在30天内完成。",
        "运费免费！",
        "真的吗？",
        "是的；",
        "好 [ref_001]。",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Returns are free. [ref_001] Refunds take 5 days. [ref_002]",
        "Returns are free. (ref_001) Refunds take 5 days. (ref_002)",
        "Returns are free.\n[ref_001]\nRefunds take 5 days. [ref_002]",
    ],
)
def test_a_citation_after_the_full_stop_stays_with_its_sentence(text: str) -> None:
    first, second = sentences(text)
    assert first.startswith("Returns are free.") and "ref_001" in first
    assert second.startswith("Refunds") and "ref_002" in second and "ref_001" not in second


def test_a_long_answer_splits_in_linear_time() -> None:
    text = ("Returns are free within 30 days of delivery [ref_001]. " * 2000) + "\n\n- x\n" * 500
    t0 = time.perf_counter()
    out = sentences(text)
    assert len(out) == 2500  # 2000 sentences and 500 list items; blank lines dropped
    assert time.perf_counter() - t0 < 2.0
