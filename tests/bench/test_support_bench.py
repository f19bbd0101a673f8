"""bench/support.py's statistics by hand arithmetic, and its pairs on a tiny corpus."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

pytest.importorskip("bm25s", reason="bench-only dependency: pip install bm25s")
pytest.importorskip("Stemmer", reason="bench-only dependency: pip install PyStemmer")

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    monkeypatch.syspath_prepend(str(BENCH))
    yield importlib.import_module("support")
    for name in ("support", "_datasets", "_rerank"):
        sys.modules.pop(name, None)


def test_auc_is_the_share_of_correctly_ordered_pairs(bench: ModuleType) -> None:
    assert bench.auc([3.0, 2.0], [1.0]) == 1.0
    assert bench.auc([1.0], [1.0]) == 0.5  # a tie counts one half
    # Pairs (2>1.5, 2>0, 1<1.5, 1>0): 3 of 4.
    assert bench.auc([2.0, 1.0], [1.5, 0.0]) == 3 / 4
    assert bench.auc([0.2, 0.2, 0.9], [0.2, 0.1]) == (0.5 + 1 + 0.5 + 1 + 1 + 1) / 6


def test_logistic_fit_recovers_known_coefficients(bench: ModuleType) -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(20_000, 2))
    p = 1 / (1 + np.exp(-(-1.0 + 2.0 * x[:, 0] - 0.5 * x[:, 1])))
    y = (rng.random(len(p)) < p).astype(float)
    w = bench.fit_logistic(x, y)
    assert np.allclose(w, [-1.0, 2.0, -0.5], atol=0.08)


def test_threshold_precision_recall_and_pr_points(bench: ModuleType) -> None:
    p = np.array([0.9, 0.8, 0.6, 0.4, 0.3])
    y = np.array([1, 0, 1, 1, 0])
    assert bench.prf(p, y, 0.5) == (2 / 3, 2 / 3, 2 / 3)
    # F1 at 0.4: P 3/4, R 1 → 6/7, the best of every cut.
    assert bench.best_f1_threshold(p, y) == 0.4
    # Recall ≥ 1/3 first at rank 1 (P 1); ≥ 1.0 at rank 4 (P 3/4).
    assert bench.pr_points(p, y, [0.3, 1.0]) == [1.0, 0.75]
    assert bench.average_precision(p, y) == pytest.approx((1 + 2 / 3 + 3 / 4) / 3)


def test_pairs_take_the_best_non_relevant_bm25_hit_as_the_hard_negative(
    bench: ModuleType,
) -> None:
    from _datasets import Doc

    docs = [
        Doc("d1", "Lava", "Basalt forms when lava from a volcano cools."),
        Doc("d2", "Volcanoes", "A volcano erupts lava, ash and gas."),
        Doc("d3", "Tea", "Green tea leaves are steamed."),
        Doc("d4", "Penguins", "Emperor penguins breed in winter."),
    ]
    claim = bench.Claim("c1", "Basalt is cooled volcano lava.", {"d1": "SUPPORT"})
    pairs = bench.build_pairs(docs, bench.BM25(docs), [claim], seed=1)
    kinds = {p.kind: p.doc.doc_id for p in pairs}
    assert kinds["pos"] == "d1" and kinds["hard"] == "d2"
    assert kinds["easy"] not in {"d1", "d2"}
    assert [p.label for p in pairs if p.kind == "pos"] == ["SUPPORT"]
