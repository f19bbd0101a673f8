"""A source that reports no effect contradicts a claim that states one (issue #20)."""

from __future__ import annotations

import pytest

from unifind.cite._null import null_finding, states_effect
from unifind.cite.verdict import SourceSentences

NULL = "Daily aspirin was not associated with a lower risk of stroke in older adults."


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Daily aspirin lowers the risk of stroke in older adults.", NULL),
        ("Vitamin D supplements reduce fracture rates.",
         "Vitamin D supplements did not reduce fracture rates in the trial."),
        ("Coffee intake is correlated with migraine frequency.",
         "Evidence was lacking for any link between coffee intake and migraine frequency."),
        ("The new drug improves survival in sepsis.",
         "Survival in sepsis was unchanged by the new drug."),
        ("每天服用阿司匹林降低中风风险。", "每天服用阿司匹林与中风风险没有显著关联。"),
        ("Sepsis incidence has risen since 2009.", "Since 2009, sepsis incidence was stable."),
        # a loss of function with no effect: the thing is not needed for it
        ("Satellite cells promote muscle regrowth after injury.",
         "Depletion of satellite cells impaired muscle size without affecting muscle regrowth "
         "after injury."),
    ],
)  # fmt: skip
def test_a_null_finding_about_the_claims_words_is_found(claim: str, source: str) -> None:
    assert null_finding(claim, source, [source]) is not None


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        # the claim denies too: the negation rule's business, not a conflict here
        ("Daily aspirin does not lower the risk of stroke.", NULL),
        ("每天服用阿司匹林不降低中风风险。", "每天服用阿司匹林与中风风险没有显著关联。"),
        # the source states the effect
        ("Daily aspirin lowers the risk of stroke.",
         "Daily aspirin lowered the risk of stroke by a third."),
        # an aim, not a finding
        ("Daily aspirin lowers the risk of stroke.",
         "We aimed to test whether daily aspirin had no effect on the risk of stroke."),
        # a loss-of-function result backs the claim (a double negative)
        ("The receptor promotes weight gain on a fat diet.",
         "Mice lacking the receptor fail to gain weight on a fat diet."),
        # "unrelated" naming a kind of donor is no null finding
        ("Matching improves transplant outcomes with unrelated donors.",
         "Transplant outcomes with unrelated donors improved with matching."),
        # the absence is about something else
        ("Smoking increases the risk of bladder cancer.",
         "Smoking had no effect on hospital stay."),
    ],
)  # fmt: skip
def test_no_null_finding(claim: str, source: str) -> None:
    assert null_finding(claim, source, [source]) is None


def test_a_clause_that_states_the_claims_effect_elsewhere_wins() -> None:
    claim = "Drug X use is associated with an increased risk of bladder cancer."
    null = "In adjusted analyses, there was no association with 8 of the 10 other cancers"
    found = "Drug X use was associated with an increased risk of bladder cancer (HR 1.6)."
    assert null_finding(claim, null, [null]) is not None
    assert null_finding(claim, null, [null, found]) is None


def test_the_null_clause_must_name_what_the_reference_names() -> None:
    claim = "Birth weight is associated with breast cancer."
    null = "No association was noted between breast cancer and gestational age at birth."
    other = "Heavier birth weight was studied in five cohorts."
    assert null_finding(claim, null, [null]) is not None
    assert null_finding(claim, null, [null, other]) is None


def test_the_judge_calls_it_contradicted_and_shows_the_sentence() -> None:
    text = f"Aspirin in older adults.\n\n{NULL} Bleeding was more common with aspirin."
    claim = "Daily aspirin lowers the risk of stroke in older adults."
    evidence, clash = SourceSentences().judge(claim, "ref_001", text)
    assert clash is not None and clash.kind == "negation"
    assert evidence is not None and evidence.sentence == NULL


def test_states_effect() -> None:
    assert states_effect("Statins reduce mortality.")
    assert not states_effect("Statins do not reduce mortality.")
    assert not states_effect("Microglia are immune cells of the brain.")
