"""bench/grounding_support.py: AUC by hand, the logistic fit, and the report on made-up
features (a feature that separates SUPPORT from NEI must score AUC 1)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    monkeypatch.syspath_prepend(str(BENCH))
    yield importlib.import_module("grounding_support")
    for name in ("grounding_support", "grounding", "_grounding_sets", "_datasets"):
        sys.modules.pop(name, None)


def test_auc_by_hand(bench: ModuleType) -> None:
    assert bench.auc(np.array([2.0, 3.0]), np.array([1.0])) == 1.0
    assert bench.auc(np.array([1.0]), np.array([2.0, 3.0])) == 0.0
    # one of two pairs ordered, one tied: (1 + 0.5) / 2
    assert bench.auc(np.array([2.0]), np.array([1.0, 2.0])) == pytest.approx(0.75)


def test_fit_weights_a_separating_feature(bench: ModuleType) -> None:
    x = np.array([[0.1], [0.2], [0.8], [0.9]])
    y = np.array([0.0, 0.0, 1.0, 1.0])
    w = bench.fit(x, y)
    assert w[1] > 0
    p = 1 / (1 + np.exp(-(w[0] + w[1] * x[:, 0])))
    assert (p[2:] > 0.5).all() and (p[:2] < 0.5).all()


def test_report_scores_each_combination_on_both_halves(bench: ModuleType) -> None:
    grounding = importlib.import_module("grounding")
    rng = np.random.default_rng(0)
    pairs, rows = [], []
    for i in range(40):
        for label in ("SUPPORT", "NEI", "UNRELATED"):
            good = label == "SUPPORT"
            pairs.append(grounding.Pair("c", "t", "a", label, i))
            rows.append({
                "lexical": float(rng.uniform(0.5, 1.0) if good else rng.uniform(0.0, 0.4)),
                "cosine": float(rng.uniform(0.8, 0.9)),
                "query": 0.5, "idf": 0.5, "cover2": 0.5, "sentence": 0.5, "title": 0.5,
            })  # fmt: skip
    lines = bench.report(pairs, rows)
    # a perfect score flags every NEI pair at the cut that flags 5 % of SUPPORT
    assert "| refit: lexical + cosine | 1.000 | 1.000 | 100.0% |" in lines
    assert not any("cross" in line for line in lines)  # no cross-encoder feature given
    assert "- lexical: 1.000 / 1.000" in lines
