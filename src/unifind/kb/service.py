"""KnowledgeBase: collections, ingest and search over one store — the KB leg's front door.

Access (DESIGN §10). Every method takes ``principal=``: the authenticated caller (an API
key's principal, or the configured local one), :data:`~unifind.kb.acl.OPERATOR` (the local
operator, who sees everything), or None (nobody authenticated). A collection's ACL lives
in its metadata under ``"acl"`` (``{"tenant", "roles", "users"}``), so every store keeps it.

* A collection with no owner tenant is **shared**: every caller sees it. Only callers
  without a tenant (None, a principal with no tenant, the operator) may change it or its
  documents; for a tenant's caller it is read-only (:class:`~unifind.errors.Forbidden`).
* A **tenant-owned** collection is visible only to a principal of that tenant and, when
  roles or users are set, only to one holding one of the roles or being one of the
  users. No principal sees none of them (fail closed). Whoever sees it may change it.
* An invisible collection behaves exactly like a nonexistent one: ``UnknownName`` listing
  only what this caller sees, never another tenant's names, in every method and search.
* ``create``: a tenant's principal creates collections of its own tenant (the default
  when ``tenant`` is not given); a caller without a tenant creates shared ones; the
  operator creates any. A name must match :data:`~unifind.kb._tenancy.NAME_PATTERN`.
* **Each tenant has its own names** (``kb._tenancy``): a tenant's principal creates
  ``docs`` as ``docs__<tag>``, so it may take any name another tenant holds and learns
  nothing of theirs (#18: "taken" vs "created" was a probe). Its callers name it ``docs``
  everywhere (results, listings, errors); the operator sees the stored name. Its own
  collection hides a shared one of the same name from it. A name the caller already sees
  (shared, or its tenant's under the plain name: created by the operator or before this
  rule) is "already exists"; one its own tenant holds for other roles is "not available".
* ``create(..., store=SPEC)`` places a collection on another store (``kb.routing``); the
  ACL travels with it. Only code that holds the KB (the CLI, Python) can: the HTTP and
  MCP surfaces don't take a store, so an API key can't point the server at a URL.
* Searching names no collections → the visible ones are searched.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from unifind.analysis import get_analyzer
from unifind.config import Settings, load_settings
from unifind.embed.base import Embedder, Reranker, resolve_embedder, resolve_reranker
from unifind.errors import EmbedderMismatch, Forbidden, InputError, SourceError, UnknownName
from unifind.kb._names import find_shown
from unifind.kb._sync import LoopThread
from unifind.kb._tenancy import (
    SEP,
    check_name,
    new_own_name,
    own_name,
    relabel,
    relabel_error,
    shadowed,
    shown_name,
)
from unifind.kb.acl import ACL_KEY, OPERATOR, Caller, acl_of, can_change, can_see, make_acl
from unifind.kb.acl import tenant_of as _tenant_of
from unifind.kb.base import CollectionInfo, DocumentInfo, KBStore
from unifind.kb.routing import RoutingStore, open_routing
from unifind.kb.search import search_collections
from unifind.kb.stores import describe
from unifind.types import LegReport, SearchRequest, SearchResult, Status

if TYPE_CHECKING:
    from unifind.kb.ingest import FileOutcome, IngestReport

__all__ = ["OPERATOR", "FileOutcome", "IngestReport", "KnowledgeBase"]


def __getattr__(name: str) -> Any:
    # The ingest pipeline (extraction, chunking, the graph) loads when a caller writes or
    # names it, not for every search (CLI start-up, issue #18).
    if name in ("FileOutcome", "IngestReport"):
        from unifind.kb import ingest

        return getattr(ingest, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


EmbedderFactory = Callable[[str], Embedder]


class KnowledgeBase:
    """Collections, ingest and hybrid search over one KB store.

    Embedders and rerankers are loaded once per spec and shared (loading bge-small costs
    ~0.3 s); ``embedder_factory`` replaces how a spec becomes an embedder (tests, caches).
    """

    def __init__(
        self,
        store: KBStore,
        settings: Settings | None = None,
        *,
        embedder_factory: EmbedderFactory | None = None,
    ) -> None:
        self.store = store
        self.settings = settings or load_settings()
        self._factory = embedder_factory or resolve_embedder
        self._embedders: dict[str, Embedder] = {}
        self._rerankers: dict[str, Reranker] = {}
        self._lock = threading.Lock()
        self._sync = LoopThread("unifind-kb-sync")

    @classmethod
    def open(
        cls, settings: Settings | None = None, *, embedder_factory: EmbedderFactory | None = None
    ) -> KnowledgeBase:
        """Open the configured store: ``settings.kb.store`` is ``sqlite`` (the embedded file
        under ``settings.home``), a path or a store URL (``unifind.kb.stores``), with every
        collection placed on another store routed there (``unifind.kb.routing``)."""
        settings = settings or load_settings()
        settings.ensure_home()
        store = open_routing(settings.kb.store, settings.home)
        return cls(store, settings, embedder_factory=embedder_factory)

    def close(self) -> None:
        self._sync.close()  # first: its worker threads hold store connections
        self.store.close()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- models ------------------------------------------------------------------------

    def embedder(self, spec: str) -> Embedder:
        """The embedder for ``spec``, loaded once."""
        with self._lock:
            if spec not in self._embedders:
                emb = self._factory(spec)
                # An alias (e.g. "openai:x" → "openai:x@host") is cached under both names.
                self._embedders[spec] = self._embedders[emb.spec] = emb
            return self._embedders[spec]

    def reranker(self, spec: str) -> Reranker:
        """The reranker for ``spec``, loaded once."""
        with self._lock:
            if spec not in self._rerankers:
                self._rerankers[spec] = resolve_reranker(spec)
            return self._rerankers[spec]

    def collection_embedder(self, info: CollectionInfo) -> Embedder | None:
        """The embedder a collection was built with; refuses one that answers another spec."""
        if info.embedder is None:
            return None
        emb = self.embedder(info.embedder)
        if emb.spec != info.embedder or (info.dim is not None and emb.dim != info.dim):
            raise EmbedderMismatch(
                f"collection {info.name!r} was built with {info.embedder} ({info.dim}-d) but "
                f"that spec now loads {emb.spec} ({emb.dim}-d); re-create the collection or "
                "configure the original model"
            )
        return emb

    # -- access ------------------------------------------------------------------------

    def visible(self, principal: Caller = None) -> list[CollectionInfo]:
        """The collections ``principal`` can see, by stored name (a tenant's own ones
        are shown without their suffix: :meth:`collections`)."""
        seen = [c for c in self.store.list_collections() if can_see(acl_of(c), principal)]
        return shadowed(seen, _tenant_of(principal))

    def _unknown(self, name: str, principal: Caller) -> UnknownName:
        return UnknownName(
            "collection", name, [c.name for c in self.collections(principal=principal)]
        )

    def _shown(self, info: CollectionInfo, principal: Caller) -> CollectionInfo:
        shown = shown_name(info.name, _tenant_of(principal))
        return info if shown == info.name else replace(info, name=shown)

    def _lookup(self, name: str, principal: Caller) -> CollectionInfo:
        """The stored collection ``name`` means to ``principal``: its tenant's own first."""
        tenant = _tenant_of(principal)
        if tenant is not None and SEP not in name:
            try:
                return self.store.get_collection(own_name(name, tenant))
            except UnknownName:
                pass
        with self._scoped(principal):
            return self.store.get_collection(name)

    @contextmanager
    def _scoped(self, principal: Caller) -> Iterator[None]:
        """A store's UnknownName lists every collection: list only the visible ones."""
        try:
            yield
        except UnknownName as exc:
            if exc.kind != "collection":
                raise
            raise self._unknown(exc.name, principal) from None

    def _info(self, name: str, principal: Caller, *, change: bool = False) -> CollectionInfo:
        """The stored collection if ``principal`` may see (and, with ``change``, change) it."""
        info = self._lookup(name, principal)
        acl = acl_of(info)
        if not can_see(acl, principal):
            raise self._unknown(name, principal)
        if change and not can_change(acl, principal):
            raise Forbidden(
                f"collection {name!r} is shared: read-only for tenant "
                f"{_tenant_of(principal)!r}; create one of your own to write to"
            )
        return info

    def writable(self, name: str, *, principal: Caller = None) -> CollectionInfo:
        """The collection if ``principal`` may change it: UnknownName when it can't see it,
        Forbidden when it may only read it (check before fetching anything to write)."""
        return self._info(name, principal, change=True)

    def infos(self, names: Iterable[str], principal: Caller = None) -> list[CollectionInfo]:
        """The named collections (deduplicated), each visible to ``principal``."""
        return [self._info(name, principal) for name in dict.fromkeys(names)]

    # -- collections -------------------------------------------------------------------

    def create(
        self,
        name: str,
        *,
        embedder: str | None = "default",
        description: str = "",
        analyzer: str = "auto",
        exist_ok: bool = False,
        metadata: Mapping[str, Any] | None = None,
        tenant: str | None = None,
        roles: Iterable[str] = (),
        users: Iterable[str] = (),
        principal: Caller = None,
        store: str | None = None,
    ) -> CollectionInfo:
        """Create a collection. ``embedder=None`` makes it lexical-only.

        ``tenant`` owns it (default: the principal's tenant; shared without one);
        ``roles``/``users`` further restrict it within the tenant. ``store`` places it on
        another store (a spec as ``kb.store`` takes) instead of the configured one.
        """
        check_name(name)
        if metadata and ACL_KEY in metadata:
            raise InputError(f"metadata key {ACL_KEY!r} is reserved: pass tenant, roles, users")
        acl = make_acl(tenant if tenant is not None else _tenant_of(principal), roles, users)
        if principal is not OPERATOR and acl.tenant != _tenant_of(principal):
            who = _tenant_of(principal)
            raise Forbidden(
                f"a caller of tenant {who!r} can't create a collection owned by {acl.owner!r}"
                if who
                else f"creating a collection owned by tenant {acl.tenant!r} needs a principal "
                "of that tenant (or the local operator: `unifind kb create --tenant`)"
            )
        stored = self._target(name, principal, exist_ok)
        spec = self.settings.kb.embedder if embedder == "default" else embedder
        emb = self.embedder(spec) if spec else None
        get_analyzer(analyzer)  # fail on an unknown analyser before writing anything
        meta = {**(metadata or {}), ACL_KEY: acl.to_json()} if acl.tenant else metadata
        info = self._creator(store)(
            stored,
            embedder=emb.spec if emb else None,
            dim=emb.dim if emb else None,
            analyzer=analyzer,
            description=description,
            metadata=meta,
            exist_ok=exist_ok,
        )
        if not can_see(acl_of(info), principal):  # another caller created it meanwhile
            raise InputError(f"collection name {name!r} is not available; choose another")
        return self._shown(info, principal)

    def _creator(self, store: str | None) -> Callable[..., CollectionInfo]:
        if store is None:
            return self.store.create_collection
        if not isinstance(self.store, RoutingStore):
            raise InputError("placing a collection on a store needs KnowledgeBase.open()")
        return partial(self.store.create_collection, store=store)

    def location(self, name: str, *, principal: Caller = None) -> str:
        """The store ``name`` lives in, as it may be shown (no password)."""
        info = self._info(name, principal)
        if isinstance(self.store, RoutingStore):
            return self.store.location(info.name)
        return describe(self.settings.kb.store)

    def _target(self, name: str, principal: Caller, exist_ok: bool) -> str:
        """The stored name to create ``name`` as: the caller's tenant's own name, or the
        visible collection it already is (with ``exist_ok``). Another tenant's collection
        of that name changes nothing: the answer is the same as for a free name."""
        tenant = _tenant_of(principal)
        for stored in ([own_name(name, tenant)] if tenant is not None else []) + [name]:
            try:
                existing = self.store.get_collection(stored)
            except UnknownName:
                continue
            acl = acl_of(existing)
            if can_see(acl, principal):
                if not exist_ok:
                    raise InputError(f"collection {name!r} already exists (pass exist_ok=True)")
                return stored
            if tenant is None or acl.tenant == tenant:  # no namespace of its own to use
                raise InputError(f"collection name {name!r} is not available; choose another")
        return name if tenant is None else new_own_name(name, tenant)

    def collections(self, *, principal: Caller = None) -> list[CollectionInfo]:
        """The collections ``principal`` can see, by the names it knows them by."""
        shown = [self._shown(c, principal) for c in self.visible(principal)]
        return sorted(shown, key=lambda c: c.name)

    def collection(self, name: str, *, principal: Caller = None) -> CollectionInfo:
        return self._shown(self._info(name, principal), principal)

    def delete(self, name: str, *, principal: Caller = None) -> None:
        info = self._info(name, principal, change=True)
        with self._scoped(principal):
            self.store.delete_collection(info.name)

    def documents(
        self, name: str, *, limit: int = 100, offset: int = 0, principal: Caller = None
    ) -> list[DocumentInfo]:
        stored = self._info(name, principal).name
        with self._scoped(principal):
            docs = self.store.list_documents(stored, limit=limit, offset=offset)
        return docs if stored == name else [replace(d, collection=name) for d in docs]

    def remove(self, name: str, document_id: str, *, principal: Caller = None) -> bool:
        """Delete one document, by its id or the name it is shown by (a file's path relative
        to what was ingested, ``kb._names``); False when it wasn't there."""
        stored = self._info(name, principal, change=True).name
        with self._scoped(principal):
            if self.store.delete_document(stored, document_id):
                return True
            full = find_shown(self.store, stored, document_id)
            return full is not None and self.store.delete_document(stored, full)

    # -- ingest ------------------------------------------------------------------------

    def ingest(
        self,
        name: str,
        paths: Iterable[str | Path],
        *,
        metadata: Mapping[str, Any] | None = None,
        progress: Callable[[FileOutcome], None] | None = None,
        document_id: Callable[[Path], str] | None = None,
        source: Callable[[Path], str] | None = None,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        sync: bool = False,
        principal: Caller = None,
    ) -> IngestReport:
        """Ingest files and folders; bad files are reported, the rest ingested.

        A document's id is its absolute path and its recorded source the path relative to
        what was given, unless ``document_id`` and ``source`` map a path to others
        (uploads: the client's file name, not a temporary path). Inside folders only files
        the ``include``/``exclude`` globs select are read; ``sync`` removes the documents
        of files the folders no longer hold (see :func:`~unifind.kb.ingest.ingest_files`).
        """
        from unifind.kb.ingest import ingest_files

        info = self._info(name, principal, change=True)
        with self._scoped(principal):
            return ingest_files(
                self.store,
                info.name,
                list(paths),
                analyzer=get_analyzer(info.analyzer),
                embedder=self.collection_embedder(info),
                max_chars=self.settings.kb.chunk_chars,
                overlap=self.settings.kb.chunk_overlap,
                metadata=metadata,
                progress=progress,
                document_id=document_id,
                max_file_bytes=self.settings.kb.max_file_bytes,
                source=source,
                include=include,
                exclude=exclude,
                sync=sync,
            )

    def ingest_text(
        self,
        name: str,
        text: str,
        *,
        document_id: str,
        title: str = "",
        metadata: Mapping[str, Any] | None = None,
        principal: Caller = None,
    ) -> FileOutcome:
        """Ingest raw text as one document."""
        from unifind.kb.ingest import ingest_text

        info = self._info(name, principal, change=True)
        with self._scoped(principal):
            return ingest_text(
                self.store,
                info.name,
                text,
                document_id=document_id,
                title=title,
                analyzer=get_analyzer(info.analyzer),
                embedder=self.collection_embedder(info),
                max_chars=self.settings.kb.chunk_chars,
                overlap=self.settings.kb.chunk_overlap,
                metadata=metadata,
            )

    # -- search ------------------------------------------------------------------------

    async def search(self, req: SearchRequest, *, principal: Caller = None) -> SearchResult:
        """Hybrid search over the request's collections (the visible ones when none are named).

        A store that can't be reached answers ``degraded`` with its reason, naming the store
        without its password (DESIGN §3), instead of failing the request.
        """
        tenant = _tenant_of(principal)
        try:
            return relabel(await search_collections(self, req, principal=principal), tenant)
        except InputError as exc:  # e.g. a collection without embedder, by its stored name
            stored = [c.name for c in self.visible(principal)] if tenant else []
            raise relabel_error(exc, tenant, stored) from None
        except SourceError as exc:
            report = LegReport(
                leg="kb", backend=describe(self.settings.kb.store), stage="store",
                status=Status.DEGRADED, reason=exc.reason, error=str(exc),
            )  # fmt: skip
            return SearchResult(type="kb", query=req.query, reports=(report,))

    def search_sync(self, req: SearchRequest, *, principal: Caller = None) -> SearchResult:
        """Blocking form of :meth:`search` (for scripts; not inside a running event loop)."""
        return self._sync.run(self.search(req, principal=principal))
