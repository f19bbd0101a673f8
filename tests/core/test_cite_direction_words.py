"""Antonyms of the activate / inhibit and improve / worsen pairs (issue #20): 'encourages'
against 'inhibits', 'exacerbates' against 'rescues', 'deactivates' against 'activates'."""

from __future__ import annotations

import pytest

from unifind.cite.contradict import conflict


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Antibody targeting of N-cadherin encourages metastasis.",
         "Antibody targeting of N-cadherin inhibits prostate cancer growth and metastasis."),
        ("Increased acetylation exacerbates locomotor deficits.",
         "Increased acetylation rescues locomotor deficits."),
        ("The drug aggravates joint pain in older patients.",
         "The drug alleviates joint pain in older patients."),
        ("DUSP4 loss deactivates the Ras-ERK pathway.",
         "DUSP4 loss activates the Ras-ERK pathway."),
        ("A Th2 environment impedes disease development.",
         "A Th2 environment promotes disease development."),
        ("该抗体促进肿瘤转移。", "该抗体抑制肿瘤转移。"),
        ("该药物改善患者的症状。", "该药物加重患者的症状。"),
    ],
)  # fmt: skip
def test_the_opposite_word_contradicts(claim: str, source: str) -> None:
    found = conflict(claim, source)
    assert found is not None and found.kind == "direction"


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Antibody targeting of N-cadherin inhibits metastasis.",
         "Antibody targeting of N-cadherin inhibits prostate cancer growth and metastasis."),
        ("Increased acetylation rescues locomotor deficits.",
         "Increased acetylation ameliorates locomotor deficits."),
        ("DUSP4 loss activates the Ras-ERK pathway.", "DUSP4 loss activates the Ras-ERK pathway."),
        # the opposite word about something else
        ("The drug encourages weight gain in mice.",
         "The drug inhibits the kinase and encourages weight gain in mice."),
        ("该抗体促进肿瘤转移。", "该抗体促进肿瘤转移和生长。"),
    ],
)  # fmt: skip
def test_the_same_side_or_another_thing_is_no_conflict(claim: str, source: str) -> None:
    assert conflict(claim, source) is None


@pytest.mark.parametrize(
    ("claim", "source", "opposed"),
    [
        ("TG2-specific plasma cells are scarce in the mucosa of active disease.",
         "There is a high abundance of TG2-specific plasma cells in the mucosa of active disease.",
         True),
        ("TG2-specific plasma cells are abundant in the mucosa of active disease.",
         "There is a high abundance of TG2-specific plasma cells in the mucosa of active disease.",
         False),
        ("活动期患者黏膜中的浆细胞稀少。", "活动期患者黏膜中的浆细胞丰富。", True),
    ],
)  # fmt: skip
def test_scarce_and_abundant_are_opposites(claim: str, source: str, opposed: bool) -> None:
    found = conflict(claim, source)
    assert (found is not None and found.kind == "direction") is opposed


@pytest.mark.parametrize(
    ("claim", "source", "opposed"),
    [
        # a direction word acting on a change named after it: the product of the two sides
        ("Pyridostatin inhibits checkpoint activation.",
         "Pyridostatin induces checkpoint activation in these cells.", True),
        ("Pyridostatin induces checkpoint activation.",
         "Pyridostatin induces checkpoint activation in these cells.", False),
        ("The drug decreased body weight gain in mice.",
         "The drug increased body weight gain in mice.", True),
        ("The drug decreased body weight gain in mice.",
         "The drug increased body weight loss in mice.", False),
        ("Exercise prevents the rise in blood pressure.",
         "Exercise caused a rise in blood pressure.", True),
        # not a change acted on: a verb after its subject, an agent, a second finding
        ("Inhibiting HDAC6 increases survival of mice.",
         "Inhibiting HDAC6 increased the survival of mice.", False),
        ("Loss of DUSP4 increases apoptosis.", "Loss of DUSP4 increased apoptosis.", False),
        ("An inhibitor of kinase activation was given.",
         "An inhibitor of kinase activation was given.", False),
        # the source's change stays a word of its own: it names what is reduced
        ("Excess gestational weight gain is associated with obesity.",
         "Interventions to reduce gestational weight gain may prevent obesity.", False),
        ("该药物减少体重增加。", "该药物导致体重增加。", True),
        ("该药物减少体重增加。", "该药物减少体重增加。", False),
        ("体重增加导致死亡减少。", "体重增加导致死亡减少。", False),
    ],
)  # fmt: skip
def test_a_word_acting_on_a_change_composes(claim: str, source: str, opposed: bool) -> None:
    found = conflict(claim, source)
    assert (found is not None and found.kind == "direction") is opposed


_STIFF = (
    "On a stiff matrix the cells show Src activity that promotes beta-catenin degradation "
    "and inhibits differentiation."
)
_ALLELE = (
    "The minor allele reduces production of pro-inflammatory cytokines and increases "
    "production of anti-inflammatory cytokines."
)
_ZH_STIFF = "在僵硬基质上，细胞促进β-连环蛋白降解并抑制分化。"


@pytest.mark.parametrize(
    ("claim", "source", "opposed"),
    [
        # what a direction word acts on (the words after it, to a conjunction) decides
        ("Stiff substrates promote mesodermal differentiation.", _STIFF, True),
        ("Stiff substrates inhibit mesodermal differentiation.", _STIFF, False),
        ("Stiff substrates promote beta-catenin degradation.", _STIFF, False),
        # a hyphened prefix stays on its word: anti-inflammatory is not inflammatory
        ("The minor allele upregulates pro-inflammatory cytokines.", _ALLELE, True),
        ("The minor allele upregulates anti-inflammatory cytokines.", _ALLELE, False),
        ("The minor allele downregulates pro-inflammatory cytokines.", _ALLELE, False),
        ("僵硬基质促进中胚层分化。", _ZH_STIFF, True),
        ("僵硬基质抑制中胚层分化。", _ZH_STIFF, False),
        ("僵硬基质促进β-连环蛋白降解。", _ZH_STIFF, False),
    ],
)  # fmt: skip
def test_what_the_word_acts_on_decides(claim: str, source: str, opposed: bool) -> None:
    found = conflict(claim, source)
    assert (found is not None and found.kind == "direction") is opposed


@pytest.mark.parametrize(
    ("claim", "source", "opposed"),
    [
        # an activate / inhibit word naming a kind of thing states no finding
        ("Active Ly49Q induces neutrophil polarization.",
         "An inhibitory receptor, Ly49Q, was crucial for neutrophil polarization.", False),
        ("Peroxynitrite induces T cell tolerance.",
         "T cell tolerance is induced by myeloid-derived suppressor cells and peroxynitrite.",
         False),
        ("Beta-blockers improve heart failure outcomes.",
         "Beta-blockers improve heart failure outcomes.", False),
        ("The small-molecule compound activates pluripotency.",
         "The small-molecule inhibitor MM-401 reprograms cells to pluripotency.", False),
        # with "of" the agent states what it does
        ("The compound activates mTOR signalling.",
         "The compound is an inhibitor of mTOR signalling.", True),
        ("Ly49Q受体诱导中性粒细胞极化。", "Ly49Q是一种抑制性受体，对中性粒细胞极化很重要。",
         False),
        ("该化合物激活多能性。", "小分子抑制剂使细胞重编程为多能性。", False),
        ("该化合物激活多能性。", "该化合物抑制多能性。", True),
    ],
)  # fmt: skip
def test_a_word_naming_a_kind_is_no_direction(claim: str, source: str, opposed: bool) -> None:
    found = conflict(claim, source)
    assert (found is not None and found.kind == "direction") is opposed


@pytest.mark.parametrize(
    ("claim", "source", "opposed"),
    [
        # a change named after what changes says nothing of a claim that never names it
        ("Bariatric surgery increases rates of breast cancer.",
         "After bariatric surgery, patients showed rapid weight loss and rates of breast "
         "cancer were recorded.", False),
        ("Reducing H3K4me3 methylation induces naive pluripotency in epiblast stem cells.",
         "MLL1 inhibition reprograms epiblast stem cells to naive pluripotency.", False),
        # ... and is compared when the claim names it, or when it is a change of something
        ("Bariatric surgery increases body weight.",
         "After bariatric surgery, patients showed rapid weight loss.", True),
        ("Bariatric surgery increases rates of breast cancer.",
         "Bariatric surgery was followed by a loss of breast cancer cases.", True),
        ("减肥手术增加乳腺癌发病率。", "减肥手术后患者体重下降。", False),
        ("减肥手术增加乳腺癌发病率。", "减肥手术后乳腺癌发病率下降。", True),
    ],
)  # fmt: skip
def test_a_change_of_something_else_is_not_compared(claim: str, source: str, opposed: bool) -> None:
    found = conflict(claim, source)
    assert (found is not None and found.kind == "direction") is opposed
