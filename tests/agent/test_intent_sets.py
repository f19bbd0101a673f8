"""The builtin intent on the labelled sets in bench/ (dev: tuned on; held-out: never)."""

from __future__ import annotations

from pathlib import Path

import pytest

from unifind.agent.intent import Vocabulary, classify
from unifind.agent.vocab import db_vocabulary_of, kb_words_of
from unifind.db.demo import DEMO_MODELS_YAML
from unifind.db.models import load_models

ROOT = Path(__file__).resolve().parents[2]


def _accuracy(name: str) -> tuple[float, float]:
    titles = [p.stem for p in (ROOT / "src/unifind/demo/corpus").iterdir()]
    models = load_models(DEMO_MODELS_YAML).values()
    vocab = Vocabulary(db=db_vocabulary_of(models), kb=kb_words_of(titles))
    rows = [
        line.rstrip("\n").split("\t")
        for line in (ROOT / "bench" / name).read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    search = legs = 0
    for message, label in rows:
        want = () if label == "none" else tuple(label.split(","))
        got = classify(message, vocab)
        search += got.search == bool(want)
        legs += got.legs == want
    return search / len(rows), legs / len(rows)


@pytest.mark.parametrize("name", ["ask_intent_dev.tsv", "ask_intent_heldout.tsv"])
def test_intent_meets_the_target_on_both_sets(name: str) -> None:
    search, legs = _accuracy(name)
    assert search >= 0.9 and legs >= 0.9, (search, legs)
