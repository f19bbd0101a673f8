"""The rerank contract through the ``builtin`` mode: hand arithmetic, depth, bad input."""

from __future__ import annotations

import pytest

from unifind.config import Settings
from unifind.errors import InputError, UnknownName
from unifind.registry import registry
from unifind.rerankers import check_uses, modes, rerank
from unifind.rerankers.base import Ranking, RerankMode
from unifind.types import Reason, Status

from ._items import assert_same_items, cids, fused


async def test_builtin_orders_by_score_times_weight() -> None:
    items = fused()
    out, report = await rerank(items, "kettle refund", uses="builtin", settings=Settings())
    # 0.04×0.6=0.024, 0.03×1.0=0.03, 0.025×0.8=0.02, 0.02×1.0=0.02 (tie keeps input order)
    assert cids(out) == ["ref_002", "ref_001", "ref_003", "ref_004"]
    assert [it.score for it in out] == pytest.approx([0.03, 0.024, 0.02, 0.02])
    assert_same_items(items, out)
    assert report.status is Status.OK
    assert (report.leg, report.backend, report.stage, report.hits) == (
        "web", "rerank:builtin", "rerank", 4,
    )  # fmt: skip


async def test_top_n_reranks_only_the_head_and_keeps_the_tail() -> None:
    items = fused()
    out, report = await rerank(items, "q", uses="builtin", settings=Settings(), top_n=2)
    assert cids(out) == ["ref_002", "ref_001", "ref_003", "ref_004"]
    assert [it.score for it in out[2:]] == [0.025, 0.02]  # the tail keeps its scores
    assert report.hits == 2
    assert report.note == "reranked top 2 of 4"


async def test_empty_list_is_ok_and_says_so() -> None:
    out, report = await rerank([], "q", uses="builtin", settings=Settings())
    assert out == []
    assert report.status is Status.OK
    assert report.note == "nothing to rerank"


@pytest.mark.parametrize("uses", ["bogus", "llm:x", "", "   "])
async def test_unknown_uses_raises_listing_valid_forms(uses: str) -> None:
    with pytest.raises(InputError) as info:
        await rerank(fused(), "q", uses=uses, settings=Settings())
    for form in ("builtin", "cross-encoder", "agent:<name>", "mcp:<server>.<tool>"):
        assert form in str(info.value)


def test_malformed_arguments_raise_before_running() -> None:
    s = Settings()
    with pytest.raises(InputError, match="takes no argument"):
        check_uses("builtin:x", s)
    with pytest.raises(InputError, match="agent:<name>"):
        check_uses("agent", s)
    with pytest.raises(UnknownName, match="unknown agent"):
        check_uses("agent:nobody", s)
    with pytest.raises(InputError, match=r"mcp:<server>\.<tool>"):
        check_uses("mcp:serveronly", s)
    with pytest.raises(UnknownName, match="unknown mcp server"):
        check_uses("mcp:nowhere.rerank", s)


async def test_negative_top_n_is_bad_input() -> None:
    with pytest.raises(InputError, match="top_n"):
        await rerank(fused(), "q", uses="builtin", settings=Settings(), top_n=-1)


class _Crashing(RerankMode):
    name = "crashing"
    form = "crashing"

    async def rank(self, items, query, arg, settings):  # type: ignore[no-untyped-def]
        raise ZeroDivisionError("boom")


class _Sloppy(RerankMode):
    """Answers out-of-range and repeated indexes; the runner must still keep every item."""

    name = "sloppy"
    form = "sloppy"

    async def rank(self, items, query, arg, settings):  # type: ignore[no-untyped-def]
        return Ranking(((3, 9.0), (3, 8.0), (99, 7.0), (-1, 6.0), (0, 5.0)))


@pytest.fixture
def plugins() -> object:
    reg = registry("rerank_modes")
    reg.register("crashing", _Crashing)
    reg.register("sloppy", _Sloppy)
    yield reg
    reg.unregister("crashing")
    reg.unregister("sloppy")


async def test_a_crashing_mode_degrades_and_keeps_the_order(plugins: object) -> None:
    items = fused()
    out, report = await rerank(items, "q", uses="crashing", settings=Settings())
    assert out == items
    assert report.status is Status.DEGRADED
    assert report.reason is Reason.ERROR
    assert report.error == ("rerank crashing: ZeroDivisionError: boom; kept the original order")
    assert "crashing" in modes()


async def test_runner_ignores_bad_indexes_and_keeps_every_item(plugins: object) -> None:
    items = fused()
    out, report = await rerank(items, "q", uses="sloppy", settings=Settings())
    assert cids(out) == ["ref_004", "ref_001", "ref_002", "ref_003"]
    assert [it.score for it in out[:2]] == [9.0, 5.0]
    assert report.hits == 2
    assert_same_items(items, out)
