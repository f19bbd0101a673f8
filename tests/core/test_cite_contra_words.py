"""The dataset's contradictions (issue #20, round 5): a claim's own words for an absent
relation, negative prefixes, a rival sentence about something else, and words misread as a
negation or a name. English and Chinese where the rule is about words."""

from __future__ import annotations

import pytest

from unifind.cite._compare import compared
from unifind.cite._stated import unstated
from unifind.cite.contradict import _signs, conflict
from unifind.cite.verdict import SourceSentences


def _judged(claim: str, text: str) -> str | None:
    _, found = SourceSentences().judge(claim, "ref_001", text)
    return found.kind if found else None


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Air pollution exposure is unrelated to anxiety prevalence.",
         "Air pollution exposure was associated with higher anxiety prevalence."),
        ("Treatment outcome is independent of the patient's genotype.",
         "Treatment outcome was associated with the patient's genotype."),
        ("Integrated care is ineffective at tackling multiple comorbidities.",
         "Integrated care was effective at tackling multiple comorbidities."),
        ("空气污染暴露与焦虑患病率无关。", "空气污染暴露与焦虑患病率升高显著相关。"),
    ],
)  # fmt: skip
def test_a_claims_word_for_an_absent_relation_denies(claim: str, source: str) -> None:
    found = conflict(claim, source, closest=True)
    assert found is not None and found.kind == "negation"


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        # a finding, not a denial
        ("Smoking is an independent risk factor for anxiety prevalence.",
         "Smoking was associated with higher anxiety prevalence."),
        # names a group
        ("Matching improves transplant outcomes with unrelated donors.",
         "Matching improves transplant outcomes with unrelated donors in adults."),
        # the source denies too
        ("Air pollution exposure is unrelated to anxiety prevalence.",
         "Air pollution exposure was not associated with anxiety prevalence."),
        ("空气污染暴露与焦虑患病率无关。", "空气污染暴露与焦虑患病率没有关联。"),
    ],
)  # fmt: skip
def test_no_denial_to_contradict(claim: str, source: str) -> None:
    assert conflict(claim, source, closest=True) is None


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Ambulatory monitoring is inaccurate at diagnosing hypertension.",
         "Ambulatory monitoring is more accurate than clinic monitoring at diagnosing "
         "hypertension."),
        ("Ambulatory monitoring is accurate at diagnosing hypertension.",
         "Ambulatory monitoring is inaccurate at diagnosing hypertension."),
        ("The inhibitor is inactive against KDM5A in cells.",
         "The inhibitor was active against KDM5A in cells."),
        ("动态血压监测诊断高血压不准确。", "动态血压监测诊断高血压比诊所测量更准确。"),
    ],
)  # fmt: skip
def test_a_negative_prefix_negates_the_word(claim: str, source: str) -> None:
    found = conflict(claim, source)
    assert found is not None and found.kind == "negation"


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        # no prefix: "improve" is not "prove", "impaired" not "paired", "inpatient" a setting
        ("Exercise improves memory in older adults.",
         "Exercise proves useful for memory in older adults."),
        ("The reflex is impaired in older adults.",
         "The reflex was measured in paired older adults."),
        ("Inpatient care lowers costs of pneumonia.", "Patient care lowers costs of pneumonia."),
        # the claim holds both words: a change from one to the other
        ("Cyclin A2 destruction switches kinetochores from unstable to stable attachments.",
         "Cyclin A2 destruction makes kinetochore attachments stable."),
        ("动态血压监测诊断高血压准确。", "动态血压监测诊断高血压比诊所测量更准确。"),
    ],
)  # fmt: skip
def test_no_negative_prefix(claim: str, source: str) -> None:
    assert conflict(claim, source) is None


def test_a_rival_that_agrees_must_be_about_what_the_contradicting_sentence_is() -> None:
    claim = "Drug use is not associated with an increased risk of prostate cancer."
    text = (
        "Drug use was not associated with an increased risk of bladder cancer. "
        "Drug use was associated with an increased risk of prostate cancer."
    )
    assert _judged(claim, text) == "negation"
    # a rival about everything the contradicting sentence is about answers for the claim
    text += " In men, drug use was not associated with an increased risk of prostate cancer."
    assert _judged(claim, text) is None


def test_any_rival_answers_for_a_less_aligned_contradicting_sentence() -> None:
    # 3 of the claim's 7 words, one of them by chance ("at a rate of 5 kg"): a rival that
    # agrees need not hold them all
    claim = "Bariatric surgery increases rates of postmenopausal breast cancer."
    alone = (
        "Bariatric surgery brought weight loss in the first four postoperative months, "
        "at a rate of 5 kg."
    )
    assert _judged(claim, alone) == "direction"
    assert (
        _judged(claim, alone + " Bariatric surgery is becoming a more widespread treatment.")
        is None
    )


def test_a_rival_must_be_about_the_same_thing_in_chinese() -> None:
    claim = "服药患者的前列腺癌风险不升高。"
    assert _judged(claim, "服药患者的膀胱癌风险不升高。服药患者的前列腺癌风险升高。") == "negation"
    assert _judged(claim, "服药患者的前列腺癌风险升高。服药患者的前列腺癌风险不升高。") is None


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("High levels of CRP lead to a higher risk of exacerbations.",
         "The risks of exacerbations in those with 3 high biomarkers (vs no high biomarkers) "
         "were 62% (vs 24%)."),
        ("Drug therapy is better for back pain.", "Drug therapy is better than no therapy for "
         "back pain."),
        ("糖尿病患者的出血风险升高。", "与无糖尿病者相比，糖尿病患者的出血风险升高。"),
    ],
)  # fmt: skip
def test_no_naming_the_group_compared_is_no_negation(claim: str, source: str) -> None:
    assert conflict(claim, source) is None


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("High levels of CRP lead to a higher risk of exacerbations.",
         "There is no high risk of exacerbations with CRP levels."),
        ("糖尿病患者的出血风险升高。", "患者无糖尿病，出血风险升高。"),
    ],
)  # fmt: skip
def test_a_no_that_is_not_a_compared_group_still_negates(claim: str, source: str) -> None:
    found = conflict(claim, source)
    assert found is not None and found.kind == "negation"


def test_a_part_of_a_compound_name_is_no_name_swapped() -> None:
    claim = "In melanoma, anti-CTLA-4 treatment reinvigorates exhausted PD-1+Eomes+CD8 T cells."
    source = "In melanoma, treatment reverses exhaustion of T cells and the CD8/Treg ratio."
    assert conflict(claim, source, reference=source) is None
    swapped = "In melanoma, treatment by Pfizer reinvigorates exhausted T cells."
    found = conflict("In melanoma, treatment by Novartis reinvigorates exhausted T cells.",
                     swapped, reference=swapped)  # fmt: skip
    assert found is not None and found.kind == "entity"


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Women with a lower birth weight are more likely to develop breast cancer.",
         "Birth weight was positively associated with breast cancer risk."),
        ("Birth weight is negatively associated with breast cancer.",
         "Heavier birth weights were associated with increased breast cancer risk."),
        ("There is a positive correlation between hip fractures and statin use.",
         "Relationships were observed between the reduction in hip fracture risk and the "
         "extent of statin use."),
        ("出生体重与乳腺癌风险呈负相关。", "出生体重与乳腺癌风险呈正相关。"),
    ],
)  # fmt: skip
def test_an_association_of_the_opposite_sign_contradicts(claim: str, source: str) -> None:
    found = conflict(claim, source)
    assert found is not None and found.kind == "direction" and "association" in found.detail


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        # the same sign, written two ways
        ("Women with a lower birth weight are more likely to develop breast cancer.",
         "Birth weight was inversely associated with breast cancer risk."),
        ("Higher birth weight is associated with breast cancer.",
         "Birth weight was positively associated with breast cancer risk."),
        # the source asks or denies: no sign
        ("Birth weight is negatively associated with breast cancer.",
         "We asked whether heavier birth weights were associated with breast cancer risk."),
        ("Birth weight is negatively associated with breast cancer.",
         "Heavier birth weights were not associated with increased breast cancer risk."),
        # both signs composed of direction words: which thing each qualifies is unsure
        ("Reduced responsiveness to interleukin-2 is associated with autoimmune diseases.",
         "Polymorphisms in genes associated with interleukin-2 responsiveness confer a higher "
         "risk of autoimmune disease."),
        # about other things
        ("Birth weight is negatively associated with breast cancer.",
         "Higher income was associated with increased use of screening."),
        ("出生体重与乳腺癌风险呈负相关。", "出生体重与乳腺癌风险呈负相关。"),
        ("出生体重与乳腺癌风险呈负相关。", "收入与筛查呈正相关。"),
    ],
)  # fmt: skip
def test_no_sign_conflict(claim: str, source: str) -> None:
    assert _signs(claim, source) is None


@pytest.mark.parametrize(
    ("claim", "reference", "figure"),
    [
        ("Forkhead 0 (fox0) transcription factors are involved in apoptosis.",
         "The forkhead O (FoxO) family of transcription factors participates in apoptosis.",
         None),
        ("Forkhead 0（fox0）转录因子参与细胞凋亡。",
         "forkhead O（FoxO）转录因子家族参与细胞凋亡。", None),
        # no name spelt with the letter: the figure is unstated
        ("Forkhead 0 (fox0) transcription factors are involved in apoptosis.",
         "The forkhead box family of transcription factors participates in apoptosis.", "0"),
        ("There were 0 deaths in the trial.", "There were few deaths in the trial.", "0"),
    ],
)  # fmt: skip
def test_a_zero_for_the_letter_o_of_a_name(claim: str, reference: str, figure: str) -> None:
    assert unstated(claim, reference) == figure


RATES = (
    "The suicide rate associated with birth was significantly lower (5.9) and the rates "
    "associated with miscarriage (18.1) and induced abortion (34.7) were significantly "
    "higher than in the population."
)


def test_the_sources_figures_decide_a_comparison() -> None:
    lower = conflict("The suicide rate is lower after miscarriage than live birth.", RATES)
    assert lower is not None and lower.kind == "number"
    # the figures agree: the direction word nearer to the wrong side does not decide
    assert conflict("The suicide rate is higher after miscarriage than live birth.", RATES) is None


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        # no figure for one side: the direction words decide, as before
        ("The suicide rate is higher after miscarriage than live birth.",
         "The suicide rate after miscarriage (18.1) was high."),
        # Chinese comparisons are not read this way (the direction rule reads 高于 / 低于)
        ("流产后的自杀率低于活产后。", "活产后的自杀率为5.9，流产后为18.1。"),
    ],
)  # fmt: skip
def test_no_comparison_by_figures(claim: str, source: str) -> None:
    assert compared(claim, source) is None
