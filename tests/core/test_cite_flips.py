"""Negations and directions read as a reader reads them (issue #20, round 4): a negator's
scope is its clause, a denial word bears on the words near it, a claim's denial needs a
denial in its reference, "at increased risk" is a direction, a direction word anchored to
the claim's thing counts in a less aligned sentence, an aim states no direction."""

from __future__ import annotations

import pytest

from unifind.cite._direction import occurrences
from unifind.cite.contradict import anchored_direction, conflict, terms, undenied
from unifind.cite.sentences import sentences
from unifind.cite.verdict import SourceSentences


@pytest.mark.parametrize(
    "source",
    [
        "In contrast to other antibodies, 10E8 did not bind phospholipids.",
        "There was no significant difference in the Oxford Shoulder Score between surgical "
        "and nonsurgical treatment of proximal humerus fractures.",
        "Mortality was unchanged by folic acid in chronic kidney disease.",
    ],
)
def test_a_source_that_denies_the_claims_point_in_other_words_agrees(source: str) -> None:
    claims = {
        "10E8": "Antibody 10E8 has no affinity for phospholipids.",
        "Oxford": "Surgical treatment is not superior to nonsurgical treatment of humerus "
        "fractures.",
        "folic": "Folic acid does not affect mortality in chronic kidney disease.",
    }
    claim = next(c for key, c in claims.items() if key in source)
    assert conflict(claim, source, closest=True) is None


@pytest.mark.parametrize(
    "source",
    [
        # The negator's clause ends at the comma / the contrast: it is about predictiveness.
        "Although gender may not be predictive of mortality among all infections, women are "
        "at increased risk for death from pneumonia.",
        # "independent of" denies something else (replenishment), far from the claim's words.
        "Tissue-resident macrophages are established prior to birth and maintain themselves "
        "during adulthood independent of replenishment by blood monocytes.",
        # "similar" before a noun names a kind of thing; it denies no difference.
        "Similar point mutations are found in glioma, where A20 acts as a tumor enhancer.",
    ],
)
def test_a_denial_of_something_else_does_not_back_the_claims_denial(source: str) -> None:
    claims = {
        "gender": "Women are not at increased risk for death from pneumonia.",
        "macrophages": "Tissue-resident macrophages are not established prior to birth.",
        "glioma": "A20 is not a tumor enhancer in glioma.",
    }
    claim = next(c for key, c in claims.items() if key in source)
    found = conflict(claim, source, closest=True)
    assert found is not None and found.kind == "negation"


@pytest.mark.parametrize(
    "source",
    [
        "Little is known about whether sympathetic nerve activity changes in pregnancy.",
        "It remains unclear how sympathetic nerve activity changes in pregnancy.",
    ],
)
def test_a_sentence_saying_it_is_not_known_states_nothing(source: str) -> None:
    claim = "Sympathetic nerve activity is not elevated in pregnancy."
    assert conflict(claim, source, closest=True) is None


def test_not_only_adds_it_does_not_deny() -> None:
    source = "Metformin lowers glucose and reduces weight in obese adults."
    claim = "Metformin not only lowers glucose but also reduces weight in obese adults."
    assert conflict(claim, source, closest=True) is None
    assert not undenied(claim, [source])


def test_a_denial_the_reference_never_makes_is_undenied() -> None:
    reference = sentences(
        "We engrafted human glial progenitor cells into neonatal mice. Upon maturation, the "
        "recipient brains held large numbers of human astrocytes."
    )
    assert undenied("Transplanted human glial progenitor cells can not mature in mice.", reference)
    # The claim states, or the reference denies about the claim's words: not undenied.
    assert not undenied("Transplanted human glial progenitor cells mature in mice.", reference)
    denying = [*reference, "The engrafted progenitor cells did not mature in these mice."]
    assert not undenied("Transplanted human glial progenitor cells can not mature.", denying)
    failing = [*reference, "Grafted progenitor cells failed to mature in older hosts."]
    assert not undenied("Human glial progenitor cells do not mature.", failing)


def test_undenied_in_chinese_and_across_scripts() -> None:
    zh = ["退货在三十天内免费。", "礼品卡不能退款。"]
    assert not undenied("礼品卡不能退款。", zh)
    assert undenied("退货不免费。", ["退货在三十天内免费。"])
    # A Chinese claim citing an English reference is not judged by this rule.
    assert not undenied("退货不免费。", ["Returns are free within 30 days."])


def test_at_increased_risk_is_a_direction_and_at_least_a_bound() -> None:
    words = {o.word for o in occurrences("Women appear to be at increased risk for death.")}
    assert "increased" in words
    assert not {o.word for o in occurrences("Patients were followed for at least 2 years.")}
    found = conflict(
        "Women are at lower risk for death from pneumonia.",
        "Women appear to be at increased risk for death from pneumonia.",
    )
    assert found is not None and found.kind == "direction"


def test_a_less_aligned_sentence_contradicts_on_a_well_anchored_direction_word() -> None:
    """ "PDS" is how the abstract names pyridostatin: the sentence shares too few of the
    claim's words for every rule, but its direction word is about the claim's thing."""
    claim = "Pyridostatin increases proliferation of homologous recombination defective cells."
    source = (
        "Remarkably, PDS reduces proliferation of HR-defective cells by inducing DSB accumulation."
    )
    found = SourceSentences().judge(claim, "ref_001", source)[1]
    assert found is not None and found.kind == "direction"
    assert SourceSentences().judge(claim.replace("increases", "reduces"), "r", source)[1] is None
    # One shared word is no anchor for a less aligned sentence.
    assert anchored_direction("Pyridostatin increases the number of colonies.", source) is None


def test_most_before_a_noun_is_a_quantity_not_a_rank() -> None:
    assert not occurrences("In pediatric tissue, most T cells are naive emigrants.")
    assert {o.word for o in occurrences("HPV testing was the most sensitive test.")} == {"most"}


def test_a_sentence_that_asks_does_not_state_the_claims_direction() -> None:
    claim = "HPV screening has lower sensitivity to detect cervical neoplasia than cytology."
    stating = "HPV screening is more sensitive to detect cervical neoplasia than cytology."
    asking = "We aimed to assess whether HPV screening lowers detection of cervical neoplasia."
    found = SourceSentences().judge(claim, "r", f"{stating} {asking}")[1]
    assert found is not None and found.kind == "direction"


def test_with_or_without_denies_nothing() -> None:
    reference = [
        "We evaluated mice with or without ablation of propriospinal interneurons.",
        "Propriospinal interneurons mediated recovery from spinal cord injury.",
    ]
    claim = "Propriospinal interneurons are not integral for recovery from spinal cord injury."
    assert undenied(claim, reference)
    denying = "Recovery from spinal cord injury occurred without propriospinal interneurons."
    assert not undenied(claim, [*reference, denying])


def test_a_denial_off_the_claims_topic_does_not_back_it() -> None:
    """A negator near one of the claim's words, in a sentence sharing little else with it
    (who took part), does not back the claim's denial; the same denial on topic does."""
    participants = "A total of 3601 women who did not have dementia at baseline took part."
    finding = "Carriers of the APOE4 allele had an increased risk of Alzheimer dementia."
    claim = "Carriers of the APOE4 allele have not an increased risk of Alzheimer dementia."
    assert undenied(claim, [participants, finding])
    denying = "Carriers of the APOE4 allele had no increased risk of Alzheimer dementia."
    assert not undenied(claim, [participants, denying])


def test_a_name_with_digits_is_a_content_word_and_a_figure_is_not() -> None:
    found = terms("DUSP4 decreases apoptosis in 12 weeks at 40mg a day (H3K9me3, SEV1, 3rd).")
    assert {"dusp4", "h3k9me3", "sev1", "apoptosi"} <= found
    assert not {"12", "40mg", "3rd"} & found
    # The name anchors the direction word: "DUSP4 ... increased ... apoptosis" decides.
    source = "DUSP4 overexpression increased chemotherapy-induced apoptosis in these cells."
    found_conflict = conflict("DUSP4 decreases apoptosis.", source, closest=True)
    assert found_conflict is not None and found_conflict.kind == "direction"
    assert conflict("DUSP4 increases apoptosis.", source, closest=True) is None
