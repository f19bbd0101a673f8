"""The calibrated support model: features → probability that the reference supports the
sentence, one logistic model per mode.

The coefficients are fitted by ``bench/support.py`` on the SciFact *train* claims (claim +
its evidence abstract as positives; claim + the best BM25-ranked non-evidence abstract and
claim + a random abstract as negatives) and pasted here; the threshold of each mode is the
one that maximised F1 on that same train split. Every figure reported for them
(BENCHMARKS.md, "Citation support check") is on the SciFact *test* claims, never fitted on.

The probability is calibrated to that mix (about one positive for two negatives): read it
as a score on a known scale, not as the base rate of support in your answers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from unifind.agent._support_features import Features

SupportMode = Literal["lexical", "embed", "cross"]
MODES: tuple[SupportMode, ...] = ("lexical", "embed", "cross")


@dataclass(frozen=True)
class LogisticModel:
    """``p = 1 / (1 + exp(-(bias + Σ wᵢ·xᵢ)))`` over the mode's features."""

    bias: float
    lexical: float
    embed: float = 0.0
    cross: float = 0.0
    threshold: float = 0.5
    """Probability below which a citation is flagged unsupported (max F1 on the fit split)."""

    def probability(self, f: Features) -> float:
        z = self.bias + self.lexical * f.lexical
        z += self.embed * (f.embed or 0.0) + self.cross * (f.cross or 0.0)
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


# Fitted by `python bench/support.py` (2026-12-01) on 505 SciFact train claims: 564 positive,
# 505 hard and 505 easy pairs (cross: the 150 claims the cross-encoder read). The cross
# model's lexical weight is ~0 and its cross weight small: on train the cross-encoder added
# nothing to the embedder (5-fold AUC on hard negatives 0.817 → 0.818), see BENCHMARKS.md.
MODELS: dict[SupportMode, LogisticModel] = {
    "lexical": LogisticModel(bias=-3.619, lexical=5.745, threshold=0.395),
    "embed": LogisticModel(bias=-19.952, lexical=1.358, embed=23.18, threshold=0.414),
    "cross": LogisticModel(
        bias=-14.763, lexical=-0.032, embed=17.677, cross=0.111, threshold=0.472
    ),
}
