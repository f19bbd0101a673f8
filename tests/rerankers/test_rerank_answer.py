"""Parsing an agent's or a tool's answer into a ranking: both seed shapes and the junk."""

from __future__ import annotations

import pytest

from unifind.errors import SourceError
from unifind.rerankers._answer import item_ids, parse_ranking
from unifind.types import Item, Reason

IDS = ["ref_001", "ref_002", "ref_003"]


def order(answer: object, ids: list[str] = IDS) -> list[int]:
    return [i for i, _ in parse_ranking(answer, ids, who="agent 't'").order]


@pytest.mark.parametrize(
    "answer",
    [
        '{"order": ["ref_003", "ref_001", "ref_002"]}',
        '{"order": [3, 1, 2]}',
        '{"order": ["3", "1", "2"]}',
        '{"items": [{"citation_id": "ref_003"}, {"citation_id": "ref_001"}, {"id": "ref_002"}]}',
        '```json\n{"order": ["ref_003", "ref_001", "ref_002"]}\n```',
        'Sure! Here it is: {"order": ["ref_003", "ref_001", "ref_002"]} Hope it helps.',
        '["ref_003", "ref_001", "ref_002"]',
        {"order": ["ref_003", "ref_001", "ref_002"]},
        {"result": '{"order": ["ref_003", "ref_001", "ref_002"]}'},
    ],
)
def test_every_accepted_shape_gives_the_same_order(answer: object) -> None:
    assert order(answer) == [2, 0, 1]


def test_positional_scores_are_reciprocal_ranks() -> None:
    ranking = parse_ranking('{"order": ["ref_002", "ref_001"]}', IDS, who="a")
    assert ranking.order == ((1, 1.0), (0, 0.5))
    assert ranking.note == "1 unranked item(s) kept after the ranked ones"


def test_scores_are_used_when_every_named_item_has_one() -> None:
    answer = {"items": [{"citation_id": "ref_002", "score": 0.9}, {"id": "ref_003", "score": 2}]}
    assert parse_ranking(answer, IDS, who="a").order == ((1, 0.9), (2, 2.0))


def test_unknown_and_repeated_ids_are_ignored_and_noted() -> None:
    ranking = parse_ranking('{"order": ["ref_009", "ref_002", "ref_002", 7, true]}', IDS, who="a")
    assert [i for i, _ in ranking.order] == [1]
    assert ranking.note is not None
    assert ranking.note.startswith("ignored 3 unknown id(s): ref_009, 7, true")


@pytest.mark.parametrize(
    "answer",
    ["I think the second one is best.", '{"best": "ref_001"}', '{"order": []}',
     '{"order": ["ref_042"]}', "", None, 42],
)  # fmt: skip
def test_useless_answers_are_bad_responses(answer: object) -> None:
    with pytest.raises(SourceError) as info:
        parse_ranking(answer, IDS, who="agent 't'")
    assert info.value.reason is Reason.BAD_RESPONSE
    assert str(info.value).startswith("agent 't' ")


def test_ids_are_citation_ids_when_distinct_else_positions() -> None:
    a = Item(type="web", title="a", citation_id="ref_001")
    b = Item(type="web", title="b", citation_id="ref_002")
    bare = Item(type="web", title="c")
    assert item_ids([a, b]) == ["ref_001", "ref_002"]
    assert item_ids([a, bare]) == ["1", "2"]
    assert item_ids([a, a]) == ["1", "2"]
