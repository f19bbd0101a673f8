"""Every item of every search carries its citation id, unique within its request."""

from __future__ import annotations

import os
import re
import threading

from unifind import KnowledgeBase, Searcher, SearchRequest, load_settings
from unifind.testing.legs import FakeLeg, fake_items
from unifind.types import Item

Q = "what is the refund policy"


def req(leg: str, **kw: object) -> SearchRequest:
    return SearchRequest(type=leg, query=Q, **kw)  # type: ignore[arg-type]


def two_legs() -> Searcher:
    web, kb = FakeLeg("web", 0, fake_items("web", 2)), FakeLeg("kb", 0, fake_items("kb", 3))
    return Searcher(load_settings(), legs={"web": web, "kb": kb})


def ids(items: tuple[Item, ...] | list[Item]) -> list[str | None]:
    return [it.citation_id for it in items]


async def test_all_without_request_id_cites_every_item_and_saves_no_record() -> None:
    s = two_legs()
    res = await s.all([req("web", source="auto"), req("kb", source="user")])
    assert re.fullmatch(r"req_[0-9a-f]{12}", res.request_id or "")
    assert all(r.request_id == res.request_id for r in res.results)
    cited = ids(res.items)
    assert None not in cited and len(set(cited)) == len(cited) == 5
    # Numbered in fused order: the best fused item is ref_001.
    assert ids(s.fuse(res)) == [f"ref_{i:03d}" for i in range(1, 6)]
    # references() on the same results shows the same ids.
    refs = s.references(res)
    assert [r.citation_id for r in refs.references] == ids(s.fuse(res))
    assert s.get_searches(res.request_id or "") == []  # records only for a caller's id
    again = await s.all([req("kb")])
    assert again.request_id != res.request_id  # each request gets its own id


async def test_caller_request_id_continues_and_keeps_ids_of_known_items() -> None:
    s = two_legs()
    first = await s.all([req("web"), req("kb")], request_id="turn")
    assert first.request_id == "turn" and len(s.get_searches("turn")) == 1
    before = {it.url: it.citation_id for it in first.items}
    s._legs["web"] = FakeLeg("web", 0, [*fake_items("web", 1), *fake_items("web", 1, prefix="n")])
    second = await s.all([req("web")], request_id="turn")
    got = {it.url: it.citation_id for it in second.items}
    assert got["https://x1.example/"] == before["https://x1.example/"]
    assert got["https://n1.example/"] == "ref_006"  # continues, never restarts
    record = s.get_searches("turn")[1]
    assert sorted(str(r.citation_id) for r in record.references) == sorted(
        map(str, ids(second.items))
    )


async def test_single_search_is_cited_and_can_join_a_request() -> None:
    s = two_legs()
    one = await s.search(req("kb"))
    assert re.fullmatch(r"req_[0-9a-f]{12}", one.request_id or "")
    assert ids(one.items) == ["ref_001", "ref_002", "ref_003"]
    await s.all([req("kb")], request_id="t")
    joined = await s.search(req("web"), request_id="t")
    assert joined.request_id == "t" and ids(joined.items) == ["ref_004", "ref_005"]


async def test_the_same_item_from_two_legs_has_one_id() -> None:
    shared = fake_items("web", 1)
    s = Searcher(
        load_settings(), legs={"web": FakeLeg("web", 0, shared), "db": FakeLeg("db", 0, shared)}
    )
    res = await s.all([req("web"), req("db")])
    assert ids(res.results[0].items) == ids(res.results[1].items) == ["ref_001"]


async def test_streamed_results_are_cited() -> None:
    s = two_legs()
    events = [ev async for ev in s.stream([req("web"), req("kb")])]
    results = events[-1].data["results"]
    assert None not in ids(results.items) and results.request_id.startswith("req_")


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_sync_facade_reuses_one_loop_and_leaks_no_connections() -> None:
    settings = load_settings()  # UNIFIND_HOME is per test
    with KnowledgeBase.open(settings) as kb:
        kb.create("docs", embedder=None)
        kb.ingest_text("docs", "Refunds are paid within 30 days.", document_id="r")
    s = Searcher(settings)
    kb_req = SearchRequest(type="kb", query="refunds", collections=("docs",))
    threads_before = threading.active_count()
    for _ in range(5):  # opens the store, the loop thread and any lazily opened index once
        s.search_sync(kb_req)
        s.all_sync([kb_req])
    fds = _fds()
    for _ in range(300):
        assert s.search_sync(kb_req).items[0].citation_id == "ref_001"
        assert s.all_sync([kb_req]).status.value == "ok"
    assert _fds() <= fds + 2  # flat: a leak was two descriptors per call
    s.close()
    assert threading.active_count() <= threads_before  # close() stops the loop thread
