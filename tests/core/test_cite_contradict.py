"""Contradictions similarity can't see (issue #20): quantities, negation, direction, names.

Each rule has positive and negative examples, English and Chinese where the rule has both.
"""

from __future__ import annotations

import pytest

from unifind.cite._numbers import quantities
from unifind.cite.contradict import alignment, conflict, terms

RETURNS = "Kestrel Outdoor accepts returns of unused items within 30 days of delivery."
DAMAGED = "Report damaged or wrong items within 48 hours of delivery with a photo of the item."
FREE = "Returns from the Netherlands, Belgium and Germany are free."
CLAIMS = "Claims older than 90 days are rejected without exception."


@pytest.mark.parametrize(
    ("text", "low", "high", "dimension"),
    [
        ("within 30 days of delivery", 30 * 86400, 30 * 86400, "[time]"),
        ("within two days", 2 * 86400, 2 * 86400, "[time]"),
        ("another 2 to 7 days", 2 * 86400, 7 * 86400, "[time]"),
        ("1-2 business days", 86400, 2 * 86400, "[time]"),
        ("up to 1,000 euros", 1000, 1000, "currency:euro"),
        ("a fee of €5", 5, 5, "currency:euro"),
        ("reduced by 30%", 30, 30, "%"),
        ("30 percent of cases", 30, 30, "%"),
        ("longer than 2 metres", 2, 2, "[length]"),
        ("a 2-year warranty", 2 * 31557600, 2 * 31557600, "[time]"),
        ("20 patients died", 20, 20, "count:patient"),
        ("before the 20th", 20, 20, "ordinal"),
        ("退货需在三十天内完成", 30 * 86400, 30 * 86400, "[time]"),
        ("48小时内", 48 * 3600, 48 * 3600, "[time]"),
        ("运费为3.95元", 3.95, 3.95, "currency:yuan"),
        ("2024年3月5日发货", 20240305, 20240305, "date"),
    ],
)
def test_quantities_read_value_range_and_dimension(
    text: str, low: float, high: float, dimension: str
) -> None:
    [q] = quantities(text)
    assert (q.low, q.high, q.dimension) == pytest.approx((low, high, dimension))


@pytest.mark.parametrize("text", ["5 in the box", "3 a day", "open at 9"])
def test_small_words_after_a_number_are_not_units(text: str) -> None:
    assert all(q.dimension != "[length]" and q.dimension != "[time]" for q in quantities(text))


def test_no_digits_no_quantities() -> None:
    assert quantities("Returns are free for everyone.") == []


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Unused items can be returned within 90 days of delivery.", RETURNS),
        ("Damaged items must be reported within 12 hours of delivery.", DAMAGED),
        ("Claims older than 30 days are rejected.", CLAIMS),
        ("退货需在90天内完成。", "退货需在三十天内完成。"),
    ],
)
def test_a_different_number_in_the_same_dimension_contradicts(claim: str, source: str) -> None:
    found = conflict(claim, source)
    assert found is not None and found.kind == "number"


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Unused items can be returned within 30 days of delivery.", RETURNS),
        ("Damaged items must be reported within 2 days of delivery.", DAMAGED),  # 48 h
        ("Card refunds take 3 days to appear.", "Card refunds can take another 2 to 7 days."),
        ("Claims older than 90 days are rejected.", CLAIMS),
        ("Unused items can be returned for 6.50 euros.", RETURNS),  # no euros in the source
        ("退货需在30天内完成。", "退货需在三十天内完成。"),
    ],
)
def test_an_equal_or_unstated_quantity_does_not(claim: str, source: str) -> None:
    assert conflict(claim, source) is None


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Returns from the Netherlands, Belgium and Germany are not free.", FREE),
        ("Express shipping is free.", "Express shipping is never free."),
        ("Aspirin does not reduce the risk of stroke.", "Aspirin reduced the risk of stroke."),
        ("退货不免费。", "退货免费。"),
    ],
)
def test_negating_a_shared_word_contradicts(claim: str, source: str) -> None:
    found = conflict(claim, source)
    assert found is not None and found.kind == "negation"


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        # A negation of a word the claim doesn't state: "no cost" is not "not free".
        ("We send a replacement for free.", "We send a replacement at no cost."),
        ("Worn footwear cannot be returned.", "Worn footwear cannot be returned for hygiene."),
        ("退货不免费。", "退货不免费，运费自理。"),
    ],
)
def test_negation_elsewhere_or_on_both_sides_does_not(claim: str, source: str) -> None:
    assert conflict(claim, source) is None


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Aspirin increases the risk of bleeding.", "Aspirin use reduced bleeding risk."),
        ("Claims newer than 90 days are rejected.", CLAIMS),
        ("Claims older than 90 days are accepted.", CLAIMS),
        (
            "Orders placed after 14:00 leave the same day.",
            "Orders placed before 14:00 leave the same day.",
        ),
        ("All orders ship from Utrecht.", "Some orders ship from Utrecht."),
        ("IL-6 inhibits tumour growth.", "IL-6 promotes tumour growth."),
        (
            "Exercise training worsens quality of life.",
            "Exercise training improved quality of life.",
        ),
        (
            "Mutant mice have increased ascorbic acid levels in the brain.",
            "Ascorbic acid levels were undetectable or markedly reduced in the mutant brain.",
        ),
        ("价格提高了。", "价格降低了。"),
    ],
)
def test_opposite_direction_words_contradict(claim: str, source: str) -> None:
    found = conflict(claim, source)
    assert found is not None and found.kind == "direction"


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Aspirin raises the risk of bleeding.", "Aspirin use increased bleeding risk."),
        ("Claims over 500 euros need Finance.", "Claims above 500 euros also need Finance."),
        ("We understand returns.", "Returns under 5 euros are free."),  # "understand" ≠ under
        # The opposite word is about something else (no content word near both).
        (
            "Exercise increases muscle strength in older adults.",
            "Exercise programmes for older adults ran in 12 centres across the region; "
            "participants reported weight loss.",
        ),
        # "at least" is a bound, not the opposite of "most".
        ("Most patients were aged 16 to 24.", "Patients aged 16 to 24 had at least one visit."),
        # A sentence that asks ("to assess whether") states no direction.
        (
            "Screening increases detection of cervical neoplasia.",
            "We aimed to assess whether screening decreases detection of cervical neoplasia.",
        ),
    ],
)
def test_same_side_or_unrelated_words_do_not(claim: str, source: str) -> None:
    found = conflict(claim, source)
    assert found is None or found.kind != "direction"


def test_a_name_the_reference_never_mentions_swapped_for_another_contradicts() -> None:
    found = conflict("Returns from France are free.", FREE)
    assert found is not None and found.kind == "entity" and "France" in found.detail
    # A name the reference does hold elsewhere is not a swap.
    reference = f"{FREE} Returns from France cost 6.50 euros."
    assert conflict("Returns from France are free.", FREE, reference=reference) is None
    assert conflict("Returns from Germany are free.", FREE) is None


def test_alignment_needs_shared_topic_words() -> None:
    claim = terms("Unused items can be returned within 90 days of delivery.")
    assert alignment(claim, terms(RETURNS)) >= 0.5
    assert alignment(claim, terms("The tower was finished in 1889.")) == 0.0
    # One shared word is not a topic (two are needed).
    assert alignment(claim, terms("Delivery is fast.")) == 0.0


def test_a_denial_of_what_a_closely_aligned_sentence_states_contradicts() -> None:
    source = "Amitriptyline is the medication of first choice for chronic tension-type headache."
    claim = "Amitriptyline is not the medication of first choice for chronic tension-type headache."
    found = conflict(claim, source)
    assert found is not None and found.kind == "negation"
    # The source denies it too, or the sentence is only loosely on the topic: no conflict.
    assert conflict(claim, source.replace("is the", "is not the")) is None
    assert conflict("Amitriptyline is not sold in shops.", source) is None


def test_the_same_name_with_another_number_is_another_thing() -> None:
    source = "Caspase-11 promotes the fusion of phagosomes with lysosomes."
    found = conflict("Caspase-33 promotes the fusion of phagosomes with lysosomes.", source)
    assert found is not None and found.kind == "number" and "caspase-11" in found.detail
    assert conflict("Caspase-11 promotes the fusion of phagosomes with lysosomes.", source) is None
    # A name the reference holds elsewhere with that number is not a swap.
    assert (
        conflict(
            "SEV1 incidents get a post-mortem.", "Every SEV1 and SEV2 incident gets a post-mortem."
        )
        is None
    )


def test_the_direction_word_about_the_claims_thing_decides() -> None:
    """A source sentence with both sides of a pair: the word sharing the most content words
    with the claim's is the one compared."""
    source = (
        "Dexamethasone decreased the risk of nausea dose dependently but was associated with "
        "an increased risk of postoperative bleeding."
    )
    found = conflict("Dexamethasone decreases the risk of postoperative bleeding.", source)
    assert found is not None and found.kind == "direction" and "increased" in found.detail
    assert conflict("Dexamethasone increases the risk of postoperative bleeding.", source) is None
    assert conflict("Dexamethasone decreases the risk of nausea.", source) is None


def test_a_negated_direction_word_takes_no_side() -> None:
    # "did not increase" is not "decreased": the negation rules read it, not direction.
    found = conflict(
        "Statins decrease muscle pain in older adults.",
        "Statins did not significantly increase muscle pain in older adults.",
    )
    assert found is None or found.kind != "direction"


def test_before_and_prior_to_are_one_side() -> None:
    source = "Tissue-resident macrophages are established prior to birth."
    found = conflict("Tissue-resident macrophages are established after birth.", source)
    assert found is not None and found.kind == "direction"
    assert conflict("Tissue-resident macrophages are established before birth.", source) is None


def test_the_negated_occurrence_about_the_claims_thing_decides() -> None:
    """'no association with 8 cancers; ... associated with pancreatic cancer': the claim's
    denial of the second is contradicted, the first doesn't cover for it; an adverb between
    the negator and its word ('not significantly associated') passes."""
    source = (
        "There was no association with 8 of the 10 cancers; use of the drug was associated "
        "with increased risk of pancreatic cancer."
    )
    claim = "Use of the drug is not significantly associated with risk of pancreatic cancer."
    found = conflict(claim, source)
    assert found is not None and found.kind == "negation"
    assert conflict(claim.replace("not significantly ", ""), source) is None


def test_both_sides_of_a_pair_in_the_claim_compose() -> None:
    # "decreased weight gain" is less gain, not a claim of gain against "reduces".
    source = "Deficiency of mast cells reduces body weight gain in mice on a Western diet."
    assert (
        conflict("Deficiency of mast cells leads to decreased weight gain in mice.", source) is None
    )


def test_a_negation_of_something_else_does_not_deny_the_claims_point() -> None:
    source = (
        "Major tissue-resident macrophage populations are established prior to birth and "
        "not from circulating monocytes."
    )
    claim = "Major tissue-resident macrophage populations are not established prior to birth."
    found = conflict(claim, source)
    assert found is not None and found.kind == "negation"
    # A source that denies the claim's own word agrees with the denial.
    assert conflict(claim, source.replace("are established", "are not established")) is None
