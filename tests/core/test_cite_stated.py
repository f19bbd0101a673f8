"""Numbers a claim states that its reference never does (issue #20)."""

from __future__ import annotations

import pytest

from unifind.cite._stated import unstated


@pytest.mark.parametrize(
    ("claim", "reference", "figure"),
    [
        ("Take 120 mg of folic acid a day.", "Patients took 40 mg of folic acid a day.", "120"),
        ("IL-6 signalling drives atherosclerosis.", "IL-2 signalling may drive it.", "6"),
        ("Sepsis mortality was stable from 6027 to 2014.", "From 2009-2014 it was stable.", "6027"),
        ("Claims are answered within 9 business days.", "We answer within 3 business days.", "9"),
        ("Rotation lasts 3 weeks.", "Each rotation lasts one week.", "3"),
    ],
)
def test_a_figure_the_reference_never_writes_is_unstated(
    claim: str, reference: str, figure: str
) -> None:
    assert unstated(claim, reference) == figure


@pytest.mark.parametrize(
    ("claim", "reference"),
    [
        ("Damaged items must be reported within 2 days.", "Report within 48 hours."),  # units
        ("Incidence was 18.2 per 1000.", "Incidence varied between 18·2 and 30·4 per 1000."),
        ("About 30% responded.", "Of the programmes, 29.7% responded."),  # rounding
        ("88% of programmes require abstinence.", "Eighty-eight percent of them require it."),
        ("It shipped on 2024-03-05.", "It shipped on 5 March 2024."),  # a month name
        ("Surveys of 60,463 adults.", "Face-to-face surveys of 60 463 adults."),  # spaced
        ("1. Items can be returned within 30 days.", "Returns within thirty days."),  # marker
        ("An M2-like phenotype is induced by cold.", "Cold induces alternative activation."),
        ("The tower was finished in 1889.", "Built between 1887 and 1889."),
        ("退货需在30天内完成。", "Returns are accepted within 30 days."),
        ("No figures here at all.", "Nor here."),
    ],
)
def test_a_figure_stated_any_way_is_stated(claim: str, reference: str) -> None:
    assert unstated(claim, reference) is None


def test_a_small_integer_is_not_a_rounded_decimal() -> None:
    # "3" for "3.4" is another figure; "30" for "29.7" is rounding.
    assert unstated("Up 3 points.", "Up 3.4 points.") == "3"
