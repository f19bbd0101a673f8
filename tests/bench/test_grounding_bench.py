"""bench/grounding.py: Wilson intervals by hand arithmetic, each flip rule as written in its
docstring, the demo-handbook set, and a run end to end on a three-claim SciFact folder."""

from __future__ import annotations

import gzip
import importlib
import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    monkeypatch.syspath_prepend(str(BENCH))
    yield importlib.import_module("grounding")
    for name in ("grounding", "_grounding_sets", "_datasets"):
        sys.modules.pop(name, None)


def test_wilson_interval_by_hand(bench: ModuleType) -> None:
    # k=8, n=10, z=1.96: centre (0.8 + 0.19208) / 1.38416, half-width as in Wilson (1927).
    z2 = 1.96**2
    den = 1 + z2 / 10
    mid = (0.8 + z2 / 20) / den
    half = 1.96 * math.sqrt(0.8 * 0.2 / 10 + z2 / 400) / den
    assert bench.wilson(8, 10) == pytest.approx((mid - half, mid + half))
    assert bench.wilson(0, 0) == (0.0, 1.0)
    assert bench.wilson(10, 10)[1] == 1.0


def test_each_flip_rule_as_documented(bench: ModuleType) -> None:
    flips = dict(
        sys.modules["_grounding_sets"].flip(
            "Aspirin increases bleeding in 12 days in Boston.",
            "Aspirin raised bleeding in Boston.",
            ["Trials in Chicago showed it."],
            seed=1,
        )
    )
    assert flips["number"] == "Aspirin increases bleeding in 36 days in Boston."
    assert flips["unit"] == "Aspirin increases bleeding in 12 weeks in Boston."
    assert flips["direction"] == "Aspirin decreases bleeding in 12 days in Boston."
    assert flips["entity"] == "Aspirin increases bleeding in 12 days in Chicago."
    assert "negation" not in flips  # no auxiliary: no negation flip
    neg = dict(sys.modules["_grounding_sets"].flip("Aspirin is safe.", "", ["x"], seed=1))
    assert neg["negation"] == "Aspirin is not safe."


@pytest.mark.parametrize(
    ("claim", "flipped"),
    [
        # An auxiliary already negated loses its negator ("does not not affect" is no flip).
        ("Folate does not affect CKD progression.", "Folate does affect CKD progression."),
        ("Antibodies have no affinity for lipids.", "Antibodies have affinity for lipids."),
        # An all-capitals word is an acronym, not an auxiliary.
        ("Immunosuppressive (IS) therapy does raise risk.",
         "Immunosuppressive (IS) therapy does not raise risk."),
    ],
)  # fmt: skip
def test_the_negation_flip_of_a_negated_claim_removes_the_negator(
    bench: ModuleType, claim: str, flipped: str
) -> None:
    flips = dict(sys.modules["_grounding_sets"].flip(claim, "", ["x"], seed=1))
    assert flips["negation"] == flipped


def test_the_demo_set_expects_each_verdict_kind(bench: ModuleType) -> None:
    refs, answers = sys.modules["_grounding_sets"].demo_cases()
    kinds = {kind for _, want in answers for _, kind in want}
    assert kinds == {"supported", "flagged", "contradicted", "uncited_claim"}
    assert all(r.citation_id for r in refs.references) and not refs.omitted


def test_a_run_end_to_end_on_a_tiny_scifact(
    bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "scifact-claims"
    folder.mkdir()
    docs = [
        {"doc_id": 1, "title": "Aspirin", "abstract": ["Aspirin increased bleeding by 20%."]},
        {"doc_id": 2, "title": "Statins", "abstract": ["Statins did not lower mortality."]},
        {"doc_id": 3, "title": "Tea", "abstract": ["Green tea is popular in Japan."]},
    ]
    with gzip.open(folder / "corpus.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write("\n".join(json.dumps(d) for d in docs))
    claims = [
        {"id": 1, "claim": "Aspirin increased bleeding by 20%.", "cited_doc_ids": [1],
         "evidence": {"1": [{"sentences": [0], "label": "SUPPORT"}]}},
        {"id": 2, "claim": "Statins lower mortality.", "cited_doc_ids": [2],
         "evidence": {"2": [{"sentences": [0], "label": "CONTRADICT"}]}},
    ]  # fmt: skip
    (folder / "claims_train.jsonl").write_text("\n".join(map(json.dumps, claims)))
    monkeypatch.setattr(bench, "RESULTS", tmp_path / "grounding.md")
    bench.main(["--data", str(tmp_path), "--support", "lexical"])
    report = (tmp_path / "grounding.md").read_text(encoding="utf-8")
    assert "| SUPPORT | 1 | 1/1" in report  # supported
    assert "| CONTRADICT | 1 | 0/1" in report  # not called supported
    assert "number: flagged 1/1" in report
    assert "Cost per cited sentence" in report
