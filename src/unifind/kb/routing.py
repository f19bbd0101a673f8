"""A KB store of stores: each collection in the store that holds it, one catalog for all.

The configured store (``kb.store``) is the *catalog*. A collection lives there unless it
was placed elsewhere (``kb create NAME --store SPEC``, ``kb migrate NAME --to SPEC``);
:class:`RoutingStore` sends every per-collection call to the collection's store.

The catalog is a hidden collection of the configured store, :data:`CATALOG`, with one
empty document per placed collection: its id is the collection's name, its metadata the
store spec and a snapshot of the collection (embedder, dim, analyser, metadata with the
ACL). A catalog *document* rather than a table, or a marker in collection metadata, because:

* every store already keeps documents with JSON metadata, so any store can be the catalog
  (SQLite, PostgreSQL, Qdrant, Milvus) with no schema of its own;
* ``upsert_document`` is atomic, so re-pointing a migrated collection is one atomic write;
  collection metadata can't be changed in place, and delete + create would leave a moment
  with no catalog entry (the name free, the data unreachable);
* the snapshot answers for a placed store that is down: its collection is still listed,
  its ACL still decides who sees it, and only its own searches report ``degraded``.

Names are one namespace across stores. A catalog entry wins over a collection of the same
name in the configured store (a migration's copy in progress), so a move shows in one
atomic step. A placed store's *other* collections are never shown. Other processes see a
placement within ``ttl_s``, or at once when a route fails (they re-read and retry).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

import numpy as np
import numpy.typing as npt

from unifind.errors import InputError, SourceError, UnknownName
from unifind.kb._remote import scrub
from unifind.kb.acl import ACL_KEY
from unifind.kb.base import (
    ChunkIn,
    ChunkRecord,
    CollectionInfo,
    DocumentIn,
    DocumentInfo,
    Hit,
    KBStore,
    UpsertOutcome,
)
from unifind.kb.migrate import Exported, export_document
from unifind.kb.stores import canonical, describe, open_store
from unifind.types import Reason

__all__ = ["CATALOG", "Placement", "RoutingStore", "open_routing"]

CATALOG: Final = "_unifind_catalog"
# Hidden here; through a plain store only the operator (or that odd tenant) would see it:
# its entries hold store URLs. No NUL in the name: PostgreSQL's jsonb refuses \u0000.
_HIDDEN: Final = {ACL_KEY: {"tenant": "unifind:catalog", "roles": [], "users": []}}
_SNAPSHOT = ("embedder", "dim", "analyzer", "description", "metadata", "created_at")

log = logging.getLogger("unifind.kb")
T = TypeVar("T")
Filters = Mapping[str, Any] | None
Vector = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a placed collection lives, and what it was when placed."""

    spec: str
    """The store spec as given (it may hold a password: show it only through ``describe``)."""
    info: CollectionInfo


def open_routing(spec: str, home: str | Path) -> RoutingStore:
    """The configured store ``spec`` as a catalog routing to every placed collection."""
    return RoutingStore(open_store(spec, Path(home)), spec=spec, home=Path(home))


class RoutingStore(KBStore):
    """The configured store plus every store a collection was placed on."""

    name = "routing"

    def __init__(self, default: KBStore, *, spec: str, home: Path, ttl_s: float = 2.0) -> None:
        self.default, self.home, self.ttl_s = default, home, ttl_s
        self.spec = canonical(spec, home)
        self._stores: dict[str, KBStore] = {}
        self._keys: dict[str, str] = {}
        self._lock = threading.RLock()
        self._catalog: dict[str, Placement] | None = None
        self._read_at = 0.0

    def __repr__(self) -> str:
        return f"RoutingStore({describe(self.spec)!r})"

    # ---- where things are ----------------------------------------------------------

    def store_at(self, spec: str) -> KBStore:
        """The store ``spec`` names, opened once and shared (Qdrant's local mode allows one
        client per folder); the configured store for its own spec."""
        key = self._canonical(spec)
        if key == self.spec:
            return self.default
        with self._lock:
            if key not in self._stores:
                self._stores[key] = open_store(key, self.home)
            return self._stores[key]

    def _canonical(self, spec: str) -> str:
        # Cached: resolving a path costs ~0.15 ms of syscalls, on every routed call.
        if (key := self._keys.get(spec)) is None:
            key = self._keys[spec] = canonical(spec, self.home)
        return key

    def location(self, name: str) -> str:
        """Where ``name`` lives, as it may be shown (no password)."""
        placed = self._placements().get(name)
        return describe(placed.spec if placed else self.spec)

    def placements(self) -> dict[str, Placement]:
        """Every placed collection (fresh from the catalog)."""
        return dict(self._placements(fresh=True))

    def _placements(self, *, fresh: bool = False) -> dict[str, Placement]:
        with self._lock:
            stale = time.monotonic() - self._read_at > self.ttl_s
            if fresh or stale or self._catalog is None:
                self._catalog = self._read_catalog()
                self._read_at = time.monotonic()
            return self._catalog

    def _read_catalog(self) -> dict[str, Placement]:
        out: dict[str, Placement] = {}
        offset = 0
        try:
            while page := self.default.list_documents(CATALOG, limit=1000, offset=offset):
                out.update((d.document_id, _placement(d)) for d in page)
                offset += len(page)
        except UnknownName:
            return {}  # nothing placed yet: the catalog is created with the first placement
        return out

    def _route(self, name: str, *, fresh: bool = False) -> tuple[KBStore, Placement | None]:
        if name == CATALOG:
            raise self._unknown(name)
        placed = self._placements(fresh=fresh).get(name)
        return (self.default, None) if placed is None else (self.store_at(placed.spec), placed)

    def _call(self, name: str, op: Callable[[KBStore], T]) -> T:
        """``op`` on the store holding ``name``; a stale route is re-read and tried once."""
        store, placed = self._route(name)
        try:
            return op(store)
        except UnknownName as exc:
            if exc.kind != "collection":
                raise
        store, now = self._route(name, fresh=True)  # moved, placed or dropped meanwhile?
        if (now.spec if now else None) == (placed.spec if placed else None):
            raise self._missing(name, now) from None
        try:
            return op(store)
        except UnknownName as exc:
            if exc.kind != "collection":
                raise
            raise self._missing(name, self._placements().get(name)) from None

    def _missing(self, name: str, placed: Placement | None) -> Exception:
        if placed is None:
            return self._unknown(name)
        # Listed (the catalog has it) yet gone from its store: a failing source, not a typo.
        gone = self.store_at(placed.spec).missing
        why = (
            f"its folder {gone} is missing (moved or deleted?): put it back, or delete the "
            "collection to forget it"
            if gone
            else "that store does not have it (deleted there?)"
        )
        return SourceError(
            Reason.ERROR, f"collection {name!r} is catalogued in {describe(placed.spec)} but {why}"
        )

    def _unknown(self, name: str) -> UnknownName:
        return UnknownName("collection", name, self._names())

    def _names(self) -> list[str]:
        placed = self._placements()
        own = [c.name for c in self.default.list_collections() if c.name != CATALOG]
        return sorted({*own, *placed})

    # ---- collections ---------------------------------------------------------------

    def create_collection(
        self,
        name: str,
        *,
        embedder: str | None,
        dim: int | None,
        analyzer: str = "auto",
        description: str = "",
        metadata: Mapping[str, Any] | None = None,
        exist_ok: bool = False,
        store: str | None = None,
    ) -> CollectionInfo:
        """Create a collection in the configured store, or in ``store`` (a spec) and
        record it in the catalog. A name taken in any store is refused unless
        ``exist_ok`` (and then only where it already is)."""
        if name == CATALOG:
            raise InputError(f"collection name {name!r} is reserved for the store catalog")
        target = None if store is None else self._canonical(store)
        if target == self.spec:
            target = None  # placing on the configured store is creating there
        placed = self._placements(fresh=True).get(name)
        if placed is not None:
            if exist_ok and target in (None, placed.spec):
                return self.get_collection(name)
            raise InputError(f"collection {name!r} already exists (in {describe(placed.spec)})")

        def make(store: KBStore, *, exist_ok: bool = False) -> CollectionInfo:
            return store.create_collection(
                name, embedder=embedder, dim=dim, analyzer=analyzer, description=description,
                metadata=metadata, exist_ok=exist_ok,
            )  # fmt: skip

        if target is None:
            return make(self.default, exist_ok=exist_ok)
        self._refuse_existing(name, self.default, self.spec)
        dst = self.store_at(target)
        self._refuse_existing(name, dst, target)
        info = make(dst)
        try:
            self._place(name, target, info)
        except BaseException:
            dst.delete_collection(name)  # not catalogued: nobody could ever reach it
            raise
        return info

    def _refuse_existing(self, name: str, store: KBStore, spec: str) -> None:
        try:
            store.get_collection(name)
        except UnknownName:
            return
        raise InputError(
            f"collection name {name!r} is taken in {describe(spec)}; choose another name"
        )

    def _place(self, name: str, spec: str, info: CollectionInfo) -> None:
        """Record (or re-point) ``name`` as living in ``spec``: one atomic upsert."""
        snap = {k: getattr(info, k) for k in _SNAPSHOT}
        meta = {"store": spec, "collection": snap}
        digest = hashlib.sha256(json.dumps(meta, sort_keys=True).encode()).hexdigest()
        self.default.create_collection(
            CATALOG, embedder=None, dim=None, description="unifind: where collections live",
            metadata=_HIDDEN, exist_ok=True,
        )  # fmt: skip
        self.default.upsert_document(
            CATALOG, DocumentIn(name, digest, title=name, metadata=meta), []
        )
        self._catalog = None

    def _unplace(self, name: str) -> None:
        with contextlib.suppress(UnknownName):
            self.default.delete_document(CATALOG, name)
        self._catalog = None

    def repoint(self, name: str, spec: str) -> str | None:
        """Serve ``name`` from ``spec``, which holds a verified copy (``kb migrate``), then
        remove the copy it was served from. Returns that old location (redacted), or None
        when ``name`` already lived in ``spec``."""
        target = self._canonical(spec)
        placed = self._placements(fresh=True).get(name)
        old = placed.spec if placed else self.spec
        if old == target:
            return None
        if target == self.spec:
            self._unplace(name)  # the configured store's own copy answers from now on
        else:
            self._place(name, target, self.store_at(target).get_collection(name))
        with contextlib.suppress(UnknownName):
            self.store_at(old).delete_collection(name)
        return describe(old)

    def get_collection(self, name: str) -> CollectionInfo:
        placed = self._placements().get(name)
        if placed is None:
            return self._call(name, lambda s: s.get_collection(name))
        try:
            return self._call(name, lambda s: s.get_collection(name))
        except UnknownName:
            raise
        except Exception as exc:  # its store is down: the catalog still knows what it is
            self._warn(placed.spec, exc)
            return placed.info

    def list_collections(self) -> list[CollectionInfo]:
        """The configured store's collections and every placed one, by name; a placed store
        that can't answer contributes the catalog's snapshot of its collections."""
        own = self.default.list_collections()
        if not own and (gone := self.default.missing) is not None:
            raise SourceError(
                Reason.ERROR,
                f"the KB store {describe(self.spec)} has no folder {gone} (moved or deleted?): "
                "point kb.store at where it is now, or create a collection to start one there",
            )
        placed = self._placements() if any(c.name == CATALOG for c in own) else {}
        out = {c.name: c for c in own if c.name != CATALOG and c.name not in placed}
        by_store: dict[str, list[str]] = {}
        for name, p in placed.items():
            by_store.setdefault(p.spec, []).append(name)
        for spec, names in by_store.items():
            live = self._live(spec)
            out.update((n, live.get(n) or placed[n].info) for n in names)
        return [out[n] for n in sorted(out)]

    def _live(self, spec: str) -> dict[str, CollectionInfo]:
        try:
            store = self.store_at(spec)
            if (gone := store.missing) is not None:  # it would list nothing, silently
                raise SourceError(Reason.ERROR, f"its folder {gone} is missing (moved or deleted?)")
            return {c.name: c for c in store.list_collections()}
        except Exception as exc:  # one store down must not hide the others
            self._warn(spec, exc)
            return {}

    def _warn(self, spec: str, exc: BaseException) -> None:
        log.warning("KB store %s did not answer: %s", describe(spec), scrub(str(exc), spec))

    def delete_collection(self, name: str) -> None:
        """Delete it from its store, then from the catalog (a store that is down refuses)."""
        placed = self._placements(fresh=True).get(name)
        if placed is None:
            self._call(name, lambda s: s.delete_collection(name))
            return
        for store in (self.store_at(placed.spec), self.default):  # and any stale copy here
            with contextlib.suppress(UnknownName):
                store.delete_collection(name)
        self._unplace(name)

    # ---- documents and queries: wherever the collection is --------------------------

    def document_hash(self, collection: str, document_id: str) -> str | None:
        return self._call(collection, lambda s: s.document_hash(collection, document_id))

    def upsert_document(
        self, collection: str, doc: DocumentIn, chunks: Sequence[ChunkIn]
    ) -> UpsertOutcome:
        return self._call(collection, lambda s: s.upsert_document(collection, doc, chunks))

    def upsert_documents(
        self, collection: str, batch: Sequence[tuple[DocumentIn, Sequence[ChunkIn]]]
    ) -> list[UpsertOutcome]:
        """Write ``batch`` through the holding store's ``upsert_documents``: one transaction,
        all of it or none. A store without batches writes it one by one (each document
        atomic, the batch not: as ``kb ingest`` writes into it)."""

        def write(store: KBStore) -> list[UpsertOutcome]:
            many: Callable[..., list[UpsertOutcome]] | None = getattr(
                store, "upsert_documents", None
            )
            if many is not None:
                return many(collection, batch)
            return [store.upsert_document(collection, doc, chunks) for doc, chunks in batch]

        return self._call(collection, write)

    def batch_writer(self, collection: str) -> Callable[..., list[UpsertOutcome]] | None:
        """The holding store's ``upsert_documents`` (many documents in one transaction),
        or None where it writes one by one (ingest then writes document by document)."""
        store, _ = self._route(collection)
        many: Callable[..., list[UpsertOutcome]] | None = getattr(store, "upsert_documents", None)
        return many

    def delete_document(self, collection: str, document_id: str) -> bool:
        return self._call(collection, lambda s: s.delete_document(collection, document_id))

    def list_documents(
        self, collection: str, *, limit: int = 100, offset: int = 0
    ) -> list[DocumentInfo]:
        return self._call(
            collection, lambda s: s.list_documents(collection, limit=limit, offset=offset)
        )

    def get_chunks(self, collection: str, chunk_ids: Sequence[str]) -> dict[str, ChunkRecord]:
        return self._call(collection, lambda s: s.get_chunks(collection, chunk_ids))

    def lexical_search(
        self, collection: str, terms: Sequence[str], *, limit: int, filters: Filters = None
    ) -> list[Hit]:
        return self._call(
            collection, lambda s: s.lexical_search(collection, terms, limit=limit, filters=filters)
        )

    def vector_search(
        self, collection: str, vector: Vector, *, limit: int, filters: Filters = None
    ) -> list[Hit]:
        return self._call(
            collection, lambda s: s.vector_search(collection, vector, limit=limit, filters=filters)
        )

    def lexical_scores(
        self, collection: str, terms: Sequence[str], chunk_ids: Sequence[str]
    ) -> dict[str, float]:
        return self._call(collection, lambda s: s.lexical_scores(collection, terms, chunk_ids))

    def chunk_vectors(self, collection: str, chunk_ids: Sequence[str]) -> dict[str, Vector]:
        return self._call(collection, lambda s: s.chunk_vectors(collection, chunk_ids))

    def export_document(self, collection: str, document_id: str) -> Exported | None:
        """The document as its store keeps it (for ``kb migrate``)."""
        return self._call(collection, lambda s: export_document(s, collection, document_id))

    def migration_lock(self, collection: str) -> contextlib.AbstractContextManager[Any]:
        """The migration lock of the store holding ``collection``, where it has one."""
        store, _ = self._route(collection, fresh=True)
        lock = getattr(store, "migration_lock", None)
        return contextlib.nullcontext() if lock is None else lock(collection)  # type: ignore[no-any-return]

    def close(self) -> None:
        with self._lock:
            stores, self._stores = list(self._stores.values()), {}
        for store in stores:
            store.close()
        self.default.close()


def _placement(doc: DocumentInfo) -> Placement:
    meta = doc.metadata
    snap: dict[str, Any] = dict(meta.get("collection") or {})
    info = CollectionInfo(
        doc.document_id, snap.get("embedder"), snap.get("dim"), snap.get("analyzer") or "auto",
        description=snap.get("description") or "", created_at=snap.get("created_at") or "",
        metadata=dict(snap.get("metadata") or {}),
    )  # fmt: skip
    return Placement(str(meta.get("store", "")), info)
