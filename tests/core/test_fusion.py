"""Fusion by hand arithmetic (STYLE: ranx-style tests)."""

from __future__ import annotations

import pytest

from unifind.rank.fusion import convex, minmax, rrf


def test_rrf_hand_arithmetic() -> None:
    fused = dict(rrf({"lex": ["a", "b", "c"], "vec": ["c", "a"]}))
    assert fused["a"] == pytest.approx(1 / (60 + 1) + 1 / (60 + 2))
    assert fused["b"] == pytest.approx(1 / (60 + 2))
    assert fused["c"] == pytest.approx(1 / (60 + 3) + 1 / (60 + 1))


def test_rrf_order_and_weights() -> None:
    fused = rrf({"lex": ["a", "b"], "vec": ["b", "a"]}, weights={"lex": 2.0, "vec": 1.0})
    assert [k for k, _ in fused] == ["a", "b"]
    assert fused[0][1] == pytest.approx(2 / 61 + 1 / 62)


def test_rrf_custom_k_and_stable_ties() -> None:
    fused = rrf({"x": ["a"], "y": ["b"]}, k=1)
    assert fused == [("a", 0.5), ("b", 0.5)]


def test_minmax() -> None:
    assert minmax([2.0, 4.0, 3.0]) == [0.0, 1.0, 0.5]
    assert minmax([5.0, 5.0]) == [1.0, 1.0]
    assert minmax([]) == []


def test_convex_hand_arithmetic() -> None:
    fused = dict(convex({"lex": {"a": 10.0, "b": 5.0, "c": 0.0}, "vec": {"a": 0.2, "c": 0.8}}))
    assert fused["a"] == pytest.approx(1.0 + 0.0)
    assert fused["b"] == pytest.approx(0.5)
    assert fused["c"] == pytest.approx(0.0 + 1.0)
