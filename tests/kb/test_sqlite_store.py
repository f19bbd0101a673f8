"""SQLiteStore: the shared conformance suite, plus what only an embedded file store must do."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import apsw
import numpy as np
import pytest

from unifind.errors import InputError, StoreError
from unifind.kb import _hnsw, _schema, _write
from unifind.kb._lexical import LexicalIndex, encode_postings
from unifind.kb._topk import top_k
from unifind.kb.base import ChunkIn, DocumentIn
from unifind.kb.sqlite import SQLiteStore
from unifind.registry import registry
from unifind.testing.kb_store import KBStoreConformance, chunk, doc, ids, vec


class TestSQLiteStore(KBStoreConformance):
    def make_store(self, tmp_path: Path) -> SQLiteStore:
        return SQLiteStore(tmp_path / "kb.db")

    def store_spec(self, tmp_path: Path) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
        return "unifind.kb.sqlite:SQLiteStore", (str(tmp_path / "spec.db"),), {}


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "kb.db"


@pytest.fixture
def store(path: Path) -> Iterator[SQLiteStore]:
    s = SQLiteStore(path)
    s.create_collection("docs", embedder="test-4d", dim=4)
    yield s
    s.close()


def test_registered_as_the_sqlite_kb_store() -> None:
    assert registry("kb_stores").get("sqlite") is SQLiteStore
    assert SQLiteStore.name == "sqlite"


@pytest.mark.parametrize("name", ["", "a/b", "x" * 65, "sp ace", "ü"])
def test_invalid_collection_names_are_refused(store: SQLiteStore, name: str) -> None:
    with pytest.raises(InputError, match="collection name"):
        store.create_collection(name, embedder=None, dim=None)


def test_data_survives_reopening(store: SQLiteStore, path: Path) -> None:
    store.upsert_document("docs", doc("a"), [chunk(0, "kept words", vector=vec(1, 0, 0, 0))])
    before = store.lexical_search("docs", ["kept"], limit=5)
    store.close()
    with SQLiteStore(path) as again:
        assert again.lexical_search("docs", ["kept"], limit=5) == before
        assert ids(again.vector_search("docs", vec(1, 0, 0, 0), limit=5)) == ids(before)


def test_every_connection_limits_the_wal(store: SQLiteStore) -> None:
    def limit() -> int:
        value = store._conn().execute("PRAGMA journal_size_limit").fetchall()[0][0]
        assert isinstance(value, int)
        return value

    seen: list[int] = []
    worker = threading.Thread(target=lambda: seen.append(limit()))  # its own connection
    worker.start()
    worker.join()
    assert [limit(), *seen] == [64 * 1024 * 1024] * 2


@pytest.mark.parametrize("cap", [64 * 1024, -1])
def test_the_wal_shrinks_to_the_limit_after_a_checkpoint(
    path: Path, monkeypatch: pytest.MonkeyPatch, cap: int
) -> None:
    monkeypatch.setattr(_schema, "JOURNAL_SIZE_LIMIT", cap)
    wal = path.with_name(path.name + "-wal")
    with SQLiteStore(path) as store:
        store.create_collection("t", embedder=None, dim=None)
        store.upsert_document("t", doc("big"), [chunk(0, "word " * 400_000)])  # ~2 MB of WAL
        grown = wal.stat().st_size
        store._conn().execute("PRAGMA wal_checkpoint(PASSIVE)")
        store.upsert_document("t", doc("small"), [chunk(0, "tiny")])  # restarts the WAL
        if cap > 0:
            assert grown > 1_000_000 >= cap >= wal.stat().st_size
        else:  # no limit (SQLite's default): the file keeps its largest size
            assert wal.stat().st_size == grown > 1_000_000


def test_vectors_are_normalised_on_write(store: SQLiteStore) -> None:
    v = np.array([3.0, 4.0, 0.0, 0.0], dtype=np.float32)
    store.upsert_document("docs", doc("a"), [chunk(0, "x", vector=v)])
    [hit] = store.vector_search("docs", np.array([10.0, 0, 0, 0], np.float32), limit=1)
    assert hit.score == pytest.approx(0.6, abs=1e-6)


def test_filters_match_json_types_exactly(store: SQLiteStore) -> None:
    store.upsert_document("docs", doc("t", flag=True, n=1, s="1"), [chunk(0, "w")])
    store.upsert_document("docs", doc("o", flag=1, n=1.0, s=None), [chunk(0, "w")])
    [t] = ids(store.lexical_search("docs", ["w"], limit=5, filters={"document_id": "t"}))
    [o] = ids(store.lexical_search("docs", ["w"], limit=5, filters={"document_id": "o"}))

    def hits(filters: dict[str, Any]) -> set[str]:
        return set(ids(store.lexical_search("docs", ["w"], limit=5, filters=filters)))

    assert hits({"flag": True}) == {t}
    assert hits({"flag": 1}) == {o}
    assert hits({"n": 1}) == {t, o}  # 1 and 1.0 are the same JSON number
    assert hits({"s": "1"}) == {t}
    assert hits({"s": None}) == {o}
    with pytest.raises(InputError, match="values must be"):
        hits({"s": {"nested": 1}})


def test_bad_terms_are_refused_before_writing(store: SQLiteStore) -> None:
    with pytest.raises(InputError, match="frequency"):
        store.upsert_document("docs", doc("a"), [chunk(0, "x", {"x": 0})])
    with pytest.raises(InputError, match="NaN"):
        bad = np.array([np.nan, 0, 0, 0], np.float32)
        store.upsert_document("docs", doc("a"), [chunk(0, "x", vector=bad)])
    assert store.list_documents("docs") == []


def test_another_instance_catches_up_and_rebuilds(store: SQLiteStore, path: Path) -> None:
    store.upsert_document("docs", doc("seed"), [chunk(0, "alpha beta")])
    assert len(store.lexical_search("docs", ["alpha"], limit=5)) == 1  # builds the index
    with SQLiteStore(path) as writer:
        for i in range(2_500):  # past the delta limit: the next catch-up rebuilds
            writer.upsert_document("docs", doc(f"d{i}"), [chunk(0, f"alpha t{i % 7}")])
        writer.delete_document("docs", "seed")
    incremental = store.lexical_search("docs", ["alpha", "t3"], limit=20)
    again = store.lexical_search("docs", ["alpha", "t3"], limit=20)
    with SQLiteStore(path) as fresh:
        expected = fresh.lexical_search("docs", ["alpha", "t3"], limit=20)
    assert incremental == expected == again
    assert len(store.lexical_search("docs", ["beta"], limit=5)) == 0


def test_parent_folders_are_created_and_closed_stores_refuse_work(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "a" / "b" / "kb.db")
    store.create_collection("docs", embedder=None, dim=None)
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.list_collections()


# ---- schema --------------------------------------------------------------------------


def test_newer_schema_version_is_refused(path: Path) -> None:
    SQLiteStore(path).close()
    conn = apsw.Connection(str(path))
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(StoreError, match=r"schema version 99, newer .*upgrade unifind"):
        SQLiteStore(path)


def test_foreign_files_are_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    conn = apsw.Connection(str(other))
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    with pytest.raises(StoreError, match="not a unifind KB store"):
        SQLiteStore(other)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="cannot open"):
        SQLiteStore(junk)


# ---- other processes -----------------------------------------------------------------

_WRITER = textwrap.dedent(
    """
    import sys
    import numpy as np
    from unifind.kb.base import ChunkIn, DocumentIn
    from unifind.kb.sqlite import SQLiteStore

    path, doc_id, version, n, pause_at = sys.argv[1:6]
    n, pause_at = int(n), int(pause_at)
    store = SQLiteStore(path)
    written = 0

    def hook(op, db, table, rowid):
        global written
        if table == "chunks":
            written += 1
            if written == pause_at:
                print("writing", flush=True)
                sys.stdin.readline()  # the test kills us here, or lets us commit

    store._conn().set_update_hook(hook)
    pad = ("<" + version + ">") * 1500  # big rows: the open transaction spills into the WAL
    vector = np.full(4, 0.5, dtype=np.float32)
    chunks = [
        ChunkIn(i, f"{pad} {i}", 0, 1, {"common": 1, "v" + version: 1}, vector)
        for i in range(n)
    ]
    print(store.upsert_document("docs", DocumentIn(doc_id, "h" + version), chunks), flush=True)
    """
)


@pytest.fixture
def writer(tmp_path: Path, path: Path) -> Iterator[Any]:
    """Starts ``_WRITER`` processes on the store's file; any still running are killed."""
    script = tmp_path / "writer.py"
    script.write_text(_WRITER)
    procs: list[subprocess.Popen[str]] = []

    def start(doc_id: str, version: str, n: int, pause_at: int) -> subprocess.Popen[str]:
        args = [sys.executable, str(script), str(path), doc_id, version, str(n), str(pause_at)]
        proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def _wait_for(proc: Any, line: str) -> None:
    got = proc.stdout.readline().strip()
    assert got == line, f"writer said {got!r}, expected {line!r}"


def _kill_while_writing(proc: Any) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL


def _only_version_1(s: SQLiteStore, n: int) -> None:
    assert s.document_hash("docs", "big") == "h1"
    assert s.document_hash("docs", "new") is None
    assert len(s.lexical_search("docs", ["common"], limit=5_000)) == n
    assert s.lexical_search("docs", ["v2"], limit=5) == []
    assert s.lexical_search("docs", ["v3"], limit=5) == []
    assert len(s.vector_search("docs", vec(1, 1, 1, 1), limit=5_000)) == n
    assert s.get_collection("docs").chunks == n


def test_writer_killed_mid_upsert_leaves_no_partial_document(
    store: SQLiteStore, path: Path, writer: Any
) -> None:
    n = 1_000
    assert writer("big", "1", n, 0).communicate(timeout=60)[0].strip() == "added"
    _only_version_1(store, n)

    # Killed while adding a new document, after uncommitted pages were spilled to the WAL.
    proc = writer("new", "2", n, n - 100)
    _wait_for(proc, "writing")
    assert b"<2><2><2>" in path.with_name(path.name + "-wal").read_bytes()
    _only_version_1(store, n)  # readers go on during the write
    _kill_while_writing(proc)
    _only_version_1(store, n)

    # Killed while replacing a document: the old version stays whole.
    proc = writer("big", "3", n, n // 2)
    _wait_for(proc, "writing")
    _kill_while_writing(proc)
    _only_version_1(store, n)
    with SQLiteStore(path) as reopened:
        _only_version_1(reopened, n)

    assert writer("big", "3", n, 0).communicate(timeout=60)[0].strip() == "replaced"
    assert len(store.lexical_search("docs", ["v3"], limit=5_000)) == n
    assert store.lexical_search("docs", ["v1"], limit=5) == []
    assert writer("new", "2", 10, 0).communicate(timeout=60)[0].strip() == "added"


def test_other_process_writes_become_visible_after_commit(
    store: SQLiteStore, path: Path, writer: Any
) -> None:
    store.upsert_document("docs", doc("mine"), [chunk(0, "common mine", vector=vec(0, 1, 0, 0))])
    assert len(store.lexical_search("docs", ["common"], limit=100)) == 1
    proc = writer("theirs", "7", 20, 10)
    _wait_for(proc, "writing")
    started = time.monotonic()
    assert len(store.lexical_search("docs", ["common"], limit=100)) == 1
    assert len(store.vector_search("docs", vec(1, 1, 1, 1), limit=100)) == 1
    assert time.monotonic() - started < 2  # readers don't wait for the writer (WAL)

    # A writer in this process queues behind the other one (BEGIN IMMEDIATE + busy_timeout).
    outcome: list[str] = []
    mine = threading.Thread(
        target=lambda: outcome.append(store.upsert_document("docs", doc("late"), [chunk(0, "x")]))
    )
    mine.start()
    time.sleep(0.2)
    assert outcome == []
    assert proc.communicate("go\n", timeout=60)[0].strip() == "added"
    mine.join(timeout=30)
    assert outcome == ["added"]

    assert len(store.lexical_search("docs", ["common"], limit=100)) == 21
    assert len(store.lexical_search("docs", ["v7"], limit=100)) == 20
    assert len(store.vector_search("docs", vec(1, 1, 1, 1), limit=100)) == 21
    with SQLiteStore(path) as other:
        other.delete_document("docs", "theirs")
    assert len(store.lexical_search("docs", ["common"], limit=100)) == 1


# ---- HNSW sidecar --------------------------------------------------------------------


def _fill(stores: list[SQLiteStore], rng: np.random.Generator, docs: int, dim: int = 16) -> None:
    for s in stores:
        s.create_collection("big", embedder="rand", dim=dim, exist_ok=True)
    for d in range(docs):
        rows = rng.standard_normal((10, dim)).astype(np.float32)
        chunks = [ChunkIn(i, f"c{i}", 0, 1, {"w": 1}, rows[i]) for i in range(10)]
        for s in stores:
            s.upsert_document("big", DocumentIn(f"d{d}", "h"), chunks)


def _same_results(a: SQLiteStore, b: SQLiteStore, rng: np.random.Generator, limit: int) -> None:
    for _ in range(15):
        q = rng.standard_normal(16).astype(np.float32)
        ha, hb = a.vector_search("big", q, limit=limit), b.vector_search("big", q, limit=limit)
        assert ids(ha) == ids(hb)
        assert [h.score for h in ha] == pytest.approx([h.score for h in hb], abs=1e-6)


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[SQLiteStore, SQLiteStore]]:
    hnsw = SQLiteStore(tmp_path / "hnsw.db", hnsw_threshold=50, hnsw_background=False)
    exact = SQLiteStore(tmp_path / "exact.db")
    _fill([hnsw, exact], np.random.default_rng(7), docs=30)
    yield hnsw, exact
    hnsw.close()
    exact.close()


def test_hnsw_results_equal_the_exact_scan(pair: tuple[SQLiteStore, SQLiteStore]) -> None:
    hnsw, exact = pair
    rng = np.random.default_rng(1)
    _same_results(hnsw, exact, rng, limit=10)
    index_path, meta_path = _hnsw.sidecar_paths(hnsw.path, "big")
    assert index_path.exists() and json.loads(meta_path.read_text())["count"] == 300
    assert not _hnsw.sidecar_paths(exact.path, "big")[0].exists()
    for d in range(0, 30, 3):
        hnsw.delete_document("big", f"d{d}")
        exact.delete_document("big", f"d{d}")
    _same_results(hnsw, exact, rng, limit=10)
    everything = ids(
        hnsw.vector_search("big", rng.standard_normal(16).astype(np.float32), limit=500)
    )
    assert len(everything) == 200
    assert not set(everything) - set(hnsw.get_chunks("big", everything))


def test_hnsw_sidecar_is_reconciled_not_rebuilt(
    pair: tuple[SQLiteStore, SQLiteStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    hnsw, exact = pair
    rng = np.random.default_rng(2)
    _same_results(hnsw, exact, rng, limit=5)  # writes the sidecar
    hnsw.close()
    with SQLiteStore(hnsw.path) as plain:  # writes while no HNSW follower is running
        _fill([plain, exact], np.random.default_rng(3), docs=5)  # replaces d0-d4
        plain.delete_document("big", "d9")
        exact.delete_document("big", "d9")
    builds: list[int] = []
    real_new = _hnsw._new_index

    def counting_new_index(dim: int) -> Any:
        builds.append(dim)
        return real_new(dim)

    monkeypatch.setattr(_hnsw, "_new_index", counting_new_index)
    with SQLiteStore(hnsw.path, hnsw_threshold=50, hnsw_background=False) as reopened:
        _same_results(reopened, exact, rng, limit=10)
    assert builds == []


@pytest.mark.parametrize("damage", ["corrupt", "delete", "truncate", "[1, 2]", "null", '"x"'])
def test_damaged_sidecar_is_rebuilt(pair: tuple[SQLiteStore, SQLiteStore], damage: str) -> None:
    hnsw, exact = pair
    rng = np.random.default_rng(4)
    _same_results(hnsw, exact, rng, limit=5)
    hnsw.close()
    index_path, meta_path = _hnsw.sidecar_paths(hnsw.path, "big")
    data = bytearray(index_path.read_bytes())
    if damage == "corrupt":
        data[len(data) // 2 : len(data) // 2 + 64] = b"\xff" * 64
        index_path.write_bytes(bytes(data))
    elif damage == "delete":
        index_path.unlink()
    elif damage == "truncate":
        index_path.write_bytes(bytes(data[:100]))
    else:  # valid JSON that is not an object
        meta_path.write_text(damage)
    with SQLiteStore(hnsw.path, hnsw_threshold=50, hnsw_background=False) as reopened:
        _same_results(reopened, exact, rng, limit=10)
    meta = json.loads(meta_path.read_text())
    assert meta["crc32"] == zlib.crc32(index_path.read_bytes())


def test_delete_collection_removes_sidecars(pair: tuple[SQLiteStore, SQLiteStore]) -> None:
    hnsw, _ = pair
    hnsw.vector_search("big", np.ones(16, np.float32), limit=1)
    assert all(p.exists() for p in _hnsw.sidecar_paths(hnsw.path, "big"))
    hnsw.delete_collection("big")
    assert not any(p.exists() for p in _hnsw.sidecar_paths(hnsw.path, "big"))


# ---- index internals -----------------------------------------------------------------


def _brute_bm25(
    rows: dict[int, dict[int, int]], query: dict[int, int], allowed: set[int] | None
) -> list[tuple[int, float]]:
    """BM25 straight from the definition, one chunk at a time."""
    n = len(rows)
    avgdl = sum(sum(t.values()) for t in rows.values()) / n
    scores: dict[int, float] = {}
    for term, qtf in query.items():
        df = sum(1 for t in rows.values() if term in t)
        for rowid, terms in rows.items():
            if term in terms and (allowed is None or rowid in allowed):
                tf, length = terms[term], sum(terms.values())
                idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
                part = qtf * idf * tf / (tf + 0.9 * (1 - 0.4 + 0.4 * length / avgdl))
                scores[rowid] = scores.get(rowid, 0.0) + part
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


@pytest.mark.parametrize("seed", range(6))
def test_lexical_index_equals_brute_force(seed: int) -> None:
    # Zipf-like terms make both the sparse path and the MaxScore (dense) path run.
    rng = np.random.default_rng(seed)
    weights = 1 / np.arange(1, 41) ** 1.2
    rows: dict[int, dict[int, int]] = {}
    for rowid in range(1, 400):
        toks = rng.choice(40, size=int(rng.integers(1, 12)), p=weights / weights.sum())
        terms, counts = np.unique(toks, return_counts=True)
        rows[rowid] = dict(zip(terms.tolist(), counts.tolist(), strict=True))
    index = LexicalIndex([(r, sum(t.values()), encode_postings(t)) for r, t in rows.items()])
    for rowid in rng.choice(list(rows), size=40, replace=False).tolist():
        del rows[rowid]
        index.delete([rowid])
    for rowid in range(400, 430):  # a delta on top of the base
        rows[rowid] = {int(rng.integers(0, 40)): 1, 39: 2}
        index.add([(rowid, sum(rows[rowid].values()), encode_postings(rows[rowid]))])
    allowed = {r for r in rows if r % 3}
    for _ in range(25):
        query = {int(t): int(rng.integers(1, 3)) for t in rng.choice(40, size=3)}
        limit = int(rng.integers(1, 30))
        for subset in (None, allowed):
            mask = None if subset is None else index.mask(np.array(sorted(subset), np.int64))
            got = index.search(query, limit, mask)
            want = _brute_bm25(rows, query, subset)[:limit]
            assert [r for r, _ in got] == [r for r, _ in want]
            assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-9)


def test_top_k_breaks_ties_by_key() -> None:
    rng = np.random.default_rng(0)
    for _ in range(50):
        scores = rng.integers(0, 4, size=60).astype(np.float64)
        keys = rng.permutation(1000)[:60].astype(np.int64)
        k = int(rng.integers(1, 70))
        want = sorted(range(60), key=lambda i: (-scores[i], keys[i]))[:k]
        assert top_k(scores, keys, k).tolist() == want


def test_change_log_is_trimmed_and_lagging_followers_rebuild(
    store: SQLiteStore, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_write, "LOG_KEEP_MIN", 20)
    monkeypatch.setattr(_write, "LOG_SLACK", 10)
    store.upsert_document("docs", doc("first"), [chunk(0, "word one", vector=vec(1, 0, 0, 0))])
    assert len(store.lexical_search("docs", ["word"], limit=100)) == 1
    assert len(store.vector_search("docs", vec(1, 0, 0, 0), limit=100)) == 1
    with SQLiteStore(path) as writer:
        for i in range(5):  # their 'add' entries get trimmed: only a rebuild finds them
            writer.upsert_document("docs", doc(f"early{i}"), [chunk(0, "word early")])
        for i in range(40):
            writer.upsert_document("docs", doc(f"d{i % 8}", f"h{i}"), [chunk(0, f"word w{i}")])
        writer.delete_document("docs", "first")
    conn = apsw.Connection(str(path))
    entries, floor = conn.execute(
        "SELECT (SELECT count(*) FROM changes), log_floor FROM collections"
    ).fetchall()[0]
    conn.close()
    assert isinstance(entries, int) and isinstance(floor, int)
    assert floor > 6 and entries <= 20 + 10 + 2  # keep + slack + one write; floor > seq 1
    hits = store.lexical_search("docs", ["word"], limit=100)
    found = sorted(r.document_id for r in store.get_chunks("docs", ids(hits)).values())
    assert found == sorted([f"d{i}" for i in range(8)] + [f"early{i}" for i in range(5)])
    assert store.vector_search("docs", vec(1, 0, 0, 0), limit=100) == []


def test_sizes_are_kept_by_the_file_and_a_version_1_file_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "kb.sqlite"
    with SQLiteStore(path) as store:
        store.create_collection("c", embedder=None, dim=None)
        for i, n in enumerate((2, 3, 1)):
            chunks = [
                ChunkIn(ordinal=k, text=f"t{k}", start=0, end=2, terms={"t": 1}) for k in range(n)
            ]
            store.upsert_document(
                "c", DocumentIn(document_id=f"d{i}", content_hash=f"h{i}"), chunks
            )
        new = [ChunkIn(ordinal=0, text="x", start=0, end=1, terms={"x": 1})]
        store.upsert_document("c", DocumentIn(document_id="d0", content_hash="new"), new)
        store.delete_document("c", "d2")
        info = store.get_collection("c")
        assert (info.documents, info.chunks) == (2, 4)
    # Turn the file back into a version-1 file (no counters), then reopen it.
    conn = apsw.Connection(str(path))
    for trigger in ("documents_added", "documents_removed", "documents_rechunked"):
        conn.execute(f"DROP TRIGGER {trigger}")
    conn.execute("ALTER TABLE collections DROP COLUMN doc_count")
    conn.execute("ALTER TABLE collections DROP COLUMN chunk_count")
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    with SQLiteStore(path) as store:
        info = store.get_collection("c")
        assert (info.documents, info.chunks) == (2, 4)
        store.delete_document("c", "d1")
        assert store.get_collection("c").chunks == 1


def test_hnsw_builds_in_the_background_and_catches_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    real_build = _hnsw.Hnsw.build.__func__  # type: ignore[attr-defined]

    def slow_build(cls: type[_hnsw.Hnsw], *args: Any) -> _hnsw.Hnsw:
        assert release.wait(10), "the test never released the build"
        return real_build(cls, *args)  # type: ignore[no-any-return]

    monkeypatch.setattr(_hnsw.Hnsw, "build", classmethod(slow_build))
    bg = SQLiteStore(tmp_path / "bg.db", hnsw_threshold=50)
    exact = SQLiteStore(tmp_path / "exact.db")
    rng = np.random.default_rng(3)
    _fill([bg, exact], rng, docs=30)
    # The first query doesn't wait for the build: it answers from the exact scan.
    _same_results(bg, exact, rng, limit=10)
    follower = bg._vectors["big"]
    assert follower.index is not None and follower.index.hnsw is None
    # Changes committed while the index is being built...
    for s in (bg, exact):
        s.delete_document("big", "d0")
    _fill([bg, exact], rng, docs=3)  # re-adds d0..d2 with new vectors
    release.set()
    assert bg.wait_for_indexes(10)
    _same_results(bg, exact, rng, limit=10)
    # ...are reconciled into it once it is adopted: it holds exactly the live chunks.
    state = follower.index
    assert state is not None and state.hnsw is not None
    keys = sorted(int(k) for k in state.hnsw._index.keys[:])
    assert keys == sorted(int(i) for i in state.exact.live_ids())
    assert _hnsw.sidecar_paths(bg.path, "big")[0].exists()
    bg.close()
    exact.close()
