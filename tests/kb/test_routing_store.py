"""RoutingStore: the KB store contract through the catalog (collections kept in the
configured store, and every collection placed on a second store), one namespace across
stores, a hidden catalog, and routes that follow another process's moves."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from unifind.errors import InputError, SourceError, StoreError, UnknownName
from unifind.kb.base import CollectionInfo
from unifind.kb.migrate import migrate
from unifind.kb.routing import CATALOG, RoutingStore, open_routing
from unifind.kb.sqlite import SQLiteStore
from unifind.kb.stores import canonical, open_store
from unifind.testing._kb_bulk import EXPECTED, ROUNDS
from unifind.testing.kb_store import KBStoreConformance, chunk, doc, ids, vec


class TestRoutingStore(KBStoreConformance):
    """Every collection in the configured store: routing must change nothing."""

    def make_store(self, tmp_path: Path) -> RoutingStore:
        return open_routing(f"sqlite://{tmp_path}/kb.db", tmp_path)

    def store_spec(self, tmp_path: Path) -> tuple[str, tuple[Any, ...], dict[str, Any]]:
        return "unifind.kb.routing:open_routing", (f"sqlite://{tmp_path}/kb.db", str(tmp_path)), {}


class _PlaceEverything(RoutingStore):
    """Creates every collection on ``elsewhere``: the contract must hold through a placement."""

    elsewhere = ""

    def create_collection(self, name: str, **kw: Any) -> CollectionInfo:
        return super().create_collection(name, **{"store": self.elsewhere, **kw})


class TestPlacedCollections(KBStoreConformance):
    def make_store(self, tmp_path: Path) -> RoutingStore:
        store = _PlaceEverything(
            SQLiteStore(tmp_path / "catalog.db"), spec=f"sqlite://{tmp_path}/catalog.db",
            home=tmp_path,
        )  # fmt: skip
        store.elsewhere = f"sqlite://{tmp_path}/placed.db"
        return store

    def test_collections_really_live_in_the_other_store(self, store: _PlaceEverything) -> None:
        store.create_collection("alpha", embedder="e", dim=4, metadata={"team": "x"})
        store.upsert_document("alpha", doc("a"), [chunk(0, "one", vector=vec(1, 0, 0, 0))])
        placed = store.store_at(store.elsewhere)
        assert placed.get_collection("alpha").documents == 1
        assert [c.name for c in store.default.list_collections()] == [CATALOG]
        assert store.location("alpha") == canonical(store.elsewhere, store.home)


class TestCatalogOnQdrant(KBStoreConformance):
    """The catalog in Qdrant's local mode, every collection placed on a SQLite file."""

    def make_store(self, tmp_path: Path) -> RoutingStore:
        pytest.importorskip("qdrant_client", reason="needs pip install 'unifind[qdrant]'")
        spec = f"qdrant://{tmp_path}/q"
        store = _PlaceEverything(open_store(spec, tmp_path), spec=spec, home=tmp_path)
        store.elsewhere = f"sqlite://{tmp_path}/placed.db"
        return store


@pytest.fixture
def routing(tmp_path: Path) -> Iterator[RoutingStore]:
    store = open_routing(f"sqlite://{tmp_path}/kb.db", tmp_path)
    yield store
    store.close()


def _x(tmp_path: Path) -> str:
    return f"sqlite://{tmp_path}/x.db"


def test_names_are_one_namespace_across_stores(routing: RoutingStore, tmp_path: Path) -> None:
    routing.create_collection("here", embedder=None, dim=None)
    with pytest.raises(InputError, match="'here' is taken in sqlite://"):
        routing.create_collection("here", embedder=None, dim=None, store=_x(tmp_path))
    routing.create_collection("there", embedder=None, dim=None, store=_x(tmp_path))
    for where in (None, _x(tmp_path), f"sqlite://{tmp_path}/y.db"):
        with pytest.raises(InputError, match="'there' already exists"):
            routing.create_collection("there", embedder=None, dim=None, store=where)
    again = routing.create_collection("there", embedder=None, dim=None, exist_ok=True)
    assert again.name == "there"
    with pytest.raises(InputError, match="reserved"):
        routing.create_collection(CATALOG, embedder=None, dim=None)


def test_a_placed_store_shows_only_what_was_placed_on_it(
    routing: RoutingStore, tmp_path: Path
) -> None:
    with open_store(_x(tmp_path), tmp_path) as other:
        other.create_collection("theirs", embedder=None, dim=None)
    with pytest.raises(InputError, match="'theirs' is taken in"):  # not adopted, not mixed
        routing.create_collection("theirs", embedder=None, dim=None, store=_x(tmp_path))
    routing.create_collection("mine", embedder=None, dim=None, store=_x(tmp_path))
    assert [c.name for c in routing.list_collections()] == ["mine"]
    for call in (lambda: routing.get_collection("theirs"), lambda: routing.list_documents(CATALOG)):
        with pytest.raises(UnknownName) as exc:
            call()
        assert exc.value.valid == ["mine"]  # neither the catalog nor the other's names


def test_placing_on_the_configured_store_is_creating_there(
    routing: RoutingStore, tmp_path: Path
) -> None:
    routing.create_collection("a", embedder=None, dim=None, store=f"sqlite://{tmp_path}/kb.db")
    assert routing.placements() == {}
    assert [c.name for c in routing.default.list_collections()] == ["a"]


def test_a_batch_is_written_in_the_store_holding_its_collection(
    routing: RoutingStore, tmp_path: Path
) -> None:
    routing.create_collection("here", embedder=None, dim=None)
    routing.create_collection("there", embedder=None, dim=None, store=_x(tmp_path))
    batch = [(doc("a"), [chunk(0, "refund")]), (doc("b"), [chunk(0, "shipping")])]
    assert routing.upsert_documents("there", batch) == ["added", "added"]
    assert routing.store_at(_x(tmp_path)).get_collection("there").documents == 2
    assert routing.get_collection("here").documents == 0
    with pytest.raises(UnknownName):  # not written into the configured store's file
        routing.default.get_collection("there")
    with pytest.raises(UnknownName):
        routing.upsert_documents(CATALOG, batch)


class _NoBatches(SQLiteStore):
    """A store that writes one document at a time (a third-party store may)."""

    upsert_documents = None  # type: ignore[assignment]


def test_a_batch_into_a_store_without_batches_is_written_one_by_one(tmp_path: Path) -> None:
    spec = f"sqlite://{tmp_path}/kb.db"
    with RoutingStore(_NoBatches(tmp_path / "kb.db"), spec=spec, home=tmp_path) as routing:
        routing.create_collection("docs", embedder="test-4d", dim=4)
        assert routing.batch_writer("docs") is None  # so ingest writes one by one too
        for docs, expected in zip(ROUNDS, EXPECTED, strict=True):
            assert routing.upsert_documents("docs", docs) == expected
        assert [d.document_id for d in routing.list_documents("docs")] == list("abcdef")


def test_a_second_process_follows_a_move_it_has_not_read_yet(tmp_path: Path) -> None:
    spec = f"sqlite://{tmp_path}/kb.db"
    one = open_routing(spec, tmp_path)
    two = RoutingStore(open_store(spec, tmp_path), spec=spec, home=tmp_path, ttl_s=3600)
    try:
        one.create_collection("docs", embedder="e", dim=4, store=_x(tmp_path))
        one.upsert_document("docs", doc("a"), [chunk(0, "refund", vector=vec(1, 0, 0, 0))])
        assert ids(two.lexical_search("docs", ["refund"], limit=5))  # two caches "x.db"
        y = f"sqlite://{tmp_path}/y.db"
        migrate(one, one.store_at(y), "docs", home=tmp_path, target=y,
                on_verified=lambda: one.repoint("docs", y))  # fmt: skip
        with pytest.raises(UnknownName):  # the old copy is gone ...
            one.store_at(_x(tmp_path)).get_collection("docs")
        assert two.location("docs") == canonical(_x(tmp_path), tmp_path)  # ... two's cache
        assert ids(two.lexical_search("docs", ["refund"], limit=5))  # re-read, retried
        assert two.location("docs") == canonical(y, tmp_path)
        two.upsert_documents("docs", [(doc("b"), [chunk(0, "b", vector=vec(0, 1, 0, 0))])])
        assert one.store_at(y).get_collection("docs").documents == 2  # where it lives now
        one.delete_collection("docs")
        with pytest.raises(UnknownName):
            two.vector_search("docs", vec(1, 0, 0, 0), limit=5)
    finally:
        one.close()
        two.close()


def test_moving_home_again_uses_the_configured_copy(routing: RoutingStore, tmp_path: Path) -> None:
    routing.create_collection("docs", embedder=None, dim=None, store=_x(tmp_path))
    routing.upsert_document("docs", doc("a"), [chunk(0, "refund")])
    home_spec = f"sqlite://{tmp_path}/kb.db"
    report = migrate(routing, routing.default, "docs", home=tmp_path, target=home_spec,
                     on_verified=lambda: routing.repoint("docs", home_spec))  # fmt: skip
    assert report.verified and routing.placements() == {}
    assert routing.default.get_collection("docs").documents == 1
    assert [c.name for c in routing.store_at(_x(tmp_path)).list_collections()] == []


def test_a_collection_gone_from_its_store_is_a_failing_source(
    routing: RoutingStore, tmp_path: Path
) -> None:
    routing.create_collection("docs", embedder=None, dim=None, store=_x(tmp_path))
    routing.store_at(_x(tmp_path)).delete_collection("docs")  # behind the catalog's back
    assert [c.name for c in routing.list_collections()] == ["docs"]  # the catalog's word
    with pytest.raises(SourceError, match=r"catalogued in sqlite://.* does not have it"):
        routing.lexical_search("docs", ["x"], limit=3)
    routing.delete_collection("docs")
    assert routing.list_collections() == []


def test_a_store_that_cannot_open_keeps_the_others_listed(
    routing: RoutingStore, tmp_path: Path
) -> None:
    routing.create_collection("here", embedder=None, dim=None)
    broken = tmp_path / "gone"
    broken.mkdir()
    routing.create_collection("away", embedder="e", dim=4, store=f"sqlite://{broken}/x.db")
    routing.close()
    shutil.rmtree(broken)
    broken.write_text("a file where the store's folder was: it can't open")
    again = open_routing(f"sqlite://{tmp_path}/kb.db", tmp_path)
    try:
        infos = {c.name: c for c in again.list_collections()}
        assert set(infos) == {"away", "here"}
        assert (infos["away"].embedder, infos["away"].dim) == ("e", 4)  # the snapshot
        assert again.get_collection("away").dim == 4
        with pytest.raises(StoreError, match="gone"):
            again.lexical_search("away", ["x"], limit=3)
    finally:
        again.close()


def test_relative_specs_are_recorded_absolute(tmp_path: Path) -> None:
    assert canonical("./q.db", tmp_path) == f"sqlite://{Path.cwd() / 'q.db'}"
    assert canonical("qdrant://./q?prefix=p_", tmp_path) == f"qdrant://{Path.cwd() / 'q'}?prefix=p_"
    assert canonical("sqlite", tmp_path) == f"sqlite://{tmp_path.resolve() / 'kb.sqlite'}"
    url = "postgresql://u:pw@db:5432/kb"
    assert canonical(url, tmp_path) == url
    assert canonical("qdrant://host:6333", tmp_path) == "qdrant://host:6333"
