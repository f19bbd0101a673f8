"""A ratio figure states a direction (issue #20): "odds ratio 2.77" is a higher risk, "HR
0.76" a lower one, a ratio whose interval holds 1 neither."""

from __future__ import annotations

import pytest

from unifind.cite._ratios import ratios
from unifind.cite.contradict import conflict

_ODDS = (
    "The estimated odds ratio for the risk of gastric cancer in those with a history of "
    "infection with H pylori was 2.77 (95% confidence interval 1.04 to 7.97)."
)
_ZH_ODDS = "幽门螺杆菌感染者患胃癌的比值比为2.77（95%置信区间1.04至7.97）。"


@pytest.mark.parametrize(
    ("text", "sides"),
    [
        (_ODDS, [0]),
        ("Risk of CHD was reduced among vitamin users (RR=0.76; 95% CI, 0.65-0.90).", [1]),
        ("Hazard ratio 0.5 (0.2 to 0.9) for death.", [1]),
        ("Pooled OR = 1.8, p < 0.001.", [0]),
        (_ZH_ODDS, [0]),
        ("风险比为0.62（95%置信区间0.45至0.85）。", [1]),
        # the interval holds 1: no difference shown
        ("For risk of AD, the adjusted RRs were 1.51 (95% CI, 0.91-2.50).", []),
        ("风险比为1.20（95%置信区间0.80至1.90）。", []),
        # no decimal figure: a dose, a count, a year; "OR" only as the abbreviation
        ("The HR for each 10 mg increase was reported in 2010.", []),
        ("Patients with diabetes or hypertension were 2.5 times as many.", []),
        ("A ratio of 1.00 means no difference.", []),
    ],
)  # fmt: skip
def test_a_ratio_is_a_rise_or_a_fall(text: str, sides: list[int]) -> None:
    assert [r.side for r in ratios(text)] == sides


@pytest.mark.parametrize(
    ("claim", "source", "opposed"),
    [
        ("Gastric infection with Helicobacter pylori decreases risk of gastric cancer.",
         _ODDS, True),
        ("Gastric infection with Helicobacter pylori increases risk of gastric cancer.",
         _ODDS, False),
        ("Vitamin users have a higher risk of CHD.",
         "Risk of CHD among vitamin users: RR 0.76 (95% CI, 0.65-0.90).", True),
        ("Vitamin users have a higher risk of CHD.",
         "Risk of CHD among vitamin users: RR 0.96 (95% CI, 0.65-1.20).", False),
        ("幽门螺杆菌感染降低胃癌风险。", _ZH_ODDS, True),
        ("幽门螺杆菌感染增加胃癌风险。", _ZH_ODDS, False),
    ],
)  # fmt: skip
def test_a_claim_against_the_ratio_is_contradicted(claim: str, source: str, opposed: bool) -> None:
    found = conflict(claim, source)
    assert (found is not None and found.kind == "direction") is opposed
