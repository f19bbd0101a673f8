"""How numbers are read before they are compared (issue #20): the raised decimal point,
scale words, suspended hyphens, and numbers that are part of a name."""

from __future__ import annotations

import pytest

from unifind.cite._numbers import quantities
from unifind.cite.contradict import conflict

LANCET = (
    "We estimated that in 2010, 11·9 million (95% CI 10·3-13·9 million) episodes of severe "
    "and 3·0 million episodes of very severe infection resulted in hospital admissions."
)
AGES = "The lifetime risks were 90% in both 55- and 65-year-old participants."


@pytest.mark.parametrize(
    ("text", "low", "dimension"),
    [
        ("11·9 million episodes", 11.9e6, "count:episode"),
        ("an estimated 30 million cases", 30e6, "count:case"),
        ("2 billion euros", 2e9, "currency:euro"),
        ("3·5 days", 3.5 * 86400, "[time]"),
    ],
)
def test_raised_point_and_scale_words(text: str, low: float, dimension: str) -> None:
    [q] = quantities(text)
    assert (q.low, q.dimension) == pytest.approx((low, dimension))


def test_a_suspended_hyphen_gives_each_number_the_unit() -> None:
    got = [(round(q.low / 31557600), q.dimension) for q in quantities(AGES) if q.dimension != "%"]
    assert got == [(55, "[time]"), (65, "[time]")]
    chain = quantities("in 45-, 55- and 65-year-olds")
    assert [round(q.low / 31557600) for q in chain] == [45, 55, 65]


@pytest.mark.parametrize(
    "text", ["BRCA1/2 mutations", "CDK4/6 inhibitors", "BRCA 1 mutation carriers", "COVID 19"]
)
def test_a_number_in_a_name_is_no_quantity(text: str) -> None:
    assert quantities(text) == []


def test_a_fraction_and_a_currency_code_are_still_read() -> None:
    assert quantities("add 1/2 cup of sugar")
    assert quantities("it costs GBP 5 per month")


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("People who are 55 years old have a 90% lifetime risk.", AGES),
        ("In 2010 there were 3 million episodes of very severe infection.", LANCET),
        ("BRCA 1 mutation carriers have risks that vary by location.",
         "Cancer risks varied by type and location of BRCA1/2 mutations."),
    ],
)  # fmt: skip
def test_the_same_figure_read_right_is_no_conflict(claim: str, source: str) -> None:
    assert conflict(claim, source) is None


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("People who are 75 years old have a 90% lifetime risk.", AGES),
        ("In 2010 there were 35 million episodes of severe infection.", LANCET),
        ("An estimated 30 million cases were seen.", "An estimated 12 million cases were seen."),
    ],
)
def test_a_changed_figure_is_still_a_conflict(claim: str, source: str) -> None:
    found = conflict(claim, source)
    assert found is not None and found.kind == "number"


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Pioneer factor OCT3/4 binds chromatin remodelling factors.",
         "Oct4 binds chromatin remodelling factors in embryonic stem cells."),
        ("BRCA2 mutation carriers have a higher risk.",
         "Cancer risks varied by location of BRCA1/2 mutations."),
    ],
)  # fmt: skip
def test_a_name_with_slashed_numbers_names_each(claim: str, source: str) -> None:
    assert conflict(claim, source, reference=source) is None


def test_a_name_with_another_number_is_still_a_conflict() -> None:
    found = conflict("Oct3 binds the enhancer.", "Oct4 binds the enhancer.")
    assert found is not None and found.kind == "number"
    found = conflict("OCT3/5 binds the enhancer.", "Oct4 binds the enhancer.")
    assert found is not None and found.kind == "number"


def test_a_statistic_after_an_acronym_is_a_quantity() -> None:
    found = conflict("The HR was 1.5 for stroke.", "The HR was 1.13 for stroke.")
    assert found is not None and found.kind == "number"
    assert conflict("HR 1.5 for stroke.", "HR 1.13 for stroke.") is not None


def test_an_acronym_with_another_number_is_another_name() -> None:
    source = "Cancer risks varied by location of BRCA1/2 mutations."
    found = conflict("BRCA 3 mutation carriers have risks that vary.", source, reference=source)
    assert found is not None and found.kind == "number"
    assert conflict("BRCA 2 carriers have risks that vary.", source, reference=source) is None
