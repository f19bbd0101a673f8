"""CrossEncoderReranker: genuine ms-marco-MiniLM-L-12-v2 scores, verified files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from unifind.embed import _onnx
from unifind.embed.base import Reranker, resolve_reranker
from unifind.embed.cross_encoder import MODEL_NAME, CrossEncoderReranker
from unifind.errors import ConfigError
from unifind.testing.embedder import RerankerConformance
from unifind.testing.fakes import OverlapReranker

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ce() -> CrossEncoderReranker:
    return CrossEncoderReranker()


class TestCrossEncoderConformance(RerankerConformance):
    @pytest.fixture
    def reranker(self, ce: CrossEncoderReranker) -> Reranker:
        return ce


class TestOverlapConformance(RerankerConformance):
    @pytest.fixture
    def reranker(self) -> Reranker:
        return OverlapReranker()


def test_sentence_transformers_example_order(ce: CrossEncoderReranker) -> None:
    # The model card's example: the population sentence wins, the museum one is weak.
    scores = ce.score(
        "How many people live in Berlin?",
        [
            "Berlin has a population of 3,520,031 registered inhabitants in an area of "
            "891.82 square kilometers.",
            "New York City is famous for the Metropolitan Museum of Art.",
            "Berlin is well known for its museums.",
        ],
    )
    assert scores[0] > 5 > scores[2] > scores[1]


def test_relevant_passage_scores_higher(ce: CrossEncoderReranker) -> None:
    good, bad = ce.score(
        "what is reciprocal rank fusion",
        [
            "Reciprocal rank fusion sums 1/(k + rank) over the ranked lists of several systems.",
            "Reciprocal altruism is when an organism helps another expecting help in return.",
        ],
    )
    assert good > bad + 3


def test_long_passages_are_truncated(ce: CrossEncoderReranker) -> None:
    [score] = ce.score("bread", ["bread " * 2000])
    assert isinstance(score, float)


def test_spec_names_and_registry(ce: CrossEncoderReranker) -> None:
    assert ce.spec == MODEL_NAME
    assert resolve_reranker("cross-encoder").spec == MODEL_NAME
    assert resolve_reranker("cross-encoder:ms-marco-MiniLM-L-12-v2").spec == MODEL_NAME


def test_a_local_directory_works(tmp_path: Path, ce: CrossEncoderReranker) -> None:
    src = _onnx.vectrix_model_dir("reranker_en")
    for name in ("model.onnx", "tokenizer.json"):
        os.symlink(src / name, tmp_path / name)
    local = CrossEncoderReranker(tmp_path)
    assert local.spec.startswith(f"cross-encoder:{tmp_path.resolve()}@1225ccd6")
    passages = ["a b c", "Berlin has 3.5 million people."]
    assert local.score("Berlin population", passages) == ce.score("Berlin population", passages)


def test_bad_model_and_batch_size(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="neither"):
        CrossEncoderReranker(tmp_path)
    with pytest.raises(ConfigError, match="batch_size"):
        CrossEncoderReranker(batch_size=0)
