"""Orchestration: all / any / race, deadlines, cancellation, status honesty, citations."""

from __future__ import annotations

import asyncio
import time

import pytest

from unifind import InputError, Overall, Reason, Searcher, SearchRequest, Status, load_settings
from unifind.testing.legs import FakeLeg, fake_items

Q = "what is the refund policy"


def req(leg: str, **kw: object) -> SearchRequest:
    return SearchRequest(type=leg, query=Q, **kw)  # type: ignore[arg-type]


def searcher(**legs: FakeLeg) -> Searcher:
    return Searcher(load_settings(), legs=legs)


async def test_all_waits_for_every_leg() -> None:
    web, kb = FakeLeg("web", 0.05, fake_items("web", 2)), FakeLeg("kb", 0.01, fake_items("kb", 3))
    res = await searcher(web=web, kb=kb).all([req("web"), req("kb")], request_id="r1")
    assert res.status is Overall.OK and res.request_id == "r1"
    assert [len(r.items) for r in res.results] == [2, 3]
    assert web.finished and kb.finished


async def test_race_returns_first_and_cancels_the_rest() -> None:
    slow, fast = FakeLeg("web", 5.0, fake_items("web", 1)), FakeLeg("kb", 0.01)
    t0 = time.perf_counter()
    res = await searcher(web=slow, kb=fast).race([req("web"), req("kb")])
    assert time.perf_counter() - t0 < 1.0
    web_rep = res.results[0].reports[0]
    assert (web_rep.status, web_rep.reason) == (Status.SKIPPED, Reason.CANCELLED)
    await asyncio.sleep(0.05)  # cancelled, not awaited: give the loop a moment to deliver it
    assert slow.cancelled and slow.cleaned_up and not slow.finished
    assert res.status is Overall.OK  # skipped is not a fault


async def test_any_waits_for_a_success_with_items() -> None:
    empty = FakeLeg("kb", 0.01)  # ok but no items: not a win for any()
    failing = FakeLeg("db", 0.02, fail=Reason.UNREACHABLE)
    good = FakeLeg("web", 0.05, fake_items("web", 2))
    never = FakeLeg("web", 5.0, fake_items("web", 1))
    s = Searcher(load_settings(), legs={"kb": empty, "db": failing, "web": good})
    res = await s.any([req("kb"), req("db"), req("web")])
    assert [len(r.items) for r in res.results] == [0, 0, 2]
    assert res.status is Overall.PARTIAL  # the db leg failed and says so
    s2 = Searcher(load_settings(), legs={"kb": good, "web": never})
    res2 = await s2.any([req("kb"), req("web")])
    assert res2.results[1].reports[0].reason is Reason.CANCELLED


async def test_overall_deadline_reports_timeouts() -> None:
    slow = FakeLeg("web", 5.0)
    res = await searcher(web=slow, kb=FakeLeg("kb")).all([req("web"), req("kb")], timeout_s=0.1)
    rep = res.results[0].reports[0]
    assert (rep.status, rep.reason) == (Status.DEGRADED, Reason.TIMEOUT)
    assert "0.1 s" in (rep.error or "")
    assert res.status is Overall.PARTIAL


async def test_per_leg_deadline() -> None:
    res = await searcher(web=FakeLeg("web", 5.0)).search(req("web", timeout_s=0.05))
    assert res.reports[0].reason is Reason.TIMEOUT and res.status is Overall.UNAVAILABLE


async def test_a_leg_that_raises_becomes_degraded() -> None:
    boom = FakeLeg("kb", raise_exc=RuntimeError("disk on fire"))
    res = await searcher(kb=boom).search(req("kb"))
    rep = res.reports[0]
    assert (rep.status, rep.reason) == (Status.DEGRADED, Reason.ERROR)
    assert "disk on fire" in (rep.error or "") and not res.items


async def test_bad_input_raises() -> None:
    bad = FakeLeg("kb", raise_exc=InputError("unknown collection 'x'; valid: docs"))
    with pytest.raises(InputError, match="valid: docs"):
        await searcher(kb=bad, web=FakeLeg("web", 1.0)).all([req("kb"), req("web")])


async def test_fuse_and_cite_across_calls() -> None:
    s = searcher(
        web=FakeLeg("web", 0, fake_items("web", 2)), kb=FakeLeg("kb", 0, fake_items("kb", 2))
    )
    res = await s.all([req("web", source="auto"), req("kb", source="user")], request_id="turn")
    fused = s.fuse(res)
    assert fused[0].type == "kb"  # user weight 1.0 beats auto 0.6 at equal rank
    refs = s.references(res)
    assert [r.citation_id for r in refs.references] == ["ref_001", "ref_002", "ref_003", "ref_004"]
    s._legs["web"] = FakeLeg("web", 0, fake_items("web", 1, prefix="new"))
    more = await s.all([req("web")], request_id="turn")
    assert [r.citation_id for r in s.references(more).references] == ["ref_005"]
    check = s.check_citations("Yes [ref_001] and [ref_009].", refs)
    assert check.valid == ("ref_001",) and check.unknown == ("ref_009",)


def test_sync_facade() -> None:
    s = searcher(kb=FakeLeg("kb", 0, fake_items("kb", 1)))
    assert s.search_sync(req("kb")).items
    assert s.all_sync([req("kb")]).status is Overall.OK


async def test_stream_emits_progress_in_order_and_ends_with_results() -> None:
    s = searcher(
        web=FakeLeg("web", 0.02, fail=Reason.UNREACHABLE),
        kb=FakeLeg("kb", 0.01, fake_items("kb", 3)),
    )
    events = [ev async for ev in s.stream([req("web"), req("kb")], request_id="r")]
    kinds = [e.kind for e in events]
    assert kinds[0] == "loading" and kinds[-1] == "done"
    assert kinds.count("leg") == 4  # running + finished, per leg
    summary = events[-2]
    assert summary.kind == "partial"
    assert summary.message == "Found 3 references; 1 of 2 sources failed"
    results = events[-1].data["results"]
    assert results.status is Overall.PARTIAL


async def test_stream_in_chinese_and_failure_message() -> None:
    s = searcher(web=FakeLeg("web", 0, fail=Reason.TIMEOUT))
    events = [ev async for ev in s.stream([req("web")], locale="zh-CN")]
    assert events[0].message == "正在搜索 1 个来源…"
    assert events[-2].kind == "failed" and "均未响应" in events[-2].message
    assert any("网页：失败（超时）" in e.message for e in events)


async def test_stream_none_found_and_trace_tree() -> None:
    from unifind.trace import Trace

    s = searcher(kb=FakeLeg("kb", 0))
    trace = Trace()
    await s.all([req("kb")], trace=trace)
    assert trace.events[-2].message == "No references found"
    tree = trace.root.to_dict()
    assert tree["status"] == "completed" and tree["children"][0]["status"] == "completed"
    assert tree["children"][0]["started_at"] <= tree["children"][0]["ended_at"]
    assert tree["logs"][0]["message"].startswith("running")


async def test_stream_raises_bad_input() -> None:
    bad = FakeLeg("kb", raise_exc=InputError("unknown collection"))
    with pytest.raises(InputError):
        async for _ in searcher(kb=bad).stream([req("kb")]):
            pass


async def test_records_round_trip_through_the_searcher() -> None:
    s = searcher(
        web=FakeLeg("web", 0, fake_items("web", 2)), kb=FakeLeg("kb", 0, fake_items("kb", 1))
    )
    await s.all([req("web"), req("kb", source="user")], request_id="req_1", chat_id="chat_9")
    more = [SearchRequest(type="web", query="second question")]
    s._legs["web"] = FakeLeg("web", 0, fake_items("web", 1, prefix="new"))
    await s.all(more, request_id="req_1", chat_id="chat_9")
    records = s.get_searches("req_1")
    assert len(records) == 2
    assert [r.citation_id for r in records[0].references] == ["ref_001", "ref_002", "ref_003"]
    assert "<references" in records[0].xml and records[0].prompt
    ref4 = s.get_reference("req_1", 4)
    assert ref4 is not None and ref4["url"] == "https://new1.example/"
    assert s.delete_searches("chat_9") == 2
    assert s.get_searches("req_1") == []


async def test_a_failing_record_store_never_fails_the_search(tmp_path: object) -> None:
    settings = load_settings(records_url="sqlite:////nonexistent-dir/sub/records.db")
    s = Searcher(settings, legs={"kb": FakeLeg("kb", 0, fake_items("kb", 1))})
    res = await s.all([req("kb")], request_id="r")
    assert res.status is Overall.OK and len(res.results[0].items) == 1


async def test_engine_rerank_builtin_and_bad_uses() -> None:
    s = searcher(
        web=FakeLeg("web", 0, fake_items("web", 2)), kb=FakeLeg("kb", 0, fake_items("kb", 2))
    )
    res = await s.all([req("web", source="auto"), req("kb", source="user")])
    fused = s.fuse(res)
    ordered, report = await s.rerank(fused, Q, uses="builtin")
    assert sorted(i.key for i in ordered) == sorted(i.key for i in fused)
    assert report.status is Status.OK and report.stage == "rerank"
    with pytest.raises(InputError, match="valid"):
        await s.rerank(fused, Q, uses="nonsense:thing")
