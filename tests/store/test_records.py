"""Search records: round trips, global reference indexes, soft delete, tenancy, failed saves."""

from __future__ import annotations

import importlib.util
import logging
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from unifind.config import Settings
from unifind.errors import ConfigError, MissingDependency, StoreError
from unifind.store import RecordStore, Reference, SearchRecord, record_from_result
from unifind.types import (
    Item,
    LegReport,
    Overall,
    Principal,
    Reason,
    SearchResult,
    SearchResults,
    Status,
)

ACME = Principal(tenant="acme", user="ann")
GLOBEX = Principal(tenant="globex", user="bob")


@dataclass(frozen=True)
class FakeReferences:
    """Shaped like unifind.cite.References, which this layer may not import."""

    references: tuple[Item, ...]
    xml: str
    prompt: str


def kb_item(n: int, **kw: Any) -> Item:
    return Item(
        type="kb",
        title=f"Doc {n}",
        content=f"chunk {n}",
        collection="docs",
        document_id=f"d{n}",
        chunk_id=f"c{n}",
        citation_id=f"ref_{n:03d}",
        score=1 / n,
        **kw,
    )


def results(*extra: Item) -> SearchResults:
    web = SearchResult(
        type="web",
        query="refund policy",
        items=(
            Item(
                type="web",
                title="Refunds",
                url="https://example.com/r",
                content="30 days",
                citation_id="ref_002",
            ),
        ),
        reports=(
            LegReport(
                leg="web",
                backend="tavily",
                status=Status.DEGRADED,
                reason=Reason.NO_KEY,
                error="TAVILY_API_KEY is not set",
            ),
            LegReport(leg="web", backend="duckduckgo", status=Status.OK, hits=1, took_ms=12.5),
        ),
        keywords=("refund", "policy"),
    )
    kb = SearchResult(
        type="kb",
        query="refund policy",
        items=(kb_item(1), kb_item(3), *extra),
        reports=(LegReport(leg="kb", backend="docs", status=Status.OK, hits=2),),
        keywords=("refund", "return"),
        entities=({"name": "Refund", "type": "policy"},),
        relations=({"from": "Refund", "to": "Order", "type": "applies_to"},),
        graph_nodes=({"id": "n1", "label": "Refund"},),
    )
    return SearchResults(request_id="req_1", results=(web, kb), took_ms=42.0)


def refs_of(res: SearchResults) -> FakeReferences:
    items = tuple(sorted(res.items, key=lambda it: it.citation_id or ""))
    return FakeReferences(items, xml="<references>…</references>", prompt="Cite as [1].")


# -- round trip on each backend --------------------------------------------------------


def test_round_trip_get_reference_then_soft_delete(store: RecordStore) -> None:
    res = results()
    rid = store.save_result(
        "req_1",
        res,
        chat_id="chat_9",
        assistant_id="helper",
        refs=refs_of(res),
        config={"mode": "all", "limit": 5},
        principal=ACME,
    )
    [rec] = store.get_searches("req_1", principal=ACME)
    assert rec.id == rid
    assert (rec.chat_id, rec.assistant_id, rec.leg, rec.query) == (
        "chat_9",
        "helper",
        "fused",
        "refund policy",
    )
    assert [r.index for r in rec.references] == [1, 2, 3]
    assert rec.xml == "<references>…</references>" and rec.prompt == "Cite as [1]."
    assert rec.status is Overall.PARTIAL
    assert rec.error == "web/tavily: TAVILY_API_KEY is not set"
    assert (rec.tenant, rec.owner) == ("acme", "ann")
    assert rec.created_at is not None and rec.created_at.tzinfo is not None

    third = store.get_reference("req_1", 3, principal=ACME)
    assert third is not None
    assert (third["index"], third["citation_id"], third["title"]) == (3, "ref_003", "Doc 3")
    assert (third["collection"], third["chunk_id"], third["type"]) == ("docs", "c3", "kb")
    assert store.get_reference("req_1", 4, principal=ACME) is None

    assert store.delete_searches("chat_9", principal=ACME) == 1
    assert store.get_searches("req_1", principal=ACME) == []
    assert store.get_reference("req_1", 3, principal=ACME) is None
    assert store.delete_searches("chat_9", principal=ACME) == 0


def test_soft_delete_keeps_the_rows(store: RecordStore) -> None:
    store.save_result("req_1", results(), chat_id="c")
    store.delete_searches("c")
    s = store.tables.searches
    with store.engine.connect() as conn:
        deleted_at = conn.execute(sa.select(s.c.deleted_at)).scalar_one()
    assert deleted_at is not None


def test_unicode_and_json_fields_survive_intact(store: RecordStore) -> None:
    data = {"价格": 19.5, "tags": ["新品", "促销"], "stock": None, "ok": True, "nested": {"a": [1]}}
    item = Item(
        type="db",
        title="产品：无线耳机 🎧",
        content="退货政策：自收货之日起 30 天内可退。'quotes' \"double\" </ref>",
        model="products",
        record_id="42",
        data=data,
        metadata={"语言": "zh", "score_parts": [0.5, 0.25]},
        citation_id="ref_001",
    )
    dsl = {"wheres": [{"field": "name", "op": "like", "value": "%耳机%"}], "limit": 5}
    db = SearchResult(
        type="db",
        query="退货政策是什么？",
        items=(item,),
        reports=(LegReport(leg="db", backend="products", status=Status.OK, hits=1),),
        dsl=dsl,
    )
    record = record_from_result(
        "请求-1", db, chat_id="对话", config={"models": ["products"], "选项": {"严格": True}}
    )
    store.save(record)
    [back] = store.get_searches("请求-1")
    assert back.model_dump(exclude={"id", "created_at", "references"}) == record.model_dump(
        exclude={"id", "created_at", "references"}
    )
    assert back.references == (record.references[0].model_copy(update={"index": 1}),)
    assert back.query == "退货政策是什么？" and back.dsl == dsl and back.leg == "db"
    assert store.get_reference("请求-1", 1) == {**item.model_dump(include=_REF_KEYS), "index": 1}


_REF_KEYS = set(Reference.model_fields) - {"index"}


def test_every_json_field_round_trips(store: RecordStore) -> None:
    res = results()
    record = record_from_result("req_1", res, refs=refs_of(res), config={"n": [1, {"x": None}]})
    store.save(record)
    [back] = store.get_searches("req_1")
    assert back.keywords == ("refund", "policy", "return")
    assert back.entities == ({"name": "Refund", "type": "policy"},)
    assert back.relations == ({"from": "Refund", "to": "Order", "type": "applies_to"},)
    assert back.graph == {"nodes": [{"id": "n1", "label": "Refund"}]}
    assert back.config == {"n": [1, {"x": None}]}
    assert back.reports == record.reports and len(back.reports) == 3
    assert back.reports[0]["reason"] == "no_key"
    assert back.duration_ms == 42.0


def test_indexes_are_global_across_saves_of_one_request(store: RecordStore) -> None:
    first = FakeReferences((kb_item(1), kb_item(2), kb_item(3)), "", "")
    store.save_result("req_1", results(), refs=first)
    # A later search: one item seen again keeps its id; a new one continues at ref_004.
    again = FakeReferences((kb_item(2), kb_item(4)), "", "")
    store.save_result("req_1", results(), refs=again)
    # Items without citation ids continue after the request's highest index.
    plain = [{"type": "web", "title": "no id A"}, {"type": "web", "title": "no id B"}]
    store.save_result("req_1", results(), refs=plain)

    records = store.get_searches("req_1")
    assert [[r.index for r in rec.references] for rec in records] == [[1, 2, 3], [2, 4], [5, 6]]
    assert store.get_reference("req_1", 4)["title"] == "Doc 4"  # type: ignore[index]
    assert store.get_reference("req_1", 6)["title"] == "no id B"  # type: ignore[index]
    assert store.get_reference("req_2", 1) is None


def test_searches_come_oldest_first(store: RecordStore) -> None:
    now = datetime.now(UTC)
    for minutes, q in ((5, "later"), (1, "earlier"), (3, "middle")):
        store.save(
            SearchRecord(
                request_id="r", leg="kb", query=q, created_at=now - timedelta(minutes=minutes)
            )
        )
    assert [r.query for r in store.get_searches("r")] == ["later", "middle", "earlier"]


# -- tenancy -----------------------------------------------------------------------------


def test_tenants_never_see_each_other(store: RecordStore) -> None:
    for who in (ACME, GLOBEX, None):
        store.save_result("req_1", results(), chat_id="shared_chat", principal=who)
    assert [r.tenant for r in store.get_searches("req_1", principal=ACME)] == ["acme"]
    assert [r.tenant for r in store.get_searches("req_1", principal=GLOBEX)] == ["globex"]
    stranger = Principal(tenant="initech", user="ann")
    assert store.get_searches("req_1", principal=stranger) == []
    assert store.get_reference("req_1", 1, principal=stranger) is None
    # Deleting the chat in one tenant leaves the others' records alone.
    assert store.delete_searches("shared_chat", principal=GLOBEX) == 1
    assert len(store.get_searches("req_1", principal=ACME)) == 1


def test_no_principal_sees_only_untenanted_records(store: RecordStore) -> None:
    store.save_result("req_1", results(), chat_id="c", principal=ACME)
    assert store.get_searches("req_1") == []
    assert store.get_reference("req_1", 1) is None
    assert store.delete_searches("c") == 0
    store.save_result("req_1", results(), chat_id="c")
    [mine] = store.get_searches("req_1")
    assert mine.tenant is None and mine.owner is None
    assert len(store.get_searches("req_1", principal=ACME)) == 1


# -- building records ---------------------------------------------------------------------


def test_record_from_one_result_keeps_its_leg_and_items_as_references() -> None:
    res = results().results[1]
    rec = record_from_result("r", res, principal=ACME, source="auto", duration_ms=7.0)
    assert (rec.leg, rec.status, rec.error, rec.source) == ("kb", Overall.OK, None, "auto")
    assert [r.citation_id for r in rec.references] == ["ref_001", "ref_003"]
    assert all(r.index is None for r in rec.references)
    assert (rec.tenant, rec.owner, rec.duration_ms) == ("acme", "ann", 7.0)


def test_several_db_dsls_are_kept_as_a_list() -> None:
    def db(model: str) -> SearchResult:
        rep = LegReport(leg="db", backend=model, status=Status.OK)
        return SearchResult(type="db", query="q", reports=(rep,), dsl={"model": model})

    rec = record_from_result("r", SearchResults(results=(db("a"), db("b"))))
    assert rec.leg == "db" and rec.dsl == [{"model": "a"}, {"model": "b"}]


# -- failures -----------------------------------------------------------------------------


@pytest.fixture
def blackhole() -> Iterator[int]:
    """A loopback port that accepts TCP connections and never says a word."""
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(8)
        yield srv.getsockname()[1]


def test_try_save_gives_up_at_the_connect_timeout(
    blackhole: int, caplog: pytest.LogCaptureFixture
) -> None:
    pytest.importorskip("psycopg", reason='the PostgreSQL driver: pip install "unifind[postgres]"')
    url = f"postgresql+psycopg://postgres:s3cret@127.0.0.1:{blackhole}/test"
    rs = RecordStore(url, connect_timeout_s=2)
    t0 = time.perf_counter()
    with caplog.at_level(logging.WARNING, logger="unifind.store.records"):
        assert rs.try_save(SearchRecord(request_id="req_x", leg="web")) is None
    assert time.perf_counter() - t0 < 6
    [msg] = [r.getMessage() for r in caplog.records]
    assert "req_x" in msg and f"127.0.0.1:{blackhole}" in msg and "s3cret" not in msg
    rs.close()


def test_save_on_a_refused_port_raises_store_error_quickly() -> None:
    pytest.importorskip("psycopg", reason='the PostgreSQL driver: pip install "unifind[postgres]"')
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rs = RecordStore(f"postgresql+psycopg://postgres@127.0.0.1:{port}/test")
    t0 = time.perf_counter()
    with pytest.raises(StoreError, match="cannot save a search record on postgresql"):
        rs.save(SearchRecord(request_id="r", leg="kb"))
    assert time.perf_counter() - t0 < 3
    with pytest.raises(StoreError, match="cannot read search records"):
        rs.get_searches("r")
    rs.close()


def test_try_save_on_an_unopenable_sqlite_file_returns_none(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    rs = RecordStore(f"sqlite:///{tmp_path / 'missing-dir' / 'records.sqlite'}")
    with caplog.at_level(logging.WARNING, logger="unifind.store.records"):
        assert rs.try_save(SearchRecord(request_id="r", leg="kb")) is None
    assert "unable to open database file" in caplog.text
    rs.close()


async def test_atry_save_runs_off_the_loop(tmp_path: Path) -> None:
    rs = RecordStore(f"sqlite:///{tmp_path / 'r.sqlite'}")
    rid = await rs.atry_save(SearchRecord(request_id="r", leg="kb", query="q"))
    assert rid is not None and rs.get_searches("r")[0].id == rid
    rs.close()


def test_a_missing_driver_names_the_extra() -> None:
    if importlib.util.find_spec("pymysql") is not None:
        pytest.skip("pymysql is installed, so nothing is missing")
    with pytest.raises(MissingDependency, match=r'pip install "unifind\[mysql\]"'):
        RecordStore("mysql+pymysql://u@127.0.0.1/x")


def test_a_malformed_url_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="invalid records URL"):
        RecordStore("not a url")


# -- settings -----------------------------------------------------------------------------


def test_from_settings_defaults_to_records_sqlite_under_home(tmp_path: Path) -> None:
    rs = RecordStore.from_settings(Settings(home=tmp_path / "home"))
    rs.save(SearchRecord(request_id="r", leg="web"))
    assert (tmp_path / "home" / "records.sqlite").is_file()
    rs.close()


def test_from_settings_honours_records_url(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'elsewhere.sqlite'}"
    rs = RecordStore.from_settings(
        Settings.model_validate({"home": tmp_path / "home", "records_url": url})
    )
    rs.save(SearchRecord(request_id="r", leg="web"))
    assert (tmp_path / "elsewhere.sqlite").is_file()
    assert not (tmp_path / "home").exists()
    rs.close()


# -- an unusable records_url never costs a search its results (issue #9) ------------------

UNUSABLE = ["not a url", "mysql+pymysql://u:s3cret@127.0.0.1/x"]


@pytest.mark.parametrize("url", UNUSABLE)
def test_from_settings_with_an_unusable_url_logs_on_save_and_raises_on_read(
    tmp_path: Path, url: str, caplog: pytest.LogCaptureFixture
) -> None:
    if url.startswith("mysql") and importlib.util.find_spec("pymysql") is not None:
        pytest.skip("pymysql is installed, so nothing is missing")
    settings = Settings.model_validate({"home": tmp_path / "home", "records_url": url})
    rs = RecordStore.from_settings(settings)
    with caplog.at_level(logging.WARNING, logger="unifind.store.records"):
        assert rs.try_save(SearchRecord(request_id="req_u", leg="kb")) is None
    assert "req_u" in caplog.text and "s3cret" not in caplog.text
    assert ("invalid records URL" in caplog.text) or ('pip install "unifind[mysql]"' in caplog.text)
    with pytest.raises(ConfigError):
        rs.get_searches("req_u")
    assert "s3cret" not in rs.url
    rs.close()


@pytest.mark.parametrize("url", UNUSABLE)
async def test_a_search_with_a_request_id_keeps_its_results(tmp_path: Path, url: str) -> None:
    if url.startswith("mysql") and importlib.util.find_spec("pymysql") is not None:
        pytest.skip("pymysql is installed, so nothing is missing")
    from unifind import KnowledgeBase, Searcher, SearchRequest

    home = tmp_path / "home"
    with KnowledgeBase.open(Settings(home=home)) as kb:
        kb.create("docs", embedder=None)
        kb.ingest_text("docs", "Refunds are paid within 30 days.", document_id="r")
    searcher = Searcher(Settings.model_validate({"home": home, "records_url": url}))
    try:
        req = SearchRequest(type="kb", query="refunds", collections=("docs",))
        results = await searcher.all([req], request_id="req_1")  # all() records the search
        assert results.items and results.items[0].document_id == "r"
        with pytest.raises(ConfigError):  # asking for the records says why there are none
            searcher.get_searches("req_1")
    finally:
        await searcher.aclose()
